"""Abilities resolving: a faction ability firing when its trigger is met, and any ability's effects run in
order on the units their selectors pick (R10, R12, R18, R19)."""

from __future__ import annotations

from typing import Final

from realms.engine import selectors
from realms.engine.battlefield import VIA_FACTION, Battlefield
from realms.engine.effects import KINDS
from realms.engine.effects.base import Effect, Step
from realms.engine.selectors import (
    ALLIES,
    ATTACKER,
    CHOSEN_LINE,
    NO_UNITS,
    PICK_HIGHEST_ATK,
    PICK_RANDOM,
    SEL_NONE,
    SEL_PICK,
    SEL_SELF,
    SEL_TARGET,
    Selector,
)
from realms.engine.units import LIMIT_BATTLE, Unit
from realms.engine.vocabulary import MAX_TRIGGER_DEPTH, VANGUARD
from simulate.engine.rng import below

_PROGRAMS: Final[dict[int, tuple[tuple[Effect, ...], tuple[Step, ...]]]] = {}


def program(effects: tuple[Effect, ...]) -> tuple[Step, ...]:
    """An ability's effects as steps (selector code, selector, kind, effect), read from the registries once,
    so that running them needs no string dispatch (cached by identity)."""
    entry = _PROGRAMS.get(id(effects))
    if entry is not None and entry[0] is effects:
        return entry[1]
    steps: list[Step] = []
    for eff in effects:
        kind = KINDS[eff.kind]
        sel = selectors.BY_NAME[eff.target] if kind.targeted else NO_UNITS
        steps.append(Step(sel.code, sel, kind, eff))
    if len(_PROGRAMS) >= 4096:
        _PROGRAMS.clear()
    compiled = tuple(steps)
    _PROGRAMS[id(effects)] = (effects, compiled)  # holding `effects` keeps its id unique
    return compiled


def fire(bf: Battlefield, w: Unit, attacker: Unit | None) -> None:
    """Resolve a faction ability whose trigger is met, if its limit and condition allow."""
    if not may_fire(bf, w):
        return
    fab = w.faction_ability
    assert fab is not None  # only characters have a trigger
    if bf.depth >= MAX_TRIGGER_DEPTH:
        if bf.record is not None:
            bf.fizzle(w, "trigger", None, "trigger_depth", VIA_FACTION)
        return
    w.faction_used = True
    w.faction_round = bf.round
    w.snapshot = None
    outer = bf.use
    bf.uses += 1
    bf.use = bf.uses
    if bf.record is not None:
        bf.record(("faction_triggered", bf.use, outer, w.uid, fab.name, fab.trigger))
    bf.depth += 1
    run(bf, w, w.faction_program, None, VIA_FACTION, attacker, False)
    bf.depth -= 1
    bf.use = outer


def may_fire(bf: Battlefield, w: Unit) -> bool:
    """Whether `w`'s faction ability's limit (once per round or battle) and condition allow it now."""
    limit = w.limit
    if limit:
        if limit == LIMIT_BATTLE:
            if w.faction_used:
                return False
        elif w.faction_round == bf.round:
            return False
    cond = w.condition
    if cond is None:
        return True
    if cond.line and w.line != cond.line:
        return False
    if cond.hp_below and not w.hp < cond.hp_below * w.max_hp:
        return False
    # The other living characters of its faction (w is a living character itself).
    return not (cond.allies_same_faction_gte and bf.factions[w.side][w.faction] - 1 < cond.allies_same_faction_gte)


def run(
    bf: Battlefield, src: Unit, steps: tuple[Step, ...], chosen: Unit | None, via: str, attacker: Unit | None,
    reach_all: bool,
) -> None:
    """Apply an ability's effects in order, each to the units its selector picks now. A source that
    falls midway stops there (R10): what is left fizzles. `reach_all`: single-enemy picks ignore R12."""
    memo: dict[str, Unit | None] | None = None
    for step in steps:
        eff = step.eff
        if not src.alive:
            fizzle(bf, src, eff, "source_defeated", via)
            continue
        code = step.code
        kind = step.kind
        if code == SEL_TARGET:
            if chosen is not None and chosen.alive:
                kind.apply(bf, src, eff, (chosen,), via)
                continue
        elif code == SEL_SELF:
            kind.apply(bf, src, eff, (src,), via)
            continue
        elif code == SEL_NONE:
            kind.apply(bf, src, eff, (), via)
            continue
        elif code == SEL_PICK:
            if memo is None:
                memo = {}
            pick = held_pick(bf, src, step.sel, reach_all, memo)
            if pick is not None and pick.alive:
                kind.apply(bf, src, eff, (pick,), via)
                continue
        else:
            targets = select(bf, src, step.sel, chosen, attacker)
            if targets:
                kind.apply(bf, src, eff, targets, via)
                continue
        fizzle(bf, src, eff, "no_target", via)


def fizzle(bf: Battlefield, src: Unit, eff: Effect, reason: str, via: str) -> None:
    """An effect of `src` that did nothing, logged (when the log is on)."""
    if bf.record is not None:
        bf.fizzle(src, eff.kind, None, reason, via)


def held_pick(bf: Battlefield, src: Unit, sel: Selector, reach_all: bool, memo: dict[str, Unit | None]) -> Unit | None:
    """The unit a single-unit selector picks, picked once per ability use (`memo` holds the use's picks)."""
    name = sel.name
    if name in memo:
        return memo[name]
    pick = memo[name] = choose(bf, src, sel, reach_all)
    return pick


def select(bf: Battlefield, src: Unit, sel: Selector, chosen: Unit | None, attacker: Unit | None) -> list[Unit]:
    """The living units a group selector picks (docs/abilities.md); R19: `all_allies` includes itself."""
    whose = sel.whose
    if whose == ATTACKER:
        return [attacker] if attacker is not None and attacker.alive else []
    line = sel.line
    if whose == CHOSEN_LINE:
        if chosen is None:
            return []
        line = chosen.line
        pool = bf.living[chosen.side]
    else:
        pool = bf.living[src.side if whose == ALLIES else src.foe]
    if line:
        return [u for u in pool if u.line == line]
    if sel.others:
        return [u for u in pool if u is not src]
    return list(pool)


def choose(bf: Battlefield, src: Unit, sel: Selector, reach_all: bool) -> Unit | None:
    """The one unit a single-unit selector picks; the pick holds for the rest of the ability.

    An enemy pick obeys R12 like a chosen target: from the vanguard it reaches only the enemy
    vanguard while that holds anyone, unless the ability ignores lines (`reach_all`).
    """
    if sel.whose == ALLIES:
        pool = bf.living[src.side]
    else:
        pool = bf.living[src.foe]
        if not reach_all and src.line == VANGUARD:
            pool = bf.reach(src.foe)
    pick = pick_from(bf, pool, sel.pick)
    if bf.record is not None:
        bf.record(("pick", src.uid, sel.name, tuple(u.uid for u in pool), pick.uid if pick is not None else None,
                   sel.pick == PICK_RANDOM, bf.use))
    return pick


def pick_from(bf: Battlefield, pool: list[Unit], how: int) -> Unit | None:
    """The unit a single-unit pick (`how`: selectors.PICK_*) takes from `pool` (in army order): a seeded
    draw, the highest effective ATK or the lowest current HP, ties to the earliest."""
    if not pool:
        return None
    if how == PICK_RANDOM:
        return pool[below(bf.rng, len(pool))]
    best = pool[0]
    if how == PICK_HIGHEST_ATK:
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
