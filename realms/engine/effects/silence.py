"""silence: no Main Ability while it stands (faction abilities still fire)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from realms.engine.effects.base import Effect, ValueContext
from realms.engine.effects.restraint import Restraint
from realms.engine.effects.words import Mention, lasting, rounds
from realms.engine.units import Active, Unit

if TYPE_CHECKING:
    from realms.engine.observation import UnitInfo


class Silence(Restraint):
    name = "silence"

    def bars_ability(self, u: Unit, a: Active) -> bool:
        """No Main Ability while it stands."""
        return True

    def words(self, eff: Effect, ref: Mention | None) -> tuple[str, bool]:
        assert ref is not None
        return lasting(f"silences {ref.noun} for {rounds(eff.duration)}", eff)

    def on_enemy(self, eff: Effect, power: int, v: UnitInfo, ctx: ValueContext) -> float:
        """An enemy ability kept from use."""
        if v.main is None:
            return 0.0
        return 0.3 * (v.atk + 1.0) if v.ready_round <= ctx.rnd + eff.duration else 0.05


KIND = Silence()
