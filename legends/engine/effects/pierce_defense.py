"""pierce_defense (Siege Master): in showdown step 3, the first `count` opposing defense cards of the
element ("any": of every element), in turn order, that would cancel a point of the team's attacks cancel
nothing (each logged as a pierce). The cap of step 4 is untouched."""

from __future__ import annotations

from collections.abc import Mapping

from legends.engine.effects.base import Param, ProtectorEffect, ProtectorKind
from legends.engine.vocabulary import ANY_ELEMENT


class PierceDefense(ProtectorKind):
    name = "pierce_defense"
    when = "showdown_defenses"
    params = (Param("count", 1, 2),)
    element = True

    def describe(self, effect: ProtectorEffect, names: Mapping[str, str]) -> str:
        noun = "defense card" if effect.count == 1 else "defense cards"
        what = noun if effect.element == ANY_ELEMENT else f"{names.get(effect.element, effect.element)} {noun}"
        first = "first" if effect.count == 1 else f"first {effect.count}"
        verb = "cancels" if effect.count == 1 else "cancel"
        return (
            f"In each showdown, the {first} opposing {what} that would cancel a strength point of the team's "
            f"attacks {verb} nothing."
        )

    def pierce_budget(self, effect: ProtectorEffect) -> int:
        return effect.count


KIND = PierceDefense()
