"""The round structure: start phase order, Flex, ties, actions, targeting, cooldowns, summons, the end."""

from __future__ import annotations

from typing import Any

import pytest

from simulate.engine.errors import IllegalAction
from simulate.engine.runner import play_match
from tests.engine.helpers import (
    act_orders,
    acting,
    attack,
    battle,
    card,
    fab,
    line_of,
    main,
    of_type,
    pass_turns,
    unit,
    use,
)

DUMMY: dict[str, Any] = {"cls": "tank", "atk": 1, "df": 0, "spd": 1, "hp": 40}


# ---------------------------------------------------------------- R7 start phase


def test_r7_start_phase_resolves_in_the_previous_rounds_attack_order() -> None:
    slow_poison = main(
        {"kind": "poison", "target": "all_enemies", "amount": 1, "duration": 3},
        {"kind": "poison", "target": "self", "amount": 1, "duration": 3},
        {"kind": "debuff", "target": "self", "stat": "spd", "amount": 8, "duration": 3}, choose="none")
    a = card("quick", spd=9, main=slow_poison)
    b = card("steady", spd=5)
    st = battle([a], [b])
    use(st, None)  # a1 poisons both and drops to SPD 1 for rounds 2 and 3
    attack(st, "a1")
    ticks = [e["tgt"] for e in of_type(st, "damage") if e["via"] == "ongoing"]
    assert ticks == ["a1", "b1"]  # round 2's start phase in round 1's order (a1 9, b1 5)
    assert [uid for uid, _ in act_orders(st)[1]["units"]] == ["b1", "a1"]
    pass_turns(st, rounds=1)
    ticks = [e["tgt"] for e in of_type(st, "damage") if e["via"] == "ongoing"]
    assert ticks[2:] == ["b1", "a1"]  # round 3's start phase in round 2's order


def test_r7_a_unit_brought_to_0_in_the_start_phase_is_defeated_before_acting() -> None:
    hexer = card("hexer", spd=9, main=main({"kind": "poison", "target": "target", "amount": 5, "duration": 2}))
    st = battle([hexer], [card("frail", spd=5, hp=5, df=0, atk=0), card("t", **DUMMY)])
    use(st, "b1")
    attack(st, "a1")
    attack(st, "a1")
    pass_turns(st, rounds=1)
    fall = of_type(st, "defeated")[0]
    assert fall["unit"] == "b1" and fall["lost_action"] is True
    assert "b1" not in [uid for uid, _ in act_orders(st)[1]["units"]]


# ---------------------------------------------------------------- R8 Flex


def test_r8_an_assassin_may_switch_lines_when_the_destination_has_room() -> None:
    sin = card("sin", cls="assassin", spd=9)
    st = battle([(sin, "vanguard")], [card("t", **DUMMY)])
    assert st.phase() == "flex" and st.legal_actions() == [("stay", None), ("switch", "rearguard")]
    st.apply(("switch", "rearguard"))
    move = of_type(st, "move")[-1]
    assert (move["unit"], move["from"], move["to"], move["via"]) == ("a1", "vanguard", "rearguard", "flex")
    assert st.phase() == "act" and unit(st, "a1").line == "rearguard"


def test_r8_no_flex_decision_when_the_destination_line_is_full() -> None:
    sin = card("sin", cls="assassin", spd=9)
    backs = [card(f"m{i}", cls="mage", spd=1) for i in range(5)]
    st = battle([(sin, "vanguard"), *backs], [card("t", **DUMMY)])
    assert st.phase() == "act" and acting(st) == "a1"


# ---------------------------------------------------------------- R9 ties


def test_r9_tie_break_alternate_gives_priority_to_each_player_in_turn_first_player_first() -> None:
    st = battle([card("a", spd=5), card("a2", spd=5)], [card("b", spd=5)], tie_break="alternate", first_player="b")
    pass_turns(st, rounds=3)
    orders = of_type(st, "order")
    assert [o["ties"] for o in orders[:3]] == [[[5, "b"]], [[5, "a"]], [[5, "b"]]]
    assert [uid for uid, _ in orders[0]["units"]] == ["b1", "a1", "a2"]
    assert [uid for uid, _ in orders[1]["units"]] == ["a1", "b1", "a2"]


def test_r9_tie_break_random_is_a_seeded_coin_per_tie() -> None:
    leads = []
    for seed in range(20):
        st = battle([card("a", spd=5)], [card("b", spd=5)], seed=seed, tie_break="random")
        leads.append(of_type(st, "order")[0]["ties"][0][1])
        again = battle([card("a", spd=5)], [card("b", spd=5)], seed=seed, tie_break="random")
        assert of_type(again, "order")[0]["ties"] == of_type(st, "order")[0]["ties"]
    assert set(leads) == {"a", "b"}


def test_r9_units_of_one_player_keep_army_order_and_need_no_coin() -> None:
    st = battle([card("x", spd=5), card("y", spd=5)], [card("t", **DUMMY)])
    order = of_type(st, "order")[0]
    assert order["ties"] == [] and [uid for uid, _ in order["units"]] == ["a1", "a2", "b1"]


# ---------------------------------------------------------------- R10 / R12 actions and targets


def test_r10_one_action_per_unit_and_the_ability_only_when_ready_and_not_silenced() -> None:
    st = battle([card("x", spd=9)], [card("t", **DUMMY)])
    assert st.legal_actions() == [("attack", "b1"), ("ability", "b1")]
    use(st, "b1")
    assert acting(st) == "b1"  # a1 has had its one action this round
    with pytest.raises(IllegalAction):
        st.apply(("attack", "b1"))  # never its own side
    attack(st, "a1")
    assert st.round == 2 and acting(st) == "a1"
    assert st.legal_actions() == [("attack", "b1")]  # on cooldown (2) in round 2
    actors = [e["src"] for e in of_type(st, "damage") if e["via"] == "basic"]
    actors += [e["unit"] for e in of_type(st, "ability_used")]
    assert sorted(actors) == ["a1", "b1"]


def test_r12_vanguard_targets_the_enemy_vanguard_while_it_stands_rearguard_targets_any() -> None:
    front = card("front", atk=30, spd=9)
    back = card("back", cls="archer", spd=8)
    st = battle([front, back], [card("wall", spd=1, hp=1, df=0), card("mage", cls="mage", spd=1)])
    assert {a[1] for a in st.legal_actions() if a[0] == "attack"} == {"b1"}
    attack(st, "b1")  # the enemy vanguard is now empty
    assert {a[1] for a in st.legal_actions() if a[0] == "attack"} == {"b2"}
    st2 = battle([back], [card("wall", **DUMMY), card("mage", cls="mage", spd=1)])
    assert {a[1] for a in st2.legal_actions() if a[0] == "attack"} == {"b1", "b2"}


def test_r12_ignore_lines_lets_an_ability_reach_the_rearguard() -> None:
    snipe = card("sniper", spd=9, main=main({"kind": "damage", "target": "target", "scale": 1.0}, ignore_lines=True))
    st = battle([snipe], [card("wall", **DUMMY), card("mage", cls="mage", spd=1)])
    assert {a[1] for a in st.legal_actions() if a[0] == "ability"} == {"b1", "b2"}
    assert {a[1] for a in st.legal_actions() if a[0] == "attack"} == {"b1"}


def test_illegal_actions_raise_and_change_nothing() -> None:
    st = battle([card("x", spd=9)], [card("t", **DUMMY)])
    before = len(st.events())
    for bad in [("attack", "b9"), ("ability", None), ("jump", 1), "attack", None]:
        with pytest.raises(IllegalAction):
            st.apply(bad)
    assert len(st.events()) == before and acting(st) == "a1"


# ---------------------------------------------------------------- R13 cooldowns


@pytest.mark.parametrize("cooldown", [1, 2, 3])
def test_r13_ability_used_in_round_r_is_ready_again_in_round_r_plus_k(cooldown: int) -> None:
    st = battle([card("x", spd=9, cooldown=cooldown)], [card("t", **DUMMY)])
    use(st, "b1")
    started = of_type(st, "cooldown_started")[-1]
    assert (started["round"], started["cooldown"], started["ready_after"]) == (1, cooldown, 1 + cooldown)
    ready_rounds = []
    for _ in range(4):
        attack(st, "a1")
        assert acting(st) == "a1"
        if ("ability", "b1") in st.legal_actions():
            ready_rounds.append(st.round)
            use(st, "b1")
        else:
            attack(st, "b1")
    assert ready_rounds[0] == 1 + cooldown
    assert all(b - a == cooldown for a, b in zip(ready_rounds, ready_rounds[1:], strict=False))


# ---------------------------------------------------------------- R15 summons


SKELETON = {"name": "Skeleton", "atk": 3, "def": 2, "spd": 3, "hp": 8}


def test_r15_a_summon_slotted_after_the_acting_unit_acts_this_round() -> None:
    caller = card("caller", spd=5, main=main({"kind": "summon", "unit": SKELETON, "line": "same"}, choose="none"))
    st = battle([caller], [card("mid", spd=4), card("t", **DUMMY)])
    use(st, None)
    s = of_type(st, "summon")[-1]
    assert (s["unit"], s["slot"], s["acts"]) == ("a2", 3, True)  # caller 5, mid 4, skeleton 3, t 1
    assert acting(st) == "b1"
    attack(st, "a1")
    assert acting(st) == "a2"  # the skeleton acts before t (SPD 1)


def test_r15_a_summon_slotted_before_the_acting_unit_waits_for_next_round() -> None:
    fast = {**SKELETON, "spd": 9}
    caller = card("caller", spd=5, main=main({"kind": "summon", "unit": fast, "line": "same"}, choose="none"))
    st = battle([caller], [card("t", **DUMMY)])
    use(st, None)
    s = of_type(st, "summon")[-1]
    assert (s["slot"], s["acts"]) == (1, False)
    assert acting(st) == "b1"
    attack(st, "a1")
    assert st.round == 2 and acting(st) == "a2"  # next round it leads the order
    assert [uid for uid, _ in act_orders(st)[1]["units"]] == ["a2", "a1", "b1"]


IMP = {"name": "Imp", "atk": 2, "def": 0, "spd": 5, "hp": 6}


def tied_summon(seed: int, tie_break: str, first: str = "a") -> tuple[dict, dict, list[str]]:
    """A caller (SPD 9) summons an Imp at SPD 5 beside an ally at SPD 5, facing an enemy at SPD 5: the round's
    order, the summon event and who acts after the caller."""
    caller = card("caller", spd=9, main=main({"kind": "summon", "unit": IMP, "line": "same"}, choose="none"))
    st = battle([caller, card("ally", spd=5)], [card("t", spd=5, hp=40)], seed=seed, tie_break=tie_break,
                first_player=first)
    use(st, None)
    after = []
    while st.round == 1 and not st.is_terminal():
        after.append(acting(st))
        st.apply(st.legal_actions()[0])
    return act_orders(st)[0], of_type(st, "summon")[-1], after


def test_r15_a_summon_tied_with_an_enemy_unit_is_settled_by_the_seeded_coin() -> None:
    leads = set()
    for seed in range(12):
        order, summon, after = tied_summon(seed, "random")
        ids = [uid for uid, _ in order["units"]]
        if ids.index("a2") < ids.index("b1"):  # the enemy unit stands after the ally: the Imp's place is a tie
            lead = summon["tie"][1]
            assert summon["tie"] == [5, lead] and lead in ("a", "b")
            leads.add(lead)
            assert after == (["a2", "a3", "b1"] if lead == "a" else ["a2", "b1", "a3"])
            assert summon["slot"] == (3 if lead == "a" else 4)
        else:  # the enemy unit already acted before the ally: the Imp simply comes after its own side
            assert summon["tie"] is None and after == ["b1", "a2", "a3"]
    assert leads == {"a", "b"}  # twelve seeds: the coin went both ways


def test_r15_a_summon_tie_under_alternate_takes_the_next_turn_of_the_alternation() -> None:
    order, summon, after = tied_summon(1, "alternate")
    assert order["ties"] == [[5, "a"]]  # the round's order took the first turn (the first player's)
    assert summon["tie"] == [5, "b"] and after == ["a2", "b1", "a3"]  # the summon's tie the next: b leads


def test_r15_a_summon_tied_with_its_own_side_comes_after_that_sides_army_cards() -> None:
    caller = card("caller", spd=9, main=main({"kind": "summon", "unit": IMP, "line": "same"}, choose="none"))
    st = battle([caller, card("ally", spd=5), card("other", spd=5)], [card("t", **DUMMY)])
    use(st, None)
    summon = of_type(st, "summon")[-1]
    assert (summon["unit"], summon["slot"], summon["tie"]) == ("a4", 4, None)  # no enemy unit at SPD 5: no coin
    after = []
    while st.round == 1:
        after.append(acting(st))
        st.apply(st.legal_actions()[0])
    assert after == ["a2", "a3", "a4", "b1"]


# ---------------------------------------------------------------- R16 the end


def test_r16_a_side_loses_when_its_characters_fall_and_its_summons_leave_with_them() -> None:
    caller = card("caller", spd=5, hp=3, df=0, main=main({"kind": "summon", "unit": SKELETON, "line": "same"}, choose="none"))
    st = battle([caller], [card("killer", atk=5, spd=1, hp=40)])
    use(st, None)
    assert acting(st) == "a2"  # the skeleton acts before the killer (SPD 3 > 1)
    attack(st, "b1")
    attack(st, "a1")
    falls = of_type(st, "defeated")
    assert [(f["unit"], f["cause"]) for f in falls] == [("a1", "damage"), ("a2", "army_defeated")]
    end = of_type(st, "match_end")[-1]
    assert (end["winner"], end["reason"], end["rounds"]) == ("b", "elimination", 1)
    assert st.is_terminal() and st.current_player() is None and st.legal_actions() == []
    with pytest.raises(IllegalAction):
        st.apply(("attack", "a1"))


def test_r16_both_sides_losing_their_last_character_in_one_action_is_a_draw() -> None:
    kamikaze = card("kamikaze", atk=20, spd=9, hp=5, main=main(
        {"kind": "damage", "target": "target", "scale": 1.0},
        {"kind": "damage", "target": "self", "flat": 9, "ignore_def": True}))
    st = battle([kamikaze], [card("t", df=0, spd=1, hp=10)])
    use(st, "b1")
    end = of_type(st, "match_end")[-1]
    assert (end["winner"], end["reason"]) == (None, "mutual_elimination")


def test_r16_both_sides_falling_in_the_same_start_phase_is_a_draw() -> None:
    # The poisons outlive their source (R17's `persists`): a1 falls first and b1's poison still ticks.
    plague = main({"kind": "poison", "target": "all_enemies", "amount": 9, "duration": 2, "persists": True},
                  {"kind": "poison", "target": "self", "amount": 9, "duration": 2}, choose="none")
    st = battle([card("p", spd=9, hp=5, main=plague)], [card("t", spd=1, hp=5, atk=0)])
    use(st, None)
    attack(st, "a1")
    end = of_type(st, "match_end")[-1]
    assert (end["winner"], end["reason"], end["rounds"]) == (None, "mutual_elimination", 2)


def test_max_rounds_reached_is_a_draw() -> None:
    st = battle([card("x", atk=0, spd=9, hp=99, df=30)], [card("y", atk=0, spd=1, hp=99, df=30)], max_rounds=3)
    pass_turns(st)
    end = of_type(st, "match_end")[-1]
    assert (end["winner"], end["reason"], end["rounds"]) == (None, "max_rounds", 3)
    assert len(of_type(st, "round_start")) == 3


def test_the_runner_stops_at_max_actions_with_a_draw() -> None:
    army = {"a": [(card("x", atk=0, spd=9, hp=99, df=30), "vanguard")],
            "b": [(card("y", atk=0, spd=1, hp=99, df=30), "vanguard")]}
    result = play_match("realms", setup={"armies": army}, agents=["random", "random"], seed=3,
                        options={"max_actions": 7})
    assert (result.winner, result.reason, result.actions) == (None, "max_actions", 7)
    assert result.events[-1]["type"] == "match_end" and result.events[-1]["reason"] == "max_actions"


def test_line_of_helper_puts_flex_cards_in_the_vanguard() -> None:
    assert line_of(card("s", cls="assassin")) == "vanguard"
    assert line_of(card("m", cls="mage")) == "rearguard"


def test_start_of_battle_with_a_faction_ability_that_ends_the_match() -> None:
    doom = fab("battle_start", {"kind": "damage", "target": "all_enemies", "flat": 50, "ignore_def": True})
    st = battle([card("doom", spd=1, fab=doom)], [card("t", **DUMMY)])
    assert st.is_terminal() and st.outcome().winner == "a" and st.round == 0
