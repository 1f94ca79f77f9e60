"""What cleanse and dispel share: every standing effect of one polarity taken off the targets."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from realms.engine.effects.base import Effect, EffectKind
from realms.engine.effects.words import Mention
from realms.engine.units import Unit

if TYPE_CHECKING:
    from realms.engine.battlefield import Battlefield


class Removal(EffectKind):
    """Removes the standing effects that are buffs (`removes_buffs`) or debuffs."""

    removes_buffs = False
    reason = ""

    def words(self, eff: Effect, ref: Mention | None) -> tuple[str, bool]:
        assert ref is not None
        return f"removes {ref.possessive('buffs' if self.removes_buffs else 'debuffs')}", False

    def apply(self, bf: Battlefield, src: Unit, eff: Effect, targets: Sequence[Unit], via: str) -> None:
        wanted = self.removes_buffs
        for t in targets:
            if t.alive:
                for a in [a for a in t.effects if a.impl.positive == wanted]:
                    bf.drop_effect(t, a, self.reason, src, via)
