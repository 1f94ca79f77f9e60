"""What buff and debuff share: a change of ATK, DEF or SPD for a duration (effective stats never below 0)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from realms.engine.effects.base import Checker, Effect, ValueContext
from realms.engine.effects.lasting import LastingKind
from realms.engine.effects.words import STAT_NAMES, lasting, rounds
from realms.engine.units import Active, Unit
from realms.engine.vocabulary import STATS

if TYPE_CHECKING:
    from realms.engine.observation import UnitInfo
    from realms.engine.trigger_kinds import Trigger


class Modifier(LastingKind):
    """A stat modifier; `sign` +1 for a buff, −1 for a debuff."""

    keys = frozenset({"stat", "amount", "duration"})
    sign = 1
    given = True
    changes_stat = True

    def parse(self, check: Checker, data: dict[str, Any], path: str) -> dict[str, Any]:
        params = {"stat": check.choice(data, "stat", STATS, path)}
        params.update(super().parse(check, data, path))
        return params

    def change(self, eff: Effect) -> str:
        """ "+2 ATK", "-1 SPD"."""
        return f"{'+' if self.sign > 0 else '-'}{eff.amount} {STAT_NAMES[eff.stat]}"

    def item(self, eff: Effect, on_self: bool) -> tuple[str, bool]:
        return lasting(f"{self.change(eff)} for {rounds(eff.duration)}", eff)

    def attach(self, u: Unit, a: Active) -> None:
        u.shift(a.stat, self.sign * a.amount)

    def detach(self, u: Unit, a: Active) -> None:
        u.shift(a.stat, -self.sign * a.amount)

    # A stat change by its size and duration, valued by whose hits it changes: ATK changes their hits
    # on us (enemy) or ours on them (ally), DEF the other way round; a buff on an enemy is a loss.

    def one_round_never_matters(self, eff: Effect, trigger: Trigger | None) -> str:
        """An SPD change counts from the next attack order on, unless made before its round's is built (R7, R9)."""
        if eff.stat == "spd" and (trigger is None or not trigger.before_order):
            return ("a 1-round SPD change applied after the attack order is built expires before any order uses it: "
                    "give it 2 rounds or more")
        return ""

    def needs_averages(self, eff: Effect) -> bool:
        """An ATK change is valued by the other side's threat against its HP (`on_enemy`, `on_ally`)."""
        return eff.stat == "atk"

    def on_enemy(self, eff: Effect, power: int, v: UnitInfo, ctx: ValueContext) -> float:
        sign = -1.0 if self.sign > 0 else 1.0
        span = eff.amount * eff.duration
        if eff.stat == "atk":
            return sign * span * ctx.ally_threat / max(1.0, ctx.ally_hp)
        if eff.stat == "def":
            return sign * span * 1.5 * (v.atk + 1.0) / (v.hp + v.shield)
        return sign * 0.05 * span

    def on_ally(self, eff: Effect, power: int, v: UnitInfo, ctx: ValueContext) -> float:
        sign = 1.0 if self.sign > 0 else -1.0
        span = eff.amount * eff.duration
        if eff.stat == "atk":
            return sign * span * ctx.enemy_threat / max(1.0, ctx.enemy_hp)
        if eff.stat == "def":
            return sign * span * (v.atk + 1.0) / v.max_hp
        return sign * 0.05 * span
