"""Changes the players make at a table, between decisions: a unit's HP set by hand, a free buff or debuff, an
effect taken off.

A game played with physical cards is run by the engine (the attack order, expiries, cooldowns, ticks, defeats),
and the players may still correct what stands on the table. A change is made only while a decision is pending;
it is logged as a `table_change` event, and what it causes is logged as the rules log it elsewhere, with `via`
"table": the effect put on (`effect_applied`) or taken off (`effect_expired`, reason "removed"), and a unit
brought to 0 HP falling (`defeated`, cause "table") with its defeat triggers (R18), its army's summons (R16) and
the end of the match. Then the pending decision is asked again: its unit may have fallen, or its legal actions
changed.

Changes, as JSON writes them:
    ["hp", unit_id, delta]                                  HP up or down (never above max HP, never below 0)
    ["effect", unit_id, kind, stat | null, amount | null, duration]   a lasting effect, as an ability puts one
    ["remove", unit_id, effect_id]                          an effect standing on the unit taken off
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from realms.engine import combat, rounds
from realms.engine.battlefield import ACT, FLEX, Battlefield
from realms.engine.effects import KINDS, LASTING_KINDS
from realms.engine.units import Unit
from realms.engine.vocabulary import MAX_AMOUNT, MAX_DURATION, STATS
from simulate.engine.errors import IllegalAction
from simulate.engine.games import TABLE

HP: Final = "hp"
EFFECT: Final = "effect"
REMOVE: Final = "remove"
CHANGES: Final = (HP, EFFECT, REMOVE)
MAX_HP_CHANGE: Final = 999
# Every lasting kind that does not depend on its source (a taunt's is the enemy to attack): a free one has none.
TABLE_KINDS: Final[tuple[str, ...]] = tuple(kind for kind in LASTING_KINDS if not KINDS[kind].needs_source)
# The parts of each change, as JSON writes it.
HP_FIELDS: Final = ("hp", "unit", "delta")
EFFECT_FIELDS: Final = ("effect", "unit", "kind", "stat", "amount", "duration")
REMOVE_FIELDS: Final = ("remove", "unit", "effect id")


def apply_change(bf: Battlefield, change: Sequence[Any]) -> None:
    """Make one table change while a decision is pending, log it and what it causes, and ask the pending
    decision again; IllegalAction (saying why) for a change that is not well formed or not possible now."""
    if bf.stage not in (ACT, FLEX) or bf.pending is None:
        raise IllegalAction(change, [], "Table changes are made while a unit's decision is pending.")
    if not isinstance(change, (list, tuple)) or not change or change[0] not in CHANGES:
        raise IllegalAction(change, [], f"A table change is one of {', '.join(CHANGES)}.")
    unit = living_unit(bf, change)
    if change[0] == HP:
        change_hp(bf, unit, change)
    elif change[0] == EFFECT:
        add_effect(bf, unit, change)
    else:
        remove_effect(bf, unit, change)
    if not rounds.check_end(bf):
        rounds.advance(bf)


def living_unit(bf: Battlefield, change: Sequence[Any]) -> Unit:
    """The living unit a change names."""
    uid = change[1] if len(change) > 1 else None
    unit = bf.by_id.get(uid) if isinstance(uid, str) else None
    if unit is None or not unit.alive:
        raise IllegalAction(change, [], f"There is no living unit {uid!r}.")
    return unit


def whole(change: Sequence[Any], index: int, low: int, high: int, what: str) -> int:
    """The change's integer at `index`, within [low, high]."""
    value = change[index] if len(change) > index else None
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise IllegalAction(change, [], f"{what} is a whole number from {low} to {high}.")
    return value


def change_hp(bf: Battlefield, unit: Unit, change: Sequence[Any]) -> None:
    """HP moved by hand, within 0 and max HP; at 0 the unit falls (R11, R17, R18)."""
    delta = whole(change, 2, -MAX_HP_CHANGE, MAX_HP_CHANGE, "An HP change")
    if len(change) != len(HP_FIELDS) or delta == 0:
        raise IllegalAction(change, [], "An HP change is [\"hp\", unit, delta] with a delta other than 0.")
    before = unit.hp
    after = min(unit.max_hp, max(0, before + delta))
    unit.hp = after
    unit.snapshot = None
    if bf.record is not None:
        bf.record(("table_change", bf.round, HP, unit.uid, delta, before, after, None))
    if after == 0:
        combat.defeat(bf, unit, None, TABLE)


def add_effect(bf: Battlefield, unit: Unit, change: Sequence[Any]) -> None:
    """A lasting effect put on by hand, as an ability of the unit's own would put it (R14)."""
    kind_name = change[2] if len(change) > 2 else None
    if kind_name not in TABLE_KINDS or len(change) != len(EFFECT_FIELDS):
        raise IllegalAction(change, [], "An effect is [\"effect\", unit, kind, stat, amount, duration] with kind "
                                        f"one of {', '.join(TABLE_KINDS)}.")
    kind = KINDS[kind_name]
    stat = change[3]
    if kind.changes_stat != (stat is not None) or (stat is not None and stat not in STATS):
        raise IllegalAction(change, [], f"A {kind_name}'s stat is " + (f"one of {', '.join(STATS)}." if
                                                                       kind.changes_stat else "null."))
    amount = whole(change, 4, 1, MAX_AMOUNT, "An amount") if kind.has_amount else None
    if not kind.has_amount and change[4] is not None:
        raise IllegalAction(change, [], f"A {kind_name} has no amount: give null.")
    duration = whole(change, 5, 1, MAX_DURATION, "A duration")
    if bf.record is not None:
        bf.record(("table_change", bf.round, EFFECT, unit.uid, None, None, None, bf.eid + 1))
    bf.add_effect(unit, unit, kind, stat or "", amount or 0, duration, TABLE, False)


def remove_effect(bf: Battlefield, unit: Unit, change: Sequence[Any]) -> None:
    """An effect standing on the unit taken off by hand (as a cleanse or dispel would)."""
    eid = whole(change, 2, 1, 10**9, "An effect id")
    standing = next((a for a in unit.effects if a.eid == eid), None)
    if standing is None or len(change) != len(REMOVE_FIELDS):
        raise IllegalAction(change, [], f"No effect {eid} stands on {unit.uid}.")
    if bf.record is not None:
        bf.record(("table_change", bf.round, REMOVE, unit.uid, None, None, None, eid))
    bf.drop_effect(unit, standing, "removed", unit, TABLE)
