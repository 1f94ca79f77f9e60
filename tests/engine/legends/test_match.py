"""The Akin Legends engine through the shared core: runner, agents, options, setup errors, log, render."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from legends.engine.events import EVENT_FIELDS, SCHEMA_VERSION
from legends.engine.game import RULES, new_match, play_legends_match, winner_team
from legends.engine.options import DEFAULTS
from simulate.engine.agents import agent_names, get_agent
from simulate.engine.errors import InputError, OptionsError, SetupError
from simulate.engine.events import dumps, schema_problems
from simulate.engine.games import get_game
from simulate.engine.runner import play_match, render_log, validate_options

from .helpers import duel_setup, official, teams_setup


def test_registered_in_the_core():
    assert get_game("legends") is RULES
    assert RULES.players == ("t0p0", "t0p1", "t1p0", "t1p1")
    assert {"random", "greedy", "search"} <= set(agent_names("legends"))
    assert get_agent("greedy", "legends").name == "greedy"
    assert get_agent("search", "legends").name == "search"


def test_play_match_with_a_list_of_agents_in_setup_order():
    result = play_match("legends", setup=teams_setup(), agents=["greedy", "random", "greedy", "random"], seed=12)
    assert result.game == "legends" and result.schema_version == SCHEMA_VERSION
    assert result.agents == {"t0p0": "greedy", "t0p1": "random", "t1p0": "greedy", "t1p1": "random"}
    assert result.winner in ("0", "1", None)
    assert winner_team(result) in (0, 1, None)
    end = result.events[-1]
    assert end["type"] == "match_end" and end["winner"] == winner_team(result) and end["reason"] == result.reason
    assert set(result.survivors) == {"0", "1"}
    if result.winner is not None:
        assert result.survivors[str(1 - winner_team(result))] == [] and result.survivors[result.winner]


def test_play_match_with_a_mapping_of_agents():
    agents = {"t1p1": "random", "t0p0": "greedy", "t1p0": "random", "t0p1": "greedy"}
    result = play_match("legends", setup=teams_setup(), agents=agents, seed=3, keep_log=False)
    assert result.events is None and result.agents["t0p1"] == "greedy"


def test_a_duel_through_the_legends_entry_point_and_through_the_core():
    result = play_legends_match(setup=duel_setup(), agents=["greedy", "random"], seed=5)
    assert result.agents == {"t0p0": "greedy", "t1p0": "random"}
    # The core runner seats the setup's own players: a duel has two.
    same = play_match("legends", setup=duel_setup(), agents=["greedy", "random"], seed=5)
    assert result.events == same.events
    by_id = play_legends_match(setup=duel_setup(), agents={"t1p0": "random", "t0p0": "greedy"}, seed=5)
    assert by_id.events == result.events


def test_agents_must_match_the_players_of_the_setup():
    with pytest.raises(InputError, match="Give 2 agents"):
        play_match("legends", setup=duel_setup(), agents=["greedy"] * 4, seed=1)
    with pytest.raises(InputError, match="missing t1p1"):
        play_match("legends", setup=teams_setup(), agents={"t0p0": "greedy", "t0p1": "greedy", "t1p0": "greedy"},
                   seed=1)
    with pytest.raises(InputError, match="unknown players t0p1"):
        play_match("legends", setup=duel_setup(), agents={"t0p0": "greedy", "t1p0": "greedy", "t0p1": "random"},
                   seed=1)
    with pytest.raises(InputError):
        play_match("legends", setup=teams_setup(), agents=["greedy", "greedy"], seed=1)
    with pytest.raises(SetupError):  # a broken setup is reported as such, not as a count of agents
        play_legends_match(setup={"mode": "duel", "catalogue": official()}, agents=["greedy", "greedy"], seed=1)
    with pytest.raises(InputError, match="Unknown agent"):
        play_legends_match(setup=duel_setup(), agents=["greedy", "clever"], seed=1)


def test_same_seed_same_log_other_seed_other_log():
    agents = ["greedy", "random", "search", "random"]
    first = play_match("legends", setup=teams_setup(protectors=(None, None), defenses=(None, None)),
                       agents=agents, seed=77, options={"max_rounds": 4})
    second = play_match("legends", setup=teams_setup(protectors=(None, None), defenses=(None, None)),
                        agents=agents, seed=77, options={"max_rounds": 4})
    other = play_match("legends", setup=teams_setup(protectors=(None, None), defenses=(None, None)),
                       agents=agents, seed=78, options={"max_rounds": 4})
    assert dumps(first.events) == dumps(second.events)
    assert dumps(first.events) != dumps(other.events)


def test_every_event_follows_the_schema():
    for setup in (teams_setup(protectors=("spy", None)), duel_setup(protectors=(None, None))):
        for seed in range(5):
            result = play_legends_match(setup=setup, agents=["random"] * (4 if setup["mode"] == "teams" else 2),
                                        seed=seed, options={"max_rounds": 12})
            assert schema_problems(result.events, EVENT_FIELDS) == []
    assert schema_problems([{"type": "turn", "round": 1}], EVENT_FIELDS)  # the check itself can fail


def test_match_start_records_the_setup_and_the_draws():
    result = play_match("legends", setup=teams_setup(protectors=("spy", None), defenses=(None, ["dust-tower",
                        "reef-barrier", "ember-veil"])), agents=["random"] * 4, seed=8, options={"max_rounds": 1})
    start = result.events[0]
    assert (start["type"], start["schema"], start["mode"], start["deck_size"]) == (
        "match_start", SCHEMA_VERSION, "teams", 72)
    assert start["options"] == {**DEFAULTS, "max_rounds": 1}
    assert start["elements"] == ["fire", "water", "earth", "air"]
    check_deck_and_teams_recorded(start)
    check_setup_draws_recorded(start)
    check_seats_then_seeds_shuffle_and_deal(result.events)


def check_deck_and_teams_recorded(start: dict[str, Any]) -> None:
    """The whole deck, every design with its attacks, effect and copies; the teams as set up."""
    assert len(start["deck"]) == 60 and sum(c["copies"] for c in start["deck"]) == 72
    assert start["deck"][0] == {"slug": "tidal-ward-of-blaze", "name": "Tidal Ward of Blaze", "attacks": ["fire", "fire"],
                                "effect": {"kind": "defense", "element": "water"}, "copies": 2}
    team0, team1 = start["teams"]
    assert team0["spirit"] == {"slug": "akin", "name": "Akin"}
    assert team0["protector"] == {"slug": "spy", "name": "Spy", "duel_legal": False,
                                  "effect": {"kind": "reveal_facedown", "when": "before_second_turns"}}
    assert [d["slug"] for d in team1["defenses"]] == ["dust-tower", "reef-barrier", "ember-veil"]
    assert [p["id"] for p in team0["players"]] == ["t0p0", "t0p1"]


def check_setup_draws_recorded(start: dict[str, Any]) -> None:
    """The cards the setup drew (L6): the team's own, from a pool holding none already in the match."""
    team0, team1 = start["teams"]
    drawn = {(d["team"], d["kind"]): d for d in start["drawn"]}
    assert set(drawn) == {(0, "defense"), (1, "protector")}
    assert drawn[(1, "protector")]["cards"] == [team1["protector"]["slug"]]
    assert "spy" not in drawn[(1, "protector")]["pool"] and len(drawn[(1, "protector")]["pool"]) == 8
    assert drawn[(0, "defense")]["cards"] == [d["slug"] for d in team0["defenses"]]
    assert not set(drawn[(0, "defense")]["pool"]) & {"dust-tower", "reef-barrier", "ember-veil"}
    assert set(drawn[(0, "defense")]["cards"]) <= set(drawn[(0, "defense")]["pool"])


def check_seats_then_seeds_shuffle_and_deal(events: list[dict[str, Any]]) -> None:
    """The seats' agents, public; then the match seed and the seeds the agents' generators were made from,
    seen by nobody (G2); then the shuffled pile (seen by nobody) and the deal, each hand to its player only."""
    start = events[0]
    assert start["agent_names"] == {"t0p0": "random", "t0p1": "random", "t1p0": "random", "t1p1": "random"}
    assert start["visible_to"] == ["t0p0", "t0p1", "t1p0", "t1p1"]
    seeds = events[1]
    assert (seeds["type"], seeds["seed"], sorted(seeds["agent_seeds"]), seeds["visible_to"]) == (
        "seeds", 8, ["t0p0", "t0p1", "t1p0", "t1p1"], [])
    shuffle = events[2]
    assert (shuffle["type"], shuffle["reason"], len(shuffle["order"]), shuffle["visible_to"]) == (
        "shuffle", "start", 72, [])
    deals = events[3:7]
    assert [(e["type"], e["player"], e["hand"], e["visible_to"]) for e in deals] == [
        ("deal", pid, 7, [pid]) for pid in ("t0p0", "t1p0", "t0p1", "t1p1")]  # in counter order
    assert [c for e in deals for c in e["cards"]] == shuffle["order"][:28]  # from the top of the pile
    assert deals[-1]["draw_pile"] == 72 - 28


def test_missing_cards_are_drawn_from_the_seed_without_repeats():
    setup = teams_setup(protectors=(None, None), defenses=(None, None))
    picks = set()
    for seed in range(40):
        state = new_match(setup, seed=seed)
        slugs = [d.slug for team in state.defenses for d in team]
        assert len(slugs) == len(set(slugs)) == 6
        assert state.protectors[0].slug != state.protectors[1].slug
        picks.add(tuple(slugs))
        again = new_match(setup, seed=seed)
        assert [d.slug for team in again.defenses for d in team] == slugs
    assert len(picks) == 40


def test_cards_may_be_given_as_dicts():
    cat = official()
    setup = teams_setup()
    setup["teams"][0]["protector"] = next(p for p in cat["protectors"] if p["slug"] == "siege-master")
    setup["teams"][1]["defenses"] = [{"slug": "twin-keep", "name": "Twin Keep", "elements": ["fire", "air"]},
                                     "magma-rampart", "sandstorm-keep"]
    state = new_match(setup, seed=1)
    assert state.protectors[0].slug == "siege-master"
    assert [d.slug for d in state.defenses[1]] == ["twin-keep", "magma-rampart", "sandstorm-keep"]


def test_an_illegal_setup_lists_every_violation():
    setup = teams_setup(protectors=("spy", "spy"), defenses=(["steam-wall", "steam-wall", "dust-tower"], None),
                        counters=(1, 2, 3, 4))
    setup["teams"][1]["spirit"] = "akin"
    with pytest.raises(SetupError) as info:
        new_match(setup, seed=1)
    codes = [code for code, _ in info.value.errors]
    assert codes == ["spirit_duplicate", "protector_duplicate", "defense_duplicate", "counter_adjacent",
                     "counter_adjacent"]
    assert "already taken by team 0" in str(info.value)


def test_names_and_counters_are_checked_like_the_setup_validator():
    setup = teams_setup()
    setup["teams"][0]["players"][0]["name"] = " "
    setup["teams"][1]["players"][1]["counter"] = "4"
    setup["teams"][1]["players"].append({"name": "Eve", "counter": 5, "age": 3})
    with pytest.raises(SetupError) as info:
        new_match(setup, seed=1)
    paths = [path for path, _ in info.value.errors]
    assert paths == ["teams[0].players[0].name", "teams[1].players[1].counter", "teams[1].players[2].age"]
    duel = duel_setup(counters=(1, 3))
    with pytest.raises(SetupError) as info:
        new_match(duel, seed=1)
    assert [code for code, _ in info.value.errors] == ["counter_invalid"]


def test_a_setup_without_its_parts_is_refused_with_every_problem():
    with pytest.raises(SetupError) as info:
        new_match({"mode": "trio", "teams": {}, "extra": 1, "catalogue": official()}, seed=1)
    assert [p for p, _ in info.value.errors] == ["extra", "mode", "teams"]
    bad = copy.deepcopy(official())
    bad["defenses"][0]["elements"] = ["fire", "fire"]
    bad["deck"][0]["copies"] = 0
    bad["protectors"][0]["effect"]["count"] = 9
    setup = teams_setup()
    setup["catalogue"] = bad
    with pytest.raises(SetupError) as info:
        new_match(setup, seed=1)
    assert [p for p, _ in info.value.errors] == [
        "catalogue.protectors[0].effect.count", "catalogue.defenses[0].elements", "catalogue.deck[0].copies"]
    with pytest.raises(SetupError):
        new_match("teams", seed=1)


def test_options_defaults_and_every_error():
    assert validate_options("legends") == {"max_rounds": 30, "max_actions": 5000}
    assert validate_options("legends", {"max_rounds": 200})["max_rounds"] == 200
    with pytest.raises(OptionsError) as info:
        validate_options("legends", {"max_rounds": 0, "max_actions": True, "tie_break": "random"})
    assert [k for k, _ in info.value.errors] == ["tie_break", "max_rounds", "max_actions"]
    with pytest.raises(OptionsError):
        validate_options("legends", {"max_rounds": 201})
    with pytest.raises(OptionsError):
        validate_options("legends", ["max_rounds"])  # type: ignore[arg-type]  # not a mapping, on purpose


def test_the_action_cap_ends_in_a_draw():
    result = play_match("legends", setup=teams_setup(), agents=["random"] * 4, seed=2, options={"max_actions": 5})
    assert (result.winner, result.reason, result.actions) == (None, "max_actions", 5)
    assert result.events[-1] == {"type": "match_end", "winner": None, "reason": "max_actions", "rounds": 1,
                                 "visible_to": ["t0p0", "t0p1", "t1p0", "t1p1"]}
    assert sum(e["type"] == "decision" for e in result.events) == 5


def test_render_tells_the_match():
    result = play_match("legends", setup=teams_setup(protectors=("spy", "siege-master")),
                        agents=["greedy"] * 4, seed=4)
    text = render_log("legends", result.events)
    assert text.startswith("Akin Legends, teams mode (max 30 rounds")
    assert "  seeds (seen by no seat): match 4; agents Ann (t0p0) " in text
    assert "Round 1: order Ann (t0p0), Cat (t1p0), Ben (t0p1), Dan (t1p1)" in text
    assert "plays face down, as an" in text and "Showdown of round 1" in text and "reveal #" in text
    assert "counters handed on: Ann (t0p0) 1->4" in text
    assert text.splitlines()[-1].startswith("Result: ")
    assert "  (" not in text  # every event type has its line
    for event in result.events:
        assert event["type"] in EVENT_FIELDS


def test_a_spirit_outside_the_catalogue_is_refused_with_its_path():
    # A catalogue listing no spirits has the rulebook's two, Akin and Yulin (L5); nothing else names a team.
    setup = teams_setup()
    setup["catalogue"] = {k: v for k, v in official().items() if k != "spirits"}
    assert new_match(setup, seed=1).spirits == ("akin", "yulin")
    setup["teams"][1]["spirit"] = "kraken"
    with pytest.raises(SetupError) as info:
        new_match(setup, seed=1)
    assert info.value.errors == [("teams[1].spirit", "'kraken' is not a spirit card of the catalogue (known: akin, yulin)")]
    # A catalogue's own list is the only one then.
    setup["catalogue"] = {**official(), "spirits": [{"slug": "kraken", "name": "Kraken"}, "yulin"]}
    setup["teams"][0]["spirit"] = "yulin"
    assert new_match(setup, seed=1).spirits == ("yulin", "kraken")
    setup["teams"][0]["spirit"] = "akin"
    with pytest.raises(SetupError) as info:
        new_match(setup, seed=1)
    assert info.value.errors == [("teams[0].spirit", "'akin' is not a spirit card of the catalogue (known: kraken, yulin)")]
    setup["catalogue"] = {**official(), "spirits": ["akin"]}
    with pytest.raises(SetupError) as info:
        new_match(setup, seed=1)
    assert info.value.errors == [("catalogue.spirits", "must list at least 2 spirit cards (L5: one a team)")]
