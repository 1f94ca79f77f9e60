"""Games with people at some seats through the API: opened with secret seat links, played move by move to the
end (each move a legal action of its own seat), refused in the one error shape otherwise, and stored as an
ordinary match whose seed and moves replay it."""

from __future__ import annotations

import random
from typing import Any

import pytest

from simulate import seating, services
from simulate.engine.runner import play_match
from simulate.engine.seated import scripted_agents
from simulate.models import Match, SeatedGame
from simulate.pinning import Thawing
from tests.conftest import assert_error_shape
from tests.factories import faction_army
from tests.simulate.test_legends_matches_api import DUEL, teams_setup

REALMS, LEGENDS = "/api/simulate/realms/games/", "/api/simulate/legends/games/"
ARMIES = {"a": {"slots": None}, "b": {"slots": None}}


@pytest.fixture
def armies(catalogue):
    return {"a": {"slots": faction_army("arcane")}, "b": {"slots": faction_army("iron-kingdom")}}


def opened(client, url: str, body: dict[str, Any]) -> dict[str, Any]:
    response = client.post(url, body, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def links(game: dict[str, Any]) -> dict[str, str]:
    return {seat["player"]: seat["link"] for seat in game["seats"] if seat["link"]}


def play_to_the_end(client, seat_links: dict[str, str], pick: random.Random, limit: int = 2000) -> dict[str, Any]:
    """Each person's seat moves when its view says it decides (a legal action by its index, at the version read),
    until the game is over; the last view read."""
    for _ in range(limit):
        views = {player: client.get(link).json() for player, link in seat_links.items()}
        view = next(iter(views.values()))
        if view["status"] == "finished":
            return view
        deciding = [(player, v) for player, v in views.items() if v["your_turn"]]
        assert len(deciding) == 1, views  # exactly one seat decides at a time
        player, v = deciding[0]
        assert v["legal"] and all(entry["label"] for entry in v["legal"])
        moved = client.post(seat_links[player] + "actions/",
                            {"index": pick.randrange(len(v["legal"])), "version": v["version"]}, format="json")
        assert moved.status_code == 200, moved.content
    pytest.fail("the game did not end")


def test_a_person_plays_a_whole_realms_match_against_greedy_and_it_becomes_a_match(anon_client, armies):
    game = opened(anon_client, REALMS, {"armies": armies, "seats": {"a": "person", "b": "greedy"}, "seed": 5})
    assert [seat["seat"] for seat in game["seats"]] == ["person", "greedy"] and len(links(game)) == 1
    first = anon_client.get(links(game)["a"]).json()
    assert first["seat"] == "a" and first["your_turn"] and first["observation"]["player"] == "a"
    assert any("Basic Attack" in entry["label"] for entry in first["legal"])
    end = play_to_the_end(anon_client, links(game), random.Random(1))
    assert end["result"]["winner"] in ("a", "b", None) and end["match"]
    row = SeatedGame.objects.get(pk=game["id"])
    match = Match.objects.get(pk=end["match"])
    assert (match.winner, match.rounds, match.agents) == (end["result"]["winner"], end["result"]["rounds"],
                                                          {"a": "person", "b": "greedy"})
    assert anon_client.get(f"/api/simulate/matches/{match.pk}/").status_code == 200
    # The same seed replays it: the runner, the person's seat scripted from its moves, logs the very same match.
    setup = services.game_studies("realms").thaw_setup(row.frozen["setup"], Thawing(row.frozen["values"]))
    replay = play_match("realms", setup=setup, agents=scripted_agents(row.seats, match.inputs["moves"]),
                        seed=match.seed, options=match.options)
    assert replay.events == match.events


def test_a_person_plays_a_whole_legends_duel_against_greedy(anon_client, catalogue):
    game = opened(anon_client, LEGENDS, {"setup": DUEL, "seats": {"t0p0": "person", "t1p0": "greedy"}, "seed": 3})
    view = anon_client.get(links(game)["t0p0"]).json()
    assert view["observation"]["hand"] and view["seat"] == "t0p0"
    end = play_to_the_end(anon_client, links(game), random.Random(2))
    assert Match.objects.get(pk=end["match"]).agents == {"t0p0": "person", "t1p0": "greedy"}


def test_each_seat_sees_only_what_its_player_may_see(anon_client, catalogue):
    game = opened(anon_client, LEGENDS, {"setup": teams_setup(), "seed": 8, "seats": {
        "t0p0": "person", "t0p1": "person", "t1p0": "person", "t1p1": "person"}})
    views = {player: anon_client.get(link).json() for player, link in links(game).items()}
    hands = {player: view["observation"]["hand"] for player, view in views.items()}
    assert all(hands.values()) and len({tuple(hand) for hand in hands.values()}) == 4
    for player, view in views.items():
        assert view["seat"] == player
        assert all("visible_to" not in event or player in event["visible_to"] for event in view["events"])
        dealt = [event for event in view["events"] if event["type"] == "deal"]
        assert dealt and all(event["player"] == player for event in dealt)  # no other player's deal
    # A made-up link, or a seat's link on another game, reaches nothing.
    assert_error_shape(anon_client.get(links(game)["t0p0"].replace("/seats/", "/seats/x")), 404)
    other = opened(anon_client, LEGENDS, {"setup": DUEL, "seats": {"t0p0": "person", "t1p0": "greedy"}})
    secret = links(game)["t0p0"].rstrip("/").rsplit("/", 1)[1]
    assert_error_shape(anon_client.get(f"/api/simulate/games/{other['id']}/seats/{secret}/"), 404)


def test_illegal_moves_are_refused_with_the_legal_ones_and_a_seat_cannot_act_for_another(anon_client, armies):
    game = opened(anon_client, REALMS, {"armies": armies, "seats": {"a": "person", "b": "person"}, "seed": 9})
    seat = links(game)
    views = {player: anon_client.get(link).json() for player, link in seat.items()}
    player = next(p for p, v in views.items() if v["your_turn"])
    waiting = "b" if player == "a" else "a"
    view = views[player]
    legal = [entry["action"] for entry in view["legal"]]
    body = assert_error_shape(anon_client.post(seat[player] + "actions/", {"action": ["attack", "nobody"]},
                                               format="json"), 400, "illegal_action")
    assert body["legal"] == legal
    body = assert_error_shape(anon_client.post(seat[player] + "actions/", {"index": len(legal)}, format="json"), 400)
    assert body["legal"] == legal
    # The other seat's link cannot play this seat's action: it is not its turn.
    assert_error_shape(anon_client.post(seat[waiting] + "actions/", {"action": legal[0]}, format="json"), 409,
                       "conflict")
    assert_error_shape(anon_client.post(seat[player] + "actions/", {"action": legal[0], "version": 99},
                                        format="json"), 409, "conflict")
    assert_error_shape(anon_client.post(seat[player] + "actions/", {"action": legal[0], "index": 0},
                                        format="json"), 400)
    assert SeatedGame.objects.get(pk=game["id"]).moves == []  # nothing refused changed the game
    moved = anon_client.post(seat[player] + "actions/", {"action": legal[0], "version": view["version"]},
                             format="json")
    assert moved.status_code == 200
    # The same move sent again at the version it was chosen at: the game moved on.
    assert_error_shape(anon_client.post(seat[player] + "actions/", {"action": legal[0], "version": view["version"]},
                                        format="json"), 409, "conflict")


def test_a_move_is_taken_back_until_another_seat_decides(anon_client, armies):
    game = opened(anon_client, REALMS, {"armies": armies, "seats": {"a": "person", "b": "person"}, "seed": 9})
    seat = links(game)
    row = SeatedGame.objects.get(pk=game["id"])
    mover = row.turn
    view = anon_client.get(seat[mover]).json()
    assert not view["can_undo"]
    after = anon_client.post(seat[mover] + "actions/", {"index": 0, "version": view["version"]}, format="json").json()
    assert after["can_undo"]
    undone = anon_client.post(seat[mover] + "undo/", {"version": after["version"]}, format="json")
    assert undone.status_code == 200 and undone.json()["your_turn"]
    assert SeatedGame.objects.get(pk=game["id"]).moves == []
    assert undone.json()["observation"] == view["observation"]
    # Once the next seat has decided, the move stays.
    anon_client.post(seat[mover] + "actions/", {"index": 0}, format="json")
    row.refresh_from_db()
    while row.turn == mover:
        anon_client.post(seat[mover] + "actions/", {"index": 0}, format="json")
        row.refresh_from_db()
    anon_client.post(seat[row.turn] + "actions/", {"index": 0}, format="json")
    assert_error_shape(anon_client.post(seat[mover] + "undo/", {}, format="json"), 409, "conflict")


def test_a_look_ahead_agent_decides_in_the_background(anon_client, armies, local_runner,
                                                       django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        game = opened(anon_client, REALMS, {"armies": armies, "seats": {"a": "search", "b": "person"}, "seed": 4})
    row = SeatedGame.objects.get(pk=game["id"])
    assert row.status == SeatedGame.Status.THINKING and row.moves == []
    assert not anon_client.get(links(game)["b"]).json()["your_turn"]
    assert local_runner.run_all() >= 1  # its agent's turn (and the service's look for batches to resume)
    row.refresh_from_db()
    assert row.status == SeatedGame.Status.PLAYING and row.turn == "b"
    assert anon_client.get(links(game)["b"]).json()["your_turn"]


def test_seats_are_checked_and_open_games_are_bounded(anon_client, armies):
    for seats, path in (({"a": "person"}, "seats.b"), ({"a": "person", "b": "greedy", "c": "person"}, "seats.c"),
                        ({"a": "person", "b": "nobody"}, "seats.b"), ({"a": "greedy", "b": "greedy"}, "seats")):
        body = assert_error_shape(anon_client.post(REALMS, {"armies": armies, "seats": seats}, format="json"), 400)
        assert path in body["fields"], body
    for _ in range(seating.MAX_OPEN_GAMES):
        opened(anon_client, REALMS, {"armies": armies, "seats": {"a": "person", "b": "greedy"}})
    assert_error_shape(anon_client.post(REALMS, {"armies": armies, "seats": {"a": "person", "b": "greedy"}},
                                        format="json"), 429, "too_many_games")


def test_a_person_drafts_in_a_formation_round_and_a_rematch_swaps_the_sides(anon_client, catalogue):
    game = opened(anon_client, REALMS, {"formation": {}, "seats": {"a": "person", "b": "greedy"}, "seed": 6})
    view = anon_client.get(links(game)["a"]).json()
    # Deploying is a person's choice too: each legal deployment in words.
    assert view["your_turn"] and all(entry["label"].startswith("Deploy ") for entry in view["legal"])
    assert view["observation"]["collection"]  # the seat's own collection, as its observation holds it
    end = play_to_the_end(anon_client, links(game), random.Random(3))
    row = SeatedGame.objects.get(pk=game["id"])
    deployed = [action for player, action in row.moves if player == "a" and action[0] == "deploy"]
    assert len(deployed) == 7  # the person built its army of seven
    # The rematch (a page's form post): the same cards, sides and seats swapped, a new seed, to the new seat.
    secret = links(game)["a"].rstrip("/").rsplit("/", 1)[1]
    answer = anon_client.post(f"/play/{row.pk}/{secret}/rematch/")
    assert answer.status_code == 302
    new = SeatedGame.objects.exclude(pk=row.pk).get()
    assert new.seats == {"a": "greedy", "b": "person"} and new.inputs == {"rematch_of": str(row.pk)}
    assert new.setup["collections"] == {"a": row.setup["collections"]["b"], "b": row.setup["collections"]["a"]}
    assert answer["Location"].startswith(f"/play/{new.pk}/") and anon_client.get(answer["Location"]).status_code == 200
    assert anon_client.get(answer["Location"].replace("/play/", "/api/simulate/games/").replace(
        f"{new.pk}/", f"{new.pk}/seats/")).json()["seat"] == "b"
    # A rematch asked before the game is over, or with another game's link, is refused.
    other = opened(anon_client, REALMS, {"formation": {}, "seats": {"a": "person", "b": "greedy"}})
    other_secret = links(other)["a"].rstrip("/").rsplit("/", 1)[1]
    assert anon_client.post(f"/play/{other['id']}/{other_secret}/rematch/").status_code == 409
    assert anon_client.post(f"/play/{row.pk}/{other_secret}/rematch/").status_code == 404
    assert end["result"] is not None


def test_no_game_or_a_bad_cursor_answers_in_the_one_error_shape(anon_client, db):
    nowhere = "/api/simulate/games/e3e70682-c209-1cac-a29f-6fbed82c07cd/seats/0/"
    assert_error_shape(anon_client.get(nowhere), 404, "not_found")
    for path, body in (("actions/", {"action": ["attack", "b1"]}), ("actions/", {"index": 0}), ("undo/", {})):
        assert_error_shape(anon_client.post(nowhere + path, body, format="json"), 404, "not_found")
    assert_error_shape(anon_client.get(nowhere, {"since": -1}), 400)
    assert_error_shape(anon_client.get(nowhere, {"since": "x"}), 400)
