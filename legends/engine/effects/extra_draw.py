"""extra_draw (Archivist): at the end of each round, after the counters are handed on, each player of
the team draws `count` cards, never above `max_hand` in hand."""

from __future__ import annotations

from collections.abc import Mapping

from legends.engine.effects.base import Param, ProtectorEffect, ProtectorKind, plural
from legends.engine.vocabulary import HAND_SIZE


class ExtraDraw(ProtectorKind):
    name = "extra_draw"
    when = "round_end"
    params = (Param("count", 1, 2), Param("max_hand", HAND_SIZE, 10))  # never below the hand dealt (L5)
    draws_at_round_end = True

    def describe(self, effect: ProtectorEffect, names: Mapping[str, str]) -> str:
        return (
            f"At the end of each round, each player of the team draws {plural(effect.count, 'extra card')}, "
            f"without going above {effect.max_hand} cards in hand."
        )

    def round_end_draw(self, effect: ProtectorEffect, hand_size: int) -> int:
        room = effect.max_hand - hand_size
        return min(effect.count, room) if room > 0 else 0


KIND = ExtraDraw()
