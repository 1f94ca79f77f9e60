"""Card text from the ability spec: the words printed on a card, generated so that they always say
what the engine does (docs/abilities.md, rulings R12, R17, R18, R19).

`main_text(main)` and `faction_text(fab, faction_name)` turn any valid spec into one plain English
sentence, in the style of the official starter set, e.g.

    Deals 110% ATK damage to the chosen enemy and gives it -2 SPD for 2 rounds.
    At the start of each round, if it stands in the Vanguard, gains a 2-point shield for 1 round.

The words follow the spec exactly: every effect with its amounts and durations, the selector of
each effect (a unit named again is "it" / "them"; a single pick named again later is "that
enemy", as the engine keeps one pick per ability), the trigger, condition and limit, the R12
exception ("in any line, ignoring the Vanguard"), R17's `persists` ("even after it falls"), R18's
`include_summons` ("unit") and R19's "every ally" / "every other ally".
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from realms.engine.effects.base import Effect
from realms.engine.spec import Condition, FactionAbility, MainAbility

IGNORING = "in any line, ignoring the Vanguard"
EVEN_AFTER = "even after it falls"

STAT_NAMES = {"atk": "ATK", "def": "DEF", "spd": "SPD"}
LINE_NAMES = {"vanguard": "Vanguard", "rearguard": "Rearguard"}

# How each selector is named the first time: (noun, "single" | "group").
NOUNS: dict[str, tuple[str, str]] = {
    "self": ("itself", "self"),
    "all_allies": ("every ally", "group"),
    "other_allies": ("every other ally", "group"),
    "lowest_hp_ally": ("the ally with the lowest HP", "single"),
    "random_ally": ("a random ally", "single"),
    "all_enemies": ("every enemy", "group"),
    "random_enemy": ("a random enemy", "single"),
    "lowest_hp_enemy": ("the enemy with the lowest HP", "single"),
    "highest_atk_enemy": ("the enemy with the highest ATK", "single"),
    "enemy_vanguard": ("every enemy in the Vanguard", "group"),
    "enemy_rearguard": ("every enemy in the Rearguard", "group"),
    "target_line": ("every enemy in the chosen enemy's line", "group"),
    "ally_vanguard": ("every ally in its Vanguard", "group"),
    "ally_rearguard": ("every ally in its Rearguard", "group"),
    "attacker": ("the attacker", "single"),
}
# Single-unit picks: the engine picks once per ability use, so a later mention is "that enemy".
PICKS = {
    "lowest_hp_ally": "that ally",
    "random_ally": "that ally",
    "random_enemy": "that enemy",
    "lowest_hp_enemy": "that enemy",
    "highest_atk_enemy": "that enemy",
}
ENEMY_PICKS = frozenset({"random_enemy", "lowest_hp_enemy", "highest_atk_enemy"})

TRIGGER_WORDS = {
    "battle_start": "at the start of the battle",
    "round_start": "at the start of each round",
    "before_action": "before it acts",
    "after_action": "after it acts",
    "on_hit": "when hit",
    "ally_defeated": "when an ally is defeated",
    "enemy_defeated": "when an enemy is defeated",
    "defeats_enemy": "when it defeats an enemy",
    "round_end": "at the end of each round",
}
# R18: a defeat trigger that counts summoned units says "unit".
UNIT_TRIGGER_WORDS = {
    "ally_defeated": "when an allied unit is defeated",
    "enemy_defeated": "when an enemy unit is defeated",
    "defeats_enemy": "when it defeats an enemy unit",
}
# Triggers that are events rather than moments of the round: a battle limit leads the sentence
# ("Once per battle, when hit, ..."); any other limit closes it ("... (once per round).").
EVENT_TRIGGERS = frozenset(
    {"before_action", "after_action", "on_hit", "ally_defeated", "enemy_defeated", "defeats_enemy"}
)
GIVE_KINDS = frozenset({"shield", "buff", "debuff"})
TIMES = {2: "twice", 3: "three times"}


def number(value: float) -> str:
    """A decimal from the spec without float noise: 1.1 → "1.1", 110.00000000000001 → "110"."""
    exact = Fraction(repr(float(value))).limit_denominator(10**6)
    if exact.denominator == 1:
        return str(exact.numerator)
    return f"{float(exact):.6f}".rstrip("0").rstrip(".")


def percent(fraction: float) -> str:
    """A scale or fraction as a percentage: 0.7 → "70%"."""
    return f"{number(float(Fraction(repr(float(fraction))) * 100))}%"


def rounds(duration: int) -> str:
    """ "1 round", "2 rounds"."""
    return f"{duration} round" if duration == 1 else f"{duration} rounds"


def article(word: str) -> str:
    """ "a" or "an" before a word or a number written in digits (8, 11, 18 are said with a vowel)."""
    head = word.split("-")[0].split(" ")[0]
    if head.isdigit():  # amounts are at most 50
        return "an" if head.startswith("8") or head in ("11", "18") else "a"
    return "an" if head[:1].lower() in "aeiou" else "a"


def plural(name: str) -> str:
    """The plural of a unit's name (its last word): Skeleton → Skeletons, Wolf Pup → Wolf Pups."""
    lower = name.lower()
    if lower.endswith(("s", "x", "z", "ch", "sh")):
        return name + "es"
    if lower.endswith("y") and lower[-2:-1] not in ("a", "e", "i", "o", "u", ""):
        return name[:-1] + "ies"
    return name + "s"


def join(parts: list[str]) -> str:
    """ "a", "a and b", "a, b and c"."""
    if len(parts) <= 2:
        return " and ".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


@dataclass
class _Ref:
    """How a clause names its units: the noun, its object pronoun and its possessive."""

    noun: str  # "the chosen enemy", "itself", "it", "them", "that enemy", "every ally"
    kind: str  # "self", "single", "group"
    pronoun: bool  # named by a pronoun ("it", "them"), not by a noun
    remark: bool = False  # the noun ends in a comma phrase ("..., ignoring the Vanguard")

    def possessive(self, thing: str) -> str:
        """ "its own cooldown", "its cooldown", "their cooldowns", "the chosen ally's cooldown",
        "the cooldowns of every ally" (`thing` singular; plural for a group)."""
        things = thing if thing.endswith("s") else (thing + "s" if self.kind == "group" else thing)
        if self.kind == "self":
            return f"its own {thing}"
        if self.pronoun:
            return f"{'their' if self.kind == 'group' else 'its'} {things}"
        if self.noun in ("the chosen enemy", "the chosen ally", "the attacker"):
            return f"{self.noun}'s {things}"
        return f"the {things} of {self.noun}"


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

    def ref(self, sel: str) -> _Ref:
        """The reference for selector `sel` in the next clause."""
        previous, self.previous = self.previous, sel
        if sel == "self":
            return _Ref("itself", "self", False)
        if sel == "target":
            noun, kind = f"the chosen {self.choose}", "single"
        else:
            noun, kind = NOUNS[sel]
        if sel == previous:
            return _Ref("them" if kind == "group" else "it", kind, True)
        first = sel not in self.named
        self.named.add(sel)
        if not first and sel in PICKS:
            return _Ref(PICKS[sel], kind, False)
        remark = False
        if self.ignore_lines and first:
            group = "chosen" if sel in ("target", "target_line") else sel
            if (sel == "target" or sel in ENEMY_PICKS or sel == "target_line") and group not in self.said_ignoring:
                self.said_ignoring.add(group)
                if sel == "target_line":
                    noun = f"{noun} (chosen {IGNORING})"
                else:
                    noun, remark = f"{noun} {IGNORING}", True
        return _Ref(noun, kind, False, remark)

    def pause(self) -> None:
        """A clause that names no unit (a summon): the next one names its units in full."""
        self.previous = None


def _damage_amount(e: Effect) -> str:
    parts = []
    if e.scale:
        parts.append(f"{percent(e.scale)} ATK damage")
    if e.flat:
        parts.append(f"{e.flat}" if e.scale else f"{e.flat} damage")
    words = " plus ".join(parts)
    return f"{words} that ignores DEF" if e.ignore_def else words


def _own_atk(on_self: bool) -> str:
    """Whose ATK a heal or shield counts: the acting character's, said so when it gives to others."""
    return "its ATK" if on_self else "this character's ATK"


def _heal_amount(e: Effect, on_self: bool) -> str:
    parts = []
    if e.flat:
        parts.append(f"{e.flat} HP")
    if e.scale:
        parts.append(f"{percent(e.scale)} of {_own_atk(on_self)}")
    if e.max_hp_fraction:
        parts.append(f"{percent(e.max_hp_fraction)} of its max HP")
    return " plus ".join(parts)


def _lasting(words: str, e: Effect) -> tuple[str, bool]:
    """`words` with the effect's R17 remark; whether it ends in a comma phrase."""
    if e.persists:
        return f"{words}, {EVEN_AFTER}", True
    return words, False


def _shield_item(e: Effect, on_self: bool) -> tuple[str, bool]:
    if e.scale and e.flat:
        shield = f"a shield worth {e.flat} points plus {percent(e.scale)} of {_own_atk(on_self)}"
    elif e.scale:
        shield = f"a shield worth {percent(e.scale)} of {_own_atk(on_self)}"
    else:
        shield = f"{article(str(e.flat))} {e.flat}-point shield"
    return _lasting(f"{shield} for {rounds(e.duration)}", e)


def _stat_change(e: Effect) -> str:
    return f"{'+' if e.kind == 'buff' else '-'}{e.amount} {STAT_NAMES[e.stat]}"


def _give_items(effects: list[Effect], on_self: bool) -> tuple[list[str], bool]:
    """What a run of shields and stat changes gives: stat changes in a row with the same duration
    share it ("+3 ATK and +2 SPD for 2 rounds"); whether the last item ends in a comma phrase."""
    items: list[str] = []
    remark = False
    i = 0
    while i < len(effects):
        e = effects[i]
        if e.kind == "shield":
            text, remark = _shield_item(e, on_self)
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
        changes = join([_stat_change(x) for x in effects[i : j + 1]])
        text, remark = _lasting(f"{changes} for {rounds(e.duration)}", e)
        items.append(text)
        i = j + 1
    return items, remark


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
        return f"strikes {ref.noun}{',' if ref.remark else ''} {times}, each for {_damage_amount(first)}", False
    pieces = []
    remark = False
    for e in run:
        ref = namer.ref(e.target)
        pieces.append(f"{_damage_amount(e)} to {ref.noun}")
        remark = ref.remark
    return "deals " + ", then ".join(pieces), remark


def _give_clause(run: list[Effect], namer: _Namer) -> tuple[str, bool]:
    ref = namer.ref(run[0].target)
    items, remark = _give_items(run, ref.kind == "self")
    if ref.kind == "self" and all(e.kind != "debuff" for e in run):
        return "gains " + join(items), remark
    return f"gives {ref.noun}{',' if ref.remark else ''} " + join(items), remark


def _clause(e: Effect, namer: _Namer) -> tuple[str, bool]:
    """One effect in words (lower case), and whether it ends in a comma phrase."""
    kind = e.kind
    if kind == "summon":
        namer.pause()
        unit = e.unit
        assert unit is not None
        stats = f"(ATK {unit.atk}, DEF {unit.def_}, SPD {unit.spd}, HP {unit.hp})"
        who = f"{article(unit.name)} {unit.name}" if e.count == 1 else f"{e.count} {plural(unit.name)}"
        where = f"its {LINE_NAMES[e.line]}" if e.line in LINE_NAMES else "its line"
        return f"summons {who} {stats} in {where}", False
    ref = namer.ref(e.target)
    noun = ref.noun
    if kind == "heal":
        return f"heals {noun} for {_heal_amount(e, ref.kind == 'self')}", False
    if kind in ("poison", "burn"):
        verb = "poisons" if kind == "poison" else "burns"
        return _lasting(f"{verb} {noun} for {e.amount} per round for {rounds(e.duration)}", e)
    if kind == "regen":
        if ref.kind == "self":
            return _lasting(f"regenerates {e.amount} HP per round for {rounds(e.duration)}", e)
        return _lasting(f"gives {noun} regeneration of {e.amount} HP per round for {rounds(e.duration)}", e)
    if kind == "silence":
        return _lasting(f"silences {noun} for {rounds(e.duration)}", e)
    if kind == "cooldown":
        verb = "reduces" if e.amount < 0 else "increases"
        return f"{verb} {ref.possessive('cooldown')} by {abs(e.amount)}", False
    if kind == "move":
        whose = "their" if ref.kind == "group" else "its"
        dest = f"{whose} other line" if e.to == "other" else f"{whose} {LINE_NAMES[e.to]}"
        return f"moves {noun} to {dest}", False
    if kind == "cleanse":
        return f"removes {ref.possessive('debuffs')}", False
    if kind == "dispel":
        return f"removes {ref.possessive('buffs')}", False
    raise ValueError(f"no words for effect kind {kind!r}")  # pragma: no cover - spec.EFFECT_KINDS is closed


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
    trigger = fab.trigger
    words = UNIT_TRIGGER_WORDS[trigger] if fab.include_summons else TRIGGER_WORDS[trigger]
    cond = fab.condition
    hp_said = trigger == "on_hit" and bool(cond.hp_below)
    if hp_said:
        words += f" while below {percent(cond.hp_below)} HP"
    condition = _condition_text(cond, faction_name, hp_said)
    head = f"{words}, {condition}" if condition else words
    suffix = ""
    if fab.limit == "battle" and trigger in EVENT_TRIGGERS:
        head = f"once per battle, {head}"
    elif fab.limit != "none":
        suffix = f" (once per {fab.limit})"
    body = _effects_text(fab.effects, _Namer("none", False))
    return _capital(f"{head}, {body}{suffix}.")
