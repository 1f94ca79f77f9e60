"""The match page and the replay page through Django's test client: bad input is a readable 4xx, never a 500."""

import random
import uuid

import pytest
from django.urls import reverse
from rest_framework.throttling import ScopedRateThrottle

from realms.studies import command_army
from simulate.models import Match
from simulate.services import play_match

NEW = "/matches/new/"


def realms_post(**changes):
    data = {"game": "realms", "a_source": "random", "b_source": "random", "agent_a": "greedy", "agent_b": "greedy",
            "seed": "7"}
    return {**data, **changes}


def legends_post(**changes):
    data = {"game": "legends", "setup_source": "random", "mode": "duel", "agent_0": "greedy", "agent_1": "greedy",
            "seed": "7"}
    return {**data, **changes}


def test_the_form_of_each_game_shows(client, catalogue):
    page = client.get(NEW)
    assert page.status_code == 200
    assert b"Side a&#x27;s army" in page.content or b"Side a's army" in page.content
    page = client.get(NEW, {"game": "legends"})
    assert page.status_code == 200
    assert b"View as" not in page.content and b"Setup code" in page.content


@pytest.mark.parametrize("game", ["chess", "", "<script>", "x" * 5000])
def test_an_unknown_game_is_a_readable_400(client, catalogue, game):
    page = client.get(NEW, {"game": game})
    assert page.status_code == 400
    assert b"no game of that name" in page.content


@pytest.mark.parametrize("seed", ["abc", "-1", "1.5", str(2**63), "9" * 5000, "<b>1</b>"])
def test_a_bad_seed_is_shown_by_its_field(client, catalogue, seed):
    page = client.post(NEW, realms_post(seed=seed))
    assert page.status_code == 400
    assert b'id="seed-errors"' in page.content
    assert not Match.objects.exists()


@pytest.mark.parametrize("agent", ["nobody", "", "GREEDY", "<i>x</i>"])
def test_an_unknown_agent_is_shown_by_its_field(client, catalogue, agent):
    page = client.post(NEW, realms_post(agent_b=agent))
    assert page.status_code == 400
    assert b'id="agent_b-errors"' in page.content
    assert b"<i>x</i>" not in page.content


@pytest.mark.parametrize("code", ["not-a-code", "", "%%%", "A" * 300, "AQ"])
def test_a_bad_army_code_is_shown_by_its_side(client, catalogue, code):
    page = client.post(NEW, realms_post(a_source="code", a_code=code))
    assert page.status_code == 400
    body = page.content.decode()
    assert 'id="a-errors"><ul class="errorlist"' in body


def test_someone_elses_or_a_garbage_saved_army_is_refused(client, catalogue, user):
    client.force_login(user)
    for army in ("123", "abc", "", str(2**70)):
        page = client.post(NEW, realms_post(b_source="saved", b_army=army))
        assert page.status_code == 400, army
        assert 'id="b-errors"><ul class="errorlist"' in page.content.decode()


def test_an_unknown_source_is_refused(client, catalogue):
    page = client.post(NEW, realms_post(a_source="stolen"))
    assert page.status_code == 400
    assert b"Choose how this side" in page.content


@pytest.mark.parametrize("changes", [
    {"setup_source": "code", "setup_code": "garbage"},
    {"setup_source": "code", "setup_code": ""},
    {"setup_source": "saved", "setup_saved": "5"},
    {"setup_source": "saved", "setup_saved": "x"},
    {"mode": "triple"},
    {"setup_source": "other"},
    {"agent_1": "nobody"},
    {"seed": "seven"},
])
def test_bad_legends_input_is_shown_inline(client, catalogue, changes):
    page = client.post(NEW, legends_post(**changes))
    assert page.status_code == 400
    assert b'class="errorlist"' in page.content or b'id="form-errors"' in page.content
    assert not Match.objects.exists()


def test_a_valid_post_plays_and_opens_the_replay(client, catalogue):
    page = client.post(NEW, realms_post())
    match = Match.objects.get()
    assert page.status_code == 302 and page["Location"] == reverse("match-replay", args=[match.id])
    replay = client.get(page["Location"])
    assert replay.status_code == 200
    assert b'id="replay-data"' in replay.content
    page = client.post(NEW, legends_post(agent_1="random"))
    assert page.status_code == 302
    assert Match.objects.filter(game="legends").get().agents == {"t0p0": "greedy", "t1p0": "random"}


def test_the_same_seed_draws_the_same_random_armies(client, catalogue):
    client.post(NEW, realms_post(seed="99"))
    client.post(NEW, realms_post(seed="99"))
    first, second = Match.objects.order_by("created_at")
    assert first.setup == second.setup and first.events == second.events
    rng = random.Random(99)
    assert first.setup["armies"]["a"] == command_army("random", rng)


def test_an_unknown_match_is_404(client, catalogue):
    assert client.get(f"/matches/{uuid.uuid4()}/").status_code == 404
    assert client.get("/matches/not-a-uuid/").status_code == 404


def test_another_users_match_is_404(client, catalogue, user, other_user):
    army = command_army("random", random.Random(1))
    match, _ = play_match(game="realms", inputs={"armies": {"a": {"slots": army}, "b": {"slots": army}}}, seed=1,
                          user=other_user)
    client.force_login(user)
    assert client.get(reverse("match-replay", args=[match.id])).status_code == 404
    client.force_login(other_user)
    assert client.get(reverse("match-replay", args=[match.id])).status_code == 200


def test_past_the_simulate_rate_the_page_answers_429(client, catalogue, monkeypatch):
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"simulate": "1/minute", "batches": "1/minute"})
    assert client.post(NEW, realms_post()).status_code == 302
    page = client.post(NEW, realms_post())
    assert page.status_code == 429
    assert b"try again in" in page.content
    assert int(page["Retry-After"]) >= 1
    assert Match.objects.count() == 1


def test_a_saved_army_plays_and_the_match_is_listed_as_mine(client, catalogue, user):
    from realms.models import Army

    slots = command_army("random", random.Random(3))
    army = Army.objects.create(owner=user, name="<script>alert(1)</script>", slots=slots)
    client.force_login(user)
    form = client.get(NEW).content.decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in form and "<script>alert(1)</script>" not in form
    page = client.post(NEW, realms_post(a_source="saved", a_army=str(army.pk)))
    match = Match.objects.get()
    assert page.status_code == 302 and match.owner == user
    assert match.inputs["armies"]["a"] == {"army": army.pk}
    assert match.setup["armies"]["a"] == slots
    listed = client.get(NEW).content.decode()
    assert reverse("match-replay", args=[match.id]) in listed
    replay = client.get(reverse("match-replay", args=[match.id])).content.decode()
    assert "only you, signed in, can open it" in replay


def test_a_setup_by_code_and_a_saved_setup_play(client, catalogue, user):
    from legends.engine.setup import parse_teams
    from legends.models import TeamSetup
    from legends.setup_codes import encode_setup

    teams = [{"spirit": "akin", "players": [{"name": "Ann", "counter": 1}]},
             {"spirit": "yulin", "players": [{"name": "<b>Bo</b>", "counter": 2}]}]
    code = encode_setup("duel", parse_teams(teams))
    page = client.post(NEW, legends_post(setup_source="code", setup_code=code, agent_0="random"))
    assert page.status_code == 302
    match = Match.objects.get()
    assert match.setup["mode"] == "duel" and match.agents == {"t0p0": "random", "t1p0": "greedy"}
    replay = client.get(page["Location"]).content.decode()
    assert "<b>Bo</b>" not in replay.split('id="replay-data"')[0]

    saved = TeamSetup.objects.create(owner=user, name="Duel", mode="duel", teams=teams)
    client.force_login(user)
    page = client.post(NEW, legends_post(setup_source="saved", setup_saved=str(saved.pk), agent_1="random"))
    assert page.status_code == 302
    match = Match.objects.filter(owner=user).get()
    assert match.inputs["setup"] == {"setup": saved.pk}
    assert match.agents == {"t0p0": "greedy", "t1p0": "random"}


def test_an_illegal_army_shows_its_violations_by_its_side(client, catalogue):
    from realms.engine.army import Slot
    from realms.services import army_code

    slots = command_army("random", random.Random(3))[:5]
    code = army_code([Slot(card=s["card"], line=s["line"]) for s in slots])
    page = client.post(NEW, realms_post(b_source="code", b_code=code))
    assert page.status_code == 400
    body = page.content.decode()
    assert 'id="b-errors"' in body and 'class="violations"' in body.split('id="b-errors"')[1]
    assert "The armies break the army rules." in body


def test_a_long_log_is_cut_for_the_viewer(client, catalogue, monkeypatch):
    from simulate.pages import matches

    monkeypatch.setattr(matches, "REPLAY_EVENTS", 5)
    army = command_army("random", random.Random(1))
    match, _ = play_match(game="realms", inputs={"armies": {"a": {"slots": army}, "b": {"slots": army}}}, seed=1)
    page = client.get(reverse("match-replay", args=[match.id]))
    assert page.status_code == 200
    assert len(page.context["replay"]["events"]) == 5 == len(page.context["replay"]["texts"])
    assert f"first 5 of {len(match.events)} events" in page.content.decode()


def test_each_event_gets_its_own_play_by_play_lines(catalogue):
    from simulate.engine.runner import render_log
    from simulate.services import event_texts

    army = command_army("random", random.Random(2))
    match, _ = play_match(game="realms", inputs={"armies": {"a": {"slots": army}, "b": {"slots": army}}}, seed=2,
                          save=False)
    events = match.events
    texts = event_texts("realms", events)
    assert len(texts) == len(events)
    assert [line.strip() for text in texts if text for line in text.split("\n")] == \
        [line.strip() for line in render_log("realms", events).split("\n")]


def test_a_formation_round_drafts_both_armies(client, catalogue):
    page = client.post(NEW, realms_post(a_source="formation"))
    assert page.status_code == 400
    assert b"A Formation Round drafts both armies" in page.content
    page = client.post(NEW, realms_post(a_source="formation", b_source="formation"))
    assert page.status_code == 302
    match = Match.objects.get()
    assert match.inputs == {"formation": {}} and "collections" in match.setup
    assert client.get(page["Location"]).status_code == 200


def legal_code(seed: int) -> str:
    from realms.engine.army import Slot
    from realms.services import army_code

    return army_code([Slot(card=s["card"], line=s["line"]) for s in command_army("random", random.Random(seed))])


def side_errors(page, side: str) -> str:
    return page.content.decode().split(f'id="{side}-errors"')[1].split("</div>")[0]


@pytest.mark.parametrize("source", ["random", "formation"])
def test_an_army_code_filled_in_is_never_left_out_for_another_army(client, catalogue, source):
    code = legal_code(5)
    page = client.post(NEW, realms_post(a_source=source, a_code=code, b_source=source))
    assert page.status_code == 400
    chosen = {"random": "A random legal army", "formation": "Drafted in a Formation Round"}[source]
    message = side_errors(page, "a")
    assert "Army code of side a is filled in, but “" + chosen in message
    assert "choose “Army code” to use it, or clear it." in message
    assert not Match.objects.exists()


def test_a_code_and_a_saved_army_both_filled_in_are_refused(client, catalogue, user):
    from realms.models import Army

    army = Army.objects.create(owner=user, name="Mine", slots=command_army("random", random.Random(3)))
    client.force_login(user)
    page = client.post(NEW, realms_post(b_source="code", b_code=legal_code(5), b_army=str(army.pk)))
    assert page.status_code == 400
    assert "Saved army of side b is filled in, but “Army code” is chosen for side b&#x27;s army" in side_errors(page, "b")
    assert not Match.objects.exists()


def test_the_one_army_filled_in_plays_when_the_chosen_source_has_none(client, catalogue, user):
    from realms.models import Army

    slots = command_army("random", random.Random(3))
    army = Army.objects.create(owner=user, name="Mine", slots=slots)
    code = legal_code(5)
    client.force_login(user)
    page = client.post(NEW, realms_post(a_source="code", a_code="", a_army=str(army.pk),
                                        b_source="saved", b_army="", b_code=code))
    assert page.status_code == 302
    match = Match.objects.get()
    assert match.inputs["armies"] == {"a": {"army": army.pk}, "b": {"code": code}}
    assert match.setup["armies"]["a"] == slots


def legends_code(mode: str = "duel") -> tuple[str, list[dict]]:
    from legends.engine.setup import parse_teams
    from legends.setup_codes import encode_setup

    per_team = 1 if mode == "duel" else 2
    teams = [{"spirit": spirit, "players": [{"name": f"{spirit.title()} {p}", "counter": t + 2 * p + 1}
                                            for p in range(per_team)]}
             for t, spirit in enumerate(("akin", "yulin"))]
    return encode_setup(mode, parse_teams(teams)), teams


def test_a_setup_code_filled_in_is_never_left_out_for_a_random_setup(client, catalogue):
    code, _ = legends_code()
    page = client.post(NEW, legends_post(setup_source="random", setup_code=code))
    assert page.status_code == 400
    errors = page.content.decode().split('id="setup-errors"')[1]
    assert "Setup code is filled in, but “Random setup (protectors and defenses drawn)” is chosen for the setup" in errors
    assert not Match.objects.exists()


def test_the_setup_filled_in_plays_when_the_chosen_source_has_none(client, catalogue):
    code, teams = legends_code()
    page = client.post(NEW, legends_post(setup_source="saved", setup_saved="", setup_code=code))
    assert page.status_code == 302
    match = Match.objects.get()
    assert match.inputs["setup"]["teams"][1]["players"] == teams[1]["players"]


def test_a_mode_picked_must_be_the_setup_codes(client, catalogue):
    code, _ = legends_code("teams")
    page = client.post(NEW, legends_post(setup_source="code", setup_code=code, mode="duel"))
    assert page.status_code == 400
    assert "not &#x27;duel&#x27;" in page.content.decode().split('id="mode-errors"')[1]
    assert not Match.objects.exists()
    # The mode first shown says nothing: a duel's code plays a duel.
    code, _ = legends_code("duel")
    page = client.post(NEW, legends_post(setup_source="code", setup_code=code, mode="teams"))
    assert page.status_code == 302 and Match.objects.get().setup["mode"] == "duel"


def test_a_link_fills_in_an_army_or_a_setup_and_chooses_its_source(client, catalogue):
    code = legal_code(5)
    html = client.get(NEW, {"game": "realms", "a_code": code}).content.decode()
    assert f'id="a-code" value="{code}"' in html
    assert 'id="a-source-code" value="code" checked' in html
    assert 'id="b-source-random" value="random" checked' in html
    setup, _ = legends_code()
    html = client.get(NEW, {"game": "legends", "setup_code": setup}).content.decode()
    assert f'id="setup-code" value="{setup}"' in html
    assert 'id="setup-source-code" value="code" checked' in html
