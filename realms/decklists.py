"""Plain-text decklists, the format players paste into forums: one card a line with its line.

    # Vanguard
    1x Iron Guardian
    Merlin, Archmage of Runes — rearguard

Reading is tolerant: case, accents and punctuation do not count, `1x`/`x1`/`2` quantities, blank
lines and comments are skipped, a header naming a line (`# Vanguard`, `Rearguard:`, `[Vanguard]`)
sets the line of the cards under it, a line written after the name (`— rearguard`, `(vanguard)`)
wins over the header, and a card with neither takes its printed line when it has only one. Every
line that cannot be read is a problem with its 1-based number; a close misspelling names the
nearest card (difflib) but is not added. Nothing here touches the database: callers pass the
catalogue as `DecklistCard` values.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from realms.engine.army import Slot
from realms.engine.vocabulary import FLEX, LINES

# Bounds of a pasted decklist: an army is 7 cards, so these leave room for headers and chatter.
MAX_TEXT_CHARS = 20_000
MAX_LINES = 200
MAX_QUANTITY = 7  # an army's size: more copies of one card than that is no decklist
SUGGESTION_CUTOFF = 0.6  # difflib ratio below which no card is suggested

_COMMENT = re.compile(r"^(//|--|;)")
_QUANTITY_BEFORE = re.compile(r"^(?:(\d+)\s*[x×*]?|[x×*]\s*(\d+))\s+(?=\S)|^(\d+)[x×*](?=\S)", re.IGNORECASE)
# Whitespace is collapsed to single spaces and lines are bounded (MAX_LINE_CHARS) before any pattern runs,
# so that no pattern can backtrack over a long run (a pasted 20,000-character line took seconds).
_QUANTITY_AFTER = re.compile(r" ?[x×*] ?(\d+)$| \((\d+)\)$", re.IGNORECASE)
# What may stand between a name and the line written after it: "— rearguard", ": rearguard", "(vanguard)".
_SEPARATORS = " -—–:,|/(["
MAX_LINE_CHARS = 300  # a card name is at most 120 characters


@dataclass(frozen=True)
class DecklistCard:
    slug: str
    name: str
    position: str  # vanguard | rearguard | flex


@dataclass(frozen=True)
class Problem:
    line: int  # 1-based
    message: str
    suggestion: str | None = None

    def as_dict(self) -> dict[str, object]:
        return {"line": self.line, "message": self.message, "suggestion": self.suggestion}


def normalize(text: str) -> str:
    """Lower case, no accents, letters and digits only, single spaces: how names are compared."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    plain = "".join(char for char in decomposed if not unicodedata.combining(char))
    return " ".join(re.sub(r"[^0-9a-z]+", " ", plain).split())


def _header_line(text: str) -> str | None:
    """The army line a header names (`# Vanguard`, `Rearguard (3):`, `== VANGUARD ==`), or None."""
    words = normalize(re.sub(r"\(\s*\d+\s*\)", " ", text)).split()
    if len(words) == 1 and words[0] in LINES:
        return words[0]
    return None


class CardIndex:
    """The catalogue by normalized name and slug; a short name (before the first comma) counts when unique."""

    def __init__(self, cards: Iterable[DecklistCard]):
        self.by_slug: dict[str, DecklistCard] = {}
        self.by_key: dict[str, list[DecklistCard]] = {}
        short: dict[str, list[DecklistCard]] = {}
        for card in cards:
            self.by_slug[card.slug] = card
            for key in {normalize(card.name), normalize(card.slug)}:
                self.by_key.setdefault(key, []).append(card)
            if "," in card.name:
                short.setdefault(normalize(card.name.split(",", 1)[0]), []).append(card)
        for key, found in short.items():
            self.by_key.setdefault(key, found)
        self.names = {card.slug: card.name for card in self.by_slug.values()}
        self._keys = list(self.by_key)

    def find(self, text: str) -> list[DecklistCard]:
        found = self.by_key.get(normalize(text), [])
        return list({card.slug: card for card in found}.values())

    def suggest(self, text: str) -> str | None:
        """The printed name of the nearest card, when one is close enough."""
        close = difflib.get_close_matches(normalize(text), self._keys, n=1, cutoff=SUGGESTION_CUTOFF)
        if not close:
            return None
        return self.by_key[close[0]][0].name

    def printed(self, slug: str) -> str:
        """How a card is written in a decklist: its name, or its slug when another card shares the name."""
        name = self.names[slug]
        return name if len(self.find(name)) == 1 else slug


def _quantity(text: str) -> tuple[int, str]:
    match = _QUANTITY_BEFORE.match(text)
    if match:
        return int(match.group(1) or match.group(2) or match.group(3)), text[match.end():].strip()
    match = _QUANTITY_AFTER.search(text)
    if match:
        return int(match.group(1) or match.group(2)), text[:match.start()].strip()
    return 1, text


def _split_line_word(text: str) -> tuple[str, str] | None:
    """(name, word) for a text ending in a word after a separator ("Merlin — rearguard", "Merlin (vanguard)")."""
    body = text.rstrip(" )]")
    start = len(body)
    while start > 0 and body[start - 1].isascii() and body[start - 1].isalpha():
        start -= 1
    word, before = body[start:], body[:start]
    name = before.rstrip(_SEPARATORS)
    if not word or name == before or not name.strip():
        return None
    return name.strip(), word


def _card_and_line(text: str, index: CardIndex) -> tuple[list[DecklistCard], str, str | None, str | None]:
    """The cards the text names, the name as written, the line written after it (if any), and a word that
    stood where a line is written but is none."""
    found = index.find(text)
    if found:
        return found, text, None, None
    split = _split_line_word(text)
    if split is not None:
        name, written = split
        word = written.lower()
        named = index.find(name)
        if word in LINES:
            return named, name, word, None
        if named:
            return named, name, None, written
    return [], text, None, None


def read_decklist(text: str, cards: Iterable[DecklistCard]) -> tuple[list[Slot], list[Problem]]:
    """The slots a decklist names, in its order, and a problem for every line that cannot be read."""
    index = CardIndex(cards)
    slots: list[Slot] = []
    problems: list[Problem] = []
    section: str | None = None
    for number, raw in enumerate(text.split("\n"), start=1):
        stripped = " ".join(raw.split())
        if not stripped:
            continue
        if len(stripped) > MAX_LINE_CHARS:
            problems.append(Problem(number, f"A line of {len(stripped):,} characters is no card (at most "
                                            f"{MAX_LINE_CHARS}).", None))
            continue
        header = _header_line(stripped)  # before comments: "-- Vanguard --" is a header
        if header is not None:
            section = header
            continue
        if stripped.startswith("#") or _COMMENT.match(stripped):
            continue  # a comment, or a header that names no line (e.g. "# My army")
        read = _card_line(number, stripped, index, section)
        if isinstance(read, Problem):
            problems.append(read)
        else:
            slots.extend(read)
    return slots, problems


def _card_line(number: int, text: str, index: CardIndex, section: str | None) -> list[Slot] | Problem:
    """The slots a line naming a card gives (its quantity, in the line written, else the section's, else the
    card's own), or the problem that keeps it from giving any."""
    quantity, rest = _quantity(text)
    found, name, line, not_a_line = _card_and_line(rest, index)
    if not found:
        suggestion = index.suggest(name)
        hint = f"; did you mean '{suggestion}'?" if suggestion else "."
        return Problem(number, f"No character card '{name}'{hint}", suggestion)
    if len(found) > 1:
        slugs = ", ".join(sorted(card.slug for card in found))
        return Problem(number, f"'{rest}' names several cards ({slugs}); write its slug.", None)
    card = found[0]
    printed_line = card.position if card.position != FLEX else None
    if not_a_line is not None:
        return Problem(number, f"'{not_a_line}' is not a line (vanguard or rearguard).", printed_line)
    line = line or section or printed_line
    if line is None:
        return Problem(number, f"'{card.name}' is flex: say which line (vanguard or rearguard).", None)
    if not 1 <= quantity <= MAX_QUANTITY:
        return Problem(number, f"A quantity of {quantity}: an army holds 1 to {MAX_QUANTITY} cards.", None)
    return [Slot(card.slug, line) for _ in range(quantity)]


def write_decklist(slots: Sequence[Slot], cards: Iterable[DecklistCard]) -> str:
    """The decklist of an army: a header for each run of cards in one line, the cards in army order, so that
    reading it back gives the same slots in the same order (army order settles R9 ties)."""
    index = CardIndex(cards)
    out: list[str] = []
    current: str | None = None
    for slot in slots:
        if slot.line != current:
            if out:
                out.append("")
            out.append(f"# {slot.line.capitalize()}")
            current = slot.line
        out.append(index.printed(slot.card))
    return "\n".join(out) + "\n" if out else ""

