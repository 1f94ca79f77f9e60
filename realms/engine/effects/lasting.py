"""What the lasting kinds share: a duration (1–5, R14), `persists` (R17), and putting the effect on
each living target."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from realms.engine.effects.base import Checker, Effect, EffectKind
from realms.engine.effects.words import Mention
from realms.engine.units import Unit
from realms.engine.vocabulary import MAX_AMOUNT, MAX_DURATION

if TYPE_CHECKING:
    from realms.engine.battlefield import Battlefield


class LastingKind(EffectKind):
    """An effect that stands on its units; `amount` and `stat` are this kind's own values."""

    lasting = True
    has_amount = True  # an `amount` parameter (1–50)

    def parse(self, check: Checker, data: dict[str, Any], path: str) -> dict[str, Any]:
        params: dict[str, Any] = {}
        if self.has_amount:
            params["amount"] = check.integer(data, "amount", path, 1, MAX_AMOUNT)
        params["duration"] = check.integer(data, "duration", path, 1, MAX_DURATION)
        return params

    def size(self, src: Unit, eff: Effect) -> int:
        """The effect's amount as it is put on (a shield's comes from the source's ATK)."""
        return eff.amount

    def item(self, eff: Effect, on_self: bool) -> tuple[str, bool]:
        """What a giving clause gives ("a 4-point shield for 2 rounds", "+2 ATK for 2 rounds"); shields,
        buffs and debuffs only."""
        raise NotImplementedError

    def words(self, eff: Effect, ref: Mention | None) -> tuple[str, bool]:
        """A clause giving the effect ("gives the chosen ally ...", "gains ..."); the kinds that are not
        given (poison, silence, ...) say their own verb."""
        assert ref is not None
        item, remark = self.item(eff, ref.kind == "self")
        if ref.kind == "self" and eff.kind != "debuff":
            return f"gains {item}", remark
        return f"gives {ref.noun}{',' if ref.remark else ''} {item}", remark

    def apply(self, bf: Battlefield, src: Unit, eff: Effect, targets: Sequence[Unit], via: str) -> None:
        amount = self.size(src, eff)
        for t in targets:
            if t.alive:
                bf.add_effect(src, t, self, eff.stat, amount, eff.duration, via, eff.persists)
