"""What the lasting kinds share: a duration (1–5, R14), `persists` (R17), and putting the effect on
each living target."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from realms.engine.effects.base import Checker, Effect, EffectKind, Piece
from realms.engine.effects.words import Mention, Namer, join, lasting, rounds
from realms.engine.units import Unit
from realms.engine.vocabulary import MAX_AMOUNT, MAX_DURATION

if TYPE_CHECKING:
    from realms.engine.battlefield import Battlefield
    from realms.engine.trigger_kinds import Trigger


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

    def never_matters(self, eff: Effect, trigger: Trigger | None) -> tuple[str, str] | None:
        """R14: a 1-round effect (not an ongoing one) applied right before the durations count down."""
        if eff.duration != 1 or self.ongoing:
            return None
        if trigger is not None and trigger.before_expiry:
            return ("duration", "a 1-round effect applied at the end of a round expires in that same end phase: "
                    "give it 2 rounds or more")
        reason = self.one_round_never_matters(eff, trigger)
        return ("duration", reason) if reason else None

    def one_round_never_matters(self, eff: Effect, trigger: Trigger | None) -> str:
        """Why this kind's 1-round `eff` applied by `trigger` could never change anything ("" when it can)."""
        return ""

    def size(self, src: Unit, eff: Effect) -> int:
        """The effect's amount as it is put on (a shield's comes from the source's ATK)."""
        return eff.amount

    def item(self, eff: Effect, on_self: bool) -> tuple[str, bool]:
        """What a giving clause gives ("a 4-point shield for 2 rounds", "+2 ATK for 2 rounds"); shields,
        buffs and debuffs only."""
        raise NotImplementedError

    def change(self, eff: Effect) -> str:
        """A stat change in words ("+2 ATK"); the kinds that change a stat only."""
        raise NotImplementedError

    def words(self, eff: Effect, ref: Mention | None) -> tuple[str, bool]:
        """A clause giving the effect ("gives the chosen ally ...", "gains ..."); the kinds that are not
        given (poison, silence, ...) say their own verb."""
        assert ref is not None
        item, remark = self.item(eff, ref.kind == "self")
        if ref.kind == "self" and self.gained:
            return f"gains {item}", remark
        return f"gives {ref.noun}{',' if ref.remark else ''} {item}", remark

    def joins(self, first: EffectKind, head: Effect, eff: Effect) -> bool:
        """What is given in a row to the same units is one clause ("gives it +2 ATK and a 3-point shield")."""
        return self.given and first.given and eff.target == head.target

    def clause(self, run: list[Piece], namer: Namer) -> tuple[str, bool]:
        """ "gives it A and B", "gains A and B" (a given kind; the others say their own words)."""
        if not self.given:
            return super().clause(run, namer)
        ref = namer.ref(run[0][1].target)
        items, remark = given_items(run, ref.kind == "self")
        if ref.kind == "self" and all(kind.gained for kind, _ in run):
            return "gains " + join(items), remark
        return f"gives {ref.noun}{',' if ref.remark else ''} " + join(items), remark

    def apply(self, bf: Battlefield, src: Unit, eff: Effect, targets: Sequence[Unit], via: str) -> None:
        amount = self.size(src, eff)
        for t in targets:
            if t.alive:
                bf.add_effect(src, t, self, eff.stat, amount, eff.duration, via, eff.persists)


def given_items(run: list[Piece], on_self: bool) -> tuple[list[str], bool]:
    """What a run of given effects gives: stat changes in a row with the same duration share it
    ("+3 ATK and +2 SPD for 2 rounds"); whether the last item ends in a comma phrase."""
    items: list[str] = []
    remark = False
    i = 0
    while i < len(run):
        kind, e = run[i]
        assert isinstance(kind, LastingKind)
        if not kind.changes_stat:
            text, remark = kind.item(e, on_self)
            items.append(text)
            i += 1
            continue
        j = i
        while (
            j + 1 < len(run)
            and run[j + 1][0].changes_stat
            and (run[j + 1][1].duration, run[j + 1][1].persists) == (e.duration, e.persists)
        ):
            j += 1
        changes = join([changer.change(x) for changer, x in run[i : j + 1] if isinstance(changer, LastingKind)])
        text, remark = lasting(f"{changes} for {rounds(e.duration)}", e)
        items.append(text)
        i = j + 1
    return items, remark
