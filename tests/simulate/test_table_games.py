"""Table games through the API: a game played with physical cards, both seats people, whose seats may change what
stands on the table between decisions (HP by hand, free effects), take back the game's last move whoever made
it, and whose end is stored as a match with its whole log, which the strict auditor passes."""

from __future__ import annotations

import random
from typing import Any

import pytest

from simulate.models import Match, SeatedGame
from tests.conftest import assert_error_shape
from tests.engine.audit import audit
from tests.factories import faction_army
from tests.simulate.test_legends_matches_api import DUEL
from tests.simulate.test_seated_games import REALMS, armies, links, opened  # noqa: F401  (armies: a fixture)

PEOPLE = {"a": "person", "b": "person"}


@pytest.fixture
def table(anon_client, armies):  # noqa: F811
    game = opened(anon_client, REALMS, {"armies": armies, "seats": PEOPLE, "table": True, "seed": 9})
    return links(game)


def unit_of(view: dict[str, Any], uid: str) -> dict[str, Any]:
    return next(u for u in view["observation"]["units"] if u["id"] == uid)


def changed(client, link: str, change: list[Any], **extra: Any) -> dict[str, Any]:
    response = client.post(link + "table-changes/", {"change": change, **extra}, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def test_any_seat_moves_hp_by_hand_and_both_seats_see_it(anon_client, table):
    view = anon_client.get(table["b"]).json()
    assert view["table"] is True
    target = unit_of(view, "a1")
    after = changed(anon_client, table["b"], ["hp", "a1", -4], version=view["version"])
    assert unit_of(after, "a1")["hp"] == target["hp"] - 4
    assert unit_of(anon_client.get(table["a"]).json(), "a1")["hp"] == target["hp"] - 4
    assert after["version"] == view["version"] + 1 and after["moves"] == view["moves"] + 1
    words = " ".join(anon_client.get(table["a"]).json()["texts"])
    assert "4" in words and "by hand" in words


def test_a_free_effect_stands_with_its_duration_and_is_taken_off(anon_client, table):
    view = changed(anon_client, table["a"], ["effect", "b1", "debuff", "atk", 2, 3])
    effect = unit_of(view, "b1")["effects"][-1]
    assert (effect["kind"], effect["stat"], effect["amount"], effect["until"]) == ("debuff", "atk", 2, 3)
    view = changed(anon_client, table["a"], ["remove", "b1", effect["eid"]])
    assert all(e["eid"] != effect["eid"] for e in unit_of(view, "b1")["effects"])


def test_undo_by_either_seat_takes_back_the_last_change_whoever_made_it(anon_client, table):
    before = anon_client.get(table["a"]).json()
    changed(anon_client, table["a"], ["hp", "b2", -3])
    other = anon_client.get(table["b"]).json()
    assert other["can_undo"]
    undone = anon_client.post(table["b"] + "undo/", {"version": other["version"]}, format="json")
    assert undone.status_code == 200
    assert unit_of(undone.json(), "b2")["hp"] == unit_of(before, "b2")["hp"]
    assert undone.json()["moves"] == before["moves"]


@pytest.mark.parametrize(("change", "words"), [
    (["hp", "a1", 0], "delta other than 0"),
    (["hp", "zz", -1], "no living unit"),
    (["effect", "a1", "taunt", None, None, 2], "kind one of"),
    (["remove", "a1", 999], "No effect 999"),
    ("hp", "one of hp, effect, remove"),
])
def test_a_change_not_possible_is_refused_saying_why(anon_client, table, change, words):
    before = anon_client.get(table["a"]).json()
    response = anon_client.post(table["a"] + "table-changes/", {"change": change}, format="json")
    assert_error_shape(response, 400, "illegal_change")
    assert words in response.json()["message"]
    assert anon_client.get(table["a"]).json()["version"] == before["version"]


def test_a_stale_version_and_a_game_not_at_a_table_are_conflicts(anon_client, armies, table):  # noqa: F811
    view = anon_client.get(table["a"]).json()
    changed(anon_client, table["b"], ["hp", "a1", -1])
    stale = anon_client.post(table["a"] + "table-changes/", {"change": ["hp", "a1", -1], "version": view["version"]},
                             format="json")
    assert_error_shape(stale, 409, "conflict")
    # Left out, the version is the game's as it stands: a change queued offline still lands.
    changed(anon_client, table["a"], ["hp", "a1", -1])
    plain = links(opened(anon_client, REALMS, {"armies": armies, "seats": {"a": "person", "b": "greedy"}}))
    refused = anon_client.post(plain["a"] + "table-changes/", {"change": ["hp", "b1", -1]}, format="json")
    assert refused.status_code == 409
    assert "table game" in refused.json()["message"]


def test_a_table_seats_people_only_and_only_a_game_that_takes_changes(anon_client, armies, catalogue):  # noqa: F811
    with_agent = anon_client.post(REALMS, {"armies": armies, "seats": {"a": "person", "b": "greedy"}, "table": True},
                                  format="json")
    assert_error_shape(with_agent, 400)
    assert "seats.b" in with_agent.json()["fields"]
    legends = anon_client.post("/api/simulate/legends/games/",
                               {"setup": DUEL, "seats": {"t0p0": "person", "t1p0": "person"}, "table": True},
                               format="json")
    assert legends.status_code == 400
    assert "table" in legends.json()["fields"]


def test_a_finished_table_game_is_a_match_whose_log_keeps_every_rule(anon_client, table):
    pick = random.Random(4)
    view = anon_client.get(table["a"]).json()
    for _ in range(3000):
        if view["status"] == "finished":
            break
        if pick.random() < 0.25:  # a knock by hand on a living unit of either side
            living = [u for u in view["observation"]["units"] if u["alive"]]
            view = changed(anon_client, table["a"], ["hp", pick.choice(living)["id"], pick.choice([-6, -2, 3])])
            continue
        player = view["turn"]
        deciding = view if view["seat"] == player else anon_client.get(table[player]).json()
        moved = anon_client.post(table[player] + "actions/", {"index": pick.randrange(len(deciding["legal"]))},
                                 format="json")
        assert moved.status_code == 200, moved.content
        view = moved.json()
    assert view["status"] == "finished" and view["match"]
    match = Match.objects.get(pk=view["match"])
    row = SeatedGame.objects.get(pk=view["id"])
    assert row.table and match.inputs["moves"] == row.moves
    assert any(move[0] == "table" for move in row.moves)
    assert any(e["type"] == "table_change" for e in match.events)
    assert audit(match.events) == []
    assert anon_client.get(f"/api/simulate/matches/{match.pk}/").status_code == 200
    replay = anon_client.get(f"/matches/{match.pk}/")  # the replay viewer plays the log back, changes included
    assert replay.status_code == 200 and "replay" in replay.content.decode().lower()


def finish_by_hand(client, link: str, losing: str) -> dict[str, Any]:
    """Every unit of the `losing` side brought to 0 HP at the table: the game ends at once (R16)."""
    view = client.get(link).json()
    for unit in [u for u in view["observation"]["units"] if u["side"] == losing and not u["summon"]]:
        if view["status"] == "finished":
            break
        if next(u for u in view["observation"]["units"] if u["id"] == unit["id"])["alive"]:
            view = changed(client, link, ["hp", unit["id"], -999])
    assert view["status"] == "finished" and view["result"]["winner"] == ("b" if losing == "a" else "a")
    return view


def test_a_saved_army_counts_its_players_table_games(user_client, other_client, catalogue):
    slots = faction_army("arcane")
    saved = user_client.post("/api/realms/armies/", {"name": "Runes", "slots": slots}, format="json").json()
    assert saved["table_record"] == {"played": 0, "won": 0, "lost": 0, "drawn": 0}
    body = {"armies": {"a": {"army": saved["id"]}, "b": {"slots": faction_army("tribal")}}, "seats": PEOPLE,
            "table": True}
    finish_by_hand(user_client, links(opened(user_client, REALMS, body))["a"], losing="b")
    finish_by_hand(user_client, links(opened(user_client, REALMS, body))["a"], losing="a")
    opened(user_client, REALMS, body)  # not over: not counted
    record = user_client.get(f"/api/realms/armies/{saved['id']}/").json()["table_record"]
    assert record == {"played": 2, "won": 1, "lost": 1, "drawn": 0}
    listed = user_client.get("/api/realms/armies/").json()["results"]
    assert listed[0]["table_record"] == record
    # Another player's army of the same cards has its own record.
    theirs = other_client.post("/api/realms/armies/", {"name": "Runes", "slots": slots}, format="json").json()
    assert theirs["table_record"]["played"] == 0


def test_the_changes_by_hand_of_one_game_are_bounded(anon_client, table, monkeypatch):
    from simulate import seating

    monkeypatch.setattr(seating, "MAX_TABLE_CHANGES", 2)
    changed(anon_client, table["a"], ["hp", "a1", -1])
    changed(anon_client, table["a"], ["hp", "a1", -1])
    refused = anon_client.post(table["a"] + "table-changes/", {"change": ["hp", "a1", -1]}, format="json")
    assert_error_shape(refused, 409, "conflict")
    assert "2 changes by hand" in refused.json()["message"]
