"""heal: ⌊healer ATK × scale⌋ + flat + ⌊target max HP × max_hp_fraction⌋, never above max HP (R11)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from realms.engine.effects.base import Checker, Effect, EffectKind, ValueContext
from realms.engine.effects.damage import parse_power
from realms.engine.effects.words import Mention, max_hp_of, own_atk, percent, rounded_down
from realms.engine.units import Unit, scaled

if TYPE_CHECKING:
    from realms.engine.battlefield import Battlefield
    from realms.engine.observation import UnitInfo


def urgent_heal_value(amount: int, v: UnitInfo) -> float:
    """The value of healing `amount` on an ally: what it restores of what is missing, doubled below 40 %."""
    missing = v.max_hp - v.hp
    urgency = 2.0 if v.hp * 5 < v.max_hp * 2 else 1.0
    return urgency * (v.atk + 1.0) * (amount if amount < missing else missing) / v.max_hp


def amount_words(e: Effect, ref: Mention) -> str:
    """ "4 HP plus 10% of its max HP (rounded down)", "50% of this character's ATK (rounded down)": each
    percentage is rounded down on its own (⌊ATK × scale⌋, ⌊max HP × fraction⌋), as `apply` computes it."""
    parts = []
    if e.flat:
        parts.append(f"{e.flat} HP")
    if e.scale:
        parts.append(f"{percent(e.scale)} of {own_atk(ref.kind == 'self')}")
    if e.max_hp_fraction:
        parts.append(f"{percent(e.max_hp_fraction)} of {max_hp_of(ref)}")
    return " plus ".join(parts) + rounded_down(bool(e.scale) + bool(e.max_hp_fraction))


class Heal(EffectKind):
    name = "heal"
    keys = frozenset({"scale", "flat", "max_hp_fraction"})
    powered = True
    positive = True

    def parse(self, check: Checker, data: dict[str, Any], path: str) -> dict[str, Any]:
        return parse_power(check, data, path, self.name, True)

    def apply(self, bf: Battlefield, src: Unit, eff: Effect, targets: Sequence[Unit], via: str) -> None:
        base = scaled(src.atk_now, eff.scale) + eff.flat
        frac = eff.max_hp_fraction
        for t in targets:
            if t.alive:
                bf.heal(src, t, base + (scaled(t.max_hp, frac) if frac else 0), via, None)

    def words(self, eff: Effect, ref: Mention | None) -> tuple[str, bool]:
        assert ref is not None
        return f"heals {ref.noun}{',' if ref.remark else ''} for {amount_words(eff, ref)}", False

    def on_ally(self, eff: Effect, power: int, v: UnitInfo, ctx: ValueContext) -> float:
        frac = eff.max_hp_fraction
        return urgent_heal_value(power + (scaled(v.max_hp, frac) if frac else 0), v)


KIND = Heal()
