"""cleanse: removes every debuff, poison, burn and silence from the targets."""

from __future__ import annotations

from typing import TYPE_CHECKING

from realms.engine.effects.base import Effect, ValueContext
from realms.engine.effects.removal import Removal

if TYPE_CHECKING:
    from realms.engine.observation import UnitInfo


class Cleanse(Removal):
    name = "cleanse"
    positive = True
    reason = "cleansed"

    def on_ally(self, eff: Effect, power: int, v: UnitInfo, ctx: ValueContext) -> float:
        return 0.2 * v.debuffs


KIND = Cleanse()
