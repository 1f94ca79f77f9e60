"""heal_marker (Spring Warden): at round start the team removes `count` markers of the element ("any":
of any element) from its defenses, one at a time; when several qualify, which one is the team's decision
(the healing choice of L9 step 1, made by the team's first player in the round's counter order)."""

from __future__ import annotations

from collections.abc import Mapping

from legends.engine.effects.base import Param, ProtectorEffect, ProtectorKind, of_element


class HealMarker(ProtectorKind):
    name = "heal_marker"
    when = "round_start"
    params = (Param("count", 1, 2),)
    element = True

    def describe(self, effect: ProtectorEffect, names: Mapping[str, str]) -> str:
        marker = of_element(effect, "marker" if effect.count == 1 else "markers", names)
        return f"At the start of each round, remove {effect.count} {marker} from the team's defenses."

    def round_start_heals(self, effect: ProtectorEffect) -> int:
        return effect.count


KIND = HealMarker()
