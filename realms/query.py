"""The search language of Echo Realms characters (see docs/realms-query.md).

The grammar is `cardsdb.query`'s; this module declares the keys of characters. `parse_query`
turns text into a small tree of frozen dataclasses and needs neither Django settings nor a
database; `query_to_q` turns that tree into a `Q` for `Character.objects`.
"""

from __future__ import annotations

from django.db.models import Q

from cardsdb.query import (
    ALL_OPS,
    COMPARISON_OPS,
    EQUALITY_OPS,
    MAX_DEPTH,
    MAX_LENGTH,
    MAX_NUMBER,
    And,
    Field,
    Language,
    Node,
    Not,
    Or,
    ParsedQuery,
    QueryError,
    QueryWarning,
    Term,
)
from realms.choices import CharacterClass, Position

__all__ = [
    "ALL_OPS", "COMPARISON_OPS", "EQUALITY_OPS", "MAX_DEPTH", "MAX_LENGTH", "MAX_NUMBER", "And", "Node", "Not",
    "Or", "ParsedQuery", "QueryError", "QueryWarning", "Term", "CHARACTERS", "character_q", "character_search",
    "parse_query", "query_to_q",
]

# Mirrors the official rarities (fixtures/catalogue.json); comparisons use `Rarity.order`.
RARITY_ORDER: dict[str, int] = {"common": 1, "uncommon": 2, "rare": 3, "legendary": 4}


def _number(field: str) -> Field:
    return Field("number", (field,))


CHARACTERS = Language(
    fields={
        "class": Field("choice", ("character_class",), {value: value for value in CharacterClass.values}),
        "position": Field("choice", ("position",), {value: value for value in Position.values}),
        "rarity": Field("ordered", ("rarity__slug",), RARITY_ORDER, order_lookup="rarity__order"),
        # Faction, race and set match their slug (code for sets) or their name, ignoring case.
        "faction": Field("ref", ("faction__slug", "faction__name")),
        "race": Field("ref", ("race__slug", "race__name")),
        "set": Field("ref", ("card_set__code", "card_set__name")),
        "name": Field("text", ("name",)),
        "text": Field("text", ("rules_text",)),
        "atk": _number("attack"),
        "def": _number("defense"),
        "spd": _number("speed"),
        "hp": _number("health"),
        "cd": _number("cooldown"),
    },
    aliases={
        "c": "class", "f": "faction", "r": "race", "rar": "rarity", "pos": "position", "n": "name", "t": "text",
        "cooldown": "cd",
    },
)


def parse_query(text: str) -> Node:
    """Parse a character search query into a tree of And/Or/Not/Term, or raise QueryError."""
    return CHARACTERS.parse(text).node


def query_to_q(node: Node) -> Q:
    """Translate a parsed query into a Q object for `Character.objects`."""
    return CHARACTERS.to_q(node)


def character_search(text: str) -> tuple[Q, tuple[QueryWarning, ...]]:
    """The Q of `text` and the warnings of the terms it ignored; a blank query matches every character."""
    return CHARACTERS.search(text)


def character_q(text: str) -> Q:
    """Parse `text` and return its Q; a blank query matches every character."""
    return character_search(text)[0]
