"""Faction abilities: every trigger, condition and limit of the spec."""

from __future__ import annotations

from typing import Any

from realms.engine import spec
from tests.engine.helpers import acting, attack, battle, card, fab, main, of_type, pass_turns, unit, use

DUMMY: dict[str, Any] = {"cls": "tank", "atk": 1, "df": 0, "spd": 1, "hp": 40}
PLUS_ATK = {"kind": "buff", "target": "self", "stat": "atk", "amount": 1, "duration": 5}


def triggered(st: object, uid: str) -> list[dict]:
    return [e for e in of_type(st, "faction_triggered") if e["unit"] == uid]  # type: ignore[arg-type]


def test_every_trigger_is_exercised_here() -> None:
    covered = {"battle_start", "round_start", "before_action", "after_action", "on_hit",
               "ally_defeated", "enemy_defeated", "defeats_enemy", "round_end"}
    assert covered == set(spec.TRIGGERS)


def test_battle_start_fires_once_before_round_1() -> None:
    st = battle([card("herald", spd=9, fab=fab("battle_start", PLUS_ATK))], [card("t", **DUMMY)])
    types = [e["type"] for e in st.events()]
    assert types.index("faction_triggered") < types.index("round_start")
    assert unit(st, "a1").atk == 6
    applied = of_type(st, "effect_applied")[0]
    assert applied["until"] == 5  # counted from round 1
    pass_turns(st, rounds=3)
    assert len(triggered(st, "a1")) == 1


def test_round_start_fires_in_every_start_phase() -> None:
    st = battle([card("drummer", spd=9, fab=fab("round_start", PLUS_ATK))], [card("t", **DUMMY)])
    pass_turns(st, rounds=2)
    assert len(triggered(st, "a1")) == 3 and unit(st, "a1").atk == 8


def test_before_action_fires_just_before_the_units_own_action_only() -> None:
    st = battle([card("eager", spd=5, fab=fab("before_action", PLUS_ATK))], [card("fast", spd=9)])
    assert acting(st) == "b1" and not triggered(st, "a1")
    attack(st, "a1")
    assert acting(st) == "a1" and len(triggered(st, "a1")) == 1
    attack(st, "b1")
    assert of_type(st, "damage")[-1]["atk"] == 6


def test_after_action_fires_after_the_action_resolves() -> None:
    st = battle([card("hasty", spd=9, fab=fab("after_action", PLUS_ATK))], [card("t", **DUMMY)])
    attack(st, "b1")
    types = [e["type"] for e in st.events()]
    assert types[types.index("damage"):types.index("damage") + 3] == ["damage", "faction_triggered", "effect_applied"]
    assert of_type(st, "damage")[0]["atk"] == 5 and unit(st, "a1").atk == 6


def test_on_hit_fires_on_enemy_actions_but_not_on_ongoing_damage() -> None:
    hexer = card("hexer", spd=9, main=main({"kind": "poison", "target": "target", "amount": 2, "duration": 3}))
    angry = card("angry", spd=1, hp=40, fab=fab("on_hit", PLUS_ATK))
    st = battle([hexer], [angry])
    use(st, "b1")  # an ability that deals no damage: no hit
    assert not triggered(st, "b1")
    attack(st, "a1")
    pass_turns(st, until="a1")  # poison ticks at the start of round 2
    assert [e["via"] for e in of_type(st, "damage") if e["tgt"] == "b1"] == ["ongoing"]
    assert not triggered(st, "b1")
    attack(st, "b1")
    assert len(triggered(st, "b1")) == 1


def test_ally_defeated_fires_for_the_living_allies() -> None:
    mourner = card("mourner", spd=1, hp=40, fab=fab("ally_defeated", PLUS_ATK))
    frail = card("frail", spd=1, hp=1, df=0)
    st = battle([mourner, frail], [card("killer", atk=9, spd=9)])
    attack(st, "a2")
    assert len(triggered(st, "a1")) == 1 and unit(st, "a1").atk == 6


def test_r18_enemy_defeated_fires_for_every_enemy_of_the_fallen_character() -> None:
    hunter = card("hunter", atk=9, spd=9, fab=fab("enemy_defeated", PLUS_ATK))
    other = card("other", spd=8, fab=fab("enemy_defeated", PLUS_ATK))
    st = battle([hunter, other], [card("frail", spd=1, hp=1, df=0), card("t", **DUMMY)])
    attack(st, "b1")
    assert len(triggered(st, "a1")) == 1 and len(triggered(st, "a2")) == 1  # any enemy character's defeat


def test_r18_defeats_enemy_fires_only_for_the_unit_that_defeats_the_enemy() -> None:
    hunter = card("hunter", atk=9, spd=9, fab=fab("defeats_enemy", PLUS_ATK))
    other = card("other", spd=8, fab=fab("defeats_enemy", PLUS_ATK))
    st = battle([hunter, other], [card("frail", spd=1, hp=1, df=0), card("t", **DUMMY)])
    attack(st, "b1")
    assert len(triggered(st, "a1")) == 1 and not triggered(st, "a2")


SKELETON = {"name": "Skeleton", "atk": 1, "def": 0, "spd": 1, "hp": 1}


def test_r18_a_summons_fall_triggers_no_defeat_ability_unless_it_says_unit() -> None:
    raiser = card("raiser", spd=9, main=main({"kind": "summon", "unit": SKELETON, "line": "same"}, choose="none"),
                  fab=fab("ally_defeated", PLUS_ATK, limit="battle"))
    watcher = card("watcher", spd=2, fab=fab("ally_defeated", PLUS_ATK, include_summons=True))
    gloater = card("gloater", spd=8, fab=fab("enemy_defeated", PLUS_ATK))
    killer = card("killer", atk=9, spd=5, fab=fab("defeats_enemy", PLUS_ATK))
    st = battle([raiser, watcher], [gloater, killer])
    use(st, None)  # a3, the skeleton, acts after b1 this round
    attack(st, "a1")  # b1 hits a1 (no defeat)
    attack(st, "a3")  # b2 defeats the skeleton
    assert of_type(st, "defeated")[-1]["unit"] == "a3"
    assert not triggered(st, "a1")  # a once-per-battle ability is not spent on a summon
    assert len(triggered(st, "a2")) == 1  # "when an allied unit is defeated" counts it
    assert not triggered(st, "b1") and not triggered(st, "b2")


def test_round_end_fires_in_the_end_phase_before_durations_tick_down() -> None:
    sunset = card("sunset", spd=9, fab=fab("round_end", {"kind": "buff", "target": "self", "stat": "atk", "amount": 1, "duration": 2}))
    st = battle([sunset], [card("t", **DUMMY)])
    pass_turns(st, rounds=1)
    types = [e["type"] for e in st.events()]
    assert types.index("faction_triggered") < types.index("round_end")
    applied = of_type(st, "effect_applied")[0]
    assert applied["until"] == 2 and unit(st, "a1").atk == 6  # applied in round 1 with duration 2


def test_condition_allies_same_faction_gte_counts_other_living_characters() -> None:
    pack = fab("round_start", PLUS_ATK, condition={"allies_same_faction_gte": 1})
    leader = card("leader", spd=9, faction="tribal", fab=pack)
    kin = card("kin", spd=1, hp=1, df=0, faction="tribal")
    stranger = card("stranger", spd=1, faction="arcane")
    st = battle([leader, kin, stranger], [card("killer", atk=9, spd=5)])
    assert len(triggered(st, "a1")) == 1
    attack(st, "b1")
    attack(st, "a2")  # kin falls
    pass_turns(st, rounds=1)
    assert len(triggered(st, "a1")) == 1  # only the arcane stranger is left
    alone = battle([card("solo", spd=9, faction="tribal", fab=pack)], [card("t", **DUMMY, faction="tribal")])
    assert not triggered(alone, "a1")


def test_condition_line_requires_the_unit_to_stand_in_that_line() -> None:
    front = fab("round_start", PLUS_ATK, condition={"line": "vanguard"})
    st = battle([card("v", spd=9, fab=front), card("r", cls="mage", spd=8, fab=front)], [card("t", **DUMMY)])
    assert len(triggered(st, "a1")) == 1 and not triggered(st, "a2")


def test_condition_hp_below_is_a_fraction_of_max_hp() -> None:
    desperate = fab("before_action", PLUS_ATK, condition={"hp_below": 0.5})
    st = battle([card("d", spd=5, df=0, hp=20, fab=desperate)], [card("brute", atk=10, spd=9)])
    attack(st, "a1")  # 20 -> 10: exactly half is not below half
    assert acting(st) == "a1" and not triggered(st, "a1")
    st = battle([card("d", spd=5, df=0, hp=20, fab=desperate)], [card("brute", atk=11, spd=9)])
    attack(st, "a1")  # 20 -> 9: below half
    assert acting(st) == "a1" and len(triggered(st, "a1")) == 1


def test_limit_round_fires_at_most_once_per_round() -> None:
    prickly = card("prickly", cls="tank", spd=1, hp=40, fab=fab("on_hit", PLUS_ATK, limit="round"))
    st = battle([card("x", spd=9), card("y", spd=8)], [prickly])
    attack(st, "b1")
    attack(st, "b1")
    assert len(triggered(st, "b1")) == 1
    pass_turns(st, until="a1")
    attack(st, "b1")
    assert len(triggered(st, "b1")) == 2


def test_limit_battle_fires_once_per_match() -> None:
    st = battle([card("once", spd=9, fab=fab("round_start", PLUS_ATK, limit="battle"))], [card("t", **DUMMY)])
    pass_turns(st, rounds=3)
    assert len(triggered(st, "a1")) == 1


def test_limit_none_fires_every_time() -> None:
    prickly = card("prickly", cls="tank", spd=1, hp=40, fab=fab("on_hit", PLUS_ATK))
    st = battle([card("x", spd=9), card("y", spd=8)], [prickly])
    attack(st, "b1")
    attack(st, "b1")
    assert len(triggered(st, "b1")) == 2
