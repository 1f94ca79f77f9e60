"""reveal_facedown (Spy, L13): once a round, the team sees one face-down card an opponent played.

The ruling's "before the second turns" leaves nothing face down in teams mode, so the look comes right
before the team's first face-down turn that follows an opponent's face-down card: the most recent one.
Teams mode only; the effect has no parameter (a count is refused: L13 says one card).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from legends.engine.effects.base import ProtectorEffect, ProtectorKind

if TYPE_CHECKING:
    from legends.engine.showdown import Play


class RevealFacedown(ProtectorKind):
    name = "reveal_facedown"
    when = "before_second_turns"
    teams_only = True
    refused = (
        ("count", "is not a parameter: the Spy looks at exactly one face-down card a round (L13)"),
    )

    def describe(self, effect: ProtectorEffect, names: Mapping[str, str]) -> str:
        return (
            "Once per round, during the face-down turns, the team looks at one face-down card "
            "an opponent played this round, before its own next face-down card. Teams mode only."
        )

    def look(self, effect: ProtectorEffect, plays: Sequence[Play], team: int) -> Play | None:
        """The latest face-down card of an opponent this round."""
        for play in reversed(plays):
            if play.team != team and not play.face_up:
                return play
        return None


KIND = RevealFacedown()
