"""redraw_size (Wanderer): a player of the team who redraws (L8) may discard and draw any number of
cards from 3 to `count` (the whole hand if it holds fewer)."""

from __future__ import annotations

from collections.abc import Mapping

from legends.engine.effects.base import Param, ProtectorEffect, ProtectorKind
from legends.engine.vocabulary import HAND_SIZE, REDRAW_SIZE


class RedrawSize(ProtectorKind):
    name = "redraw_size"
    when = "redraw"
    params = (Param("count", REDRAW_SIZE + 1, HAND_SIZE),)  # more than the usual redraw, at most a full hand

    def describe(self, effect: ProtectorEffect, names: Mapping[str, str]) -> str:
        # Every size from the usual 3 to `count` is offered (never fewer than 3), so the text names both ends.
        low, high = REDRAW_SIZE, effect.count
        sizes = f"{low} or {high}" if high == low + 1 else f"{low} to {high}"
        return f"A player of the team who redraws may discard and draw {sizes} cards instead of exactly {low}."

    def redraw_limit(self, effect: ProtectorEffect) -> int:
        return effect.count


KIND = RedrawSize()
