"""What poison, burn and regeneration share: `amount` each start phase, exactly N times (R14)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from realms.engine.battlefield import VIA_ONGOING
from realms.engine.combat import hit
from realms.engine.effects.base import Effect, ValueContext
from realms.engine.effects.heal import urgent_heal_value
from realms.engine.effects.lasting import LastingKind
from realms.engine.effects.words import Mention, lasting, rounds
from realms.engine.units import Active, Unit

if TYPE_CHECKING:
    from realms.engine.battlefield import Battlefield
    from realms.engine.observation import UnitInfo


def expected_total(eff: Effect) -> int:
    """The greedy agent's estimate of what the effect will deal or heal in all: amount × (duration − 1)."""
    return eff.amount * (eff.duration - 1 if eff.duration > 1 else 0)


class OngoingDamage(LastingKind):
    """poison / burn: damage in later start phases, DEF ignored, shields absorb it."""

    keys = frozenset({"amount", "duration"})
    ongoing = True
    verb = ""  # "poisons", "burns"

    def tick(self, bf: Battlefield, u: Unit, a: Active) -> None:
        """Damage from the effect's source, DEF ignored; shields absorb it."""
        hit(bf, bf.by_id[a.src], u, None, a.amount, None, VIA_ONGOING, a.eid)

    def words(self, eff: Effect, ref: Mention | None) -> tuple[str, bool]:
        assert ref is not None
        return lasting(f"{self.verb} {ref.noun} for {eff.amount} per round for {rounds(eff.duration)}", eff)

    def on_enemy(self, eff: Effect, power: int, v: UnitInfo, ctx: ValueContext) -> float:
        """Damage over the coming start phases."""
        return (v.atk + 1.0) * min(expected_total(eff), v.hp) / (v.hp + v.shield)

    def on_ally(self, eff: Effect, power: int, v: UnitInfo, ctx: ValueContext) -> float:
        return -0.5 * expected_total(eff) * (v.atk + 1.0) / v.max_hp


class Regen(LastingKind):
    """regen: healing in later start phases, never above max HP."""

    name = "regen"
    keys = frozenset({"amount", "duration"})
    ongoing = True
    positive = True

    def tick(self, bf: Battlefield, u: Unit, a: Active) -> None:
        """Healing from the effect's source, never above max HP."""
        bf.heal(bf.by_id[a.src], u, a.amount, VIA_ONGOING, a.eid)

    def words(self, eff: Effect, ref: Mention | None) -> tuple[str, bool]:
        assert ref is not None
        if ref.kind == "self":
            return lasting(f"regenerates {eff.amount} HP per round for {rounds(eff.duration)}", eff)
        return lasting(
            f"gives {ref.noun} regeneration of {eff.amount} HP per round for {rounds(eff.duration)}", eff
        )

    def on_ally(self, eff: Effect, power: int, v: UnitInfo, ctx: ValueContext) -> float:
        return urgent_heal_value(expected_total(eff), v)
