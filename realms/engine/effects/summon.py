"""summon: `count` new units (name, ATK, DEF, SPD, HP; no abilities) in a line with room (R15)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from realms.engine.effects.base import Checker, Effect, EffectKind, SummonSpec, ValueContext
from realms.engine.effects.words import LINE_NAMES, Mention, article, plural
from realms.engine.order import insert
from realms.engine.units import Unit
from realms.engine.vocabulary import LINE_CAPACITY, LINES, MAX_SUMMONS, STAT_BOUNDS

if TYPE_CHECKING:
    from realms.engine.battlefield import Battlefield


class Summon(EffectKind):
    name = "summon"
    keys = frozenset({"unit", "line", "count"})
    targeted = False
    always_written = frozenset({"line", "count"})
    positive = True
    reads_averages = True

    def parse(self, check: Checker, data: dict[str, Any], path: str) -> dict[str, Any]:
        params: dict[str, Any] = {
            "line": check.choice(data, "line", (*LINES, "same"), path, default="same"),
            "count": check.integer(data, "count", path, 1, MAX_SUMMONS, default=1),
        }
        unit = check.obj(data.get("unit"), f"{path}.unit")
        if unit is not None:
            upath = f"{path}.unit"
            check.unknown_keys(unit, {"name", "atk", "def", "spd", "hp"}, upath)
            params["unit"] = SummonSpec(
                name=check.text(unit, "name", upath, max_len=60),
                atk=check.integer(unit, "atk", upath, *STAT_BOUNDS["atk"]),
                def_=check.integer(unit, "def", upath, *STAT_BOUNDS["def"]),
                spd=check.integer(unit, "spd", upath, *STAT_BOUNDS["spd"]),
                hp=check.integer(unit, "hp", upath, *STAT_BOUNDS["hp"]),
            )
        return params

    def to_spec(self, eff: Effect) -> dict[str, Any]:
        data = super().to_spec(eff)
        unit = eff.unit
        if unit is not None:
            data["unit"] = {"name": unit.name, "atk": unit.atk, "def": unit.def_, "spd": unit.spd, "hp": unit.hp}
        else:
            data.pop("unit", None)
        return data

    def apply(self, bf: Battlefield, src: Unit, eff: Effect, targets: Sequence[Unit], via: str) -> None:
        spec = eff.unit
        assert spec is not None  # a parsed summon always has its unit
        side = src.side
        line = src.line if eff.line == "same" else eff.line
        for _ in range(eff.count):
            reason = ""
            if not bf.chars[side]:
                reason = "army_defeated"
            elif bf.line_count(side, line) >= LINE_CAPACITY:
                reason = "no_room"
            if reason:
                if bf.record is not None:
                    bf.fizzle(src, "summon", None, reason, via)
                return
            u = bf.add_unit(side, line, spec.name, spec.atk, spec.def_, spec.spd, spec.hp, None)
            u.acted = -1
            slot, acts, tie = insert(bf, u)
            if not acts:
                u.turn = bf.round  # its slot has passed: no action this round
            if bf.record is not None:
                bf.record(("summon", u.uid, side, u.name, line, u.atk, u.defense, u.spd, u.hp, src.uid, slot + 1, acts,
                           tie, via, bf.use))

    def words(self, eff: Effect, ref: Mention | None) -> tuple[str, bool]:
        """ "summons 2 Skeletons (ATK 4, DEF 2, SPD 3, HP 8) in its Vanguard" (names no unit: `ref` None)."""
        unit = eff.unit
        assert unit is not None
        stats = f"(ATK {unit.atk}, DEF {unit.def_}, SPD {unit.spd}, HP {unit.hp})"
        who = f"{article(unit.name)} {unit.name}" if eff.count == 1 else f"{eff.count} {plural(unit.name)}"
        where = f"its {LINE_NAMES[eff.line]}" if eff.line in LINE_NAMES else "its line"
        return f"summons {who} {stats} in {where}", False

    def worth(self, eff: Effect, ctx: ValueContext) -> float:
        """The greedy value of the summons: their expected damage over a few rounds against the average enemy."""
        unit = eff.unit
        if unit is None:
            return 0.0
        hits = min(3.0, unit.hp / max(1.0, ctx.enemy_threat))
        return eff.count * (unit.atk + 1.0) * hits * ctx.enemy_threat / max(1.0, ctx.enemy_hp)


KIND = Summon()
