"""The simulate API for Akin Legends: play teams and duel matches, refuse illegal setups and bad input."""

from typing import Any

import pytest

from legends.models import TeamSetup
from simulate.models import Match
from tests.conftest import assert_error_shape
from tests.simulate.logs import documented, served_log

pytestmark = pytest.mark.django_db

PLAY = "/api/simulate/legends/matches/"


def teams_setup(**team0) -> dict:
    return {
        "mode": "teams",
        "teams": [
            {"spirit": "akin", "players": [{"name": "Ann", "counter": 1}, {"name": "Ben", "counter": 3}], **team0},
            {"spirit": "yulin", "players": [{"name": "Cat", "counter": 2}, {"name": "Dan", "counter": 4}]},
        ],
    }


DUEL: dict[str, Any] = {
    "mode": "duel",
    "teams": [
        {"spirit": "akin", "players": [{"name": "Ann", "counter": 1}]},
        {"spirit": "yulin", "players": [{"name": "Cat", "counter": 2}]},
    ],
}


def play(client, payload, status=201):
    response = client.post(PLAY, payload, format="json")
    assert response.status_code == status, response.content
    return response.json()


def test_a_teams_match_is_played_and_stored(anon_client, catalogue):
    body = play(anon_client, {"mode": "teams", "setup": teams_setup(), "agents": ["greedy", "random", "greedy",
                                                                                 "random"], "seed": 5})
    assert body["game"] == "legends" and body["seed"] == 5
    assert body["winner"] in (0, 1, None)
    assert body["reason"] in ("defenses_destroyed", "mutual_destruction", "max_rounds", "max_actions")
    assert len(body["remaining_defenses"]) == 2
    if body["winner"] is not None:
        assert body["remaining_defenses"][1 - body["winner"]] == []
        assert body["remaining_defenses"][body["winner"]]
    assert body["agents"] == {"t0p0": "greedy", "t0p1": "random", "t1p0": "greedy", "t1p1": "random"}
    events = Match.objects.get(pk=body["id"]).events
    assert events[0]["type"] == "match_start" and events[-1]["type"] == "match_end"
    page = anon_client.get(body["log"], {"page_size": 5}).json()
    assert page["count"] == len(events)


def test_given_cards_are_used_and_the_rest_drawn(anon_client, catalogue):
    setup = teams_setup(protector="spy", defenses=["ember-veil", "dust-tower", "rain-spire"])
    body = play(anon_client, {"setup": setup, "agents": "greedy", "seed": 8})
    start = Match.objects.get(pk=body["id"]).events[0]
    team0, team1 = start["teams"]
    assert team0["protector"]["slug"] == "spy"
    assert [d["slug"] for d in team0["defenses"]] == ["ember-veil", "dust-tower", "rain-spire"]
    assert team1["protector"]["slug"] != "spy" and len(team1["defenses"]) == 3
    assert not {d["slug"] for d in team1["defenses"]} & {"ember-veil", "dust-tower", "rain-spire"}


def test_same_seed_same_log(anon_client, catalogue):
    payload = {"mode": "duel", "setup": DUEL, "agents": ["greedy", "random"], "seed": 21}
    first, second = play(anon_client, payload), play(anon_client, payload)
    assert Match.objects.get(pk=first["id"]).events == Match.objects.get(pk=second["id"]).events


def test_a_duel_with_one_agent_name_for_every_seat(anon_client, catalogue):
    body = play(anon_client, {"setup": DUEL, "agents": "random", "seed": 2})
    assert body["agents"] == {"t0p0": "random", "t1p0": "random"}
    start = Match.objects.get(pk=body["id"]).events[0]
    assert [len(team["defenses"]) for team in start["teams"]] == [2, 2]


def test_a_saved_setup(user, user_client, other_client, catalogue):
    saved = TeamSetup.objects.create(owner=user, name="Friday", mode="duel", teams=DUEL["teams"])
    body = play(user_client, {"setup": {"setup": saved.pk}, "seed": 4})
    assert body["setup"]["mode"] == "duel"
    response = other_client.post(PLAY, {"setup": {"setup": saved.pk}}, format="json")
    assert "setup.setup" in assert_error_shape(response, 400, "invalid")["fields"]


def test_an_illegal_setup_answers_every_violation(anon_client, catalogue):
    setup = {"mode": "duel", "teams": [
        {"spirit": "akin", "protector": "spy", "players": [{"name": "Ann", "counter": 1}]},
        {"spirit": "akin", "players": [{"name": "Cat", "counter": 1}]},
    ]}
    body = assert_error_shape(anon_client.post(PLAY, {"setup": setup}, format="json"), 400, "rule_violations")
    codes = {v["code"] for v in body["violations"]}
    assert {"protector_not_allowed", "spirit_duplicate", "counter_invalid"} <= codes
    assert Match.objects.count() == 0


@pytest.mark.parametrize("payload, field", [
    ({"setup": DUEL, "agents": ["greedy"]}, "agents"),
    ({"setup": DUEL, "agents": ["greedy", "genius"]}, "agents"),
    ({"setup": DUEL, "agents": 3}, "agents"),
    ({"setup": DUEL, "options": {"max_rounds": 0}}, "options.max_rounds"),
    ({"setup": DUEL, "options": {"tie_break": "random"}}, "options.tie_break"),
    ({"setup": DUEL, "seed": -5}, "seed"),
    ({"setup": DUEL, "mode": "teams"}, "mode"),
    ({"setup": {"teams": "x"}}, "setup"),
    ({"setup": {"setup": "x"}}, "setup"),
    ({"setup": {"mode": "duel", "teams": [{"spirit": "akin", "players": "x"}, {}]}}, "setup.teams"),
    ({"setup": {"teams": DUEL["teams"]}}, "mode"),
    ({"setup": None}, "setup"),  # no setup is a random one; a null one is refused
])
def test_bad_input_is_400(anon_client, catalogue, payload, field):
    body = assert_error_shape(anon_client.post(PLAY, payload, format="json"), 400, "invalid")
    assert any(key == field or key.startswith(field + ".") for key in body["fields"]), body
    assert Match.objects.count() == 0


def test_a_log_stored_with_an_earlier_schema_is_served_as_stored_and_fits_the_documented_log(anon_client, catalogue):
    """A match played under schema 2 (its seeds in the public match_start, redraws without their piles) keeps its
    log, and the API documents those events too."""
    body = play(anon_client, {"mode": "duel", "setup": DUEL, "seed": 9})
    match = Match.objects.get(pk=body["id"])
    events = match.events
    seeds = next(e for e in events if e["type"] == "seeds")
    old = []
    for e in events:
        if e["type"] == "seeds":
            continue
        e = dict(e)
        if e["type"] == "match_start":
            e.update(schema=2, seed=seeds["seed"], agent_seeds=seeds["agent_seeds"])
        elif e["type"] == "redraw":
            for key in ("short", "draw_pile", "discard_pile"):
                del e[key]
        old.append(e)
    match.events = old
    match.schema_version = 2
    match.save()
    served = served_log(anon_client, body["log"])
    assert served == old and "seed" in served[0]
    assert all(documented(event) for event in served)
    assert not documented({**served[0], "extra": 1})
