"""A Scryfall-like search language for Echo Realms characters (see docs/realms-query.md).

`parse_query` turns text into a small tree of frozen dataclasses and needs neither Django
settings nor a database; `query_to_q` turns that tree into a `Q` for `Character.objects`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NoReturn

from django.db.models import Q

from realms.choices import CharacterClass, Position

MAX_LENGTH = 500
MAX_DEPTH = 20
MAX_NUMBER = 999

# Mirrors the official rarities (fixtures/catalogue.json); comparisons use `Rarity.order`.
RARITY_ORDER: dict[str, int] = {"common": 1, "uncommon": 2, "rare": 3, "legendary": 4}

CHOICE_VALUES: dict[str, tuple[str, ...]] = {
    "class": tuple(CharacterClass.values),
    "position": tuple(Position.values),
    "rarity": tuple(RARITY_ORDER),
}

# Canonical key -> kind of value; the kind decides the operators and the lookup.
KEY_KINDS: dict[str, str] = {
    "class": "choice",
    "position": "choice",
    "rarity": "rarity",
    "faction": "ref",
    "race": "ref",
    "set": "ref",
    "name": "text",
    "text": "text",
    "atk": "number",
    "def": "number",
    "spd": "number",
    "hp": "number",
    "cd": "number",
}

KEY_ALIASES: dict[str, str] = {
    **{key: key for key in KEY_KINDS},
    "c": "class",
    "f": "faction",
    "r": "race",
    "rar": "rarity",
    "pos": "position",
    "n": "name",
    "t": "text",
    "cooldown": "cd",
}

EQUALITY_OPS = (":", "=", "!=")
COMPARISON_OPS = (">", ">=", "<", "<=")
ALL_OPS = EQUALITY_OPS + COMPARISON_OPS

NUMBER_FIELDS = {"atk": "attack", "def": "defense", "spd": "speed", "hp": "health", "cd": "cooldown"}
CHOICE_FIELDS = {"class": "character_class", "position": "position"}
# Faction, race and set match their slug (code for sets) or their name, ignoring case.
REF_FIELDS = {
    "faction": ("faction__slug", "faction__name"),
    "race": ("race__slug", "race__name"),
    "set": ("card_set__code", "card_set__name"),
}
TEXT_FIELDS = {"name": "name", "text": "rules_text"}
COMPARISON_LOOKUPS = {">": "gt", ">=": "gte", "<": "lt", "<=": "lte"}

# Longest operators first, so `>=` is never read as `>` followed by a value `=...`.
KEY_OP_RE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(!=|>=|<=|[:=<>])")
WORD_END = "()"


class QueryError(ValueError):
    """A query that cannot be parsed; `position` is the 0-based offset of the problem."""

    def __init__(self, message: str, position: int):
        self.message = message
        self.position = position
        super().__init__(f"{message} at position {position}")


@dataclass(frozen=True, slots=True)
class Term:
    """One condition; `key` and `op` are canonical, `value` is normalised (int for numbers)."""

    key: str
    op: str
    value: str | int
    position: int


@dataclass(frozen=True, slots=True)
class And:
    """All of `items` hold."""

    items: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Or:
    """At least one of `items` holds."""

    items: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Not:
    """`item` does not hold."""

    item: Node


Node = And | Or | Not | Term


@dataclass(frozen=True, slots=True)
class _Token:
    kind: str  # "term", "or", "not", "(", ")" or "end"
    position: int
    term: Term | None = None  # set exactly when kind is "term"


def _fail(message: str, position: int) -> NoReturn:
    raise QueryError(message, position)


def _ends_word(text: str, index: int) -> bool:
    return index >= len(text) or text[index].isspace() or text[index] in WORD_END


def _read_quoted(text: str, start: int) -> tuple[str, int]:
    """Read a double-quoted string at `start`; return its content and the index after it."""
    chars: list[str] = []
    index = start + 1
    while index < len(text):
        char = text[index]
        if char == "\\" and index + 1 < len(text):
            chars.append(text[index + 1])
            index += 2
            continue
        if char == '"':
            if not chars:
                _fail("Empty quoted value", start)
            if not _ends_word(text, index + 1):
                _fail("Expected a space after the closing quote", index + 1)
            return "".join(chars), index + 1
        chars.append(char)
        index += 1
    _fail("Unterminated quote", start)


def _read_word(text: str, start: int) -> tuple[str, int]:
    """Read an unquoted word at `start` up to whitespace or a parenthesis."""
    index = start
    while not _ends_word(text, index):
        if text[index] == '"':
            _fail("Unexpected quote inside a word; quote the whole value", index)
        index += 1
    return text[start:index], index


def _read_value(text: str, start: int) -> tuple[str, int]:
    if text[start] == '"':
        return _read_quoted(text, start)
    return _read_word(text, start)


def _make_term(
    text: str, key_text: str, key_pos: int, op: str, op_pos: int, value_pos: int
) -> tuple[Term, int]:
    """Validate a `key op value` term and return it with the index after the value."""
    key = KEY_ALIASES.get(key_text.lower())
    if key is None:
        _fail(f"Unknown key '{key_text}'", key_pos)
    kind = KEY_KINDS[key]
    allowed = ALL_OPS if kind in ("number", "rarity") else EQUALITY_OPS
    if op not in allowed:
        _fail(f"Operator '{op}' does not work with '{key_text}'; use ':', '=' or '!='", op_pos)
    if _ends_word(text, value_pos):
        _fail(f"Missing value after '{key_text}{op}'", value_pos)
    raw, end = _read_value(text, value_pos)
    value: str | int = raw
    if kind == "number":
        if not (raw.isascii() and raw.isdigit()) or int(raw) > MAX_NUMBER:
            _fail(f"'{key_text}' needs a whole number from 0 to {MAX_NUMBER}, got '{raw}'", value_pos)
        value = int(raw)
    elif kind in ("choice", "rarity"):
        value = raw.lower()
        valid = CHOICE_VALUES[key]
        if value not in valid:
            _fail(f"Unknown {key} '{raw}'; use one of: {', '.join(valid)}", value_pos)
    # For every kind but free text, `:` is plain equality; text keeps `:` as "contains".
    if op == ":" and kind != "text":
        op = "="
    return Term(key, op, value, key_pos), end


def _tokenize(text: str) -> list[_Token]:
    """Split the query into tokens, validating every term on the way."""
    tokens: list[_Token] = []
    index = 0
    while index < len(text):
        char = text[index]
        if char.isspace():
            index += 1
        elif char in "()":
            tokens.append(_Token(char, index))
            index += 1
        elif char == "-":
            following = text[index + 1 : index + 2]
            if not following or following.isspace() or following == ")":
                _fail("'-' needs a term or group right after it", index)
            tokens.append(_Token("not", index))
            index += 1
        elif char == '"':
            value, index_after = _read_quoted(text, index)
            tokens.append(_Token("term", index, Term("name", ":", value, index)))
            index = index_after
        elif match := KEY_OP_RE.match(text, index):
            key_text, op = match.group(1), match.group(2)
            term, index = _make_term(text, key_text, index, op, match.start(2), match.end())
            tokens.append(_Token("term", term.position, term))
        else:
            word, index_after = _read_word(text, index)
            if word.lower() == "or":
                tokens.append(_Token("or", index))
            else:
                tokens.append(_Token("term", index, Term("name", ":", word, index)))
            index = index_after
    tokens.append(_Token("end", len(text)))
    return tokens


class _Parser:
    """Recursive descent over the tokens: or_expr := and_expr ('or' and_expr)*."""

    def __init__(self, tokens: list[_Token]):
        self.tokens = tokens
        self.index = 0

    def peek(self) -> _Token:
        return self.tokens[self.index]

    def advance(self) -> _Token:
        token = self.tokens[self.index]
        self.index += 1
        return token

    def parse(self) -> Node:
        node = self.or_expr(0)
        token = self.peek()
        if token.kind == ")":
            _fail("Unexpected ')'", token.position)
        if node is None:
            _fail("The query is empty", 0)
        return node

    def or_expr(self, depth: int) -> Node | None:
        items: list[Node] = []
        or_position: int | None = None
        while True:
            node = self.and_expr(depth)
            if node is None:
                token = self.peek()
                if or_position is not None:
                    _fail("'or' needs a term on both sides", or_position)
                if token.kind == "or":
                    _fail("'or' needs a term on both sides", token.position)
                return None
            items.append(node)
            if self.peek().kind != "or":
                break
            or_position = self.advance().position
        return items[0] if len(items) == 1 else Or(tuple(items))

    def and_expr(self, depth: int) -> Node | None:
        items: list[Node] = []
        while self.peek().kind in ("term", "not", "("):
            items.append(self.unary(depth))
        if not items:
            return None
        return items[0] if len(items) == 1 else And(tuple(items))

    def unary(self, depth: int) -> Node:
        token = self.advance()
        if token.term is not None:
            return token.term
        # Every '-' and '(' is one level, which bounds the recursion whatever the input.
        if depth + 1 > MAX_DEPTH:
            _fail(f"The query nests deeper than {MAX_DEPTH} levels", token.position)
        if token.kind == "not":
            if self.peek().kind not in ("term", "not", "("):
                _fail("'-' needs a term or group right after it", token.position)
            return Not(self.unary(depth + 1))
        inner = self.or_expr(depth + 1)
        closing = self.peek()
        if closing.kind != ")":
            _fail("Unclosed parenthesis", token.position)
        if inner is None:
            _fail("Empty parentheses", token.position)
        self.advance()
        return inner


def parse_query(text: str) -> Node:
    """Parse a character search query into a tree of And/Or/Not/Term, or raise QueryError."""
    if len(text) > MAX_LENGTH:
        _fail(f"The query is longer than {MAX_LENGTH} characters", MAX_LENGTH)
    return _Parser(_tokenize(text)).parse()


def _term_q(term: Term) -> Q:
    key, op, value = term.key, term.op, term.value
    if key in NUMBER_FIELDS:
        field = NUMBER_FIELDS[key]
        if op in COMPARISON_OPS:
            return Q(**{f"{field}__{COMPARISON_LOOKUPS[op]}": value})
        q = Q(**{field: value})
    elif key == "rarity":
        if op in COMPARISON_OPS:
            return Q(**{f"rarity__order__{COMPARISON_LOOKUPS[op]}": RARITY_ORDER[str(value)]})
        q = Q(rarity__slug=value)
    elif key in CHOICE_FIELDS:
        q = Q(**{CHOICE_FIELDS[key]: value})
    elif key in REF_FIELDS:
        slug_field, name_field = REF_FIELDS[key]
        q = Q(**{f"{slug_field}__iexact": value}) | Q(**{f"{name_field}__iexact": value})
    elif key in TEXT_FIELDS:
        field = TEXT_FIELDS[key]
        if op == ":":
            return Q(**{f"{field}__icontains": value})
        q = Q(**{f"{field}__iexact": value})
    else:
        raise ValueError(f"Unknown key {key!r}")
    return ~q if op == "!=" else q


def query_to_q(node: Node) -> Q:
    """Translate a parsed query into a Q object for `Character.objects`."""
    if isinstance(node, Term):
        return _term_q(node)
    if isinstance(node, Not):
        return ~query_to_q(node.item)
    if isinstance(node, And):
        result = Q()
        for item in node.items:
            result &= query_to_q(item)
        return result
    if isinstance(node, Or):
        result = query_to_q(node.items[0])
        for item in node.items[1:]:
            result |= query_to_q(item)
        return result
    raise TypeError(f"Not a query node: {node!r}")


def character_q(text: str) -> Q:
    """Parse `text` and return its Q; a blank query matches every character."""
    if not text.strip():
        return Q()
    return query_to_q(parse_query(text))
