"""The rulebook's worked examples, with the rulebook's own numbers."""

from __future__ import annotations

from tests.engine.helpers import act_orders, acting, attack, battle, card, fab, main, of_type, unit, use


def test_damage_example_1_merlin_11_vs_def_6_deals_5() -> None:
    merlin = card("merlin", cls="mage", atk=11, df=2, spd=7, hp=16)
    warrior = card("warrior", cls="warrior", atk=6, df=6, spd=1, hp=24)
    st = battle([merlin], [warrior])
    assert acting(st) == "a1"
    attack(st, "b1")
    hit = of_type(st, "damage")[-1]
    assert (hit["atk"], hit["def"], hit["amount"]) == (11, 6, 5)
    assert (hit["hp_before"], hit["hp_after"]) == (24, 19)
    assert unit(st, "b1").hp == 19


def test_damage_example_2_atk_6_vs_def_8_deals_the_minimum_1() -> None:
    orc = card("orc-warrior", cls="warrior", atk=6, df=6, spd=6, hp=24)
    tank = card("tank", cls="tank", atk=3, df=8, spd=2, hp=30)
    st = battle([orc], [tank])
    attack(st, "b1")
    hit = of_type(st, "damage")[-1]
    assert (hit["atk"], hit["def"], hit["amount"]) == (6, 8, 1)
    assert unit(st, "b1").hp == 29


def test_complete_example_jofrey_8_plus_2_vs_def_5_takes_hp_14_to_9() -> None:
    # "Jofrey receives a +2 ATK buff before attacking."
    rally = fab("before_action", {"kind": "buff", "target": "self", "stat": "atk", "amount": 2, "duration": 1})
    jofrey = card("jofrey", cls="warrior", atk=8, df=6, spd=5, hp=28, fab=rally)
    target = card("target", cls="warrior", atk=4, df=5, spd=1, hp=14)
    st = battle([jofrey], [target])
    assert unit(st, "a1").atk == 10  # the buff resolved before the decision
    attack(st, "b1")
    hit = of_type(st, "damage")[-1]
    assert (hit["atk"], hit["def"], hit["amount"], hit["hp_before"], hit["hp_after"]) == (10, 5, 5, 14, 9)


def test_modified_defense_base_6_with_debuff_2_counts_as_4() -> None:
    breaker = card("breaker", cls="support", atk=1, spd=9,
                   main=main({"kind": "debuff", "target": "target", "stat": "def", "amount": 2, "duration": 1}))
    hitter = card("hitter", cls="archer", atk=8, spd=8)
    target = card("target", cls="warrior", df=6, spd=1, hp=30)
    st = battle([breaker, hitter], [target])
    use(st, "b1")
    assert unit(st, "b1").def_ == 4
    assert acting(st) == "a2"
    attack(st, "b1")
    hit = of_type(st, "damage")[-1]
    assert (hit["def"], hit["amount"]) == (4, 4)


def test_attack_order_example_is_by_spd_highest_first() -> None:
    shadow = card("shadow-assassin", cls="assassin", spd=9)
    archer = card("elven-archer", cls="archer", spd=8)
    merlin = card("merlin", cls="mage", spd=7)
    orc = card("orc-warrior", cls="warrior", spd=6)
    jofrey = card("jofrey", cls="warrior", spd=5)
    troll = card("troll-tank", cls="tank", spd=3)
    st = battle([(shadow, "rearguard"), merlin, jofrey], [archer, orc, troll])
    st.apply(("stay", None))  # the Assassin's Flex decision comes first (R8)
    order = of_type(st, "order")[0]
    names = [unit(st, uid).name for uid, _ in order["units"]]
    assert names == ["Shadow Assassin", "Elven Archer", "Merlin", "Orc Warrior", "Jofrey", "Troll Tank"]
    assert [spd for _, spd in order["units"]] == [9, 8, 7, 6, 5, 3]


def test_round_example_a_unit_defeated_before_its_turn_loses_its_action() -> None:
    # Order: Shadow Assassin, Merlin, Orc Warrior, Jofrey, Elven Archer; the Assassin defeats Merlin.
    shadow = card("shadow-assassin", cls="assassin", atk=30, spd=9)
    orc = card("orc-warrior", cls="warrior", spd=6)
    jofrey = card("jofrey", cls="warrior", spd=5)
    merlin = card("merlin", cls="mage", atk=11, df=2, spd=7, hp=16)
    archer = card("elven-archer", cls="archer", spd=4)
    wall = card("wall", cls="tank", spd=1, hp=40)
    st = battle([(shadow, "rearguard"), orc, jofrey], [merlin, archer, wall])
    st.apply(("stay", None))
    assert acting(st) == "a1"
    attack(st, "b1")  # Merlin
    fall = of_type(st, "defeated")[-1]
    assert fall["unit"] == "b1" and fall["lost_action"] is True
    assert acting(st) == "a2"  # Merlin's slot is skipped: the Orc Warrior is next
    attack(st, "b3")
    assert acting(st) == "a3"
    attack(st, "b3")
    assert acting(st) == "b2"  # then the Elven Archer
    attack(st, "a2")
    assert acting(st) == "b3"
    attack(st, "a2")
    st.apply(("stay", None))  # round 2: Flex, then the new order without Merlin
    assert all(e["src"] != "b1" for e in of_type(st, "damage"))
    second = act_orders(st)[1]
    assert second["round"] == 2 and "b1" not in [uid for uid, _ in second["units"]]
