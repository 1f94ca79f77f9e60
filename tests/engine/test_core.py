"""The shared core: options, agents, runner, determinism, the log, cards and rendering (engine purity:
tests/test_engine_purity.py)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from realms.engine.cards import CharacterCard, card_from_dict, cards_from_fixture
from realms.engine.events import EVENT_FIELDS, SCHEMA_VERSION
from realms.engine.formation import random_army
from realms.engine.setup import ArmySetup, FormationSetup
from simulate.engine import events as event_log
from simulate.engine import rng as rng_module
from simulate.engine.agents import AGENTS, agent_names, get_agent, looks_ahead
from simulate.engine.errors import (
    InputError,
    OptionsError,
    SetupError,
    SpecError,
    UnknownAgentError,
    UnknownGameError,
)
from simulate.engine.games import GameState, get_game, missing_members
from simulate.engine.runner import MatchResult, play_match, render_log, validate_options
from tests.engine.cardset import CARD_DICTS, all_cards
from tests.engine.helpers import STRIKE, card
from tests.engine.test_table_changes import table_logs

ROOT = Path(__file__).resolve().parents[2]


# ---------------------------------------------------------------- options


def test_options_defaults() -> None:
    assert validate_options("realms", None) == {
        "tie_break": "random", "max_rounds": 50, "max_actions": 5000, "first_player": "random"}


@pytest.mark.parametrize(
    ("options", "key"),
    [
        ({"tie_break": "dice"}, "tie_break"),
        ({"max_rounds": 0}, "max_rounds"),
        ({"max_rounds": 201}, "max_rounds"),
        ({"max_rounds": True}, "max_rounds"),
        ({"max_rounds": "50"}, "max_rounds"),
        ({"max_actions": 0}, "max_actions"),
        ({"first_player": "c"}, "first_player"),
        ({"turbo": 1}, "turbo"),
    ],
)
def test_bad_options_raise_a_value_error_naming_the_option(options: dict, key: str) -> None:
    with pytest.raises(OptionsError) as caught:
        validate_options("realms", options)
    assert isinstance(caught.value, ValueError)
    assert key in str(caught.value) and [k for k, _ in caught.value.errors] == [key]


def test_every_bad_option_is_reported_at_once() -> None:
    with pytest.raises(OptionsError) as caught:
        validate_options("realms", {"tie_break": "x", "max_rounds": 500, "extra": 1})
    assert sorted(k for k, _ in caught.value.errors) == ["extra", "max_rounds", "tie_break"]


def test_options_must_be_a_mapping() -> None:
    with pytest.raises(OptionsError):
        validate_options("realms", ["tie_break"])  # type: ignore[arg-type]


# ---------------------------------------------------------------- games and agents


def test_unknown_game_is_a_clear_error() -> None:
    with pytest.raises(UnknownGameError, match="known games: .*realms"):
        get_game("chess")


def test_agent_registry_has_random_greedy_and_search() -> None:
    assert {"random", "greedy", "search"} <= set(agent_names("realms"))
    assert {"random", "greedy", "search"} <= set(AGENTS)
    assert all(AGENTS[name].description for name in ("random", "greedy", "search"))
    first, second = get_agent("greedy", "realms"), get_agent("greedy", "realms")
    assert first is not second and first.name == "greedy"


@pytest.mark.parametrize("game", ["realms", "legends"])
def test_the_look_ahead_agents_are_search_and_the_ismcts_levels(game: str) -> None:
    assert {name for name in agent_names(game) if looks_ahead(name, game)} == {"search", "ismcts", "ismcts-strong"}
    assert all(get_agent(name, game).name == name for name in ("ismcts", "ismcts-strong"))
    assert AGENTS["ismcts"].description and AGENTS["ismcts-strong"].description


def test_unknown_agent_names_raise_a_value_error_listing_the_known_ones() -> None:
    with pytest.raises(UnknownAgentError) as caught:
        get_agent("alphazero", "realms")
    assert isinstance(caught.value, ValueError)
    assert "random" in str(caught.value) and "greedy" in str(caught.value) and "search" in str(caught.value)


def small_setup() -> dict:
    cards = all_cards()
    rng = random.Random(5)
    return {"armies": {"a": random_army(cards, rng), "b": random_army(cards, rng)}}


def test_play_match_accepts_agents_as_a_mapping_or_a_list_and_checks_them() -> None:
    setup = small_setup()
    by_map = play_match("realms", setup=setup, agents={"a": "greedy", "b": "random"}, seed=4)
    by_list = play_match("realms", setup=setup, agents=["greedy", "random"], seed=4)
    assert by_map.events == by_list.events and by_map.agents == {"a": "greedy", "b": "random"}
    for bad in ({"a": "greedy"}, ["greedy"], {"a": "greedy", "b": "random", "c": "random"}, "greedy"):
        with pytest.raises(InputError):
            play_match("realms", setup=setup, agents=bad, seed=4)  # type: ignore[arg-type]
    with pytest.raises(UnknownAgentError):
        play_match("realms", setup=setup, agents=["greedy", "nobody"], seed=4)
    with pytest.raises(OptionsError):
        play_match("realms", setup=setup, agents=["greedy", "greedy"], seed="4")  # type: ignore[arg-type]


def test_match_result_shape() -> None:
    result = play_match("realms", setup=small_setup(), agents=["greedy", "greedy"], seed=8)
    assert isinstance(result, MatchResult)
    assert result.winner in ("a", "b", None) and result.reason in ("elimination", "mutual_elimination", "max_rounds")
    assert result.schema_version == SCHEMA_VERSION and result.rounds >= 1 and result.actions > 0
    assert set(result.survivors) == {"a", "b"}
    winner_side = result.survivors[result.winner] if result.winner else []
    assert all({"id", "card", "name", "hp", "max_hp", "summon"} <= set(s) for s in winner_side)
    assert all(s["hp"] > 0 for side in result.survivors.values() for s in side)
    assert result.events[0]["type"] == "match_start" and result.events[-1]["type"] == "match_end"
    assert result.events[-1]["winner"] == result.winner and result.events[-1]["reason"] == result.reason
    json.dumps(result.to_dict())  # JSON-serialisable


def test_keep_log_false_gives_the_same_result_without_events() -> None:
    setup = small_setup()
    logged = play_match("realms", setup=setup, agents=["greedy", "random"], seed=12)
    bare = play_match("realms", setup=setup, agents=["greedy", "random"], seed=12, keep_log=False)
    assert bare.events is None
    assert (bare.winner, bare.reason, bare.rounds, bare.actions, bare.survivors) == (
        logged.winner, logged.reason, logged.rounds, logged.actions, logged.survivors)


def test_the_state_implements_the_core_protocol() -> None:
    state = get_game("realms").new_state(small_setup(), validate_options("realms", {}), 1, True)
    assert missing_members(state, GameState) == []
    assert {"apply", "legal_actions", "events", "rng"} <= set(missing_members(object(), GameState))


# ---------------------------------------------------------------- determinism (G1)


@pytest.mark.parametrize("agents", [["random", "random"], ["greedy", "random"], ["search", "greedy"]])
def test_same_inputs_and_seed_give_a_byte_identical_log(agents: list[str]) -> None:
    setup = small_setup()
    runs = [play_match("realms", setup=setup, agents=agents, seed=77) for _ in range(2)]
    assert event_log.dumps(runs[0].events) == event_log.dumps(runs[1].events)


def test_formation_matches_are_deterministic_too() -> None:
    cards = all_cards()
    setup = FormationSetup(a=cards, b=cards[::-1])
    runs = [play_match("realms", setup=setup, agents=["random", "greedy"], seed=5) for _ in range(2)]
    assert event_log.dumps(runs[0].events) == event_log.dumps(runs[1].events)


def test_different_seeds_give_different_matches() -> None:
    setup = small_setup()
    logs = {event_log.dumps(play_match("realms", setup=setup, agents=["random", "random"], seed=s).events)
            for s in range(5)}
    assert len(logs) == 5


def test_a_match_never_touches_the_global_random_state() -> None:
    random.seed(123)
    expected = random.random()
    random.seed(123)
    play_match("realms", setup=small_setup(), agents=["random", "search"], seed=1, keep_log=False)
    assert random.random() == expected


# ---------------------------------------------------------------- the log


def test_every_event_matches_the_documented_schema_and_round_trips_through_json() -> None:
    result = play_match("realms", setup=small_setup(), agents=["greedy", "greedy"], seed=21)
    assert event_log.schema_problems(result.events, EVENT_FIELDS) == []
    assert event_log.loads(event_log.dumps(result.events)) == result.events
    start = result.events[0]
    assert start["schema"] == SCHEMA_VERSION and len(start["units"]) == 14
    assert {"id", "side", "card", "line", "atk", "def", "spd", "hp"} <= set(start["units"][0])


def test_schema_problems_catch_unknown_types_and_wrong_fields() -> None:
    events: list[dict[str, Any]] = [{"type": "round_start", "round": 1}, {"type": "round_start"}, {"type": "teleport"}]
    problems = event_log.schema_problems(events, EVENT_FIELDS)
    assert len(problems) == 2 and "missing ['round']" in problems[0] and "teleport" in problems[1]


def test_every_event_type_is_documented() -> None:
    text = (ROOT / "docs" / "events.md").read_text()
    for kind, fields in EVENT_FIELDS.items():
        assert f"`{kind}`" in text, kind
        for name in fields:
            assert f"`{name}`" in text, (kind, name)


def test_event_log_is_append_only() -> None:
    log = event_log.EventLog()
    log.append({"type": "round_start", "round": 1})
    assert len(log) == 1 and log[0]["round"] == 1 and log.of_type("round_start") == [log[0]]
    copy = log.to_list()
    copy.clear()
    assert len(log) == 1
    assert not hasattr(log, "pop") and not hasattr(log, "__setitem__") and not hasattr(log, "__delitem__")


def test_the_log_is_compact_and_compresses_for_storage() -> None:
    result = play_match("realms", setup=small_setup(), agents=["greedy", "greedy"], seed=2)
    size = len(event_log.dumps(result.events).encode())
    assert size < 200 * max(1, len(result.events))  # a few hundred bytes per event at most
    blob = event_log.compress(result.events)
    assert len(blob) * 5 < size
    assert event_log.decompress(blob) == result.events


# ---------------------------------------------------------------- play-by-play


def test_render_log_tells_who_hits_whom_who_falls_and_the_result() -> None:
    merlin = card("merlin", name="Merlin", cls="mage", atk=11, df=2, spd=7, hp=16)
    warrior = card("orc", name="Orc Warrior", cls="warrior", atk=6, df=6, spd=1, hp=5)
    result = play_match("realms", setup={"armies": {"a": [(merlin, "rearguard")], "b": [(warrior, "vanguard")]}},
                        agents=["greedy", "greedy"], seed=1, options={"first_player": "a"})
    text = render_log("realms", result.events)
    assert "Round 1" in text
    assert "a1 Merlin (rearguard) -> basic attack: b1 Orc Warrior (vanguard) takes 5 (11 - DEF 6), HP 5 -> 0" in text
    assert "b1 Orc Warrior is defeated by a1 Merlin before acting" in text
    assert text.splitlines()[-1] == "Result: player a wins (elimination) after 1 round(s)."


def test_render_log_covers_every_event_type() -> None:
    cards = all_cards()
    seen: set[str] = set()
    text = ""
    for seed in range(40):
        result = play_match("realms", setup={"collections": {"a": cards, "b": cards}},
                            agents=["random", "greedy"], seed=seed)
        seen.update(e["type"] for e in result.events)
        text = render_log("realms", result.events)
        assert "(" in text and "Result:" in text
    for _, events in table_logs()[:3]:  # changes made by hand at a table appear only in table games
        seen.update(e["type"] for e in events)
        text = render_log("realms", events)
        assert "At the table:" in text and "Result:" in text
    assert seen == set(EVENT_FIELDS)


# ---------------------------------------------------------------- cards


def test_card_from_dict_parses_the_specs() -> None:
    c = card_from_dict(CARD_DICTS[0])
    assert isinstance(c, CharacterCard) and c.slug == "iron-guardian" and c.def_ == 8
    assert c.main.name == "Shield Bash" and c.faction_ability.trigger == "round_start"
    assert CharacterCard.from_dict(CARD_DICTS[0]) == c


def test_card_from_dict_reports_every_bad_field() -> None:
    bad = {**CARD_DICTS[0], "class": "wizard", "atk": 31, "hp": 0}
    del bad["slug"]
    with pytest.raises(SetupError) as caught:
        card_from_dict(bad)
    assert sorted(k for k, _ in caught.value.errors) == ["card.atk", "card.class", "card.hp", "card.slug"]
    with pytest.raises(SpecError):
        card_from_dict({**CARD_DICTS[0], "main_ability": {**STRIKE, "choose": "anyone"}})


def test_cards_from_fixture_joins_card_and_character_rows() -> None:
    rows = [
        {"model": "cardsdb.card", "pk": 7, "fields": {"slug": "hero", "name": "Hero", "rarity": 3}},
        {"model": "realms.character", "pk": 7, "fields": {
            "character_class": "mage", "faction": 2, "position": "rearguard", "attack": 11, "defense": 2,
            "speed": 7, "health": 16, "cooldown": 3, "race": 1,
            "main_ability": STRIKE, "faction_ability": CARD_DICTS[0]["faction_ability"]}},
        {"model": "cardsdb.rarity", "pk": 9, "fields": {"slug": "mythic"}},
    ]
    (hero,) = cards_from_fixture(rows)
    assert (hero.slug, hero.faction, hero.rarity, hero.atk, hero.def_, hero.spd, hero.hp, hero.cooldown) == (
        "hero", "arcane", "rare", 11, 2, 7, 16, 3)
    with pytest.raises(SetupError):
        cards_from_fixture(rows[1:2])


def test_the_official_starter_set_loads() -> None:
    path = ROOT / "fixtures" / "realms_starter.json"
    cards = cards_from_fixture(json.loads(path.read_text()))
    assert len(cards) >= 7 and len({c.slug for c in cards}) == len(cards)
    army = random_army(cards, random.Random(0))
    assert sorted(c.rarity for c, _ in army).count("common") == 3


# ---------------------------------------------------------------- setup


def test_setups_from_dataclasses_or_dicts_and_bad_setups() -> None:
    cards = all_cards()
    army = random_army(cards, random.Random(1))
    as_class = play_match("realms", setup=ArmySetup(a=army, b=army), agents=["greedy", "greedy"], seed=3)
    as_dicts = play_match("realms", setup={"armies": {"a": [(CARD_DICTS[[c.slug for c in cards].index(c.slug)], ln)
                                                            for c, ln in army], "b": army}},
                          agents=["greedy", "greedy"], seed=3)
    assert as_class.events == as_dicts.events
    too_many_front = [(card(f"v{i}"), "vanguard") for i in range(6)]
    for bad in (
        {"armies": {"a": army}},
        {"armies": {"a": army, "b": []}},
        {"armies": {"a": army, "b": army * 2}},
        {"armies": {"a": army, "b": too_many_front}},
        {"armies": {"a": army, "b": [(cards[0], "middle")]}},
        {"armies": {"a": army, "b": army}, "collections": {"a": cards, "b": cards}},
        {"collections": {"a": cards[:3], "b": cards}},
        "nonsense",
    ):
        with pytest.raises(SetupError):
            play_match("realms", setup=bad, agents=["random", "random"], seed=1)


@pytest.mark.parametrize("seed", range(40))
def test_the_compiled_draws_take_exactly_what_the_standard_library_takes(seed: int) -> None:
    mine, theirs = random.Random(seed), random.Random(seed)
    for n in (1, 2, 3, 5, 7, 8, 13, 64, 100, 1000, 2**40 + 3):
        assert rng_module.below(mine, n) == theirs.randrange(n)
    deck, standard = list(range(seed + 2)), list(range(seed + 2))
    rng_module.shuffle(mine, deck)
    theirs.shuffle(standard)
    assert deck == standard and mine.getstate() == theirs.getstate()
