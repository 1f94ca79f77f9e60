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
from realms.engine.effects.base import Effect
from realms.engine.effects.damage import amount_words, dealt_words, piece_words
from realms.engine.effects.lasting import LastingKind
from realms.engine.effects.modifier import Modifier
from realms.engine.effects.words import (
    LINE_NAMES,
    Mention,
    join,
    lasting,
    percent,
    rounds,
    whose_def,
    with_note,
)
from realms.engine.selectors import IGNORING
from realms.engine.spec import Condition, FactionAbility, MainAbility

GIVE_KINDS = frozenset({"shield", "buff", "debuff"})
TIMES = {2: "twice", 3: "three times"}


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


def _give_items(effects: list[Effect], on_self: bool) -> tuple[list[str], bool]:
    """What a run of shields and stat changes gives: stat changes in a row with the same duration
    share it ("+3 ATK and +2 SPD for 2 rounds"); whether the last item ends in a comma phrase."""
    items: list[str] = []
    remark = False
    i = 0
    while i < len(effects):
        e = effects[i]
        kind = KINDS[e.kind]
        if not isinstance(kind, Modifier):
            assert isinstance(kind, LastingKind)
            text, remark = kind.item(e, on_self)
            items.append(text)
            i += 1
            continue
        j = i
        while (
            j + 1 < len(effects)
            and effects[j + 1].kind in ("buff", "debuff")
            and (effects[j + 1].duration, effects[j + 1].persists) == (e.duration, e.persists)
        ):
            j += 1
        changes = join([_change(x) for x in effects[i : j + 1]])
        text, remark = lasting(f"{changes} for {rounds(e.duration)}", e)
        items.append(text)
        i = j + 1
    return items, remark


def _change(e: Effect) -> str:
    """A buff's or debuff's change in words ("+2 ATK")."""
    kind = KINDS[e.kind]
    assert isinstance(kind, Modifier)
    return kind.change(e)


def _runs(effects: tuple[Effect, ...]) -> list[list[Effect]]:
    """The effects in clauses: damage in a row is one clause ("..., then ..."), as are shields and
    stat changes in a row on the same units ("gives it ... and ..."); any other effect is its own."""
    runs: list[list[Effect]] = []
    for e in effects:
        last = runs[-1] if runs else None
        joins = last is not None and (
            (e.kind == "damage" and last[0].kind == "damage")
            or (e.kind in GIVE_KINDS and last[0].kind in GIVE_KINDS and e.target == last[0].target)
        )
        if joins:
            last.append(e)  # type: ignore[union-attr]
        else:
            runs.append([e])
    return runs


def _damage_clause(run: list[Effect], namer: _Namer) -> tuple[str, bool]:
    first = run[0]
    same = all(
        (e.target, e.scale, e.flat, e.ignore_def) == (first.target, first.scale, first.flat, first.ignore_def)
        for e in run
    )
    if len(run) > 1 and same:
        ref = namer.ref(first.target)
        times = TIMES.get(len(run), f"{len(run)} times")
        each = with_note(amount_words(first), dealt_words(first, whose_def(ref)))
        return f"strikes {ref.noun}{',' if ref.remark else ''} {times}, each for {each}", False
    refs = [namer.ref(e.target) for e in run]
    remark = refs[-1].remark
    # Blows of one kind in a row say once, at the end, what happens to each amount.
    shared = {dealt_words(e, "the target's") for e in run}
    if len(run) > 1 and len(shared) == 1 and "" not in shared:
        pieces = [f"{amount_words(e)} to {ref.noun}" for e, ref in zip(run, refs, strict=True)]
        return "deals " + with_note(", then ".join(pieces), f"each {shared.pop()}"), remark
    return "deals " + ", then ".join(piece_words(e, ref) for e, ref in zip(run, refs, strict=True)), remark


def _give_clause(run: list[Effect], namer: _Namer) -> tuple[str, bool]:
    ref = namer.ref(run[0].target)
    items, remark = _give_items(run, ref.kind == "self")
    if ref.kind == "self" and all(e.kind != "debuff" for e in run):
        return "gains " + join(items), remark
    return f"gives {ref.noun}{',' if ref.remark else ''} " + join(items), remark


def _clause(e: Effect, namer: _Namer) -> tuple[str, bool]:
    """One effect in words (lower case, the kind's own), and whether it ends in a comma phrase."""
    if e.kind == "summon":
        namer.pause()
        return KINDS[e.kind].words(e, None)
    return KINDS[e.kind].words(e, namer.ref(e.target))


def _effects_text(effects: tuple[Effect, ...], namer: _Namer) -> str:
    """Every effect in order, as clauses joined "a, b and c" (", and" after a comma phrase)."""
    clauses: list[tuple[str, bool]] = []
    for run in _runs(effects):
        if run[0].kind == "damage":
            clauses.append(_damage_clause(run, namer))
        elif run[0].kind in GIVE_KINDS:
            clauses.append(_give_clause(run, namer))
        else:
            clauses.append(_clause(run[0], namer))
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
    if main.choose != "none" and not ({"target", "target_line"} & {e.target for e in main.effects if e.kind != "summon"}):
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
