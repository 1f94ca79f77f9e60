"""Words shared by the effect kinds' card text (see each kind's `words`) and the sentence builder
(realms/engine/text.py): numbers, durations, articles, and how a clause names its units."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol

from realms.engine.effects.base import Effect

EVEN_AFTER = "even after it falls"  # R17's `persists`, said in words
STAT_NAMES = {"atk": "ATK", "def": "DEF", "spd": "SPD"}
LINE_NAMES = {"vanguard": "Vanguard", "rearguard": "Rearguard"}


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
class Mention:
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


def whose_def(ref: Mention) -> str:
    """Whose DEF a blow is reduced by: "its" (the one unit hit), "each one's" (every unit of a group)."""
    return "each one's" if ref.kind == "group" else "its"


def max_hp_of(ref: Mention) -> str:
    """Whose max HP a heal counts: "its max HP" (the one unit healed; the healer is "this character"),
    "their max HP" (each unit of a group its own, never the healer's)."""
    return "their max HP" if ref.kind == "group" else "its max HP"


def with_note(words: str, note: str) -> str:
    """`words` followed by a note in brackets, which joins a bracket the words already end in:
    "the chosen enemy (rounded down)", "... line (chosen in any line, ignoring the Vanguard; rounded down)"."""
    if not note:
        return words
    if words.endswith(")"):
        return f"{words[:-1]}; {note})"
    return f"{words} ({note})"


def rounded_down(shares: int) -> str:
    """The note after an amount holding `shares` percentages, each rounded down as `units.scaled` does:
    "", " (rounded down)", " (each rounded down)"."""
    if not shares:
        return ""
    return " (rounded down)" if shares == 1 else " (each rounded down)"


def lasting(words: str, e: Effect) -> tuple[str, bool]:
    """`words` with the effect's R17 remark; whether it ends in a comma phrase."""
    if e.persists:
        return f"{words}, {EVEN_AFTER}", True
    return words, False


def own_atk(on_self: bool) -> str:
    """Whose ATK a heal or shield counts: the acting character's, said so when it gives to others."""
    return "its ATK" if on_self else "this character's ATK"


class Namer(Protocol):
    """How the sentence builder names the units of each clause in turn (realms/engine/text.py)."""

    def ref(self, name: str) -> Mention:
        """The reference for the selector named `name` in the next clause."""
        ...

    def pause(self) -> None:
        """A clause that names no unit: the next one names its units in full."""
        ...


TIMES = {2: "twice", 3: "three times"}
