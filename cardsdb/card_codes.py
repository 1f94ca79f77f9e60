"""Stable public card codes: `<game prefix>-<set>-<collector number>`, e.g. `ER-CORE-017`.

A code is the same on every instance (the official fixtures carry it), unlike a primary key, so army and
setup codes are built from it. Every code a card ever held is kept in `IssuedCardCode`, so the next free
number of a set is past every number ever handed out: a deleted card's code is never given to another.
"""

from __future__ import annotations

import re

from cardsdb.choices import Game

GAME_PREFIXES: dict[str, str] = {Game.REALMS: "ER", Game.LEGENDS: "AL"}
NUMBER_DIGITS = 3
MAX_CODE_LENGTH = 40
# Upper-case letters, digits and single dashes, then the collector number (at least 3 digits, no extra 0s).
CODE_PATTERN = re.compile(r"^(?P<prefix>[A-Z0-9]+(?:-[A-Z0-9]+)*)-(?P<number>\d{3,})$")


def set_prefix(game: str, set_code: str) -> str:
    """The code prefix of a set's cards: the set code upper-cased, with the game prefix unless it has it."""
    prefix = re.sub(r"[^A-Z0-9]+", "-", set_code.upper()).strip("-")
    game_prefix = GAME_PREFIXES.get(game, game.upper())
    return prefix if prefix.startswith(game_prefix + "-") else f"{game_prefix}-{prefix}"


def format_code(prefix: str, number: int) -> str:
    return f"{prefix}-{number:0{NUMBER_DIGITS}d}"


def parse_code(code: str) -> tuple[str, int] | None:
    """(prefix, number) of a well-formed code (the number written with exactly the digits it needs), or None."""
    match = CODE_PATTERN.match(code) if len(code) <= MAX_CODE_LENGTH else None
    if match is None:
        return None
    number = int(match["number"])
    if number < 1 or format_code(match["prefix"], number) != code:
        return None
    return match["prefix"], number
