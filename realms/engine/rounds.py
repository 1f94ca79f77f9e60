"""The round (R7–R16): start phase, Flex, attack order, actions, end phase, and the end of the match.

`advance` runs the automatic steps until a decision is pending (a Flex move or a unit's action) or
the match is over; `act` resolves one unit's action and runs on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from realms.engine import order
from realms.engine.battlefield import (
    ACT,
    END,
    FLEX,
    OVER,
    START,
    VIA_ABILITY,
    VIA_BASIC,
    Action,
    Battlefield,
    TargetLists,
)
from realms.engine.combat import hit
from realms.engine.effects.cooldown import shifted_ready
from realms.engine.trigger_kinds import AFTER_ACTION, BEFORE_ACTION, ON_HIT, ROUND_END, ROUND_START
from realms.engine.triggers import fire, run
from realms.engine.units import ABILITY, ATTACK, Unit
from realms.engine.vocabulary import LINE_CAPACITY, MIN_DAMAGE, REARGUARD, VANGUARD

if TYPE_CHECKING:
    from realms.engine.spec import MainAbility

STAY: Final = "stay"
SWITCH: Final = "switch"
STAY_ACTION: Final[Action] = (STAY, None)
ABILITY_NO_TARGET: Final[Action] = (ABILITY, None)
NO_TARGET: Final[list[Action]] = [ABILITY_NO_TARGET]  # shared: never changed in place


def advance(bf: Battlefield) -> None:
    """Run the automatic steps until a decision is pending or the match is over."""
    while bf.stage != OVER:
        if bf.stage == FLEX:
            q = bf.flex_queue
            while bf.flex_index < len(q):
                u = q[bf.flex_index]
                if u.alive:
                    dest = REARGUARD if u.line == VANGUARD else VANGUARD
                    if bf.line_count(u.side, dest) < LINE_CAPACITY:
                        bf.pending = u
                        bf.legal = [STAY_ACTION, (SWITCH, dest)]
                        bf.targets = []  # attack targets exist only at an action decision
                        return
                bf.flex_index += 1
            order.build(bf, "act")  # R9
            bf.idx = 0
            bf.stage = ACT
        units = bf.order
        rnd = bf.round
        idx = bf.idx
        while idx < len(units):
            u = units[idx]
            if u.alive:
                if u.turn != rnd:
                    u.turn = rnd
                    if u.trigger == BEFORE_ACTION:
                        fire(bf, u, None)  # may summon into the order: idx is re-read
                        if check_end(bf):
                            return
                        idx = bf.idx
                        if not u.alive:
                            idx += 1
                            bf.idx = idx
                            continue
                bf.pending = u
                bf.legal = act_legal(bf, u)
                return
            idx += 1
            bf.idx = idx
        end_phase(bf)
        if bf.stage == OVER:
            return
        start_round(bf)


def act_legal(bf: Battlefield, u: Unit) -> list[Action]:
    """R10/R12: Basic Attack on each legal target, and the Main Ability when ready; the effects standing on
    the unit whose kind restricts its actions (`Standing.restricts`: silence, ...) are asked first."""
    foes = bf.target_lists(u.foe)
    front = u.line == VANGUARD
    if u.restraints:
        return restricted_legal(bf, u, foes, front)
    legal: list[Action]
    if front:
        bf.targets, legal = foes[0], foes[1]
    else:
        bf.targets, legal = foes[2], foes[3]
    main = u.main
    if main is not None and u.ready <= bf.round:
        return ready_legal(bf, u, main, foes, front)
    return legal  # a shared list: never changed in place


# Where `ready_legal` keeps the whole legal actions of a ready unit in the target lists (battlefield.TargetLists).
READY_FRONT: Final = 6  # from the vanguard, its ability aimed at an enemy it may reach
READY_FRONT_ANY: Final = 7  # from the vanguard, its ability aimed at any enemy (it ignores the lines)
READY_REAR: Final = 8  # from the rearguard, its ability aimed at any enemy
READY_FRONT_NONE: Final = 9  # from the vanguard, its ability choosing no unit
READY_REAR_NONE: Final = 10  # from the rearguard, its ability choosing no unit


def ready_legal(bf: Battlefield, u: Unit, main: MainAbility, foes: TargetLists, front: bool) -> list[Action]:
    """`act_legal` for a ready unit with no restricting effect: its Basic Attacks, then its Main Ability's actions.
    The same for every such unit aiming from that line at that side, so they are kept with the side's target
    lists (one list per slot, shared and never changed in place), except for an ability on allies."""
    attacks: list[Action] = foes[1] if front else foes[3]
    choose = u.choose
    if choose == "ally":
        return attacks + ability_actions(bf, u, main, foes, front)
    if choose == "enemy":
        slot = (READY_FRONT_ANY if u.reach_all else READY_FRONT) if front else READY_REAR
    else:
        slot = READY_FRONT_NONE if front else READY_REAR_NONE
    legal: list[Action] | None = foes[slot]
    if legal is None:
        legal = foes[slot] = attacks + ability_actions(bf, u, main, foes, front)
    return legal


def restricted_legal(bf: Battlefield, u: Unit, foes: TargetLists, front: bool) -> list[Action]:
    """`act_legal` for a unit with restricting effects: each, oldest first, may bar its Main Ability and
    narrow its Basic Attack targets (`Standing.bars_ability`, `attack_targets`)."""
    reach: list[Unit] = foes[0] if front else foes[2]
    targets = reach
    main = u.main
    ability = main is not None and u.ready <= bf.round
    for a in u.effects:
        impl = a.impl
        if impl.restricts:
            if ability and impl.bars_ability(u, a):
                ability = False
            targets = impl.attack_targets(bf, u, a, targets)
    # The shared list of Basic Attacks while no effect narrowed the targets (never changed in place).
    legal: list[Action] = (foes[1] if front else foes[3]) if targets is reach else [t.attack_action for t in targets]
    bf.targets = targets
    if ability and main is not None:
        return legal + ability_actions(bf, u, main, foes, front)
    return legal


def ability_actions(bf: Battlefield, u: Unit, main: MainAbility, foes: TargetLists, front: bool) -> list[Action]:
    """R12: the Main Ability actions of a ready unit: on each enemy it may aim at (every enemy when the
    ability ignores lines), on each ally, or one with no target."""
    choose = u.choose
    if choose == "enemy":
        i = 4 if front and not u.reach_all else 5
        extra: list[Action] = foes[i] or bf.ability_lists(foes)[i]
        return extra
    if choose == "ally":
        own = bf.target_lists(u.side)
        ally: list[Action] = own[5] or bf.ability_lists(own)[5]
        return ally
    return NO_TARGET


def start_round(bf: Battlefield) -> None:
    """Start phase (R7): ongoing effects and round_start abilities in the previous attack order."""
    bf.round += 1
    rnd = bf.round
    bf.stage = START
    bf.pending = None
    if bf.record is not None:
        bf.record(("round_start", rnd))
    if rnd == 1:
        order.build(bf, "start")  # R7: from the current SPD, battle-start effects included
    if bf.ongoing or bf.armed[ROUND_START]:
        for u in list(bf.order):
            if u.ongoing and u.alive:
                tick(bf, u)
            if u.trigger == ROUND_START and u.alive:
                fire(bf, u, None)
        if check_end(bf):
            return
    bf.flex_queue = [u for u in bf.order if u.position == "flex" and u.alive] if bf.flex_units else []
    bf.flex_index = 0
    bf.stage = FLEX


def tick(bf: Battlefield, u: Unit) -> None:
    """R7/R14: each ongoing effect ticks (its kind's `tick`: poison and burn hit, DEF ignored, shields absorb;
    regeneration heals); one applied in round r ticks in rounds r+1 … r+N and ends right after its last tick."""
    rnd = bf.round
    for a in list(u.effects):
        if not u.alive:
            return
        if a.left <= 0 or a.since >= rnd or not a.impl.ongoing:
            continue
        a.left -= 1
        a.impl.tick(bf, u, a)
        if a.left == 0 and u.alive:
            bf.drop_effect(u, a, "duration")


def end_phase(bf: Battlefield) -> None:
    """End phase: round_end abilities, then durations tick down and expire (R14); R16 checks."""
    bf.stage = END
    bf.pending = None
    if bf.armed[ROUND_END]:
        for u in list(bf.order):
            if u.trigger == ROUND_END and u.alive:
                fire(bf, u, None)
    for u in bf.order:  # expiries never change the order
        if u.alive and u.effects:  # (observations show each effect's last round, which stays as it is)
            count_down(bf, u)
    if bf.record is not None:
        bf.record(("round_end", bf.round))
    if check_end(bf):
        return
    if bf.round >= bf.max_rounds:
        finish(bf, None, "max_rounds")


def count_down(bf: Battlefield, u: Unit) -> None:
    """R14: the end phase counts each effect standing on `u` down a round; those at 0 expire."""
    expired = None
    for a in u.effects:
        if a.impl.ongoing:  # R14: these end after their last tick, in a start phase
            continue
        a.left -= 1
        if a.left <= 0:
            if expired is None:
                expired = [a]
            else:
                expired.append(a)
    if expired is not None:
        for a in expired:
            bf.drop_effect(u, a, "duration")


def act(bf: Battlefield, u: Unit, action: Action) -> None:
    """R10: resolve one unit's Basic Attack or Main Ability, then its after_action ability, and run on. A Main
    Ability enters its cooldown only once all of that has resolved (R13)."""
    u.acted = bf.round
    kind: str = action[0]  # typed: compiled, compared and looked up natively
    if kind == ATTACK:
        target: str = action[1]
        basic_attack(bf, u, bf.by_id[target])
        if u.trigger == AFTER_ACTION and u.alive:
            fire(bf, u, None)
    else:
        use_ability(bf, u, action[1])
    bf.idx += 1
    chars = bf.chars
    if chars["a"] and chars["b"]:  # R16 holds no surprise: go on to the next decision
        advance(bf)
    else:
        check_end(bf)


def basic_attack(bf: Battlefield, u: Unit, t: Unit) -> None:
    """R10, R11: `u`'s Basic Attack on `t`, ATK against DEF."""
    a = u.atk_now
    if t.shield or t.trigger == ON_HIT or bf.record is not None:
        hit(bf, u, t, a, a, t.def_now, VIA_BASIC, None)
        return
    # The usual Basic Attack, inlined: no shield, no log, no on_hit reply.
    amount = a - t.def_now
    after = t.hp - (amount if amount > MIN_DAMAGE else MIN_DAMAGE)
    if after > 0:
        t.hp = after
        t.snapshot = None
    else:
        hit(bf, u, t, a, a, t.def_now, VIA_BASIC, None)


def use_ability(bf: Battlefield, u: Unit, x: str | None) -> None:
    """R10, R13: `u`'s Main Ability on the unit `x` (None: no target), its after_action ability, then its
    cooldown."""
    main = u.main
    assert main is not None  # the ability is legal only for a character
    bf.uses += 1
    use = bf.use = bf.uses
    if bf.record is not None:
        bf.record(("ability_used", use, u.uid, main.name, x, bf.round))
    run(bf, u, u.main_program, bf.by_id[x] if x is not None else None, VIA_ABILITY, None, u.reach_all)
    bf.use = None
    if u.trigger == AFTER_ACTION and u.alive:
        fire(bf, u, None)
    if u.alive:
        enter_cooldown(bf, u, use)


def enter_cooldown(bf: Battlefield, u: Unit, use: int) -> None:
    """R13: after its use has resolved, after_action ability included, the Main Ability enters its cooldown.

    Nothing that happened meanwhile could shorten this cooldown (there was none yet: a cut on a ready
    ability changes nothing); a delay put on the ready ability meanwhile stands, and the cooldown runs on
    from it, as a card turned a quarter before it is turned its cooldown's quarters further."""
    before = u.ready
    u.ready = shifted_ready(before, u.cooldown, bf.round)
    u.snapshot = None
    if bf.record is not None:
        bf.record(("cooldown_started", u.uid, use, bf.round, u.cooldown, before, u.ready))


def check_end(bf: Battlefield) -> bool:
    """R16: a side with no character left loses; both at once is a draw."""
    chars = bf.chars
    if chars["a"] and chars["b"]:
        return False
    if bf.stage == OVER:
        return True
    if not chars["a"] and not chars["b"]:
        finish(bf, None, "mutual_elimination")
    else:
        finish(bf, "b" if not chars["a"] else "a", "elimination")
    return True


def finish(bf: Battlefield, winner: str | None, reason: str) -> None:
    """End the match with a winner (or None) and a reason, and log match_end."""
    bf.stage = OVER
    bf.winner = winner
    bf.reason = reason
    bf.pending = None
    bf.legal = []
    bf.targets = []
    if bf.record is not None:
        bf.record(("match_end", winner, reason, bf.round))
