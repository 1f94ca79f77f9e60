"""L9 step 1: which of its defenses a healing card cleans is the decision of the player who played it.

Team 1 defends steam-wall (fire+water), magma-rampart (fire+earth) and sandstorm-keep (air+earth);
in these scenarios both steam-wall and magma-rampart hold a fire marker from an earlier round and
t1p0 (counter 2) plays a fire healing card face up.
"""

from __future__ import annotations

import random

from legends.engine.agents import GreedyAgent, SearchAgent, default_heal
from simulate.engine.agents import get_agent

from .helpers import attacker, defense, find, of_type, play, rigged, teams_setup

FIRE_HEAL = find("healing", "fire")
WATER = attacker("water")
EARTH = attacker("earth")
BOTH = [("heal", "steam-wall", "fire"), ("heal", "magma-rampart", "fire")]


def healing_round(attack: str, card: str):
    """t0p0 attacks with `attack`; t1p0 heals fire; everyone else redraws. Stops at the heal choice."""
    state = rigged(teams_setup(), {"t0p0": [card], "t1p0": [FIRE_HEAL], "t0p1": [], "t1p1": []})
    defense(state, "steam-wall").markers = ["fire"]
    defense(state, "magma-rampart").markers = ["fire"]
    play(state, ("attack", card, attack), ("effect", FIRE_HEAL), None, None, None, None, None, None)
    return state


def test_the_healing_player_chooses_the_defense_when_several_hold_the_element():
    state = healing_round("water", WATER)
    assert state.phase() == "heal" and state.current_player() == "t1p0"
    assert state.legal_actions() == BOTH  # one option per defense holding fire, in setup order
    heal = state.observation("t1p0").heal
    assert (heal.team, heal.player, heal.element, heal.via, heal.source, heal.seq) == (
        1, "t1p0", "fire", "card", FIRE_HEAL, 1)
    assert heal.options == (("steam-wall", "fire"), ("magma-rampart", "fire"))
    assert state.observation("t0p0").heal == heal  # nothing hidden: every card is revealed by then
    state.apply(("heal", "magma-rampart", "fire"))
    assert defense(state, "magma-rampart").markers == [] and defense(state, "steam-wall").markers == ["fire"]
    decision = of_type(state, "decision", 1)[-1]
    assert (decision["stage"], decision["player"], decision["offered"], decision["action"]) == (
        "heal", "t1p0", [list(a) for a in BOTH], ["heal", "magma-rampart", "fire"])
    event = of_type(state, "heal", 1)[0]
    assert (event["player"], event["seq"], event["source"], event["defense"], event["chosen_by"]) == (
        "t1p0", 1, FIRE_HEAL, "magma-rampart", "agent")
    # The choice matters: team 0's water point now completes steam-wall.
    state.apply(("allocate", (("steam-wall", "water"),)))
    assert [(e["team"], e["defense"]) for e in of_type(state, "destroyed", 1)] == [(1, "steam-wall")]


def test_the_default_heal_cleans_the_defense_closest_to_falling():
    # Water is attacked: steam-wall (fire+water, holding fire) would fall, so it is cleaned.
    water = healing_round("water", WATER)
    assert default_heal(water.observation("t1p0"), water.legal_actions()) == BOTH[0]
    # Earth is attacked: magma-rampart (fire+earth) would fall instead.
    earth = healing_round("earth", EARTH)
    assert default_heal(earth.observation("t1p0"), earth.legal_actions()) == BOTH[1]
    # The greedy and search agents use it; random picks among the options.
    for agent in (GreedyAgent(), SearchAgent(determinisations=2)):
        assert agent.act(earth.observation("t1p0"), earth.legal_actions(), random.Random(1)) == BOTH[1]
    assert get_agent("random", "legends").act(earth.observation("t1p0"), earth.legal_actions(),
                                              random.Random(1)) in BOTH
    earth.apply(BOTH[1])
    earth.apply(("allocate", (("magma-rampart", "earth"),)))
    assert not of_type(earth, "destroyed")  # healed in time: the earth marker alone does not destroy it


def test_a_single_defense_holding_the_element_is_cleaned_without_a_decision():
    state = rigged(teams_setup(), {"t0p0": [], "t1p0": [FIRE_HEAL], "t0p1": [], "t1p1": []})
    defense(state, "magma-rampart").markers = ["fire"]
    play(state, None, ("effect", FIRE_HEAL), None, None, None, None, None, None)
    assert state.round == 2  # no allocation and no healing choice was asked
    event = of_type(state, "heal", 1)[0]
    assert (event["defense"], event["removed"], event["chosen_by"]) == ("magma-rampart", True, "auto")
    assert [e["stage"] for e in of_type(state, "decision", 1)] == ["play"] * 8


def test_two_healing_cards_choose_one_after_the_other():
    # t1p0 and t1p1 both heal fire: the first chooses among two defenses, the second has one left.
    state = rigged(teams_setup(), {"t0p0": [], "t1p0": [FIRE_HEAL], "t0p1": [], "t1p1": [FIRE_HEAL]})
    defense(state, "steam-wall").markers = ["fire"]
    defense(state, "magma-rampart").markers = ["fire"]
    play(state, None, ("effect", FIRE_HEAL), None, ("effect", FIRE_HEAL), None, None, None, None)
    assert state.current_player() == "t1p0" and state.legal_actions() == BOTH
    state.apply(BOTH[0])
    heals = of_type(state, "heal", 1)
    assert [(e["player"], e["defense"], e["chosen_by"]) for e in heals] == [
        ("t1p0", "steam-wall", "agent"), ("t1p1", "magma-rampart", "auto")]
    assert defense(state, "steam-wall").markers == [] and defense(state, "magma-rampart").markers == []
