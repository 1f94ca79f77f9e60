"""boost_first_attack (Flame Herald, Gale Rider): in showdown step 2, +`amount` strength to the team's
first attack of the element in turn order. It stays one attack card for the cap of step 4."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from legends.engine.effects.base import Param, ProtectorEffect, ProtectorKind, of_element
from legends.engine.showdown import BoostRecord
from legends.engine.vocabulary import ATTACK

if TYPE_CHECKING:
    from legends.engine.showdown import Play


class BoostFirstAttack(ProtectorKind):
    name = "boost_first_attack"
    when = "showdown_boosts"
    params = (Param("amount", 1, 2),)
    element = True

    def describe(self, effect: ProtectorEffect, names: Mapping[str, str]) -> str:
        attack = of_element(effect, "attack", names)
        return f"In each showdown, the team's first {attack} (in turn order) gets +{effect.amount} strength."

    def boost(
        self, effect: ProtectorEffect, plays: Sequence[Play], strength: dict[int, int], team: int
    ) -> BoostRecord:
        """The first matching attack of the team gains the amount (logged with no attack when there is none)."""
        for play in plays:
            if play.orientation == ATTACK and play.team == team and effect.matches(play.element):
                strength[play.seq] += effect.amount
                return BoostRecord(team, None, play.element, effect.amount, [play.seq])
        return BoostRecord(team, None, effect.element, effect.amount, [])

    def first_attack_bonus(self, effect: ProtectorEffect, element: str) -> int:
        return effect.amount if effect.matches(element) else 0


KIND = BoostFirstAttack()
