"""cooldown: shifts the target's readiness (R13): +k later, −k sooner, never before the current round."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from realms.engine.effects.base import Checker, Effect, EffectKind, ValueContext
from realms.engine.effects.words import Mention
from realms.engine.units import Unit
from realms.engine.vocabulary import MAX_COOLDOWN_SHIFT

if TYPE_CHECKING:
    from realms.engine.battlefield import Battlefield
    from realms.engine.observation import UnitInfo
    from realms.engine.trigger_kinds import Trigger


def shifted_ready(ready: int, amount: int, rnd: int) -> int:
    """The ready round after a shift of `amount` in round `rnd`: +k on a ready ability makes it ready in
    round rnd + k, on one cooling down adds k; −k brings a cooling ability k rounds sooner, never before
    the current round, and leaves a ready one as it is."""
    if amount > 0:
        return (ready if ready > rnd else rnd) + amount
    if ready <= rnd:
        return ready
    after = ready + amount
    return after if after > rnd else rnd


class Cooldown(EffectKind):
    name = "cooldown"
    keys = frozenset({"amount"})
    reads_round = True

    def parse(self, check: Checker, data: dict[str, Any], path: str) -> dict[str, Any]:
        amount = check.integer(data, "amount", path, -MAX_COOLDOWN_SHIFT, MAX_COOLDOWN_SHIFT)
        if amount == 0:
            check.fail(f"{path}.amount", "must not be 0")
        return {"amount": amount}

    def apply(self, bf: Battlefield, src: Unit, eff: Effect, targets: Sequence[Unit], via: str) -> None:
        rnd = bf.round
        for t in targets:
            if not t.alive:
                continue
            if t.main is None:
                if bf.record is not None:
                    bf.fizzle(src, "cooldown", t, "no_ability", via)
                continue
            before = t.ready
            after = shifted_ready(before, eff.amount, rnd)
            t.ready = after
            t.snapshot = None
            if bf.record is not None:
                bf.record(("cooldown", t.uid, src.uid, eff.amount, before, after, via, bf.use))

    def never_matters(self, eff: Effect, trigger: Trigger | None) -> tuple[str, str] | None:
        """R13: a Main Ability enters its cooldown once it has resolved, so cutting its own meanwhile is lost."""
        if trigger is None and eff.target == "self" and eff.amount < 0:
            return ("amount", "a Main Ability enters its cooldown once it has resolved (R13): cutting its own "
                    "cooldown while it resolves never changes anything")
        return None

    def never_matters_on_card(self, eff: Effect, cooldown: int) -> tuple[str, str] | None:
        """With cooldown 1 the Main Ability is ready every round: its own cooldown brought sooner changes nothing."""
        if cooldown == 1 and eff.target == "self" and eff.amount < 0:
            return ("amount", "the card's cooldown is 1: its ability is ready every round, so reducing its own "
                    "cooldown never changes anything")
        return None

    def words(self, eff: Effect, ref: Mention | None) -> tuple[str, bool]:
        assert ref is not None
        verb = "reduces" if eff.amount < 0 else "increases"
        return f"{verb} {ref.possessive('cooldown')} by {abs(eff.amount)}", False

    def on_enemy(self, eff: Effect, power: int, v: UnitInfo, ctx: ValueContext) -> float:
        """An enemy's readiness pushed later."""
        return 0.0 if v.main is None else 0.15 * eff.amount * (v.atk + 1.0)

    def on_ally(self, eff: Effect, power: int, v: UnitInfo, ctx: ValueContext) -> float:
        """An ally's readiness brought sooner, as far as it is still cooling down."""
        if v.main is None:
            return 0.0
        return 0.15 * min(-eff.amount, max(0, v.ready_round - ctx.rnd)) * (v.atk + 1.0)


KIND = Cooldown()
