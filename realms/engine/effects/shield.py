"""shield: ⌊ATK × scale⌋ + flat points for a duration, absorbing damage before HP (R11)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from realms.engine.effects.base import Checker, Effect, ValueContext
from realms.engine.effects.damage import parse_power
from realms.engine.effects.lasting import LastingKind
from realms.engine.effects.words import article, lasting, own_atk, percent, rounded_down, rounds
from realms.engine.units import Active, Unit, scaled
from realms.engine.vocabulary import MAX_DURATION

if TYPE_CHECKING:
    from realms.engine.observation import UnitInfo


class Shield(LastingKind):
    name = "shield"
    keys = frozenset({"scale", "flat", "duration"})
    powered = True
    positive = True
    absorbs = True
    given = True

    def parse(self, check: Checker, data: dict[str, Any], path: str) -> dict[str, Any]:
        params = parse_power(check, data, path, self.name, False)
        params["duration"] = check.integer(data, "duration", path, 1, MAX_DURATION)
        return params

    def size(self, src: Unit, eff: Effect) -> int:
        return scaled(src.atk_now, eff.scale) + eff.flat

    def item(self, eff: Effect, on_self: bool) -> tuple[str, bool]:
        share = f"{percent(eff.scale)} of {own_atk(on_self)}{rounded_down(1)}"  # ⌊ATK × scale⌋, as `size`
        if eff.scale and eff.flat:
            shield = f"a shield worth {eff.flat} points plus {share}"
        elif eff.scale:
            shield = f"a shield worth {share}"
        else:
            shield = f"{article(str(eff.flat))} {eff.flat}-point shield"
        return lasting(f"{shield} for {rounds(eff.duration)}", eff)

    def attach(self, u: Unit, a: Active) -> None:
        u.shield += a.amount

    def detach(self, u: Unit, a: Active) -> None:
        u.shield -= a.amount

    def on_ally(self, eff: Effect, power: int, v: UnitInfo, ctx: ValueContext) -> float:
        """Shield points, worth more on an ally below half HP."""
        return (1.5 if v.hp * 2 < v.max_hp else 0.6) * (v.atk + 1.0) * power / v.max_hp


KIND = Shield()
