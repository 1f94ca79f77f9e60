"""The study pages through Django's test client: bad input answers inline or as a 4xx page, never a 500;
a study posted from the form is stored and handed over as the API's."""

import json
import re

import pytest
from django.urls import reverse
from rest_framework.settings import api_settings
from rest_framework.throttling import ScopedRateThrottle

from cardsdb.api.parsers import MAX_JSON_DEPTH
from realms.models import Character
from simulate import batches, studies
from simulate.models import Batch
from simulate.pages import charts
from simulate.study_kinds import kind_names
from tests.factories import faction_army

pytestmark = pytest.mark.django_db

NEW = reverse("study-new")


def post(client, data, game="realms", **extra):
    # The agents as the form offers them (a study's default agent in both seats).
    form = {"kind": "matchup", "count": "4", "army_a": "random", "army_b": "random", "agent_a": "softmax",
            "agent_b": "softmax", "patch_field": "atk" if game == "realms" else "copies", "mode": "teams", **data}
    return client.post(f"{NEW}?game={game}", form, **extra)


def errors_of(response) -> str:
    """The text of the form's refusal box and inline errors."""
    html = response.content.decode()
    return " ".join(re.sub(r"<[^>]+>", " ", part) for part in
                    re.findall(r'role="alert".*?</div>|<ul class="errorlist".*?</ul>', html, re.S))


def test_the_form_offers_every_kind_for_both_games(client, catalogue):
    for game, heading in (("realms", "Echo Realms"), ("legends", "Akin Legends")):
        response = client.get(f"{NEW}?game={game}")
        html = response.content.decode()
        assert response.status_code == 200 and f"New study: {heading}" in html
        for kind in kind_names():
            assert f'<option value="{kind}"' in html
        assert "Advanced: JSON inputs" in html


def test_an_unknown_game_is_a_400_page(client):
    response = client.get(f"{NEW}?game=chess")
    assert response.status_code == 400 and b"Unknown game" in response.content


def test_a_matchup_from_the_simple_fields_is_stored_as_the_api_stores_it(client, catalogue, handed_over,
                                                                         django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = post(client, {"count": "6", "seed": "12", "swap_sides": "on", "agent_b": "random"})
    batch = Batch.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("study-detail", args=[batch.id])
    assert (batch.kind, batch.count, batch.seed, batch.swap_sides) == ("matchup", 6, 12, True)
    assert batch.inputs["agents"] == {"a": "softmax", "b": "random"}
    assert len(batch.inputs["armies"]["a"]["slots"]) == 7
    assert batch.client.startswith("address:") and handed_over == [batch.id]


def test_a_signed_in_users_study_is_theirs_and_listed(client, catalogue, handed_over, user):
    client.force_login(user)
    post(client, {"kind": "field", "count": "3"})
    batch = Batch.objects.get()
    # Counted against the account and against the address (at most five unfinished of each).
    assert (batch.owner, batch.client) == (user, f"user:{user.pk}@127.0.0.1")
    listing = client.get(NEW).content.decode()
    assert reverse("study-detail", args=[batch.id]) in listing


def test_json_inputs_replace_the_simple_fields(client, catalogue, handed_over):
    armies = {"a": {"slots": faction_army("arcane")}, "b": {"slots": faction_army("iron-kingdom")}}
    post(client, {"kind": "ladder", "count": "2", "inputs_json": json.dumps({"armies": armies,
                                                                               "levels": ["random", "greedy"]})})
    batch = Batch.objects.get()
    assert batch.inputs == {"armies": armies, "levels": ["random", "greedy"]} and batch.count == 4


@pytest.mark.parametrize("data, where", [
    ({"kind": "tournament"}, "kind"),
    ({"count": "0"}, "count"),
    ({"count": "100001"}, "count"),
    ({"count": "lots"}, "count"),
    ({"seed": "-1"}, "seed"),
    ({"seed": str(2**63)}, "seed"),
    ({"until_ci_width": "0.001"}, "until_ci_width"),
    ({"army_a": "not-an-army-code"}, "armies.a.code"),
    ({"army_a": "faction:no-such-faction"}, "No legal army"),
    ({"kind": "gauntlet", "opponents": "random\n" * 17}, "At most 16"),
    ({"kind": "whatif", "patch_card": "no-such-card", "patch_value": "3"}, "patch.0.card"),
    ({"kind": "whatif"}, "patch"),
    ({"kind": "gauntlet", "opponents": "random", "until_ci_width": "0.2"}, "until_ci_width"),
    ({"inputs_json": "not json"}, "JSON parse error"),
    ({"inputs_json": "[1, 2]"}, "JSON object"),
    ({"inputs_json": "[" * (MAX_JSON_DEPTH + 5) + "]" * (MAX_JSON_DEPTH + 5)}, "nested deeper"),
    ({"inputs_json": '{"armies": {"a": {"colour": 1}}}'}, "armies.a.colour"),
    ({"inputs_json": '{"armies": 5, "opponents": [], "nonsense": true}'}, "nonsense"),
    ({"inputs_json": '{"armies": {"a": {"code": "\\u0000"}, "b": {"code": "x"}}}'}, "Null characters"),
    ({"inputs_json": "1" * 5000}, "digits"),
])
def test_bad_input_is_answered_inline(client, catalogue, handed_over, data, where):
    response = post(client, data)
    assert response.status_code == 400, response.content[:300]
    inline = f'id="id_{where}_error"' in response.content.decode()  # a form field's own error list
    assert inline or where in errors_of(response)
    assert Batch.objects.count() == 0


def test_a_huge_json_body_is_refused_before_it_is_read(client, catalogue, handed_over, settings):
    response = post(client, {"inputs_json": '{"a": "' + "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 10) + '"}'})
    assert response.status_code == 413 and Batch.objects.count() == 0
    assert f"The request body is larger than {settings.DATA_UPLOAD_MAX_MEMORY_SIZE:,} bytes." in response.content.decode()


def test_an_illegal_army_lists_its_violations(client, catalogue, handed_over):
    card = Character.objects.order_by("slug").first()
    army = {"slots": [{"card": card.slug, "line": "vanguard"}] * 2}
    response = post(client, {"inputs_json": json.dumps({"armies": {"a": army, "b": army}})})
    assert response.status_code == 400
    assert '<ul class="violations">' in response.content.decode()


def test_a_study_too_big_without_a_broker_says_so(client, catalogue, handed_over):
    response = post(client, {"kind": "ladder", "count": "100000"})
    assert response.status_code == 400 and "at most 200" in errors_of(response).replace(",", "")


def test_the_sixth_unfinished_study_is_refused_with_a_message(client, catalogue, handed_over):
    for _ in range(batches.MAX_UNFINISHED):
        assert post(client, {}).status_code == 302
    response = post(client, {})
    assert response.status_code == 429
    assert "You have 5 batches queued or running" in errors_of(response)
    assert Batch.objects.count() == batches.MAX_UNFINISHED


def test_starting_studies_is_throttled_like_the_api(client, catalogue, handed_over, monkeypatch):
    monkeypatch.setitem(ScopedRateThrottle.THROTTLE_RATES, "batches", "2/hour")
    assert api_settings.DEFAULT_THROTTLE_CLASSES  # the service's rates apply as well
    assert [post(client, {}).status_code for _ in range(2)] == [302, 302]
    response = post(client, {})
    assert response.status_code == 429 and b"try again in" in response.content
    assert Batch.objects.count() == 2


def test_a_designer_starts_studies_at_the_designers_rate(client, catalogue, handed_over, monkeypatch, staff):
    monkeypatch.setitem(ScopedRateThrottle.THROTTLE_RATES, "batches", "2/hour")
    monkeypatch.setitem(ScopedRateThrottle.THROTTLE_RATES, "designer_batches", "3/hour")
    client.force_login(staff)
    assert [post(client, {}).status_code for _ in range(4)] == [302, 302, 302, 429]
    assert Batch.objects.count() == 3


def test_legends_studies_start_from_the_simple_fields(client, catalogue, handed_over):
    for kind in ("matchup", "gauntlet", "matrix", "field", "ladder"):
        levels = {"levels": ["greedy"]} if kind == "ladder" else {}
        response = post(client, {"kind": kind, "count": "2", "mode": "duel", **levels}, game="legends")
        assert response.status_code == 302, errors_of(response)
    kinds = set(Batch.objects.values_list("kind", flat=True))
    assert kinds == {"matchup", "gauntlet", "matrix", "field", "ladder"}
    assert Batch.objects.get(kind="field").inputs == {"mode": "duel"}


def test_an_unknown_study_is_404(client):
    for name in ("study-detail", "study-progress"):
        assert client.get(reverse(name, args=["00000000-0000-0000-0000-000000000000"])).status_code == 404
    assert client.get("/studies/not-a-uuid/").status_code == 404


def test_another_users_study_is_404_and_cancel_takes_post_only(client, catalogue, user, other_user):
    batch = batches.create_batch(game="realms", inputs={"armies": {"a": {"slots": faction_army("arcane")},
                                                                  "b": {"slots": faction_army("tribal")}}},
                                 count=2, seed=1, user=other_user)
    client.force_login(user)
    assert client.get(reverse("study-detail", args=[batch.id])).status_code == 404
    assert client.post(reverse("study-cancel", args=[batch.id])).status_code == 404
    client.force_login(other_user)
    assert client.get(reverse("study-cancel", args=[batch.id])).status_code == 405
    assert client.post(reverse("study-cancel", args=[batch.id])).status_code == 302
    batch.refresh_from_db()
    assert batch.status == Batch.Status.CANCELLED


def test_a_running_study_polls_and_a_finished_one_does_not(client, catalogue):
    batch = batches.create_batch(game="realms", inputs={"armies": {"a": {"slots": faction_army("arcane")},
                                                                  "b": {"slots": faction_army("tribal")}}},
                                 count=3, seed=1)
    progress = reverse("study-progress", args=[batch.id])
    html = client.get(reverse("study-detail", args=[batch.id])).content.decode()
    assert f'hx-get="{progress}"' in html and 'hx-trigger="every 1s"' in html
    assert '<progress value="0" max="3"' in html and "0 of 3" in html
    batches.play_here(batch.id)
    fragment = client.get(progress).content.decode()
    assert "hx-trigger" not in fragment and 'hx-swap-oob="innerHTML"' in fragment and "3 of 3" in fragment
    assert 'role="img"' in fragment


def test_an_unknown_sort_is_a_400_page(client, catalogue):
    batch = batches.create_batch(game="realms", inputs={}, kind="field", count=2, seed=1)
    assert client.get(reverse("study-detail", args=[batch.id]), {"sort": "<script>"}).status_code == 400
    assert client.get(reverse("study-detail", args=[batch.id]), {"sort": "-delta"}).status_code == 200


def finished(game, kind, inputs, count=2, **extra):
    """A study played to its end here, as the background thread would play it."""
    batch = batches.create_batch(game=game, kind=kind, inputs=inputs, count=count, seed=5, **extra)
    batch = batches.play_here(batch.id)
    assert batch.status == Batch.Status.DONE, batch.error
    return batch


def test_every_kind_of_report_renders_for_both_games(client, catalogue, monkeypatch):
    monkeypatch.setattr(studies, "CHUNK_MATCHES", 50)
    armies = {"a": {"slots": faction_army("arcane")}, "b": {"slots": faction_army("tribal")}}
    card = armies["a"]["slots"][0]["card"]
    cases = [
        (finished("realms", "gauntlet", {"subject": armies["a"], "opponents": [armies["b"], armies["b"]]}),
         ["The subject against each opponent", "Opponent 2"]),
        (finished("realms", "ladder", {"armies": armies, "levels": ["random", "greedy"]}),
         ["Both sides played by each agent level", ">greedy<"]),
        (finished("realms", "whatif", {"base": "field", "patch": [{"card": card, "changes": {"atk": 29}}]}, count=6),
         ["The patched cards' rows", reverse("realms-card", args=[card])]),
        (finished("legends", "field", {"mode": "duel"}, count=4),
         ["Protectors", "Defense cards", "Summoning cards", "/legends/cards/"]),
    ]
    for batch, texts in cases:
        html = client.get(reverse("study-detail", args=[batch.id])).content.decode()
        for text in texts:
            assert text in html, (batch.kind, text)


def test_card_names_in_a_report_are_text(client, catalogue):
    batch = finished("realms", "field", {}, count=4)
    slug = batch.results["cards"][0]["card"]
    Character.objects.filter(slug=slug).update(name="<script>alert(1)</script>")
    html = client.get(reverse("study-detail", args=[batch.id])).content.decode()
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def realms_code(faction: str) -> str:
    from realms.engine.army import Slot
    from realms.services import army_code

    return army_code([Slot(card=s["card"], line=s["line"]) for s in faction_army(faction)])


def field_error(response, field: str) -> str:
    """The text of a field's own error list."""
    found = re.search(rf'<ul class="errorlist" id="id_{field}_error">(.*?)</ul>', response.content.decode(), re.S)
    return re.sub(r"<[^>]+>", " ", found.group(1)) if found else ""


def a_patch() -> dict[str, str]:
    """A patch of a card the arcane army fields (a what-if needs one)."""
    return {"patch_card": faction_army("arcane")[0]["card"], "patch_field": "atk", "patch_value": "29"}


@pytest.mark.parametrize("data, field, said", [
    ({"kind": "gauntlet", "opponents": "random", "army_b": "CODE"}, "army_b",
     "Army b is filled in, but “Gauntlet” is chosen for the kind of study, which leaves it out: choose “Matchup”, "
     "“What-if”, “Sweep” or “Ladder” to use it, or clear it."),
    ({"kind": "sweep", "sweep_base": "field", "army_a": "CODE", "sweep_card": "elven-spellblade",
      "sweep_field": "atk", "sweep_values": "6..8"}, "army_a",
     "Army a is filled in, but “a field” is chosen for the sweep, which leaves it out: choose “the matchup above”"),
    ({"kind": "matchup", "opponents": "random\nfaction:arcane"}, "opponents",
     "Opponents (gauntlet) is filled in, but “Matchup” is chosen for the kind of study"),
    ({"kind": "field", "agent_b": "random"}, "agent_b", "Agent of side b is filled in, but “Field” is chosen"),
    ({"kind": "whatif", "base": "field", "army_a": "CODE", "patch": True}, "army_a",
     "Army a is filled in, but “a field” is chosen for the what-if, which leaves it out: choose “the matchup above”"),
    ({"kind": "whatif", "base": "matchup", "army_a": "CODE", "sets": "core", "patch": True}, "sets",
     "Card sets (field) is filled in, but “the matchup above” is chosen for the what-if"),
    ({"kind": "matrix", "factions": "on", "entrants": "faction:arcane\nfaction:tribal"}, "entrants",
     "Entrants (matrix) is filled in, but “Every faction&#x27;s strongest army as the entrants” is chosen for the "
     "matrix, which leaves it out: untick"),
    ({"kind": "matchup", "army_a": "CODE", "inputs_json": "JSON"}, "army_a",
     "Army a is filled in, but “the JSON inputs” is chosen for the study&#x27;s inputs, which leaves it out: empty "
     "the JSON inputs to use it, or clear it."),
])
def test_an_input_the_study_would_leave_out_is_refused_by_its_field(client, catalogue, handed_over, data, field,
                                                                     said):
    armies = {"a": {"slots": faction_army("tribal")}, "b": {"slots": faction_army("abyssal")}}
    given = {"CODE": realms_code("arcane"), "JSON": json.dumps({"armies": armies})}
    data = {name: given.get(value, value) for name, value in data.items()}
    if data.pop("patch", False):
        data.update(a_patch())
    response = post(client, data)
    assert response.status_code == 400
    assert said.replace("&#x27;", "'") in field_error(response, field).replace("&#x27;", "'")
    assert Batch.objects.count() == 0


def test_a_link_fills_in_the_study_form(client, catalogue):
    code = realms_code("arcane")
    html = client.get(NEW, {"game": "realms", "army_a": code}).content.decode()
    assert re.search(rf'<input[^>]*name="army_a"[^>]*value="{code}"', html)
    html = client.get(NEW, {"game": "realms", "opponents": "faction:arcane"}).content.decode()
    assert '<option value="gauntlet" selected>' in html
    setup, _ = legends_setup_code("duel")
    html = client.get(NEW, {"game": "legends", "setup_code": setup}).content.decode()
    assert re.search(rf'<input[^>]*name="setup_code"[^>]*value="{re.escape(setup)}"', html)


def legends_setup_code(mode: str) -> tuple[str, list[dict]]:
    from legends.engine.setup import parse_teams
    from legends.setup_codes import encode_setup

    per_team = 1 if mode == "duel" else 2
    teams = [{"spirit": spirit, "players": [{"name": f"{spirit.title()} {p}", "counter": t + 2 * p + 1}
                                            for p in range(per_team)]}
             for t, spirit in enumerate(("akin", "yulin"))]
    return encode_setup(mode, parse_teams(teams)), teams


@pytest.mark.parametrize("kind", ["matchup", "gauntlet", "matrix"])
def test_a_legends_study_plays_the_setup_code_given(client, catalogue, handed_over, kind):
    code, teams = legends_setup_code("duel")
    response = post(client, {"kind": kind, "count": "2", "setup_code": code, "agent_b": "random"}, game="legends")
    assert response.status_code == 302, errors_of(response)
    inputs = Batch.objects.get().inputs
    assert inputs["mode"] == "duel" and inputs["agents"] == ["softmax", "random"]
    played = {"matchup": lambda: inputs["setup"]["teams"], "gauntlet": lambda: [inputs["subject"], *inputs["opponents"]],
              "matrix": lambda: inputs["entrants"]}[kind]()
    assert [[p["name"] for p in team["players"]] for team in played] == [["Akin 0"], ["Yulin 0"]]


def test_a_bad_setup_code_or_another_mode_is_refused_by_its_field(client, catalogue, handed_over):
    response = post(client, {"setup_code": "garbage"}, game="legends")
    assert response.status_code == 400 and "Bad setup code" in field_error(response, "setup_code")
    code, _ = legends_setup_code("teams")
    response = post(client, {"setup_code": code, "mode": "duel"}, game="legends")
    assert response.status_code == 400
    assert "The setup code is a teams setup, not duel" in field_error(response, "mode")
    response = post(client, {"kind": "field", "setup_code": code}, game="legends")
    assert response.status_code == 400
    assert "Setup code is filled in, but “Field” is chosen for the kind of study" in field_error(response, "setup_code")
    assert Batch.objects.count() == 0


def text_of(html: str) -> str:
    """The page's text, tags removed and spaces folded."""
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).replace("&#x27;", "'")
    return re.sub(r" ([).,;])", r"\1", text)


def headline_of(html: str) -> str:
    """The text of the report's first panel, the headline."""
    return text_of(html.split('class="panel headline"', 1)[1].split(">", 1)[1].split("</section>", 1)[0])


def test_a_field_report_leads_with_its_cards_by_delta(client, catalogue):
    batch = finished("realms", "field", {}, count=20)
    results = batch.results
    html = client.get(reverse("study-detail", args=[batch.id])).content.decode()
    headline = headline_of(html)
    assert headline.startswith(" Cards by delta: the win rate of the sides fielding one less")
    assert f"Every match: 20 matches, {results['draws']} drawn" in headline
    assert "Win rate of side a" not in html
    top, bottom = results["cards"][0], results["cards"][-1]
    for card in (top, bottom):
        name = Character.objects.get(slug=card["card"]).name
        assert f"{name} {charts.points(card['delta'])} {charts.interval(card['delta_ci'], charts.points)}" in headline
    # Both sides are drawn alike: never swapped, whatever the request said.
    assert "The sides were never swapped in this study." in text_of(html)


def test_a_whatif_report_leads_with_the_paired_difference(client, catalogue):
    armies = {"a": {"slots": faction_army("arcane")}, "b": {"slots": faction_army("tribal")}}
    patch = [{"card": armies["a"]["slots"][0]["card"], "changes": {"atk": 29}}]
    batch = finished("realms", "whatif", {"armies": armies, "patch": patch}, count=6)
    results = batch.results
    headline = headline_of(client.get(reverse("study-detail", args=[batch.id])).content.decode())
    difference, baseline = results["difference"], results["baseline"]
    assert headline.startswith(" Patched less baseline: side a's win rate, paired by seed")
    assert (f"{charts.points(difference['win_rate'])} (95% interval "
            f"{charts.interval(difference['ci'], charts.points)})") in headline
    assert (f"Baseline (side a): W {baseline['wins']} · D {baseline['draws']} · L {baseline['losses']} of 6"
            in headline)
    assert f"McNemar's exact test p = {charts.probability(results['p_value'])}" in headline


def test_a_matrix_report_leads_with_its_standings_and_says_it_swapped_sides(client, catalogue):
    entrants = [{"slots": faction_army(faction)} for faction in ("arcane", "tribal", "shadow")]
    batch = finished("realms", "matrix", {"entrants": entrants}, count=2)
    assert not batch.swap_sides  # as requested; a matrix swaps all the same
    html = client.get(reverse("study-detail", args=[batch.id])).content.decode()
    assert "Sides swapped every second match" in text_of(html)
    headline = headline_of(html)
    assert headline.startswith(" Standings: each entrant's mean win rate against the others")
    assert f"Every match: 6 matches, {batch.results['draws']} drawn" in headline
    for standing in batch.results["standings"]:
        assert f"{standing['name']} {charts.pct(standing['mean_win_rate'])}" in headline
    assert "As given" in text_of(html) and "Swapped" in text_of(html)


def test_a_matchup_report_leads_with_side_as_win_rate_and_its_draws(client, catalogue):
    armies = {"a": {"slots": faction_army("arcane")}, "b": {"slots": faction_army("tribal")}}
    batch = finished("realms", "matchup", {"armies": armies}, count=6, swap_sides=True)
    results = batch.results
    html = client.get(reverse("study-detail", args=[batch.id])).content.decode()
    headline = headline_of(html)
    assert headline.startswith(f" Win rate of side a {charts.pct(results['win_rate'])}")
    assert (f"Side a: W {results['wins']} · D {results['draws']} · L {results['losses']} of 6 "
            f"(draws {charts.pct(results['draws'] / 6)})") in headline
    for half, name in (("a", "As given"), ("b", "Swapped")):
        row = results["by_first"][half]
        assert f"{name} {charts.pct(row['win_rate'])}" in text_of(html)
    assert "first seat" not in text_of(html).lower()


def test_an_army_search_starts_from_the_form_with_its_niches_ticked(client, catalogue, handed_over):
    response = post(client, {"kind": "search", "count": "400", "descriptors": ["vanguard", "factions"]})
    assert response.status_code == 302, errors_of(response)
    batch = Batch.objects.get(kind="search")
    assert batch.inputs["descriptors"] == ["vanguard", "factions"] and batch.count == 400
    response = post(client, {"kind": "search", "count": "400", "descriptors": ["vanguard", "factions", "mean_spd"]})
    assert response.status_code == 400 and "descriptors" in errors_of(response).lower()
