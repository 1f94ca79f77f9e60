"""Changes players make at a table between decisions (realms.engine.table): HP moved by hand, free effects put on
and taken off. The engine keeps running the rules around them (falls, triggers, the end, durations, orders), and
the strict auditor passes every log that holds them."""

from __future__ import annotations

import random
from functools import cache
from typing import Any

import pytest

from realms.engine.effects import KINDS
from realms.engine.formation import random_army
from realms.engine.state import RealmsState
from realms.engine.table import TABLE_KINDS
from realms.engine.vocabulary import STATS
from simulate.engine.errors import IllegalAction
from simulate.engine.games import TABLE
from simulate.engine.seated import PERSON, Diverged, as_json, resume
from tests.engine.audit import Auditor, audit
from tests.engine.helpers import act_orders, acting, battle, card, main, of_type, unit
from tests.engine.legends.helpers import duel_setup
from tests.engine.test_playouts import starter_cards

SILENCEABLE = main({"kind": "damage", "target": "target", "flat": 4, "ignore_def": True})


def pair() -> RealmsState:
    """a1 (SPD 9) and a2 (SPD 3) against b1 (SPD 5) and b2 (SPD 4): a1 decides first."""
    return battle([card("fast", spd=9, hp=20, main=SILENCEABLE), card("slow", spd=3, hp=20)],
                  [card("mid", spd=5, hp=20), card("low", spd=4, hp=20)], max_rounds=10)


def audited(st: RealmsState) -> list[str]:
    """The auditor's problems with the match played out (first legal action each time)."""
    while not st.is_terminal():
        st.apply(st.legal_actions()[0])
    return audit(st.events(), full_armies=False, card_text=False)


def test_hp_moves_by_hand_within_zero_and_max_hp() -> None:
    st = pair()
    st.table_change(["hp", "b1", -7])
    assert unit(st, "b1").hp == 13
    st.table_change(["hp", "b1", 50])
    assert unit(st, "b1").hp == 20  # never above max HP (R11)
    changes = of_type(st, "table_change")
    assert [(c["unit"], c["amount"], c["hp_before"], c["hp_after"]) for c in changes] == [
        ("b1", -7, 20, 13), ("b1", 50, 13, 20)]
    assert all(c["round"] == 1 and c["change"] == "hp" for c in changes)
    assert acting(st) == "a1"  # the pending decision is still a1's
    assert audited(st) == []


def test_a_unit_brought_to_zero_falls_loses_its_action_and_the_order_goes_on() -> None:
    st = pair()
    st.table_change(["hp", "a1", -20])
    fallen = of_type(st, "defeated")
    assert [(d["unit"], d["by"], d["cause"], d["lost_action"]) for d in fallen] == [("a1", None, "table", True)]
    assert acting(st) == "b1"  # a1 fell at its own turn: the next in the order decides
    st.table_change(["hp", "b2", -99])
    assert [d["lost_action"] for d in of_type(st, "defeated")] == [True, True]
    st.table_change(["hp", "b1", -20])  # b's last character: a wins at once (R16)
    assert st.is_terminal()
    end = of_type(st, "match_end")[0]
    assert (end["winner"], end["reason"], end["rounds"]) == ("a", "elimination", 1)
    assert audited(st) == []


def test_a_free_spd_debuff_reorders_the_next_rounds_and_expires_in_its_end_phase() -> None:
    st = pair()
    st.table_change(["effect", "a1", "debuff", "spd", 6, 2])  # SPD 9 → 3 for rounds 1 and 2
    applied = of_type(st, "effect_applied")[0]
    assert (applied["unit"], applied["kind"], applied["stat"], applied["amount"], applied["until"], applied["src"],
            applied["via"]) == ("a1", "debuff", "spd", 6, 2, "a1", "table")
    assert unit(st, "a1").spd == 3
    # Round 1's order was built before the change (R9): a1 still acts first in it.
    while st.round < 3 and not st.is_terminal():
        st.apply(st.legal_actions()[0])
    orders = [[uid for uid, _ in o["units"]] for o in act_orders(st)]
    assert orders[0][0] == "a1"
    assert orders[1].index("b1") < orders[1].index("b2") < orders[1].index("a1")  # 5, 4 before 3 (ties by R9)
    assert orders[2][0] == "a1"  # the debuff ended in round 2's end phase (R14)
    expiry = next(e for e in of_type(st, "effect_expired") if e["eid"] == applied["eid"])
    assert expiry["reason"] == "duration"
    assert audited(st) == []


def test_a_free_silence_takes_the_ability_away_now_and_taking_it_off_gives_it_back() -> None:
    st = pair()
    assert ("ability", "b1") in st.legal_actions()
    st.table_change(["effect", "a1", "silence", None, None, 1])
    assert not any(action[0] == "ability" for action in st.legal_actions())
    eid = of_type(st, "effect_applied")[0]["eid"]
    st.table_change(["remove", "a1", eid])
    assert ("ability", "b1") in st.legal_actions()
    removed = of_type(st, "effect_expired")[0]
    assert (removed["reason"], removed["src"], removed["via"]) == ("removed", "a1", "table")
    assert audited(st) == []


def test_a_free_poison_ticks_in_the_next_start_phases() -> None:
    st = pair()
    st.table_change(["effect", "b1", "poison", None, 3, 2])
    while st.round < 4 and not st.is_terminal():
        st.apply(("attack", "b2") if ("attack", "b2") in st.legal_actions() else st.legal_actions()[0])
    ticks = [(d["amount"], d["hp_before"] - d["hp_after"]) for d in of_type(st, "damage")
             if d["via"] == "ongoing" and d["tgt"] == "b1"]
    assert ticks == [(3, 3), (3, 3)]  # rounds 2 and 3 (R14)
    assert audited(st) == []


@pytest.mark.parametrize(("change", "words"), [
    (["hp", "a1", 0], "delta other than 0"),
    (["hp", "a9", -1], "no living unit"),
    (["hp", "a1", "-1"], "whole number"),
    (["effect", "a1", "taunt", None, None, 2], "kind one of"),
    (["effect", "a1", "buff", "hp", 2, 2], "stat is one of"),
    (["effect", "a1", "silence", "atk", None, 2], "stat is null"),
    (["effect", "a1", "buff", "atk", 2, 6], "duration"),
    (["remove", "a1", 1], "No effect 1"),
    (["heal", "a1", 3], "one of hp, effect, remove"),
    ("hp", "one of hp, effect, remove"),
])
def test_a_change_not_well_formed_is_refused_saying_why_and_changes_nothing(change: Any, words: str) -> None:
    st = pair()
    before = len(st.events())
    with pytest.raises(IllegalAction, match=words):
        st.table_change(change)
    assert len(st.events()) == before


def test_no_change_once_the_match_is_over() -> None:
    st = pair()
    st.table_change(["hp", "b1", -20])
    st.table_change(["hp", "b2", -20])
    with pytest.raises(IllegalAction, match="decision is pending"):
        st.table_change(["hp", "a1", -1])


# ------------------------------------------------------------------ whole games with table changes


def random_change(st: Any, pick: random.Random) -> list[Any] | None:
    """A change players might make now: HP up or down, a free effect of any kind allowed, or one taken off."""
    u = pick.choice([u for side in ("a", "b") for u in st.living[side]])
    roll = pick.random()
    if roll < 0.5:
        return ["hp", u.uid, pick.choice([-40, -6, -1, 2, 9])]
    if roll < 0.8:
        kind = pick.choice(TABLE_KINDS)
        return ["effect", u.uid, kind, pick.choice(STATS) if KINDS[kind].changes_stat else None,
                pick.randint(1, 6) if KINDS[kind].has_amount else None, pick.randint(1, 3)]
    return ["remove", u.uid, pick.choice(u.effects).eid] if u.effects else None


def table_game(seed: int) -> tuple[list[Any], Any]:
    """Two people play random legal starter-set armies, changing the table now and then, each step resumed from
    the moves alone; the moves and the last resumption."""
    cards = list(starter_cards())
    rng = random.Random(seed)
    setup = {"armies": {side: random_army(cards, rng) for side in ("a", "b")}}
    pick = random.Random(seed + 1)
    moves: list[Any] = []
    while True:
        resumed = resume("realms", setup=setup, options={}, seed=seed, seats={"a": PERSON, "b": PERSON}, moves=moves)
        if resumed.over:
            return moves, resumed
        change = random_change(resumed.state, pick) if pick.random() < 0.3 else None
        if change is not None:
            moves.append((TABLE, change))
            continue
        legal = resumed.state.legal_actions()
        moves.append((resumed.waiting, as_json(legal[pick.randrange(len(legal))])))


@cache
def table_logs() -> tuple[tuple[int, list[dict[str, Any]]], ...]:
    """The logs of twelve such games."""
    return tuple((seed, table_game(seed)[1].state.event_log().to_list()) for seed in range(12))


def test_games_with_table_changes_keep_every_rule_the_auditor_checks() -> None:
    counts: dict[str, int] = {}
    for seed, events in table_logs():
        auditor = Auditor(events)
        assert auditor.run() == [], seed
        for key, value in auditor.counts.items():
            counts[key] = counts.get(key, 0) + value
    assert min(counts["table change: hp"], counts["table change: effect"], counts["table change: remove"]) >= 10
    falls = [e for _, events in table_logs() for e in events if e["type"] == "defeated" and e["cause"] == "table"]
    assert len(falls) >= 5


def test_the_moves_with_table_changes_replay_the_same_game() -> None:
    moves, resumed = table_game(3)
    assert any(player == TABLE for player, _ in moves)
    cards = list(starter_cards())
    rng = random.Random(3)
    setup = {"armies": {side: random_army(cards, rng) for side in ("a", "b")}}
    again = resume("realms", setup=setup, options={}, seed=3, seats={"a": PERSON, "b": PERSON}, moves=moves)
    assert again.over and again.state.event_log().to_list() == resumed.state.event_log().to_list()


def test_a_recorded_table_change_that_is_not_possible_there_diverges() -> None:
    cards = list(starter_cards())
    rng = random.Random(1)
    setup = {"armies": {side: random_army(cards, rng) for side in ("a", "b")}}
    with pytest.raises(Diverged, match="no living unit"):
        resume("realms", setup=setup, options={}, seed=1, seats={"a": PERSON, "b": PERSON},
               moves=[(TABLE, ["hp", "z9", -1])])
    with pytest.raises(Diverged, match="does not take"):
        resume("legends", setup=duel_setup(), options={}, seed=1, seats={"t0p0": PERSON, "t1p0": PERSON},
               moves=[(TABLE, ["hp", "x", -1])])
