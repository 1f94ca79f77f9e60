"""dispel: removes every buff, shield and regeneration from the targets."""

from __future__ import annotations

from typing import TYPE_CHECKING

from realms.engine.effects.base import Effect, ValueContext
from realms.engine.effects.removal import Removal

if TYPE_CHECKING:
    from realms.engine.observation import UnitInfo


class Dispel(Removal):
    name = "dispel"
    removes_buffs = True
    reason = "dispelled"

    def on_enemy(self, eff: Effect, power: int, v: UnitInfo, ctx: ValueContext) -> float:
        return 0.2 * v.buffs


KIND = Dispel()
