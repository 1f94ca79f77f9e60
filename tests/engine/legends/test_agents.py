"""The Akin Legends agents: greedy's heuristics in set positions, the default allocation, search."""

from __future__ import annotations

import random

from legends.engine.agents import GreedyAgent, SearchAgent, alloc_score, default_allocation
from legends.engine.showdown import allocation_options, allocation_value
from simulate.engine.agents import get_agent

from .helpers import attacker, defense, designs, find, play, rigged, teams_setup

FIRE = attacker("fire")
AIR = attacker("air")
WATER = attacker("water")
FIRE_DEF = find("defense", "fire")
EARTH_HEAL = find("healing", "earth")
NEUTRAL = ("archivist", "wanderer")


def act(agent, state, seed: int = 0):
    return agent.act(state.observation(state.current_player()), state.legal_actions(), random.Random(seed))


def test_greedy_attacks_where_a_defense_breaks():
    # steam-wall (fire+water) holds water: a fire attack destroys it; water or air only place markers.
    state = rigged(teams_setup(protectors=NEUTRAL), {"t0p0": [WATER, AIR, FIRE]})
    defense(state, "steam-wall").markers = ["water"]
    assert act(GreedyAgent(), state) == ("attack", FIRE, "fire")


def test_greedy_defends_the_element_the_opponents_showed():
    # Team 0 shows a fire attack that would break team 1's steam-wall (holding water): t1p0 defends fire.
    state = rigged(teams_setup(protectors=NEUTRAL), {"t0p0": [FIRE], "t1p0": [FIRE_DEF, AIR, WATER]})
    defense(state, "steam-wall").markers = ["water"]
    play(state, ("attack", FIRE, "fire"))
    assert act(GreedyAgent(), state) == ("effect", FIRE_DEF)


def test_greedy_heals_a_threatened_defense():
    # Team 0's dust-tower (earth+air) holds earth and team 1 shows an air attack: t0p1 heals the earth marker.
    state = rigged(teams_setup(protectors=NEUTRAL), {"t0p0": [], "t1p0": [AIR], "t0p1": [EARTH_HEAL, WATER]})
    defense(state, "dust-tower").markers = ["earth"]
    play(state, None, ("attack", AIR, "air"))
    assert state.current_player() == "t0p1"
    assert act(GreedyAgent(), state) == ("effect", EARTH_HEAL)


def test_greedy_redraws_a_useless_hand():
    useless = find("boost", "water", attack="earth")  # no attack or boost of use, nothing to heal
    assert designs()[useless].attacks == ("earth", "earth")
    state = rigged(teams_setup(protectors=("archivist", "wanderer")), {"t0p0": [useless]})
    for slug in ("steam-wall", "magma-rampart", "sandstorm-keep"):
        defense(state, slug).markers = [e for e in defense(state, slug).elements if e == "earth"]
    chosen = act(GreedyAgent(), state)
    assert chosen[0] == "redraw"


def test_default_allocation_and_greedy_at_an_allocation():
    state = rigged(teams_setup(protectors=NEUTRAL), {"t0p0": [FIRE], "t1p0": [], "t0p1": [], "t1p1": []})
    defense(state, "magma-rampart").markers = ["earth"]
    play(state, ("attack", FIRE, "fire"), None, None, None, None, None, None, None)
    assert state.phase() == "allocate"
    obs = state.observation("t0p0")
    assert obs.allocation.points["fire"] == 1 and obs.allocation.cap == 1
    expected = ("allocate", (("magma-rampart", "fire"),))  # destroys it, rather than the first option
    assert default_allocation(obs, state.legal_actions()) == expected
    assert act(GreedyAgent(), state) == expected
    assert act(SearchAgent(), state) == expected
    assert act(get_agent("random", "legends"), state) in state.legal_actions()


def test_alloc_score_matches_the_enumeration():
    state = rigged(teams_setup(protectors=NEUTRAL), {})
    rng = random.Random(3)
    views = state.observation("t0p0").defenses[1]
    for _ in range(300):
        markers = {d.slug: [e for e in d.elements if rng.random() < 0.3][:1] for d in views}
        defs = [d._replace(markers=tuple(markers[d.slug])) for d in views]
        strength = {e: rng.randrange(3) for e in ("fire", "water", "earth", "air")}
        cap = rng.randrange(5)
        best = max((allocation_value(o, defs) for o in allocation_options(strength, cap, defs)), default=(0, 0))
        assert alloc_score(strength, cap, defs) == best[0] * 3.0 + best[1] * 1.0


def test_search_is_reproducible_and_legal():
    state = rigged(teams_setup(protectors=NEUTRAL), {})
    first = act(SearchAgent(determinisations=4), state, seed=11)
    again = act(SearchAgent(determinisations=4), state, seed=11)
    assert first == again and first in state.legal_actions()
