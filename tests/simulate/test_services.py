"""The simulate services called directly, with real rows and no HTTP: each game's preparation,
playing and storing a match, refusals, batches."""

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIRequestFactory

from cardsdb.models import Collection, CollectionEntry
from legends.models import TeamSetup
from realms.models import Army, Character
from realms.services import army_validate, slots_from_data
from simulate import batches, services
from simulate.engine.errors import InputError, OptionsError, SetupError, UnknownAgentError, UnknownGameError
from simulate.models import Batch, Match
from tests.factories import faction_army
from tests.simulate.test_legends_matches_api import DUEL, teams_setup

pytestmark = pytest.mark.django_db


@pytest.fixture
def armies(catalogue):
    return {"a": {"slots": faction_army("arcane")}, "b": {"slots": faction_army("iron-kingdom")}}


def paths(exc: InputError) -> list[str]:
    return [path for path, _ in exc.errors]


# ------------------------------------------------------------------------------- Echo Realms


def test_a_realms_match_is_played_and_stored(user, armies):
    inputs = {"armies": armies, "options": {"max_rounds": 30}}
    match, result = services.play_match(game="realms", inputs=inputs, agents={"a": "greedy", "b": "random"},
                                        seed=12, user=user)
    stored = Match.objects.get(pk=match.pk)
    assert (stored.game, stored.owner, stored.seed, stored.inputs) == ("realms", user, 12, inputs)
    assert stored.setup == {"armies": {side: army["slots"] for side, army in armies.items()}}
    assert stored.agents == {"a": "greedy", "b": "random"} and stored.options["max_rounds"] == 30
    assert (stored.winner, stored.reason, stored.rounds) == (result.winner, result.reason, result.rounds)
    assert stored.events == result.events and stored.events[0]["type"] == "match_start"


def test_the_same_inputs_and_seed_give_the_same_log_and_save_false_stores_nothing(armies):
    first, _ = services.play_match(game="realms", inputs={"armies": armies}, seed=3, save=False)
    second, _ = services.play_match(game="realms", inputs={"armies": armies}, seed=3, save=False)
    assert first.events == second.events and first.agents == {"a": "greedy", "b": "greedy"}
    assert Match.objects.count() == 0


def test_realms_armies_by_code_and_by_saved_army(user, armies):
    slots = armies["a"]["slots"]
    saved = Army.objects.create(owner=user, name="Wall", slots=armies["b"]["slots"])
    code = army_validate(slots=slots_from_data(slots))["code"]
    prepared = services.prepare_match(game="realms", inputs={"armies": {"a": {"code": code}, "b": {"army": saved.pk}}},
                                      user=user)
    # A code holds its slots in canonical order (by card code); a saved army keeps its own order.
    stored = prepared.stored_setup["armies"]
    assert sorted(stored["a"], key=str) == sorted(slots, key=str) and stored["b"] == armies["b"]["slots"]
    cards, lines = zip(*prepared.setup["armies"]["a"], strict=True)
    assert [card.slug for card in cards] == [s["card"] for s in stored["a"]] and list(lines) == [s["line"] for s in stored["a"]]


def test_realms_refusals_name_the_request_path(user, other_user, armies):
    theirs = Army.objects.create(owner=other_user, name="Theirs", slots=armies["b"]["slots"])
    with pytest.raises(InputError) as refused:
        services.prepare_match(game="realms", inputs={"armies": {"a": armies["a"], "b": {"army": theirs.pk}}},
                               user=user)
    assert paths(refused.value) == ["armies.b.army"]
    with pytest.raises(InputError) as refused:
        services.prepare_match(game="realms", inputs={"armies": {"a": {"code": "!!"}, "b": armies["b"]}})
    assert paths(refused.value) == ["armies.a.code"]
    their_collection = Collection.objects.create(owner=other_user, name="Theirs")
    with pytest.raises(InputError) as refused:
        services.prepare_match(game="realms", inputs={"formation": {"collections": {"b": their_collection.pk}}},
                               user=user)
    assert paths(refused.value) == ["formation.collections.b"]
    with pytest.raises(OptionsError) as refused:
        services.prepare_match(game="realms", inputs={"armies": armies, "options": {"tie_break": "dice"}})
    assert paths(refused.value) == ["tie_break"]


def test_an_illegal_army_lists_every_violation_with_its_side(armies):
    armies["b"] = {"slots": armies["b"]["slots"][:6]}
    with pytest.raises(services.IllegalMatchSetup) as refused:
        services.play_match(game="realms", inputs={"armies": armies})
    assert refused.value.violations[0]["side"] == "b" and refused.value.violations[0]["code"] == "army_size"
    assert Match.objects.count() == 0


def test_a_formation_from_a_collection_deploys_only_its_cards(user, catalogue):
    collection = Collection.objects.create(owner=user, name="Pool")
    for card in Character.objects.filter(faction__slug__in=("arcane", "shadow")):
        CollectionEntry.objects.create(collection=collection, card=card, quantity=1)
    match, _ = services.play_match(game="realms", inputs={"formation": {"collections": {"a": collection.pk},
                                                                        "first": "b"}}, seed=9, user=user)
    owned = set(collection.entries.values_list("card__slug", flat=True))
    assert set(match.setup["collections"]["a"]) == owned
    assert len(match.setup["collections"]["b"]) == Character.objects.count()
    assert match.options["first_player"] == "b"
    deploys = [e for e in match.events if e["type"] == "deploy"]
    assert deploys[0]["player"] == "b" and all(e["card"] in owned for e in deploys if e["player"] == "a")


# ------------------------------------------------------------------------------ Akin Legends


def test_a_legends_match_from_a_saved_setup(user, catalogue):
    saved = TeamSetup.objects.create(owner=user, name="Friday", mode="duel", teams=DUEL["teams"])
    inputs = {"setup": {"setup": saved.pk}}
    match, result = services.play_match(game="legends", inputs=inputs, agents="random", seed=4, user=user)
    assert match.setup == {"mode": "duel", "teams": DUEL["teams"]} and match.inputs == inputs
    assert match.agents == {"t0p0": "random", "t1p0": "random"}
    assert match.winner in ("0", "1", None) and set(match.survivors) == {"0", "1"}
    shown = services.game_matches("legends").match_result(match, context={"request": APIRequestFactory().get("/")}).data
    assert shown["winner"] == (None if result.winner is None else int(result.winner))
    assert shown["remaining_defenses"] == [match.survivors["0"], match.survivors["1"]]


def test_legends_refusals_name_the_request_path(user, other_user, catalogue):
    theirs = TeamSetup.objects.create(owner=other_user, name="Theirs", mode="duel", teams=DUEL["teams"])
    cases: list[tuple[Any, Any, Any, list[str]]] = [
        ({"setup": {"setup": theirs.pk}}, None, InputError, ["setup.setup"]),
        ({"mode": "teams", "setup": DUEL}, None, InputError, ["mode"]),
        ({"setup": {"teams": DUEL["teams"]}}, None, InputError, ["mode"]),
        ({"setup": DUEL}, ["greedy"], InputError, ["agents"]),
        ({"setup": DUEL, "options": {"max_rounds": 0}}, None, OptionsError, ["max_rounds"]),
        ({"setup": {"mode": "duel", "teams": [{"spirit": "akin", "players": "x"}, {}]}}, None, SetupError,
         ["teams[0].players", "teams[1].players"]),
        ({"setup": {"mode": "trio", "teams": DUEL["teams"]}}, None, SetupError, ["mode"]),
    ]
    for inputs, agents, kind, expected in cases:
        with pytest.raises(kind) as refused:
            services.prepare_match(game="legends", inputs=inputs, agents=agents, user=user)
        assert paths(refused.value) == expected, inputs


def test_an_illegal_team_setup_lists_every_violation(catalogue):
    setup = {"mode": "duel", "teams": [
        {"spirit": "akin", "protector": "spy", "players": [{"name": "Ann", "counter": 1}]},
        {"spirit": "akin", "players": [{"name": "Cat", "counter": 1}]},
    ]}
    with pytest.raises(services.IllegalMatchSetup) as refused:
        services.play_match(game="legends", inputs={"setup": setup})
    assert {"protector_not_allowed", "spirit_duplicate", "counter_invalid"} <= {
        v["code"] for v in refused.value.violations}


def test_swapping_sides_exchanges_teams_and_their_agents(catalogue):
    matches = services.game_matches("legends")
    prepared = services.prepare_match(game="legends", inputs={"setup": teams_setup()},
                                      agents=["greedy", "random", "search", "greedy"])
    swapped = matches.swapped(prepared)
    assert swapped.setup["teams"] == prepared.setup["teams"][::-1]
    assert swapped.stored_setup["teams"] == prepared.stored_setup["teams"][::-1]
    assert swapped.agents == ["search", "greedy", "greedy", "random"]
    assert matches.swapped(swapped) == prepared


# ------------------------------------------------------------------------------- every game


@pytest.mark.parametrize("game, inputs, agents", [
    ("realms", "armies", {"a": "greedy", "b": "genius"}),
    ("legends", {"setup": DUEL}, ["genius", "greedy"]),
    ("legends", {"setup": DUEL}, "genius"),
])
def test_an_unknown_agent_is_refused_before_anything_is_played(armies, game, inputs, agents):
    inputs = {"armies": armies} if inputs == "armies" else inputs
    with pytest.raises(UnknownAgentError, match="genius"):
        services.play_match(game=game, inputs=inputs, agents=agents)
    assert Match.objects.count() == 0


def test_a_game_without_matches_is_refused():
    with pytest.raises(UnknownGameError):
        services.game_matches("chess")


# ---------------------------------------------------------------------------------- batches


def test_a_batch_is_checked_stored_and_played_like_single_matches(user, armies):
    agents = {"a": "greedy", "b": "random"}
    batch = batches.create_batch(game="realms", inputs={"armies": armies, "agents": agents}, count=4, seed=20,
                                 swap_sides=True, user=user)
    assert Batch.objects.get(pk=batch.pk).status == Batch.Status.QUEUED
    done = batches.play_here(batch.pk)
    expected = {"a": 0, "b": 0}
    for index in range(4):
        swapped = index % 2 == 1
        sides = {"a": armies["b"], "b": armies["a"]} if swapped else armies
        seats = {"a": agents["b"], "b": agents["a"]} if swapped else agents
        _, result = services.play_match(game="realms", inputs={"armies": sides}, agents=seats, seed=20 + index,
                                        save=False)
        if result.winner:
            expected[{"a": "b", "b": "a"}[result.winner] if swapped else result.winner] += 1
    assert (done.status, done.played) == (Batch.Status.DONE, 4)
    assert done.summary["wins"] == expected
    assert (done.results["wins"], done.results["losses"]) == (expected["a"], expected["b"])
    assert sum(done.summary["reasons"].values()) == 4


def test_a_batch_is_refused_before_it_is_stored(armies):
    with pytest.raises(InputError) as refused:
        batches.create_batch(game="realms", inputs={"armies": armies, "agents": {"a": "search", "b": "greedy"}},
                             count=batches.batch_limit(searching=True) + 1)
    assert paths(refused.value) == ["count"]
    with pytest.raises(InputError) as refused:
        batches.create_batch(game="legends", inputs={"setup": DUEL, "agents": ["greedy"]}, count=2)
    assert paths(refused.value) == ["agents"]
    assert Batch.objects.count() == 0


@pytest.mark.parametrize("game, inputs", [("realms", "armies"), ("legends", {"setup": DUEL, "agents": "random"})])
def test_a_batch_reads_the_catalogue_once_whatever_its_size(armies, game, inputs):
    inputs = {"armies": armies} if inputs == "armies" else inputs
    reads = []
    for count in (2, 8):
        batch = batches.create_batch(game=game, inputs=inputs, count=count, seed=1)
        with CaptureQueriesContext(connection) as captured:
            assert batches.play_here(batch.pk).status == Batch.Status.DONE
        reads.append(sum(query["sql"].startswith("SELECT") for query in captured))  # progress saves aside
    assert reads[0] == reads[1]
