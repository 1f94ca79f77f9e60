"""Card text from the ability spec: the words printed on a card, generated so that they always say
what the engine does (docs/abilities.md, rulings R11, R12, R17, R18, R19).

`main_text(main)` and `faction_text(fab, faction_name)` turn any valid spec into one plain English
sentence, in the style of the official starter set, e.g.

    Deals 110% ATK damage to the chosen enemy (rounded down, minus its DEF, at least 1) and gives it
    -2 SPD for 2 rounds.
    At the start of each round, if it stands in the Vanguard, gains a 2-point shield for 1 round.

The words follow the spec exactly: every effect with its amounts and durations and how the engine
turns them into numbers (a percentage rounded down, DEF taken off a blow, at least 1), the selector of
each effect (a unit named again is "it" / "them"; a single pick named again later is "that
enemy", as the engine keeps one pick per ability; a single enemy pick is one "it can attack", R12),
the trigger (saying when it fires and when its condition is checked), condition and limit, the R12
exception ("in any line, ignoring the Vanguard"), R17's `persists` ("even after it falls"), R18's
`include_summons` ("unit") and R19's "every ally" / "every other ally".
"""

from __future__ import annotations

from realms.engine import selectors, trigger_kinds
from realms.engine.effects import KINDS
from realms.engine.effects.base import Effect, Piece
from realms.engine.effects.words import LINE_NAMES, Mention, join, percent
from realms.engine.selectors import IGNORING
from realms.engine.spec import Condition, FactionAbility, MainAbility


class _Namer:
    """Names the units of each clause in turn: a full noun the first time, a pronoun when the clause
    before named the same units, "that enemy" for a single pick named again later (R12's words on
    the first mention of a line-bound enemy when the main ability ignores lines)."""

    def __init__(self, choose: str, ignore_lines: bool) -> None:
        self.choose = choose
        self.ignore_lines = ignore_lines
        self.previous: str | None = None
        self.named: set[str] = set()
        self.said_ignoring: set[str] = set()

    def ref(self, name: str) -> Mention:
        """The reference for the selector named `name` in the next clause."""
        previous, self.previous = self.previous, name
        sel = selectors.BY_NAME[name]
        kind = sel.number
        if kind == "self":
            return Mention(sel.noun, kind, False)
        noun = sel.words(self.choose)
        if name == previous:
            return Mention("them" if kind == "group" else "it", kind, True)
        first = name not in self.named
        self.named.add(name)
        if not first and sel.later:
            return Mention(sel.later, kind, False)
        remark = False
        if self.ignore_lines and first and sel.ignoring:
            group = "chosen" if sel.chosen else name  # the chosen enemy and its line: said once for both
            if group not in self.said_ignoring:
                self.said_ignoring.add(group)
                noun = sel.ignoring
                remark = not noun.endswith(")")  # it ends in a comma phrase
        return Mention(noun, kind, False, remark)

    def pause(self) -> None:
        """A clause that names no unit (a summon): the next one names its units in full."""
        self.previous = None


def _runs(effects: tuple[Effect, ...]) -> list[list[Piece]]:
    """The effects in clauses: each effect joins the run before it where its kind says so (`EffectKind.joins`:
    blows in a row, what is given in a row to the same units); any other effect is its own."""
    runs: list[list[Piece]] = []
    for e in effects:
        kind = KINDS[e.kind]
        last = runs[-1] if runs else None
        if last is not None and kind.joins(last[0][0], last[0][1], e):
            last.append((kind, e))
        else:
            runs.append([(kind, e)])
    return runs


def _effects_text(effects: tuple[Effect, ...], namer: _Namer) -> str:
    """Every effect in order, as clauses (each run's first kind says its own, `EffectKind.clause`) joined
    "a, b and c" (", and" after a comma phrase)."""
    clauses = [run[0][0].clause(run, namer) for run in _runs(effects)]
    text = clauses[0][0]
    for i in range(1, len(clauses)):
        last = i == len(clauses) - 1
        remark = clauses[i - 1][1]
        if last:
            text += (", and " if remark else " and ") + clauses[i][0]
        else:
            text += ", " + clauses[i][0]
    return text


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def main_text(main: MainAbility) -> str:
    """The printed text of a main ability, from its spec."""
    namer = _Namer(main.choose, main.ignore_lines)
    body = _effects_text(main.effects, namer)
    aimed = any(KINDS[e.kind].targeted and selectors.BY_NAME[e.target].chosen for e in main.effects)
    if main.choose != "none" and not aimed:
        aim = f"the chosen {main.choose}" + (f" {IGNORING}" if main.ignore_lines else "")
        return _capital(f"aimed at {aim}, it {body}.")
    return _capital(body) + "."


def _condition_text(cond: Condition, faction_name: str, hp_said: bool) -> str:
    """ "if it stands in the Vanguard", "if below 50% HP", "if at least 2 other Arcane allies stand
    with it", or several of them; "" without a condition (`hp_said`: the trigger words hold it)."""
    pieces: list[str] = []
    if cond.line:
        pieces.append(f"it stands in the {LINE_NAMES[cond.line]}")
    if cond.hp_below and not hp_said:
        pieces.append(f"{'is' if pieces else 'it is'} below {percent(cond.hp_below)} HP")
    if cond.allies_same_faction_gte:
        n = cond.allies_same_faction_gte
        allies = f"{n} other {faction_name} {'ally stands' if n == 1 else 'allies stand'} with it"
        pieces.append(f"at least {allies}")
    if not pieces:
        return ""
    if len(pieces) == 1 and cond.hp_below and not hp_said:
        return f"if below {percent(cond.hp_below)} HP"
    return "if " + join(pieces)


def faction_text(fab: FactionAbility, faction_name: str) -> str:
    """The printed text of a faction ability, from its spec (`faction_name` as printed, e.g. "Iron Kingdom")."""
    trigger = trigger_kinds.BY_NAME[fab.trigger]
    words = trigger.unit_words if fab.include_summons else trigger.words
    cond = fab.condition
    hp_said = trigger.hp_after and bool(cond.hp_below)
    if hp_said:  # checked after the hit, which may be the one that brings it below (`combat.hit`)
        words += f" and is left below {percent(cond.hp_below)} HP"
    condition = _condition_text(cond, faction_name, hp_said)
    head = f"{words}, {condition}" if condition else words
    suffix = ""
    if fab.limit == "battle" and trigger.event:
        head = f"once per battle, {head}"
    elif fab.limit != "none":
        suffix = f" (once per {fab.limit})"
    body = _effects_text(fab.effects, _Namer("none", False))
    return _capital(f"{head}, {body}{suffix}.")
