"""damage: ⌊ATK × scale⌋ + flat against each target's DEF (R11), or not with `ignore_def`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from realms.engine.combat import damage_dealt, hit
from realms.engine.effects.base import KILL, Checker, Effect, EffectKind, Piece, ValueContext
from realms.engine.effects.words import TIMES, Mention, Namer, percent, whose_def, with_note
from realms.engine.units import Unit, scaled
from realms.engine.vocabulary import MAX_AMOUNT, MAX_SCALE, MIN_DAMAGE

if TYPE_CHECKING:
    from realms.engine.battlefield import Battlefield
    from realms.engine.observation import UnitInfo


def parse_power(check: Checker, data: dict[str, Any], path: str, kind: str, fraction: bool) -> dict[str, Any]:
    """`scale` (× ATK) and `flat`, and for a heal `max_hp_fraction`: at least one of them positive."""
    params: dict[str, Any] = {
        "scale": check.number(data, "scale", path, 0, MAX_SCALE),
        "flat": check.integer(data, "flat", path, 0, MAX_AMOUNT, default=0),
    }
    if fraction:
        params["max_hp_fraction"] = check.number(data, "max_hp_fraction", path, 0, 1)
    if not (params["scale"] or params["flat"] or params.get("max_hp_fraction")):
        check.fail(path, f"a {kind} needs a positive scale, flat or max_hp_fraction")
    return params


def blow_value(dmg: int, v: UnitInfo) -> float:
    """The greedy value of dealing `dmg` to the enemy `v`: its threat (ATK + 1) times the share of its
    HP + shield removed, a kill counting 1.5."""
    ehp = v.hp + v.shield
    return (v.atk + 1.0) * (KILL if dmg >= ehp else dmg / ehp)


def amount_words(e: Effect) -> str:
    """ "110% ATK damage", "5 damage that ignores DEF", "50% ATK damage plus 2"."""
    parts = []
    if e.scale:
        parts.append(f"{percent(e.scale)} ATK damage")
    if e.flat:
        parts.append(f"{e.flat}" if e.scale else f"{e.flat} damage")
    words = " plus ".join(parts)
    return f"{words} that ignores DEF" if e.ignore_def else words


def dealt_words(e: Effect, whose: str) -> str:
    """How the printed amount becomes the damage dealt, as `apply` and `damage_dealt` compute it (R11):
    "rounded down" for a share of ATK (⌊ATK × scale⌋), "minus <whose> DEF" unless DEF is ignored, and
    "at least 1" (R11's minimum) wherever the result could be less; "" when the amount is dealt exactly as
    printed (a flat amount of at least the minimum that ignores DEF). `whose`: "its", "each one's", "the target's"."""
    parts = []
    if e.scale:
        parts.append("rounded down")
    if not e.ignore_def:
        parts.append(f"minus {whose} DEF")
    if not e.ignore_def or e.flat < MIN_DAMAGE:  # ⌊ATK × scale⌋ alone may be 0; a flat amount may be less
        parts.append(f"at least {MIN_DAMAGE}")
    return ", ".join(parts)


def piece_words(e: Effect, ref: Mention) -> str:
    """ "110% ATK damage to the chosen enemy (rounded down, minus its DEF, at least 1)"."""
    return with_note(f"{amount_words(e)} to {ref.noun}", dealt_words(e, whose_def(ref)))


class Damage(EffectKind):
    name = "damage"
    keys = frozenset({"scale", "flat", "ignore_def"})
    powered = True

    def parse(self, check: Checker, data: dict[str, Any], path: str) -> dict[str, Any]:
        params = parse_power(check, data, path, self.name, False)
        params["ignore_def"] = check.boolean(data, "ignore_def", path)
        return params

    def apply(self, bf: Battlefield, src: Unit, eff: Effect, targets: Sequence[Unit], via: str) -> None:
        ignore = eff.ignore_def
        for t in targets:
            if not src.alive:  # R10: fallen to a reply midway
                break
            if t.alive:
                a = src.atk_now  # read at each hit: an on_hit reply may have changed it
                power = scaled(a, eff.scale) + eff.flat
                hit(bf, src, t, a, power, None if ignore else t.def_now, via, None)

    def on_enemy(self, eff: Effect, power: int, v: UnitInfo, ctx: ValueContext) -> float:
        """Threat times the share of HP + shield removed (a kill counts 1.5)."""
        return blow_value(damage_dealt(power, None if eff.ignore_def else v.def_), v)

    def words(self, eff: Effect, ref: Mention | None) -> tuple[str, bool]:
        assert ref is not None
        return f"deals {piece_words(eff, ref)}", ref.remark

    def joins(self, first: EffectKind, head: Effect, eff: Effect) -> bool:
        """Blows in a row are one clause ("deals ..., then ...", "strikes ... twice")."""
        return first is self

    def clause(self, run: list[Piece], namer: Namer) -> tuple[str, bool]:
        """ "strikes the chosen enemy twice, each for ..." (the same blow again), or "deals A to X, then B to
        Y (each ...)" (blows treated alike say once, at the end, what happens to each amount)."""
        blows = [e for _, e in run]
        first = blows[0]
        same = all(
            (e.target, e.scale, e.flat, e.ignore_def) == (first.target, first.scale, first.flat, first.ignore_def)
            for e in blows
        )
        if len(blows) > 1 and same:
            ref = namer.ref(first.target)
            times = TIMES.get(len(blows), f"{len(blows)} times")
            each = with_note(amount_words(first), dealt_words(first, whose_def(ref)))
            return f"strikes {ref.noun}{',' if ref.remark else ''} {times}, each for {each}", False
        refs = [namer.ref(e.target) for e in blows]
        remark = refs[-1].remark
        shared = {dealt_words(e, "the target's") for e in blows}
        if len(blows) > 1 and len(shared) == 1 and "" not in shared:
            pieces = [f"{amount_words(e)} to {ref.noun}" for e, ref in zip(blows, refs, strict=True)]
            return "deals " + with_note(", then ".join(pieces), f"each {shared.pop()}"), remark
        return "deals " + ", then ".join(piece_words(e, ref) for e, ref in zip(blows, refs, strict=True)), remark

    def on_ally(self, eff: Effect, power: int, v: UnitInfo, ctx: ValueContext) -> float:
        """Hurting an ally costs its share of threat."""
        dmg = damage_dealt(power, None if eff.ignore_def else v.def_)
        return -0.5 * (v.atk + 1.0) * min(dmg, v.hp) / v.max_hp


KIND = Damage()
