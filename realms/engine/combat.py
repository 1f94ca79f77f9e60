"""Damage and defeat (R10, R11, R16, R17, R18): a hit through shields, a unit falling, what ends with it."""

from __future__ import annotations

from realms.engine.battlefield import ACT, END, VIA_ABILITY, VIA_BASIC, Battlefield
from realms.engine.trigger_kinds import DEFEAT_CODES, DEFEAT_OF, OF_ALLY, OF_ENEMY, ON_HIT
from realms.engine.units import Active, Unit
from realms.engine.vocabulary import MIN_DAMAGE, PLAYERS


def damage_dealt(power: int, defense: int | None) -> int:
    """R11: max(MIN_DAMAGE, power − DEF), or max(MIN_DAMAGE, power) when DEF is ignored (None)."""
    amount = power - defense if defense is not None else power
    return amount if amount > MIN_DAMAGE else MIN_DAMAGE


def hit(bf: Battlefield, src: Unit, tgt: Unit, atk: int | None, power: int, dfn: int | None, via: str,
        eid: int | None) -> None:
    """One instance of damage (R11): max(MIN_DAMAGE, power − DEF), shield first, then HP; defeat at 0."""
    amount = damage_dealt(power, dfn)
    absorbed = 0
    depleted: list[Active] | None = None
    if tgt.shield > 0:
        shield = tgt.shield
        depleted = absorb(tgt, amount)
        absorbed = shield - tgt.shield
    before = tgt.hp
    after = before - amount + absorbed
    if after < 0:
        after = 0
    tgt.hp = after
    tgt.snapshot = None
    if bf.record is not None:
        log_damage(bf, src, tgt, atk, power, dfn, via, eid, amount, absorbed, before)
    if depleted is not None:
        for a in depleted:
            bf.drop_effect(tgt, a, "depleted")
    if after == 0:
        defeat(bf, tgt, src)
    elif tgt.trigger == ON_HIT and via in (VIA_BASIC, VIA_ABILITY) and src.side != tgt.side:
        bf.fire(tgt, src)


def absorb(tgt: Unit, amount: int) -> list[Active] | None:
    """R11: the effects that absorb damage (shields) take `amount` first, oldest first; the ones used up
    (to be dropped once the damage is logged), or None."""
    depleted: list[Active] | None = None
    absorbed = 0
    left = amount
    for a in tgt.effects:
        if a.impl.absorbs and a.amount > 0:
            take = a.amount if a.amount < left else left
            a.amount -= take
            a.info = None  # its points changed
            absorbed += take
            left -= take
            if a.amount == 0:
                if depleted is None:
                    depleted = [a]
                else:
                    depleted.append(a)
            if not left:
                break
    tgt.shield -= absorbed
    tgt.effect_infos = None  # a shield's points changed
    return depleted


def log_damage(bf: Battlefield, src: Unit, tgt: Unit, atk: int | None, power: int, dfn: int | None, via: str,
               eid: int | None, amount: int, absorbed: int, before: int) -> None:
    """Log one instance of damage (its HP after it is the target's now)."""
    bf.record(  # type: ignore[misc]
        ("damage", src.uid, tgt.uid, src.line if src.alive else None, tgt.line, via, atk, power, dfn, amount, absorbed,
         before, tgt.hp, eid, bf.use)
    )


def defeat(bf: Battlefield, u: Unit, by: Unit | None, cause: str = "damage") -> None:
    """HP 0 (by damage, or set at a table): removed at once, pending action lost, its effects end (R17), defeat
    triggers (R18); the last character takes its summons with it (R16)."""
    u.alive = False
    u.hp = 0
    u.snapshot = None
    side = u.side
    if bf.record is not None:
        bf.record(("defeated", u.uid, by.uid if by is not None else None, cause, loses_action(bf, u), bf.use))
    bf.withdraw(u)
    end_effects_of(bf, u)
    if defeat_armed(bf):
        fire_defeat_triggers(bf, u, by)
    if not u.summon and bf.chars[side] == 0:
        for s in list(bf.living[side]):
            s.alive = False
            s.snapshot = None
            if bf.record is not None:
                bf.record(("defeated", s.uid, None, "army_defeated", loses_action(bf, s), bf.use))
            bf.withdraw(s)
            end_effects_of(bf, s)


def defeat_armed(bf: Battlefield) -> bool:
    """Whether a living character has a defeat trigger (R18): none lets the scan be skipped."""
    armed = bf.armed
    return any(armed[code] for code in DEFEAT_CODES)


def fire_defeat_triggers(bf: Battlefield, u: Unit, by: Unit | None) -> None:
    """R18: every living unit whose defeat trigger the fall of `u` sets off (by `by`), in the attack order;
    characters only, unless the ability counts summons."""
    side = u.side
    character = not u.summon
    for w in list(bf.order):
        of = DEFEAT_OF[w.trigger]
        if (
            of
            and w.alive
            and (character or w.counts_summons)
            and (w.side == side if of == OF_ALLY else w.side != side and (of == OF_ENEMY or w is by))
        ):
            bf.fire(w, None)


def loses_action(bf: Battlefield, u: Unit) -> bool:
    """Whether a unit falling now had an action still to come this round (R10): not once it acted, not
    in the end phase, not for a unit whose slot in this round's order has passed."""
    if bf.stage == END or u.acted == bf.round:
        return False
    if bf.stage == ACT:
        return bf.order.index(u) >= bf.idx
    return True


def end_effects_of(bf: Battlefield, u: Unit) -> None:
    """R17: the effects standing on a fallen unit end with it, and those it put on others end at once
    unless they persist."""
    for a in list(u.effects):
        bf.drop_effect(u, a, "unit_defeated")
    uid = u.uid
    for side in PLAYERS:
        for v in bf.living[side]:
            if v.effects and holds_from(v, uid):
                for a in [a for a in v.effects if a.src == uid and not a.persists]:
                    bf.drop_effect(v, a, "source_defeated", u, None)


def holds_from(v: Unit, uid: str) -> bool:
    """Whether an effect standing on `v` that does not persist came from the unit `uid` (looked for before a
    list of them is made: most units hold none)."""
    return any(a.src == uid and not a.persists for a in v.effects)  # compiled: a loop, no generator object
