"""cancel_attack (Tide Keeper, Stone Sentinel): in showdown step 3, after the defense cards, cancel
`count` points of the opposing attacks of the element, like free defense cards ("any": each point from
the strongest opposing element, catalogue order on ties)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from legends.engine.effects.base import Param, ProtectorEffect, ProtectorKind, of_element, plural
from legends.engine.showdown import CancelRecord
from legends.engine.vocabulary import ANY_ELEMENT


class CancelAttack(ProtectorKind):
    name = "cancel_attack"
    when = "showdown_defenses"
    params = (Param("count", 1, 2),)
    element = True

    def describe(self, effect: ProtectorEffect, names: Mapping[str, str]) -> str:
        return (
            f"In each showdown, cancel {plural(effect.count, 'strength point')} of the opposing team's "
            f"{of_element(effect, 'attacks', names)}, like a free defense card."
        )

    def cancel(
        self, effect: ProtectorEffect, target: dict[str, int], elements: Sequence[str], team: int
    ) -> list[CancelRecord]:
        """One point at a time, each logged (nothing to cancel: a record that cancels nothing)."""
        records: list[CancelRecord] = []
        for _ in range(effect.count):
            element = effect.element
            if element == ANY_ELEMENT:  # the strongest opposing element, in catalogue order on ties
                element = max(elements, key=lambda e: target.get(e, 0)) if elements else ""
            cancelled = 1 if target.get(element, 0) > 0 else 0
            if cancelled:
                target[element] -= 1
            records.append(CancelRecord(team, None, element, cancelled, False, target.get(element, 0)))
        return records

    def cancel_estimate(self, effect: ProtectorEffect, element: str) -> int:
        return effect.count if effect.matches(element) else 0


KIND = CancelAttack()
