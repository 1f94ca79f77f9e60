"""The showdown of L9, step by step, with hand-worked numbers (through the match and the step functions).

Seats in every scenario: team 0 is t0p0 (counter 1) and t0p1 (3), team 1 is t1p0 (2) and t1p1 (4),
so turns run t0p0, t1p0, t0p1, t1p1 face up, then the same order face down. Team 1 defends
steam-wall (fire+water), magma-rampart (fire+earth) and sandstorm-keep (air+earth).
"""

from __future__ import annotations

from legends.engine.cards import DefenseCard
from legends.engine.showdown import (
    Defense,
    allocation_options,
    allocation_value,
    best_allocation,
    destroy_step,
    heal_options,
)

from .helpers import attacker, defense, find, of_type, play, rigged, teams_setup

FIRE = attacker("fire")  # a card that attacks with fire (its effect is of another element)
AIR = attacker("air")
FIRE_DEF = find("defense", "fire")
FIRE_BOOST = find("boost", "fire")
WATER_BOOST = find("boost", "water")
FIRE_HEAL = find("healing", "fire")


def one(events: list[dict], **match) -> dict:
    found = [e for e in events if all(e[k] == v for k, v in match.items())]
    assert len(found) == 1, (match, events)
    return found[0]


def test_a_boosted_attack_needs_two_defenses_to_be_stopped():
    # Fire attack 1 + fire boost 1 = 2 points; two fire defenses cancel one point each: 2 -> 1 -> 0.
    state = rigged(teams_setup(), {"t0p0": [FIRE], "t1p0": [FIRE_DEF], "t0p1": [FIRE_BOOST], "t1p1": [FIRE_DEF]})
    play(state, ("attack", FIRE, "fire"), ("effect", FIRE_DEF), ("effect", FIRE_BOOST), ("effect", FIRE_DEF),
         None, None, None, None)
    boost = one(of_type(state, "boost", 1), team=0, via="card")
    assert (boost["element"], boost["amount"], boost["attacks"]) == ("fire", 1, [0])
    assert one(of_type(state, "strength", 1), team=0)["points"] == {"fire": 2, "water": 0, "earth": 0, "air": 0}
    cancels = [e for e in of_type(state, "cancel", 1) if e["via"] == "card"]
    assert [(e["player"], e["element"], e["cancelled"], e["left"]) for e in cancels] == [
        ("t1p0", "fire", 1, 1), ("t1p1", "fire", 1, 0)]
    allocation = one(of_type(state, "allocation", 1), team=0)
    assert (allocation["points"]["fire"], allocation["placed"], allocation["chosen_by"]) == (0, 0, "auto")
    assert defense(state, "steam-wall").markers == [] and defense(state, "magma-rampart").markers == []


def test_a_boosted_attack_with_one_defense_keeps_one_point():
    state = rigged(teams_setup(), {"t0p0": [FIRE], "t1p0": [FIRE_DEF], "t0p1": [FIRE_BOOST], "t1p1": []})
    play(state, ("attack", FIRE, "fire"), ("effect", FIRE_DEF), ("effect", FIRE_BOOST), None, None, None, None, None)
    assert one(of_type(state, "cancel", 1), via="card")["left"] == 1
    assert state.phase() == "allocate" and state.current_player() == "t0p0"
    assert state.legal_actions() == [
        ("allocate", ()), ("allocate", (("steam-wall", "fire"),)), ("allocate", (("magma-rampart", "fire"),))]
    state.apply(("allocate", (("magma-rampart", "fire"),)))
    allocation = one(of_type(state, "allocation", 1), team=0)
    assert allocation["placements"] == [["magma-rampart", "fire"]] and allocation["player"] == "t0p0"
    assert defense(state, "magma-rampart").markers == ["fire"]


def test_two_same_element_attacks_against_one_defense_leave_one_point():
    # 2 fire attacks = 2 points; one fire defense cancels 1; 1 point and a cap of 2: one marker at most.
    state = rigged(teams_setup(), {"t0p0": [FIRE], "t1p0": [FIRE_DEF], "t0p1": [FIRE], "t1p1": []})
    play(state, ("attack", FIRE, "fire"), ("effect", FIRE_DEF), ("attack", FIRE, "fire"), None, None, None, None, None)
    assert one(of_type(state, "strength", 1), team=0)["points"]["fire"] == 2
    assert [(e["cancelled"], e["left"]) for e in of_type(state, "cancel", 1)] == [(1, 1)]
    assert max(len(a[1]) for a in state.legal_actions()) == 1
    state.apply(("allocate", (("steam-wall", "fire"),)))
    allocation = one(of_type(state, "allocation", 1), team=0)
    assert (allocation["points"]["fire"], allocation["cap"], allocation["placed"]) == (1, 2, 1)


def test_two_attacks_without_defense_place_two_markers():
    state = rigged(teams_setup(), {"t0p0": [FIRE], "t1p0": [], "t0p1": [FIRE], "t1p1": []})
    play(state, ("attack", FIRE, "fire"), None, ("attack", FIRE, "fire"), None, None, None, None, None)
    both = ("allocate", (("steam-wall", "fire"), ("magma-rampart", "fire")))
    assert both in state.legal_actions()
    state.apply(both)
    assert defense(state, "steam-wall").markers == ["fire"] and defense(state, "magma-rampart").markers == ["fire"]


def test_a_boost_without_a_matching_attack_does_nothing():
    state = rigged(teams_setup(), {"t0p0": [WATER_BOOST], "t1p0": [], "t0p1": [FIRE], "t1p1": []})
    play(state, ("effect", WATER_BOOST), None, ("attack", FIRE, "fire"), None, None, None, None, None)
    boost = one(of_type(state, "boost", 1), team=0)
    assert (boost["element"], boost["attacks"]) == ("water", [])
    assert one(of_type(state, "strength", 1), team=0)["points"] == {"fire": 1, "water": 0, "earth": 0, "air": 0}


def test_healing_removes_a_marker_placed_in_an_earlier_round_only():
    # Round 1: team 0 puts a fire marker on steam-wall; team 1's fire healing of the same round finds none.
    state = rigged(teams_setup(), {"t0p0": [FIRE], "t1p0": [FIRE_HEAL], "t0p1": [], "t1p1": []})
    play(state, ("attack", FIRE, "fire"), ("effect", FIRE_HEAL), None, None, None, None, None, None)
    state.apply(("allocate", (("steam-wall", "fire"),)))
    heal = one(of_type(state, "heal", 1), team=1)
    assert (heal["element"], heal["removed"], heal["defense"]) == ("fire", False, None)
    assert defense(state, "steam-wall").markers == ["fire"]
    # Round 2 (counters handed on: t1p0 now holds 1 and starts): the healing removes that marker.
    assert state.round == 2 and state.current_player() == "t1p0"
    state.by_pid["t1p0"].hand = [state.catalogue.design(FIRE_HEAL)]
    state.legal = None
    play(state, ("effect", FIRE_HEAL), None, None, None, None, None, None, None)
    heal = one(of_type(state, "heal", 2), team=1)
    assert (heal["via"], heal["source"], heal["defense"], heal["removed"]) == ("card", FIRE_HEAL, "steam-wall", True)
    assert defense(state, "steam-wall").markers == []


def test_allocation_is_capped_by_the_attack_cards_played():
    # 1 fire attack + 2 fire boosts = 3 points, but one attack card: one marker although two defenses need fire.
    state = rigged(teams_setup(), {"t0p0": [FIRE], "t1p0": [], "t0p1": [FIRE_BOOST, FIRE_BOOST], "t1p1": []})
    play(state, ("attack", FIRE, "fire"), None, ("effect", FIRE_BOOST), None, None, None, ("effect", FIRE_BOOST), None)
    assert one(of_type(state, "strength", 1), team=0)["points"]["fire"] == 3
    assert {len(a[1]) for a in state.legal_actions()} == {0, 1}
    state.apply(("allocate", (("steam-wall", "fire"),)))
    allocation = one(of_type(state, "allocation", 1), team=0)
    assert (allocation["points"]["fire"], allocation["attack_cards"], allocation["cap"], allocation["placed"]) == (
        3, 1, 1, 1)


def _last_defenses(state):
    """Each team keeps one defense holding an earth marker; air destroys either."""
    for slug in ("mud-bastion", "mist-curtain", "steam-wall", "magma-rampart"):
        defense(state, slug).destroyed = True
    defense(state, "dust-tower").markers = ["earth"]  # team 0: earth + air
    defense(state, "sandstorm-keep").markers = ["earth"]  # team 1: air + earth


def test_simultaneous_last_defenses_are_a_draw():
    state = rigged(teams_setup(), {"t0p0": [AIR], "t1p0": [AIR], "t0p1": [], "t1p1": []})
    _last_defenses(state)
    play(state, ("attack", AIR, "air"), ("attack", AIR, "air"), None, None, None, None, None, None)
    assert state.current_player() == "t0p0"  # team 0 holds counter 1: it allocates first
    state.apply(("allocate", (("sandstorm-keep", "air"),)))
    assert not of_type(state, "destroyed")  # destruction waits for both allocations (L9 step 5)
    assert state.current_player() == "t1p0"
    state.apply(("allocate", (("dust-tower", "air"),)))
    assert [(e["team"], e["defense"]) for e in of_type(state, "destroyed")] == [(0, "dust-tower"), (1, "sandstorm-keep")]
    assert state.is_terminal()
    outcome = state.outcome()
    assert (outcome.winner, outcome.reason, outcome.rounds) == (None, "mutual_destruction", 1)
    assert of_type(state, "match_end")[0]["winner"] is None


def test_the_last_defense_falling_alone_wins():
    state = rigged(teams_setup(), {"t0p0": [AIR], "t1p0": [], "t0p1": [], "t1p1": []})
    _last_defenses(state)
    play(state, ("attack", AIR, "air"), None, None, None, None, None, None, None)
    state.apply(("allocate", (("sandstorm-keep", "air"),)))
    outcome = state.outcome()
    assert (outcome.winner, outcome.reason) == ("0", "defenses_destroyed")
    assert outcome.survivors["0"] == [
        {"defense": "dust-tower", "name": "Dust Tower", "elements": ["earth", "air"], "markers": ["earth"]}]
    assert outcome.survivors["1"] == []


# ------------------------------------------------------------------ the step functions


def _d(slug: str, a: str, b: str, markers=(), team: int = 1) -> Defense:
    return Defense(DefenseCard(slug, slug, (a, b)), team, markers)


def test_default_allocation_prefers_destroying_then_placing():
    first, second = _d("a", "fire", "water"), _d("b", "fire", "earth", ["earth"])
    options = allocation_options({"fire": 1}, 1, [first, second])
    assert options == [(), (("a", "fire"),), (("b", "fire"),)]
    assert options[best_allocation(options, [first, second])] == (("b", "fire"),)  # destroys b
    assert allocation_value((("b", "fire"),), [first, second]) == (1, 1)
    spread = [_d("c", "fire", "earth"), _d("d", "water", "air")]
    options = allocation_options({"fire": 1, "water": 1}, 2, spread)
    assert options[best_allocation(options, spread)] == (("c", "fire"), ("d", "water"))


def test_allocation_options_respect_points_cap_and_held_markers():
    defenses = [_d("a", "fire", "water", ["fire"]), _d("b", "fire", "earth"), _d("c", "air", "earth")]
    options = allocation_options({"fire": 2, "earth": 1}, 2, defenses)
    assert (("a", "fire"),) not in options  # a already holds fire
    assert all(len(o) <= 2 for o in options)
    assert all(sum(1 for _, e in o if e == "earth") <= 1 for o in options)
    assert len(options) == 1 + 3 + 2  # empty; b-fire, b-earth, c-earth; b-fire+b-earth, b-fire+c-earth
    assert allocation_options({"fire": 0}, 3, defenses) == [()]
    assert allocation_options({"earth": 2}, 0, defenses) == [()]


def test_heal_options_are_the_team_defenses_holding_the_element():
    quiet, threatened = _d("q", "fire", "water", ["fire"]), _d("t", "fire", "air", ["fire"])
    gone = _d("g", "fire", "earth", ["fire", "earth"])
    gone.destroyed = True
    assert heal_options([quiet, threatened, gone], "fire") == [("q", "fire"), ("t", "fire")]
    assert heal_options([quiet, threatened], "water") == []
    # A heal_marker protector of any element may take any marker.
    assert heal_options([_d("m", "water", "air", ["air"]), quiet], "any") == [("m", "air"), ("q", "fire")]


def test_destruction_needs_both_elements():
    whole, half = _d("w", "fire", "water", ["water", "fire"]), _d("h", "fire", "air", ["fire"])
    assert destroy_step([whole, half]) == [whole]
    assert whole.destroyed and not half.destroyed
    assert destroy_step([whole, half]) == []  # already destroyed: not again
