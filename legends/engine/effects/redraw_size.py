"""redraw_size (Wanderer): a player of the team who redraws (L8) may discard and draw any number of
cards from 3 to `count` (the whole hand if it holds fewer)."""

from __future__ import annotations

from collections.abc import Mapping

from legends.engine.effects.base import Param, ProtectorEffect, ProtectorKind


class RedrawSize(ProtectorKind):
    name = "redraw_size"
    when = "redraw"
    params = (Param("count", 4, 7),)

    def describe(self, effect: ProtectorEffect, names: Mapping[str, str]) -> str:
        return f"A player of the team who redraws may discard and draw up to {effect.count} cards instead of 3."

    def redraw_limit(self, effect: ProtectorEffect) -> int:
        return effect.count


KIND = RedrawSize()
