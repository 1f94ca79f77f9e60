"""move: to the vanguard, the rearguard or the other line, if that line has room (R2)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from realms.engine.effects.base import Checker, Effect, EffectKind, ValueContext
from realms.engine.effects.words import LINE_NAMES, Mention
from realms.engine.units import Unit
from realms.engine.vocabulary import LINE_CAPACITY, REARGUARD, VANGUARD

if TYPE_CHECKING:
    from realms.engine.battlefield import Battlefield
    from realms.engine.observation import UnitInfo


class Move(EffectKind):
    name = "move"
    keys = frozenset({"to"})
    always_written = frozenset({"to"})

    def parse(self, check: Checker, data: dict[str, Any], path: str) -> dict[str, Any]:
        return {"to": check.choice(data, "to", (VANGUARD, REARGUARD, "other"), path)}

    def apply(self, bf: Battlefield, src: Unit, eff: Effect, targets: Sequence[Unit], via: str) -> None:
        for t in targets:
            if not t.alive:
                continue
            dest = eff.to if eff.to != "other" else (REARGUARD if t.line == VANGUARD else VANGUARD)
            reason = ""
            if t.line == dest:
                reason = "same_line"
            elif bf.line_count(t.side, dest) >= LINE_CAPACITY:
                reason = "no_room"
            if reason:
                if bf.record is not None:
                    bf.fizzle(src, "move", t, reason, via)
                continue
            bf.move(t, dest, via, src)

    def words(self, eff: Effect, ref: Mention | None) -> tuple[str, bool]:
        assert ref is not None
        whose = "their" if ref.kind == "group" else "its"
        dest = f"{whose} other line" if eff.to == "other" else f"{whose} {LINE_NAMES[eff.to]}"
        return f"moves {ref.noun} to {dest}", False

    def on_enemy(self, eff: Effect, power: int, v: UnitInfo, ctx: ValueContext) -> float:
        """An enemy pulled out of the rearguard."""
        return 0.1 * (v.atk + 1.0) if v.line == REARGUARD else 0.0

    def on_ally(self, eff: Effect, power: int, v: UnitInfo, ctx: ValueContext) -> float:
        """A hurt ally out of the vanguard."""
        return 0.05 if v.hp * 2 < v.max_hp and v.line == VANGUARD else 0.0


KIND = Move()
