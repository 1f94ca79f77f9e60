"""Rules fidelity: each reading of the rulebook that play once got wrong, with the ruling that settles it."""

from __future__ import annotations

import random
from typing import Any

import pytest

from realms.engine.spec import parse_faction_ability, parse_main_ability
from simulate.engine.errors import SpecError
from simulate.engine.runner import play_match
from tests.engine.helpers import (
    act_orders,
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

# ------------------------------------------------------------- R17 effects end with their source


def test_r17_a_fallen_units_poison_stops_ticking_and_its_debuffs_end_at_once() -> None:
    hexer = card("hexer", spd=9, hp=3, df=0, main=main(
        {"kind": "poison", "target": "target", "amount": 2, "duration": 3},
        {"kind": "debuff", "target": "target", "stat": "def", "amount": 2, "duration": 3}))
    st = battle([hexer], [card("brute", atk=9, df=4, spd=5, hp=40)])
    use(st, "b1")
    assert unit(st, "b1").def_ == 2
    attack(st, "a1")  # the brute defeats the hexer
    fall = of_type(st, "defeated")[-1]
    assert fall["unit"] == "a1"
    ended = [(e["eid"], e["unit"], e["reason"], e["src"]) for e in of_type(st, "effect_expired")]
    assert ended == [(1, "b1", "source_defeated", "a1"), (2, "b1", "source_defeated", "a1")]
    assert unit(st, "b1").def_ == 4 and effects(st, "b1") == ()
    assert st.is_terminal()


def test_r17_effects_standing_on_the_fallen_unit_end_with_it_and_its_shields_on_allies_too() -> None:
    warden = card("warden", spd=9, hp=2, df=0, main=main(
        {"kind": "shield", "target": "all_allies", "flat": 5, "duration": 3}, choose="none"))
    st = battle([warden, card("friend", spd=1, hp=30)], [card("brute", atk=9, spd=5, hp=40)])
    use(st, None)
    assert unit(st, "a2").shield == 5
    attack(st, "a1")  # through its own shield: 9 - 0 = 9, 5 absorbed, 2 HP left -> 0
    reasons = {(e["unit"], e["reason"]) for e in of_type(st, "effect_expired")}
    assert ("a1", "depleted") in reasons and ("a2", "source_defeated") in reasons
    assert unit(st, "a2").shield == 0


def test_r17_an_effect_whose_text_says_it_outlives_its_source_persists() -> None:
    hexer = card("hexer", spd=9, hp=3, df=0, main=main(
        {"kind": "poison", "target": "target", "amount": 2, "duration": 3, "persists": True}))
    st = battle([hexer, card("friend", spd=1, hp=40, df=30)], [card("brute", atk=9, spd=5, hp=40, df=30)])
    use(st, "b1")
    attack(st, "a1")
    attack(st, "b1")  # a2
    pass_turns(st, rounds=1)  # into round 3's start phase
    ticks = [e for e in of_type(st, "damage") if e["via"] == "ongoing"]
    assert [(e["src"], e["tgt"], e["amount"]) for e in ticks] == [("a1", "b1", 2)] * 2


# ------------------------------------------------------------- R10 defeated during its own action


def test_r10_a_sacrifice_that_kills_its_user_stops_the_rest_of_the_ability() -> None:
    zealot = card("zealot", atk=20, spd=9, hp=3, main=main(
        {"kind": "damage", "target": "self", "flat": 3, "ignore_def": True},
        {"kind": "damage", "target": "target", "scale": 1.5},
        {"kind": "buff", "target": "all_allies", "stat": "atk", "amount": 2, "duration": 2}))
    st = battle([zealot, card("friend", spd=1, hp=30)], [card("t", df=0, spd=1, hp=10)])
    use(st, "b1")
    hits = of_type(st, "damage")
    assert [(e["tgt"], e["hp_after"]) for e in hits] == [("a1", 0)]  # the strike on b1 never lands
    fizzles = [(e["effect"], e["reason"]) for e in of_type(st, "fizzle")]
    assert fizzles == [("damage", "source_defeated"), ("buff", "source_defeated")]
    assert unit(st, "b1").hp == 10 and not of_type(st, "effect_applied")


def test_r10_a_last_character_killing_itself_loses_instead_of_drawing() -> None:
    zealot = card("zealot", atk=20, spd=9, hp=3, main=main(
        {"kind": "damage", "target": "self", "flat": 3, "ignore_def": True},
        {"kind": "damage", "target": "target", "scale": 1.5}))
    st = battle([zealot], [card("t", df=0, spd=1, hp=10)])
    use(st, "b1")
    end = of_type(st, "match_end")[-1]
    assert (end["winner"], end["reason"]) == ("b", "elimination")


# ------------------------------------------------------------- R12 single-enemy picks


@pytest.mark.parametrize("selector", ["lowest_hp_enemy", "random_enemy", "highest_atk_enemy"])
def test_r12_a_vanguard_units_pick_never_reaches_a_screened_rearguard(selector: str) -> None:
    striker = card("striker", cls="warrior", spd=9, main=main({"kind": "damage", "target": selector, "scale": 1.0},
                                                              choose="none"))
    wall = card("wall", cls="tank", atk=0, df=0, spd=1, hp=40)
    frail = card("frail", cls="mage", atk=20, df=0, spd=2, hp=1)
    for seed in range(12):
        st = battle([striker], [wall, frail], seed=seed)
        use(st, None)
        pick = of_type(st, "pick")[-1]
        assert pick["pool"] == ["b1"] and pick["unit"] == "b1"
        assert of_type(st, "damage")[-1]["tgt"] == "b1"


def test_r12_a_rearguard_unit_and_an_ability_that_ignores_lines_reach_the_rearguard() -> None:
    sniper = card("sniper", cls="archer", spd=9, main=main({"kind": "damage", "target": "lowest_hp_enemy", "scale": 1.0},
                                                            choose="none"))
    wall = card("wall", cls="tank", atk=0, df=0, spd=1, hp=40)
    frail = card("frail", cls="mage", atk=0, df=0, spd=2, hp=1)
    st = battle([sniper], [wall, frail])
    use(st, None)
    assert of_type(st, "pick")[-1]["pool"] == ["b1", "b2"] and of_type(st, "defeated")[-1]["unit"] == "b2"
    reaper = card("reaper", cls="warrior", spd=9, main=main({"kind": "damage", "target": "target", "scale": 1.0},
                                                             ignore_lines=True))
    st = battle([reaper], [wall, frail])
    assert ("ability", "b2") in st.legal_actions() and ("attack", "b2") not in st.legal_actions()


# ------------------------------------------------------------- R14 ticks and dead effects


def test_r14_an_ongoing_effect_applied_before_round_1_ticks_in_rounds_1_to_n() -> None:
    plague = fab("battle_start", {"kind": "poison", "target": "all_enemies", "amount": 1, "duration": 2})
    st = battle([card("p", spd=9, fab=plague)], [card("t", **{**DUMMY, "df": 30})])
    applied = of_type(st, "effect_applied")[0]
    assert applied["until"] == 2
    pass_turns(st, rounds=3)
    rounds = []
    current = 0
    for e in st.events():
        if e["type"] == "round_start":
            current = e["round"]
        elif e["type"] == "damage" and e["via"] == "ongoing":
            rounds.append(current)
    assert rounds == [1, 2]


@pytest.mark.parametrize(
    ("raw", "trigger"),
    [
        ({"kind": "buff", "target": "self", "stat": "spd", "amount": 2, "duration": 1}, None),
        ({"kind": "debuff", "target": "attacker", "stat": "spd", "amount": 1, "duration": 1}, "on_hit"),
        ({"kind": "silence", "target": "attacker", "duration": 1}, "on_hit"),
        ({"kind": "silence", "target": "self", "duration": 1}, "after_action"),
        ({"kind": "shield", "target": "self", "flat": 2, "duration": 1}, "round_end"),
    ],
)
def test_r14_an_effect_that_can_never_matter_is_refused_by_the_catalogue(raw: dict, trigger: str | None) -> None:
    with pytest.raises(SpecError) as err:
        if trigger is None:
            parse_main_ability(main(raw, choose="none"))
        else:
            parse_faction_ability(fab(trigger, raw))
    assert any(path.endswith("effects[0].duration") for path, _ in err.value.errors)
    longer = {**raw, "duration": 2}
    if trigger is None:
        parse_main_ability(main(longer, choose="none"))
    else:
        parse_faction_ability(fab(trigger, longer))


def test_r14_a_one_round_spd_change_before_the_order_is_built_is_legal() -> None:
    parse_faction_ability(fab("round_start", {"kind": "buff", "target": "self", "stat": "spd", "amount": 1, "duration": 1}))
    parse_faction_ability(fab("battle_start", {"kind": "debuff", "target": "all_enemies", "stat": "spd", "amount": 1,
                                               "duration": 1}))


# ------------------------------------------------------------- R7 round 1's start phase


def test_r7_round_1_start_phase_uses_the_spd_after_battle_start_effects() -> None:
    slowed = fab("battle_start", {"kind": "debuff", "target": "self", "stat": "spd", "amount": 8, "duration": 1})
    regen = fab("round_start", {"kind": "heal", "target": "self", "flat": 1})
    fast = card("fast", spd=9, fab=slowed)
    st = battle([fast], [card("steady", spd=5, fab=regen, hp=40)])
    orders = of_type(st, "order")
    assert [(o["phase"], o["round"]) for o in orders[:2]] == [("battle_start", 0), ("start", 1)]
    assert [uid for uid, _ in orders[0]["units"]] == ["a1", "b1"]
    assert [uid for uid, _ in orders[1]["units"]] == ["b1", "a1"]  # a1 at SPD 1 now
    assert act_orders(st)[0]["units"] == [["b1", 5], ["a1", 1]]


def test_r9_ties_within_one_player_keep_army_order_and_the_option_decides_between_players() -> None:
    st = battle([card("x", spd=5), card("y", spd=5)], [card("z", spd=5)], tie_break="alternate")
    orders = of_type(st, "order")
    assert [[uid for uid, _ in o["units"]] for o in orders] == [["a1", "b1", "a2"], ["b1", "a1", "a2"], ["a1", "b1", "a2"]]
    assert [o["ties"] for o in orders] == [[[5, "a"]], [[5, "b"]], [[5, "a"]]]


# ------------------------------------------------------------- lost actions


def test_a_summon_whose_slot_had_passed_loses_no_action_when_it_falls() -> None:
    fast = {"name": "Imp", "atk": 1, "def": 0, "spd": 9, "hp": 1}
    caller = card("caller", spd=5, main=main({"kind": "summon", "unit": fast, "line": "same"}, choose="none"))
    st = battle([caller], [card("t", atk=9, spd=1, hp=40)])
    use(st, None)
    assert of_type(st, "summon")[-1]["acts"] is False
    assert acting(st) == "b1"
    attack(st, "a2")
    fall = of_type(st, "defeated")[-1]
    assert fall["unit"] == "a2" and fall["lost_action"] is False


# ------------------------------------------------------------- G2 and G3


def test_g2_an_agent_gets_a_generator_of_its_own_seeded_from_the_match() -> None:
    seen: list[random.Random] = []

    class Spy:
        name = "spy"

        def act(self, observation, legal, rng):  # type: ignore[no-untyped-def]
            seen.append(rng)
            return legal[0]

    a = [(card("x", spd=5, atk=9), "vanguard")]
    b = [(card("y", spd=4, atk=9), "vanguard")]
    result = play_match("realms", setup={"armies": {"a": a, "b": b}}, agents={"a": Spy(), "b": "random"}, seed=7)
    assert result.events[0]["agents"] == {"a": "spy", "b": "random"}
    seeds = result.events[1]  # the seeds are logged apart from the public setup, for no player
    assert seeds["type"] == "seeds" and seeds["seed"] == 7 and seeds["visible_to"] == []
    assert seen and all(r is seen[0] for r in seen)
    assert seen[0].getstate() == random.Random(seeds["agent_seeds"]["a"]).getstate()  # untouched: spy drew nothing
    assert seen[0].getstate() != random.Random(7).getstate()
    # Replaying the match reproduces the agent seeds, and the agent's generator is that seed's alone.
    again = play_match("realms", setup={"armies": {"a": a, "b": b}}, agents={"a": "random", "b": "random"}, seed=7)
    assert again.events[1]["agent_seeds"] == seeds["agent_seeds"]


def test_g3_match_start_names_every_units_full_card_and_every_decision_is_logged() -> None:
    st = battle([card("x", spd=5, rarity="rare"), (card("sin", cls="assassin", spd=9), "vanguard")],
                [card("y", spd=4)])
    start = of_type(st, "match_start")[0]
    x = start["units"][0]
    assert (x["rarity"], x["position"], x["class"], x["cooldown"]) == ("rare", "vanguard", "warrior", 2)
    assert x["main_ability"]["effects"] == [{"kind": "damage", "target": "target", "scale": 1.0}]
    assert x["faction_ability"]["trigger"] == "battle_start"
    st.apply(("stay", None))
    decision = of_type(st, "decision")[-1]
    assert (decision["stage"], decision["unit"], decision["action"]) == ("flex", "a2", ["stay", None])
    assert decision["legal"] == [["stay", None], ["switch", "rearguard"]]
    attack(st, "b1")
    decision = of_type(st, "decision")[-1]
    assert decision["stage"] == "act" and decision["action"] == ["attack", "b1"] and ["ability", "b1"] in decision["legal"]


def test_g3_every_effect_names_the_ability_use_it_came_from() -> None:
    medic = card("medic", cls="support", spd=9, main=main(
        {"kind": "heal", "target": "target", "flat": 3},
        {"kind": "cleanse", "target": "target"}, choose="ally"))
    hexer = card("hexer", spd=5, fab=fab("battle_start", {"kind": "debuff", "target": "all_enemies", "stat": "atk",
                                                          "amount": 1, "duration": 3}))
    st = battle([medic], [hexer])
    use(st, "a1")
    used = of_type(st, "ability_used")[-1]
    expired = of_type(st, "effect_expired")[-1]
    assert (expired["reason"], expired["src"], expired["via"], expired["use"]) == ("cleansed", "a1", "ability", used["use"])
    assert of_type(st, "heal")[-1]["use"] == used["use"]
    trig = of_type(st, "faction_triggered")[0]
    assert of_type(st, "effect_applied")[0]["use"] == trig["use"] != used["use"]


def test_r14_a_card_that_reduces_its_own_cooldown_of_1_is_refused() -> None:
    quick = fab("defeats_enemy", {"kind": "cooldown", "target": "self", "amount": -1})
    with pytest.raises(SpecError) as err:
        card("quick", cooldown=1, fab=quick)
    assert err.value.errors[0][0] == "faction_ability.effects[0].amount"
    assert card("patient", cooldown=2, fab=quick).cooldown == 2


def test_r13_a_main_ability_cutting_its_own_cooldown_is_refused() -> None:
    with pytest.raises(SpecError) as err:
        card("hasty", main=main({"kind": "damage", "target": "target", "scale": 1.0},
                                {"kind": "cooldown", "target": "self", "amount": -1}))
    assert err.value.errors == [("main_ability.effects[1].amount", "a Main Ability enters its cooldown once it has "
                                 "resolved (R13): cutting its own cooldown while it resolves never changes anything")]
    # Cutting every ally's, its own included, still reaches the others (Time Rune).
    card("runes", main=main({"kind": "cooldown", "target": "all_allies", "amount": -1}, choose="none"))
