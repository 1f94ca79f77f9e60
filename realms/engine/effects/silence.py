"""silence: no Main Ability while it stands (faction abilities still fire)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from realms.engine.effects.base import Effect, ValueContext
from realms.engine.effects.lasting import LastingKind
from realms.engine.effects.words import Mention, lasting, rounds
from realms.engine.units import Active, Unit

if TYPE_CHECKING:
    from realms.engine.observation import UnitInfo
    from realms.engine.trigger_kinds import Trigger


class Silence(LastingKind):
    name = "silence"
    keys = frozenset({"duration"})
    has_amount = False
    reads_round = True

    def one_round_never_matters(self, eff: Effect, trigger: Trigger | None) -> str:
        """A 1-round silence on a unit that has already acted this round ends before its next chance."""
        if trigger is not None and trigger.acted and eff.target == trigger.acted:
            return ("a 1-round silence on a unit that has already acted this round never stops anything: "
                    "give it 2 rounds or more")
        return ""

    def words(self, eff: Effect, ref: Mention | None) -> tuple[str, bool]:
        assert ref is not None
        return lasting(f"silences {ref.noun} for {rounds(eff.duration)}", eff)

    def attach(self, u: Unit, a: Active) -> None:
        u.silence += 1

    def detach(self, u: Unit, a: Active) -> None:
        u.silence -= 1

    def on_enemy(self, eff: Effect, power: int, v: UnitInfo, ctx: ValueContext) -> float:
        """An enemy ability kept from use."""
        if v.main is None:
            return 0.0
        return 0.3 * (v.atk + 1.0) if v.ready_round <= ctx.rnd + eff.duration else 0.05


KIND = Silence()
