"""One scenario per effect kind of the ability spec, with the numbers each one must produce."""

from __future__ import annotations

from typing import Any

import pytest

from realms.engine.effects import EFFECT_KINDS, KINDS
from realms.engine.effects.base import ValueContext
from realms.engine.spec import parse_faction_ability, parse_main_ability
from realms.engine.text import main_text
from simulate.engine.errors import SpecError
from tests.engine.audit import audit
from tests.engine.helpers import (
    acting,
    attack,
    battle,
    card,
    effects,
    fab,
    main,
    of_type,
    pass_turns,
    unit,
    use,
)

DUMMY: dict[str, Any] = {"cls": "tank", "atk": 1, "df": 0, "spd": 1, "hp": 40}


def test_every_effect_kind_has_a_scenario_here() -> None:
    names = {name[len("test_"):].split("_")[0] for name in globals() if name.startswith("test_")}
    assert set(EFFECT_KINDS) <= names


def test_damage_is_floor_of_atk_times_scale_plus_flat_minus_def() -> None:
    caster = card("caster", cls="mage", atk=7, spd=9, main=main({"kind": "damage", "target": "target", "scale": 1.3, "flat": 2}))
    st = battle([caster], [card("t", **{**DUMMY, "df": 3})])
    use(st, "b1")
    hit = of_type(st, "damage")[-1]
    # floor(7 * 1.3) = 9, + 2 = 11, − DEF 3 = 8
    assert (hit["via"], hit["atk"], hit["power"], hit["def"], hit["amount"]) == ("ability", 7, 11, 3, 8)
    assert unit(st, "b1").hp == 32


def test_damage_ignore_def_skips_def_and_still_deals_at_least_1() -> None:
    caster = card("caster", cls="mage", atk=6, spd=9,
                  main=main({"kind": "damage", "target": "target", "scale": 1.5, "ignore_def": True}))
    st = battle([caster], [card("t", **{**DUMMY, "df": 30})])
    use(st, "b1")
    hit = of_type(st, "damage")[-1]
    assert (hit["power"], hit["def"], hit["amount"]) == (9, None, 9)
    assert unit(st, "b1").hp == 31


def test_heal_adds_scale_flat_and_max_hp_fraction_and_never_exceeds_max_hp() -> None:
    healer = card("healer", cls="support", atk=6, spd=5, main=main(
        {"kind": "heal", "target": "target", "scale": 0.5, "flat": 2, "max_hp_fraction": 0.1}, choose="ally"))
    ally = card("ally", cls="warrior", df=0, spd=1, hp=30)
    brute = card("brute", cls="warrior", atk=12, spd=9)
    st = battle([healer, ally], [brute])
    attack(st, "a2")  # 30 -> 18
    use(st, "a2")  # 3 + 2 + 3 = 8
    heal = of_type(st, "heal")[-1]
    assert (heal["amount"], heal["healed"], heal["hp_before"], heal["hp_after"]) == (8, 8, 18, 26)
    st2 = battle([healer, ally], [card("slow", **DUMMY)])
    use(st2, "a2")  # full HP: nothing to heal
    heal = of_type(st2, "heal")[-1]
    assert (heal["amount"], heal["healed"], heal["hp_after"]) == (8, 0, 30)


def test_shield_absorbs_damage_before_hp_and_is_removed_when_used_up() -> None:
    guard = card("guard", cls="tank", df=0, spd=9, hp=30,
                 main=main({"kind": "shield", "target": "self", "flat": 5, "duration": 2}, choose="none"))
    brute = card("brute", cls="warrior", atk=12, spd=5)
    st = battle([guard], [brute])
    use(st, None)
    assert unit(st, "a1").shield == 5
    attack(st, "a1")
    hit = of_type(st, "damage")[-1]
    assert (hit["amount"], hit["absorbed"], hit["hp_before"], hit["hp_after"]) == (12, 5, 30, 23)
    expired = of_type(st, "effect_expired")[-1]
    assert (expired["kind"], expired["reason"]) == ("shield", "depleted")
    assert unit(st, "a1").shield == 0


def test_shield_scale_uses_the_casters_atk_and_expires_after_its_duration() -> None:
    guard = card("guard", cls="tank", atk=4, spd=9, hp=30,
                 main=main({"kind": "shield", "target": "self", "scale": 1.5, "duration": 1}, choose="none"))
    st = battle([guard], [card("t", **DUMMY)])
    use(st, None)
    assert unit(st, "a1").shield == 6
    pass_turns(st, rounds=1)
    assert unit(st, "a1").shield == 0
    assert of_type(st, "effect_expired")[-1]["reason"] == "duration"


def test_buff_lasts_until_the_end_phase_of_round_r_plus_d_minus_1() -> None:
    buffer = card("buffer", atk=5, spd=9, main=main(
        {"kind": "buff", "target": "self", "stat": "atk", "amount": 3, "duration": 2}, choose="none"))
    st = battle([buffer], [card("t", **DUMMY)])
    use(st, None)
    applied = of_type(st, "effect_applied")[-1]
    assert (applied["kind"], applied["stat"], applied["amount"], applied["until"]) == ("buff", "atk", 3, 2)
    assert unit(st, "a1").atk == 8
    pass_turns(st, until="a1")  # round 2: still active
    assert st.round == 2 and unit(st, "a1").atk == 8
    attack(st, "b1")
    pass_turns(st, until="a1")  # removed in round 2's end phase
    assert st.round == 3 and unit(st, "a1").atk == 5
    expired = [e for e in of_type(st, "effect_expired", "round_end") if e.get("eid") == applied["eid"] or e["type"] == "round_end"]
    assert [e["type"] for e in expired][:3] == ["round_end", "effect_expired", "round_end"]


def test_debuff_lowers_a_stat_but_never_below_0() -> None:
    hexer = card("hexer", spd=9, main=main({"kind": "debuff", "target": "target", "stat": "def", "amount": 10, "duration": 1}))
    hitter = card("hitter", cls="archer", atk=4, spd=8)
    st = battle([hexer, hitter], [card("t", **{**DUMMY, "df": 3})])
    use(st, "b1")
    assert unit(st, "b1").def_ == 0
    attack(st, "b1")
    assert of_type(st, "damage")[-1]["def"] == 0
    assert of_type(st, "damage")[-1]["amount"] == 4
    pass_turns(st, rounds=1)
    assert unit(st, "b1").def_ == 3


def test_poison_ticks_in_later_start_phases_ignoring_def_while_active() -> None:
    hexer = card("hexer", spd=9, main=main({"kind": "poison", "target": "target", "amount": 3, "duration": 3}))
    st = battle([hexer], [card("t", **{**DUMMY, "df": 30})])
    use(st, "b1")
    pass_turns(st, rounds=3)  # R14: exactly 3 ticks, at the start of rounds 2, 3 and 4, then removed
    ticks = [e for e in of_type(st, "damage") if e["via"] == "ongoing"]
    assert [(e["amount"], e["def"], e["hp_before"] - e["hp_after"], e["eid"]) for e in ticks] == [(3, None, 3, 1)] * 3
    assert [e["src"] for e in ticks] == ["a1", "a1", "a1"]
    assert of_type(st, "effect_applied")[0]["until"] == 4
    expiry = of_type(st, "effect_expired")[-1]
    assert (expiry["eid"], expiry["reason"]) == (1, "duration")
    assert st.events().index(expiry) == st.events().index(of_type(st, "damage")[-1]) + 1  # right after the last tick
    assert effects(st, "b1") == ()


def test_burn_ticks_like_poison_and_a_shield_absorbs_it() -> None:
    burner = card("burner", spd=9, main=main({"kind": "burn", "target": "target", "amount": 4, "duration": 2}))
    warded = card("warded", **DUMMY, fab=fab("round_start", {"kind": "shield", "target": "self", "flat": 1, "duration": 2}))
    st = battle([burner], [warded])
    use(st, "b1")
    pass_turns(st, rounds=1)
    tick = [e for e in of_type(st, "damage") if e["via"] == "ongoing"]
    assert len(tick) == 1
    # round 2's start phase: b1's burn tick (round 1's shield absorbs 1), then b1's new shield
    assert (tick[0]["amount"], tick[0]["absorbed"], tick[0]["hp_after"]) == (4, 1, 37)
    assert unit(st, "b1").shield == 1


def test_regen_heals_each_later_start_phase_capped_at_max_hp() -> None:
    medic = card("medic", cls="support", spd=5, main=main({"kind": "regen", "target": "target", "amount": 4, "duration": 3}, choose="ally"))
    ally = card("ally", df=0, spd=1, hp=20)
    brute = card("brute", atk=7, spd=9)
    st = battle([medic, ally], [brute])
    attack(st, "a2")  # 20 -> 13
    use(st, "a2")  # applied in round 1: heals in the start phases of rounds 2, 3 and 4 (R14)
    pass_turns(st, rounds=3)  # the brute hits a2 for 7 again in rounds 2 and 3
    heals = [(e["hp_before"], e["healed"], e["hp_after"]) for e in of_type(st, "heal") if e["via"] == "ongoing"]
    assert heals == [(13, 4, 17), (10, 4, 14), (7, 4, 11)]
    assert st.round == 4 and effects(st, "a2") == ()
    scratch = card("scratch", atk=1, spd=9)
    st = battle([medic, ally], [scratch])
    attack(st, "a2")  # 20 -> 19
    use(st, "a2")
    pass_turns(st, rounds=1)
    tick = [e for e in of_type(st, "heal") if e["via"] == "ongoing"][0]
    assert (tick["amount"], tick["healed"], tick["hp_after"]) == (4, 1, 20)


def test_silence_blocks_the_main_ability_for_its_duration() -> None:
    muter = card("muter", spd=9, main=main({"kind": "silence", "target": "target", "duration": 2}))
    talker = card("talker", spd=5)
    st = battle([muter], [talker])
    use(st, "b1")
    assert unit(st, "b1").silenced
    assert all(a[0] == "attack" for a in st.legal_actions())  # round 1
    attack(st, "a1")
    attack(st, "b1")
    assert st.round == 2 and acting(st) == "b1"
    assert all(a[0] == "attack" for a in st.legal_actions())  # round 2
    attack(st, "a1")
    attack(st, "b1")
    assert st.round == 3 and acting(st) == "b1"
    assert ("ability", "a1") in st.legal_actions()  # removed in round 2's end phase


def test_cooldown_plus_delays_a_ready_enemy_and_minus_brings_ones_own_sooner() -> None:
    delayer = card("delayer", spd=9, main=main({"kind": "cooldown", "target": "target", "amount": 1}))
    enemy = card("enemy", spd=5, cooldown=2)
    st = battle([delayer], [enemy])
    use(st, "b1")
    change = of_type(st, "cooldown")[-1]
    assert (change["ready_before"], change["ready_after"]) == (1, 2)
    assert all(a[0] == "attack" for a in st.legal_actions())
    hasty = card("hasty", spd=9, cooldown=3, fab=fab("after_action", {"kind": "cooldown", "target": "self", "amount": -1}))
    st = battle([hasty], [card("t", **DUMMY)])
    use(st, "b1")
    # R13: the after_action cut comes while the ability's use resolves, before its cooldown starts: nothing to cut.
    change = of_type(st, "cooldown")[-1]
    assert (change["amount"], change["ready_before"], change["ready_after"]) == (-1, 1, 1)
    assert of_type(st, "cooldown_started")[-1]["ready_after"] == 4
    attack(st, "a1")
    attack(st, "b1")  # round 2: after a Basic Attack the cut shortens the cooldown already running
    change = of_type(st, "cooldown")[-1]
    assert (change["amount"], change["ready_before"], change["ready_after"]) == (-1, 4, 3)


def test_move_pulls_a_unit_to_a_line_with_room_and_fizzles_otherwise() -> None:
    hook = card("hook", cls="mage", spd=9, main=main({"kind": "move", "target": "target", "to": "vanguard"}, ignore_lines=True))
    archer = card("archer", cls="archer", spd=1)
    st = battle([hook], [card("wall", **DUMMY), archer])
    use(st, "b2")
    move = of_type(st, "move")[-1]
    assert (move["unit"], move["from"], move["to"], move["via"]) == ("b2", "rearguard", "vanguard", "ability")
    assert unit(st, "b2").line == "vanguard"
    full = [card(f"w{i}", **DUMMY) for i in range(5)]
    st = battle([hook], [*full, archer])
    use(st, "b6")
    assert of_type(st, "fizzle")[-1]["reason"] == "no_room" and unit(st, "b6").line == "rearguard"
    swap = card("swap", cls="mage", spd=9, main=main({"kind": "move", "target": "self", "to": "other"}, choose="none"))
    st = battle([swap], [card("t", **DUMMY)])
    use(st, None)
    assert unit(st, "a1").line == "vanguard"


def test_summon_adds_units_to_the_line_and_fizzles_without_room() -> None:
    skeleton = {"name": "Skeleton", "atk": 3, "def": 2, "spd": 3, "hp": 8}
    caller = card("caller", spd=5, main=main({"kind": "summon", "unit": skeleton, "line": "same", "count": 2}, choose="none"))
    st = battle([caller], [card("t", **DUMMY)])
    use(st, None)
    summons = of_type(st, "summon")
    assert [(s["unit"], s["name"], s["line"], s["hp"]) for s in summons] == [
        ("a2", "Skeleton", "vanguard", 8), ("a3", "Skeleton", "vanguard", 8)]
    assert unit(st, "a2").summon and unit(st, "a2").alive
    crowd = [card(f"c{i}", spd=1) for i in range(3)]
    st = battle([caller, *crowd], [card("t", **DUMMY)])
    use(st, None)
    assert len(of_type(st, "summon")) == 1
    assert of_type(st, "fizzle")[-1]["reason"] == "no_room"


def test_cleanse_removes_every_negative_effect_and_restores_stats() -> None:
    cleric = card("cleric", cls="support", spd=5, main=main({"kind": "cleanse", "target": "target"}, choose="ally"))
    ally = card("ally", atk=6, spd=1)
    witch = card("witch", spd=9, main=main(
        {"kind": "debuff", "target": "all_enemies", "stat": "atk", "amount": 2, "duration": 3},
        {"kind": "poison", "target": "all_enemies", "amount": 1, "duration": 3},
        {"kind": "silence", "target": "all_enemies", "duration": 3},
        {"kind": "burn", "target": "all_enemies", "amount": 1, "duration": 3}, choose="none"))
    st = battle([cleric, ally], [witch])
    use(st, None)
    assert unit(st, "a2").atk == 4
    st.apply(("attack", "b1"))  # the cleric is silenced too: it cannot cleanse this round
    assert acting(st) == "a2"
    attack(st, "b1")
    pass_turns(st, until="a1")
    witch2 = card("witch", spd=9, main=main(
        {"kind": "debuff", "target": "target", "stat": "atk", "amount": 2, "duration": 3},
        {"kind": "poison", "target": "target", "amount": 1, "duration": 3}))
    st = battle([cleric, ally], [witch2])
    use(st, "a2")
    use(st, "a2")
    removed = of_type(st, "effect_expired")
    assert sorted(e["kind"] for e in removed) == ["debuff", "poison"] and {e["reason"] for e in removed} == {"cleansed"}
    assert unit(st, "a2").atk == 6 and effects(st, "a2") == ()


def test_dispel_removes_every_positive_effect_of_the_target() -> None:
    saint = card("saint", spd=9, main=main(
        {"kind": "buff", "target": "self", "stat": "def", "amount": 4, "duration": 3},
        {"kind": "shield", "target": "self", "flat": 5, "duration": 3},
        {"kind": "regen", "target": "self", "amount": 2, "duration": 3},
        {"kind": "debuff", "target": "self", "stat": "spd", "amount": 1, "duration": 3}, choose="none"))
    breaker = card("breaker", cls="mage", spd=5, main=main({"kind": "dispel", "target": "target"}))
    st = battle([saint], [breaker])
    use(st, None)
    assert (unit(st, "a1").def_, unit(st, "a1").shield) == (9, 5)
    use(st, "a1")
    removed = of_type(st, "effect_expired")
    assert sorted(e["kind"] for e in removed) == ["buff", "regen", "shield"]
    assert (unit(st, "a1").def_, unit(st, "a1").shield) == (5, 0)
    assert [e[0] for e in effects(st, "a1")] == ["debuff"]


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        ("target", {"b1"}),
        ("target_line", {"b1", "b2"}),
        ("self", {"a1"}),
        ("all_allies", {"a1", "a2", "a3"}),
        ("other_allies", {"a2", "a3"}),
        ("lowest_hp_ally", {"a2"}),
        ("all_enemies", {"b1", "b2", "b3"}),
        ("lowest_hp_enemy", {"b2"}),
        ("highest_atk_enemy", {"b2"}),
        ("enemy_vanguard", {"b1", "b2"}),
        ("enemy_rearguard", {"b3"}),
        ("ally_vanguard", {"a1", "a2"}),
        ("ally_rearguard", {"a3"}),
    ],
)
def test_selector_picks(selector: str, expected: set[str]) -> None:
    actor = card("actor", spd=9, hp=20, main=main({"kind": "buff", "target": selector, "stat": "def", "amount": 1, "duration": 1}))
    a2 = card("a-two", spd=2, hp=10)
    a3 = card("a-three", cls="mage", spd=2, hp=15)
    b1 = card("b-one", spd=1, hp=30, atk=3)
    b2 = card("b-two", spd=1, hp=12, atk=9)
    b3 = card("b-three", cls="mage", spd=1, hp=12, atk=4)
    st = battle([actor, a2, a3], [b1, b2, b3])
    use(st, "b1")
    assert {e["unit"] for e in of_type(st, "effect_applied")} == expected


def test_random_selectors_pick_one_living_unit_and_keep_it_for_the_whole_ability() -> None:
    twin = card("twin", cls="archer", atk=10, spd=9, main=main(
        {"kind": "damage", "target": "random_enemy", "flat": 1},
        {"kind": "debuff", "target": "random_enemy", "stat": "atk", "amount": 1, "duration": 1},
        {"kind": "buff", "target": "random_ally", "stat": "atk", "amount": 1, "duration": 1}, choose="none"))
    picks = set()
    for seed in range(12):
        st = battle([twin, card("mate", spd=1)], [card(f"e{i}", spd=1, hp=50) for i in range(3)], seed=seed)
        use(st, None)
        hit = of_type(st, "damage")[-1]["tgt"]
        applied = of_type(st, "effect_applied")
        assert applied[0]["unit"] == hit  # the same random enemy for the whole ability
        assert applied[1]["unit"] in {"a1", "a2"}
        picks.add(hit)
    assert picks == {"b1", "b2", "b3"}


def test_attacker_selector_and_on_hit_trigger() -> None:
    thorns = card("thorns", cls="tank", spd=1, hp=40,
                  fab=fab("on_hit", {"kind": "damage", "target": "attacker", "flat": 3, "ignore_def": True}))
    st = battle([card("hitter", atk=5, spd=9, df=0)], [thorns])
    attack(st, "b1")
    hits = of_type(st, "damage")
    assert [(h["src"], h["tgt"], h["via"], h["amount"]) for h in hits] == [("a1", "b1", "basic", 1), ("b1", "a1", "faction", 3)]


# --- taunt ------------------------------------------------------------------------------------------------

TAUNT = main({"kind": "taunt", "target": "target", "duration": 2})


def _taunt_battle(taunter_line: str = "vanguard"):  # type: ignore[no-untyped-def]
    taunter = card("taunter", cls="support", position=taunter_line, spd=9, hp=60, cooldown=3, main=TAUNT)
    weak = card("weak", cls="warrior", spd=1, hp=30)
    brute = card("brute", cls="warrior", spd=5, hp=60)
    return battle([(taunter, taunter_line), weak], [brute], max_rounds=5)


def _finished(st):  # type: ignore[no-untyped-def]
    """The match played to its end (first legal actions), for the auditor, which reads whole logs."""
    while not st.is_terminal():
        st.apply(st.legal_actions()[0])
    return st.events()


def test_taunt_narrows_basic_attacks_to_the_taunter_for_its_duration() -> None:
    st = _taunt_battle()
    use(st, "b1")
    applied = of_type(st, "effect_applied")[-1]
    assert (applied["kind"], applied["unit"], applied["src"], applied["amount"], applied["until"]) == (
        "taunt", "b1", "a1", None, 2)
    assert acting(st) == "b1"
    attacks = [a for a in st.legal_actions() if a[0] == "attack"]
    assert attacks == [("attack", "a1")]  # a2 stands in the vanguard too, but the taunt narrows R12's targets
    assert ("ability", "a2") in st.legal_actions()  # its Main Ability is free
    assert [v.uid for v in st.observation("b").targets] == ["a1"]
    attack(st, "a1")
    attack(st, "b1")
    assert st.round == 2
    attack(st, "b1")  # a1: its ability cools down
    assert acting(st) == "b1" and [a for a in st.legal_actions() if a[0] == "attack"] == [("attack", "a1")]
    attack(st, "a1")
    attack(st, "b1")
    assert st.round == 3 and acting(st) == "a1"
    expired = of_type(st, "effect_expired")[-1]
    assert (expired["kind"], expired["reason"]) == ("taunt", "duration")
    attack(st, "b1")
    assert {a[1] for a in st.legal_actions() if a[0] == "attack"} == {"a1", "a2"}
    assert audit(_finished(st), full_armies=False, card_text=False) == []


def test_taunt_changes_nothing_while_the_taunter_is_out_of_reach() -> None:
    st = _taunt_battle("rearguard")
    use(st, "b1")
    assert acting(st) == "b1"
    assert [a for a in st.legal_actions() if a[0] == "attack"] == [("attack", "a2")]  # R12: a1 is out of reach
    assert audit(_finished(st), full_armies=False, card_text=False) == []


def test_taunt_ends_with_its_taunter_and_a_cleanse_removes_it() -> None:
    st = _taunt_battle()
    use(st, "b1")
    taunted = st.by_id["b1"]
    assert taunted.restraints == 1 and not unit(st, "b1").silenced
    st.by_id["a1"].hp = 1
    attack(st, "a1")  # b1 fells its taunter: R17 ends the taunt at once
    assert [(e["kind"], e["reason"]) for e in of_type(st, "effect_expired")] == [("taunt", "source_defeated")]
    assert taunted.restraints == 0 and not taunted.effects
    cleanser = card("cleanser", spd=1, main=main({"kind": "cleanse", "target": "target"}, choose="ally"))
    st = battle([card("taunter", cls="tank", spd=8, hp=60, main=TAUNT)], [cleanser, card("brute", spd=5)])
    use(st, "b2")  # a1 taunts b2
    attack(st, "a1")  # b2
    use(st, "b2")  # b1 cleanses b2
    assert [(e["kind"], e["reason"]) for e in of_type(st, "effect_expired")] == [("taunt", "cleansed")]


def test_taunt_spec_aims_at_enemies_never_persists_and_is_refused_where_it_never_matters() -> None:
    with pytest.raises(SpecError) as refused:
        parse_main_ability(main({"kind": "taunt", "target": "all_allies", "duration": 2, "persists": True},
                                choose="none"))
    assert [path for path, _ in refused.value.errors] == ["main_ability.effects[0].target",
                                                          "main_ability.effects[0].persists"]
    with pytest.raises(SpecError) as refused:
        parse_faction_ability(fab("on_hit", {"kind": "taunt", "target": "attacker", "duration": 1}))
    assert refused.value.errors[0][0] == "faction_ability.effects[0].duration"
    with pytest.raises(SpecError):
        parse_main_ability(main({"kind": "taunt", "target": "target", "duration": 6}))
    assert parse_faction_ability(fab("on_hit", {"kind": "taunt", "target": "attacker", "duration": 2}))


def test_taunt_words_polarity_and_agent_value() -> None:
    assert main_text(parse_main_ability(TAUNT)) == (
        "Taunts the chosen enemy for 2 rounds (its Basic Attacks must aim at this character whenever they can "
        "reach it).")
    kind = KINDS["taunt"]
    assert kind.lasting and not kind.positive and kind.restricts and not kind.has_amount
    st = _taunt_battle()
    enemy = st.observation("a").unit("b1")
    ctx = ValueContext("a", 1, None)
    assert kind.on_enemy(parse_main_ability(TAUNT).effects[0], 0, enemy, ctx) > 0
    assert kind.on_ally(parse_main_ability(TAUNT).effects[0], 0, enemy, ctx) == 0
