"""Akin Legends studies through the API: every kind of study answers 202, plays to the end and reads as
documented (and as the schema says); bad inputs are refused by their path; a what-if's patch never touches
the catalogue; a seed gives the same figures again."""

import random

import pytest

from legends.engine.vocabulary import MODES
from legends.models import Protector, SummoningCard
from legends.studies import LegendsStudies
from simulate.models import Batch
from tests.conftest import assert_error_shape
from tests.simulate.test_contract import contract, openapi  # noqa: F401 - fixtures
from tests.simulate.test_legends_matches_api import DUEL, teams_setup

pytestmark = pytest.mark.django_db

BATCHES = "/api/simulate/legends/batches/"
MATCHES = "/api/simulate/legends/matches/"
ROW_KEYS = {"appearances", "wins", "win_rate", "win_rate_ci", "without_win_rate", "delta", "delta_ci", "flag"}


def duel_team(protector, spirit="yulin", counter=2, **cards):
    return {"spirit": spirit, "protector": protector, "players": [{"name": "Cat", "counter": counter}], **cards}


@pytest.fixture
def study(anon_client, catalogue, contract, local_runner, django_capture_on_commit_callbacks):  # noqa: F811
    """Post a study: 202 and queued (as the schema says), played in the background, read back done."""

    def post(payload, checked=True):
        with django_capture_on_commit_callbacks(execute=True):
            queued = contract(anon_client.post(BATCHES, payload, format="json"), BATCHES)
        assert (queued["status"], queued["played"]) == ("queued", 0)
        local_runner.run_all()
        read = anon_client.get(queued["url"])
        body = contract(read, "/api/simulate/batches/{id}/", "get") if checked else read.json()
        assert (body["status"], body["error"]) == ("done", ""), body
        assert body["played"] == body["count"] == body["results"].get("played", body["count"])
        return body

    return post


def refused(client, payload, field, code="invalid"):
    body = assert_error_shape(client.post(BATCHES, payload, format="json"), 400, code)
    if code == "invalid":
        assert any(key == field or key.startswith(field + ".") for key in body["fields"]), body
    assert Batch.objects.count() == 0
    return body


def counted(figures):
    return figures["wins"] + figures["draws"] + figures["losses"]


def test_a_matchup(study):
    body = study({"setup": DUEL, "agents": ["greedy", "random"], "count": 6, "seed": 2, "swap_sides": True})
    results = body["results"]
    assert body["kind"] == "matchup" and results["played"] == 6 == counted(results)
    assert results["by_first"]["a"]["wins"] + results["by_first"]["b"]["wins"] == results["wins"]
    assert sum(results["rounds"]["histogram"].values()) == 6
    assert sum(body["summary"]["wins"]) + body["summary"]["draws"] == 6


def test_a_gauntlet_has_a_row_per_opponent(study):
    subject = {"spirit": "akin", "protector": "tide-keeper", "players": [{"name": "Ann", "counter": 1}]}
    opponents = [duel_team("archivist"), duel_team("wanderer", spirit="akin", counter=1)]  # refitted: yulin, 2
    body = study({"kind": "gauntlet", "mode": "duel", "subject": subject, "opponents": opponents, "count": 4,
                  "seed": 9})
    rows = body["results"]["opponents"]
    assert [row["opponent"] for row in rows] == [0, 1]
    assert [row["played"] for row in rows] == [4, 4] and all(counted(row) == 4 for row in rows)
    assert body["results"]["played"] == 8
    assert [{key: value for key, value in team.items() if value is not None}
            for team in body["inputs"]["opponents"]] == opponents  # as given


def test_a_matrix_meets_every_entrant_with_every_other(study):
    # Every entrant as team 0 would play it: the later team of each pair takes the spirit and counter left.
    entrants = [duel_team(protector, spirit="akin", counter=1) for protector in ("archivist", "flame-herald",
                                                                                "wanderer")]
    # Not checked against the schema: it does not let the diagonal's cells be null (simulate.api's MatrixSerializer).
    body = study({"kind": "matrix", "mode": "duel", "entrants": entrants, "count": 2, "seed": 4})
    matrix = body["results"]["matrix"]
    assert matrix["rows"] == matrix["cols"] == ["team 1 (archivist)", "team 2 (flame-herald)", "team 3 (wanderer)"]
    cells = matrix["cells"]
    assert [cells[i][i] for i in range(3)] == [None] * 3
    for i in range(3):
        for j in range(3):
            if i != j:
                assert cells[i][j]["played"] == 2 and cells[i][j]["wins"] == cells[j][i]["losses"]
    assert sorted(row["entrant"] for row in body["results"]["standings"]) == [0, 1, 2]
    assert body["played"] == 6


def test_a_ladder_has_a_row_per_level(study):
    body = study({"kind": "ladder", "setup": teams_setup(), "levels": ["random", "greedy"], "count": 3, "seed": 1})
    assert [(row["agent"], row["played"]) for row in body["results"]["agents"]] == [("random", 3), ("greedy", 3)]


@pytest.mark.parametrize("mode", ["teams", "duel"])
def test_a_field_counts_every_protector_defense_and_summoning_card_a_team_fielded(study, mode):
    count = 8
    body = study({"kind": "field", "mode": mode, "count": count, "seed": 11})
    results, teams = body["results"], 2 * count
    for group, key in (("protectors", "protector"), ("defenses", "defense"), ("summoning_cards", "summoning_card")):
        assert results[group], group
        assert all(set(row) == {key, *ROW_KEYS} for row in results[group])
    assert sum(row["appearances"] for row in results["protectors"]) == teams
    assert sum(row["appearances"] for row in results["defenses"]) == teams * MODES[mode].defenses_per_team
    assert all(row["appearances"] <= teams for row in results["summoning_cards"])
    won = results["wins"] + results["losses"]  # a decided match has one winning team
    assert sum(row["wins"] for row in results["protectors"]) == won
    deltas = [row["delta"] for row in results["defenses"] if row["delta"] is not None]
    assert deltas == sorted(deltas, reverse=True)
    if mode == "duel":
        assert "spy" not in {row["protector"] for row in results["protectors"]}  # not duel-legal (L13)


def test_a_field_counts_the_summoning_cards_each_team_played(study, anon_client):
    """One field match replayed as a plain match with the same cards, agents and seed: its log tells which cards each
    team played, and the field's rows count exactly those."""
    body = study({"kind": "field", "mode": "duel", "count": 1, "seed": 21})
    matches = LegendsStudies()
    pool, _ = matches.field_pool({"mode": "duel"}, user=None)
    start = matches.field_setup(pool, random.Random("field:21"))
    setup = {"mode": "duel", "teams": [
        {"spirit": team.spirit, "protector": team.protector.slug, "defenses": [d.slug for d in team.defenses],
         "players": [{"name": p.name, "counter": p.counter} for p in team.players]} for team in start.teams]}
    # The study's matches are played by its default agent in every seat; the match replays them so.
    match = anon_client.post(MATCHES, {"setup": setup, "seed": 21, "agents": matches.study_agent}, format="json").json()
    events: list[dict] = []
    page = match["log"] + "?page_size=200"
    while page:
        answer = anon_client.get(page).json()
        events, page = events + answer["results"], answer["next"]
    played: dict[int, set[str]] = {0: set(), 1: set()}
    for event in events:
        if event["type"] == "decision" and event["stage"] == "play" and event["action"][0] in ("attack", "effect"):
            played[int(event["player"][1])].add(event["action"][1])
    rows = {row["summoning_card"]: row for row in body["results"]["summoning_cards"]}
    assert set(rows) == played[0] | played[1] and rows
    for card, row in rows.items():
        assert row["appearances"] == (card in played[0]) + (card in played[1])
        assert row["wins"] == sum(card in played[team] for team in (0, 1) if match["winner"] == team)
    assert {row["protector"] for row in body["results"]["protectors"]} == {t.protector.slug for t in start.teams}


def test_a_field_draws_from_its_pool(study):
    body = study({"kind": "field", "mode": "duel", "count": 6, "seed": 3,
                  "pool": {"protectors": ["archivist", "wanderer"], "defenses": ["dust-tower", "ember-veil",
                                                                                 "rain-spire", "steam-wall"]}})
    assert {row["protector"] for row in body["results"]["protectors"]} == {"archivist", "wanderer"}
    assert {row["defense"] for row in body["results"]["defenses"]} == {"dust-tower", "ember-veil", "rain-spire",
                                                                       "steam-wall"}


def test_a_whatif_plays_a_patch_in_a_sandbox_and_leaves_the_catalogue_as_it_was(study):
    before = list(Protector.objects.values_list("slug", "effect", "duel_legal", "updated_at"))
    cards = list(SummoningCard.objects.values_list("slug", "copies", "effect_kind", "updated_at"))
    setup = {**DUEL, "teams": [{**DUEL["teams"][0], "protector": "tide-keeper"}, DUEL["teams"][1]]}
    effect = {"kind": "extra_draw", "when": "round_end", "count": 1, "max_hand": 8}
    body = study({"kind": "whatif", "setup": setup, "count": 10, "seed": 5,
                  "patch": [{"card": "tide-keeper", "changes": {"effect": effect}},
                            {"card": "ember-surge-of-torrent", "changes": {"copies": 4}}]})
    results = body["results"]
    assert results["base"] == "matchup" and body["played"] == 20
    assert results["baseline"]["played"] == results["patched"]["played"] == 10
    difference = results["difference"]
    assert difference["pairs"] == 10
    assert difference["win_rate"] == pytest.approx(
        (difference["discordant"]["patched_only"] - difference["discordant"]["baseline_only"]) / 10)
    assert difference["win_rate"] == pytest.approx(results["patched"]["win_rate"] - results["baseline"]["win_rate"])
    assert 0 <= results["p_value"] <= 1
    assert list(Protector.objects.values_list("slug", "effect", "duel_legal", "updated_at")) == before
    assert list(SummoningCard.objects.values_list("slug", "copies", "effect_kind", "updated_at")) == cards


def test_a_patched_protector_changes_the_matches_it_plays_in(study):
    """Tide Keeper cancelling two strength points of any element instead of one of water: its team wins no
    match it won before that, and some more (the same seeds)."""
    setup = {**DUEL, "teams": [{**DUEL["teams"][0], "protector": "tide-keeper"}, DUEL["teams"][1]]}
    effect = {"kind": "cancel_attack", "when": "showdown_defenses", "count": 2, "element": "any"}
    results = study({"kind": "whatif", "setup": setup, "count": 30, "seed": 5,
                     "patch": [{"card": "tide-keeper", "changes": {"effect": effect}}]})["results"]
    assert results["difference"]["discordant"]["patched_only"] > 0
    assert results["patched"]["win_rate"] > results["baseline"]["win_rate"]


def test_a_field_whatif_shows_the_patched_cards_rows(study):
    patch = [{"card": "tide-keeper", "changes": {"duel_legal": False}},
             {"card": "ember-surge-of-torrent", "changes": {"copies": 4}}]
    results = study({"kind": "whatif", "base": "field", "mode": "duel", "count": 12, "seed": 8,
                     "patch": patch})["results"]
    assert results["base"] == "field"
    assert "tide-keeper" in {row["protector"] for row in results["baseline"]["protectors"]}
    assert "tide-keeper" not in {row["protector"] for row in results["patched"]["protectors"]}  # no longer drawn
    rows = {row["card"]: row for row in results["patched_rows"]}
    assert set(rows) == {"tide-keeper", "ember-surge-of-torrent"}
    assert rows["tide-keeper"]["baseline"]["appearances"] > 0 and rows["tide-keeper"]["patched"] is None
    # Paired by seed: each team that drew Tide Keeper or played the patched summoning card, with or without
    # the patch, against the same team in the other variant.
    touched = rows["tide-keeper"]["baseline"]["appearances"]
    surge = [(rows["ember-surge-of-torrent"][variant] or {}).get("appearances", 0) for variant in ("baseline", "patched")]
    assert touched <= results["difference"]["pairs"] <= touched + sum(surge)
    assert results["difference"]["pairs"] <= 2 * 12
    assert results["patched"]["summoning_cards"]


def test_the_same_seed_gives_the_same_results(study):
    payload = {"kind": "field", "mode": "teams", "count": 6, "seed": 77, "agents": "greedy"}
    first, second = study(payload), study(payload)
    assert first["id"] != second["id"] and first["results"] == second["results"]
    gauntlet = {"kind": "gauntlet", "mode": "duel", "subject": duel_team("archivist", "akin", 1),
                "opponents": [duel_team("wanderer")], "count": 4, "seed": 12, "swap_sides": True}
    assert study(gauntlet)["results"] == study(gauntlet)["results"]


# ------------------------------------------------------------------------------------- refusals


def test_a_gauntlet_or_a_field_needs_the_mode(anon_client, catalogue):
    refused(anon_client, {"kind": "gauntlet", "subject": duel_team("archivist", "akin", 1),
                          "opponents": [duel_team("wanderer")], "count": 2}, "mode")
    refused(anon_client, {"kind": "field", "count": 2}, "mode")


def test_a_matrix_of_factions_is_for_echo_realms_only(anon_client, catalogue):
    body = refused(anon_client, {"kind": "matrix", "mode": "duel", "factions": True, "count": 2}, "factions")
    assert "entrants" in body["fields"]["factions"][0]


@pytest.mark.parametrize("payload, field", [
    ({"kind": "gauntlet", "mode": "duel", "setup": DUEL, "subject": duel_team("archivist", "akin", 1),
      "opponents": [duel_team("wanderer")]}, "setup"),
    ({"kind": "field", "mode": "duel", "setup": DUEL}, "setup"),
    ({"kind": "field", "mode": "duel", "pool": {"protectors": ["nobody"]}}, "pool.protectors"),
    ({"kind": "field", "mode": "duel", "pool": {"protectors": ["spy", "archivist"]}}, "pool"),  # one duel-legal
    ({"kind": "field", "mode": "duel", "pool": {"colour": "red"}}, "pool.colour"),
    ({"kind": "matrix", "mode": "duel", "entrants": [duel_team("archivist")]}, "entrants"),
    ({"kind": "whatif", "setup": DUEL, "patch": [{"card": "nobody", "changes": {"copies": 2}}]}, "patch.0.card"),
    ({"kind": "whatif", "setup": DUEL, "patch": [{"card": "spy", "changes": {"copies": 2}}]}, "patch.0.changes.copies"),
    ({"kind": "whatif", "setup": DUEL, "patch": [{"card": "spy", "changes": {}}]}, "patch.0.changes"),
    ({"kind": "whatif", "setup": DUEL, "patch": [{"card": "spy", "changes": {"duel_legal": True}}]},
     "patch.0.changes.duel_legal"),  # its effect runs only in teams mode (L13)
    ({"kind": "whatif", "setup": DUEL, "patch": [{"card": "tide-keeper", "changes": {"effect": {"kind": "soar"}}}]},
     "patch.0.changes.effect"),
    ({"kind": "whatif", "setup": DUEL, "patch": [{"card": "ember-surge-of-torrent", "changes": {"copies": 0}}]},
     "patch.0.changes.copies"),
    ({"kind": "whatif", "setup": DUEL, "patch": [{"card": "ember-surge-of-torrent",
                                                 "changes": {"attack_1": "plasma"}}]}, "patch.0.changes.attack_1"),
    ({"kind": "whatif", "setup": DUEL, "patch": [{"card": "archivist", "changes": {"duel_legal": False}},
                                                 {"card": "archivist", "changes": {"duel_legal": False}}]},
     "patch.1.card"),
])
def test_bad_study_inputs_are_refused_by_their_path(anon_client, catalogue, payload, field):
    refused(anon_client, {"count": 2, **payload}, field)


def test_a_patch_that_makes_the_setup_illegal_is_refused(anon_client, catalogue):
    setup = {**DUEL, "teams": [{**DUEL["teams"][0], "protector": "archivist"}, DUEL["teams"][1]]}
    refused(anon_client, {"kind": "whatif", "setup": setup, "count": 2,
                          "patch": [{"card": "archivist", "changes": {"duel_legal": False}}]}, "patch")


def test_an_opponent_breaking_the_rules_is_refused_with_its_violations(anon_client, catalogue):
    body = refused(anon_client, {"kind": "gauntlet", "mode": "duel", "subject": duel_team("archivist", "akin", 1),
                                 "opponents": [duel_team("wanderer"), duel_team("archivist")], "count": 2},
                   None, code="rule_violations")
    assert {(v["at"], v["code"]) for v in body["violations"]} == {("opponents.1", "protector_duplicate")}
