"""Abilities resolving: a faction ability firing when its trigger is met, and any ability's effects run in
order on the units their selectors pick (R10, R12, R18, R19)."""

from __future__ import annotations

from typing import Final

from realms.engine.battlefield import VIA_FACTION, Battlefield
from realms.engine.effects import KINDS
from realms.engine.effects.base import Effect, Step
from realms.engine.units import LIMIT_BATTLE, Unit
from realms.engine.vocabulary import MAX_TRIGGER_DEPTH, REARGUARD, VANGUARD

# How a compiled step finds its units.
SEL_TARGET: Final = 0
SEL_SELF: Final = 1
SEL_PICK: Final = 2
SEL_GROUP: Final = 3
SEL_SUMMON: Final = 4
SINGLE_SELECTORS: Final = frozenset({"lowest_hp_ally", "random_ally", "random_enemy", "lowest_hp_enemy", "highest_atk_enemy"})
RANDOM_SELECTORS: Final = frozenset({"random_ally", "random_enemy"})
_PROGRAMS: dict[int, tuple[tuple[Effect, ...], tuple[Step, ...]]] = {}


def program(effects: tuple[Effect, ...]) -> tuple[Step, ...]:
    """An ability's effects as steps, so that running them needs no string dispatch (cached by identity)."""
    entry = _PROGRAMS.get(id(effects))
    if entry is not None and entry[0] is effects:
        return entry[1]
    steps: list[Step] = []
    for eff in effects:
        sel = eff.target
        if eff.kind == "summon":
            code = SEL_SUMMON
        elif sel == "target":
            code = SEL_TARGET
        elif sel == "self":
            code = SEL_SELF
        elif sel in SINGLE_SELECTORS:
            code = SEL_PICK
        else:
            code = SEL_GROUP
        steps.append((code, sel, KINDS[eff.kind], eff))
    if len(_PROGRAMS) >= 4096:
        _PROGRAMS.clear()
    compiled = tuple(steps)
    _PROGRAMS[id(effects)] = (effects, compiled)  # holding `effects` keeps its id unique
    return compiled


def fire(bf: Battlefield, w: Unit, attacker: Unit | None) -> None:
    """Resolve a faction ability whose trigger is met, if its limit and condition allow."""
    limit = w.limit
    if limit:
        if limit == LIMIT_BATTLE:
            if w.faction_used:
                return
        elif w.faction_round == bf.round:
            return
    cond = w.condition
    if cond is not None:
        if cond.line and w.line != cond.line:
            return
        if cond.hp_below and not w.hp < cond.hp_below * w.max_hp:
            return
        # The other living characters of its faction (w is a living character itself).
        if cond.allies_same_faction_gte and bf.factions[w.side][w.faction] - 1 < cond.allies_same_faction_gte:
            return
    fab = w.faction_ability
    assert fab is not None  # only characters have a trigger
    if bf.depth >= MAX_TRIGGER_DEPTH:
        if bf.emit is not None:
            bf.fizzle(w, "trigger", None, "trigger_depth", VIA_FACTION)
        return
    w.faction_used = True
    w.faction_round = bf.round
    w.snapshot = None
    outer = bf.use
    bf.uses += 1
    bf.use = bf.uses
    if bf.emit is not None:
        bf.emit(
            {
                "type": "faction_triggered",
                "use": bf.use,
                "cause": outer,
                "unit": w.uid,
                "ability": fab.name,
                "trigger": fab.trigger,
            }
        )
    bf.depth += 1
    run(bf, w, w.faction_program, None, VIA_FACTION, attacker, False)
    bf.depth -= 1
    bf.use = outer


def run(
    bf: Battlefield, src: Unit, steps: tuple[Step, ...], chosen: Unit | None, via: str, attacker: Unit | None,
    reach_all: bool,
) -> None:
    """Apply an ability's effects in order, each to the units its selector picks now. A source that
    falls midway stops there (R10): what is left fizzles. `reach_all`: single-enemy picks ignore R12."""
    memo: dict[str, Unit | None] | None = None
    for code, sel, kind, eff in steps:
        if not src.alive:
            if bf.emit is not None:
                bf.fizzle(src, eff.kind, None, "source_defeated", via)
            continue
        if code == SEL_TARGET:
            if chosen is not None and chosen.alive:
                kind.apply(bf, src, eff, (chosen,), via)
                continue
        elif code == SEL_SELF:
            kind.apply(bf, src, eff, (src,), via)
            continue
        elif code == SEL_SUMMON:
            kind.apply(bf, src, eff, (), via)
            continue
        elif code == SEL_PICK:
            if memo is None:
                memo = {}
            if sel in memo:
                pick = memo[sel]
            else:
                pick = memo[sel] = choose(bf, src, sel, reach_all)
            if pick is not None and pick.alive:
                kind.apply(bf, src, eff, (pick,), via)
                continue
        else:
            targets = select(bf, src, sel, chosen, attacker)
            if targets:
                kind.apply(bf, src, eff, targets, via)
                continue
        if bf.emit is not None:
            bf.fizzle(src, eff.kind, None, "no_target", via)


def select(bf: Battlefield, src: Unit, sel: str, chosen: Unit | None, attacker: Unit | None) -> list[Unit]:
    """The living units a group selector picks (docs/abilities.md); R19: `all_allies` includes itself."""
    side = src.side
    if sel == "all_enemies":
        return list(bf.living[src.foe])
    if sel == "all_allies":
        return list(bf.living[side])
    if sel == "other_allies":
        return [u for u in bf.living[side] if u is not src]
    if sel == "target_line":
        if chosen is None:
            return []
        line = chosen.line
        return [u for u in bf.living[chosen.side] if u.line == line]
    if sel == "enemy_vanguard":
        return [u for u in bf.living[src.foe] if u.line == VANGUARD]
    if sel == "enemy_rearguard":
        return [u for u in bf.living[src.foe] if u.line == REARGUARD]
    if sel == "ally_vanguard":
        return [u for u in bf.living[side] if u.line == VANGUARD]
    if sel == "ally_rearguard":
        return [u for u in bf.living[side] if u.line == REARGUARD]
    if sel == "attacker":
        return [attacker] if attacker is not None and attacker.alive else []
    raise AssertionError(f"selector {sel!r} is not handled")  # pragma: no cover - spec.SELECTORS is closed


def choose(bf: Battlefield, src: Unit, sel: str, reach_all: bool) -> Unit | None:
    """The one unit a single-unit selector picks; the pick holds for the rest of the ability.

    An enemy pick obeys R12 like a chosen target: from the vanguard it reaches only the enemy
    vanguard while that holds anyone, unless the ability ignores lines (`reach_all`).
    """
    if sel.endswith("_ally"):
        pool = bf.living[src.side]
    else:
        pool = bf.living[src.foe]
        if not reach_all and src.line == VANGUARD:
            pool = bf.reach(src.foe)
    pick = pick_from(bf, pool, sel)
    if bf.emit is not None:
        bf.emit(
            {
                "type": "pick",
                "src": src.uid,
                "selector": sel,
                "pool": [u.uid for u in pool],
                "unit": pick.uid if pick is not None else None,
                "random": sel in RANDOM_SELECTORS,
                "use": bf.use,
            }
        )
    return pick


def pick_from(bf: Battlefield, pool: list[Unit], sel: str) -> Unit | None:
    """The unit a single-unit selector takes from `pool` (in army order): a seeded draw, the highest
    effective ATK or the lowest current HP, ties to the earliest."""
    if not pool:
        return None
    if sel in RANDOM_SELECTORS:
        return pool[bf.rng.randrange(len(pool))]
    best = pool[0]
    if sel == "highest_atk_enemy":
        best_atk = best.atk_now
        for u in pool:
            a = u.atk_now
            if a > best_atk:
                best, best_atk = u, a
        return best
    for u in pool:
        if u.hp < best.hp:
            best = u
    return best
