"""The card search language of both games, in the style of Scryfall (docs/realms-query.md).

The grammar lives here once; each game declares its keys as a `Language` (`realms/query.py`,
`legends/query.py`). `Language.parse` turns text into a small tree of frozen dataclasses and the
warnings of the terms it ignored, needing neither Django settings nor a database; `Language.to_q`
turns the tree into a `Q` for the game's model.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NoReturn

from django.db.models import Q

MAX_LENGTH = 500
MAX_DEPTH = 20
MAX_NUMBER = 999

EQUALITY_OPS = (":", "=", "!=")
COMPARISON_OPS = (">", ">=", "<", "<=")
ALL_OPS = EQUALITY_OPS + COMPARISON_OPS
COMPARISON_LOOKUPS = {">": "gt", ">=": "gte", "<": "lt", "<=": "lte"}

# Longest operators first, so `>=` is never read as `>` followed by a value `=...`.
KEY_OP_RE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(!=|>=|<=|[:=<>])")
WORD_END = "()"
VALUE_SEPARATOR = "|"

YES_NO: dict[str, object] = {"yes": True, "true": True, "no": False, "false": False}


class QueryError(ValueError):
    """A query that cannot be run; `position` is the 0-based offset of the problem."""

    def __init__(self, message: str, position: int):
        self.message = message
        self.position = position
        super().__init__(f"{message} at position {position}")


@dataclass(frozen=True, slots=True)
class QueryWarning:
    """A term the query ignored (an unknown key or value), and where it stands."""

    message: str
    position: int


@dataclass(frozen=True, slots=True)
class Field:
    """One key of a language.

    kind: `text` (contains / equals, ignoring case, on any of `lookups`), `number` (whole numbers,
    compared), `choice` (a closed list: `values` maps each accepted word to the stored value),
    `ordered` (a closed list compared by rank: `values` maps each word to its rank, `order_lookup`
    holds the rank, `lookups[0]` the word), `ref` (a catalogue row by slug or name on any of
    `lookups`: an unknown one matches nothing) or `flag` (yes/no: `condition` holds or not).
    """

    kind: str
    lookups: tuple[str, ...] = ()
    values: Mapping[str, object] = field(default_factory=dict)
    order_lookup: str = ""
    condition: Q | None = None

    @property
    def ops(self) -> tuple[str, ...]:
        return ALL_OPS if self.kind in ("number", "ordered") else EQUALITY_OPS

    @property
    def closed(self) -> bool:
        return self.kind in ("choice", "ordered", "flag")

    @property
    def words(self) -> tuple[str, ...]:
        return tuple(YES_NO) if self.kind == "flag" else tuple(self.values)


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
class _Ignored:
    """A term that was dropped with a warning; pruned before the tree is returned."""


_IGNORED = _Ignored()
_Parsed = Node | _Ignored


@dataclass(frozen=True, slots=True)
class ParsedQuery:
    node: Node
    warnings: tuple[QueryWarning, ...] = ()


@dataclass(frozen=True, slots=True)
class _Token:
    kind: str  # "term", "or", "not", "(", ")" or "end"
    position: int
    node: _Parsed | None = None  # set exactly when kind is "term"


def _fail(message: str, position: int) -> NoReturn:
    raise QueryError(message, position)


def _ends_word(text: str, index: int) -> bool:
    return index >= len(text) or text[index].isspace() or text[index] in WORD_END


def _ends_value(text: str, index: int) -> bool:
    return _ends_word(text, index) or text[index] == VALUE_SEPARATOR


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
            if not _ends_value(text, index + 1):
                _fail("Expected a space after the closing quote", index + 1)
            return "".join(chars), index + 1
        chars.append(char)
        index += 1
    _fail("Unterminated quote", start)


def _read_word(text: str, start: int) -> tuple[str, int]:
    """Read an unquoted value at `start` up to whitespace, a parenthesis or `|`."""
    index = start
    while not _ends_value(text, index):
        if text[index] == '"':
            _fail("Unexpected quote inside a word; quote the whole value", index)
        index += 1
    return text[start:index], index


def _read_values(text: str, start: int, after: str) -> tuple[list[tuple[str, int]], int]:
    """Read `value ("|" value)*` at `start`: the values with their positions, and the index after."""
    values: list[tuple[str, int]] = []
    index = start
    while True:
        if index < len(text) and text[index] == VALUE_SEPARATOR:
            _fail("'|' needs a value on both sides", index)
        if _ends_value(text, index):
            if after == VALUE_SEPARATOR:
                _fail("'|' needs a value on both sides", index - 1)
            _fail(f"Missing value after '{after}'", index)
        reader = _read_quoted if text[index] == '"' else _read_word
        raw, end = reader(text, index)
        values.append((raw, index))
        if end < len(text) and text[end] == VALUE_SEPARATOR:
            after, index = VALUE_SEPARATOR, end + 1
            continue
        return values, end


def _prune(node: _Parsed) -> _Parsed:
    """The tree without its ignored terms; an And/Or/Not left with nothing is ignored as a whole."""
    if isinstance(node, (_Ignored, Term)):
        return node
    if isinstance(node, Not):
        inner = _prune(node.item)
        return inner if isinstance(inner, _Ignored) else Not(inner)
    kept = [item for item in (_prune(item) for item in node.items) if not isinstance(item, _Ignored)]
    if not kept:
        return _IGNORED
    if len(kept) == 1:
        return kept[0]
    return type(node)(tuple(kept))


class Language:
    """The keys of one game's search language: `fields` by canonical key, `aliases` (shorter names)."""

    def __init__(self, fields: Mapping[str, Field], aliases: Mapping[str, str] | None = None, default: str = "name"):
        self.fields = dict(fields)
        self.aliases = {**{key: key for key in self.fields}, **(aliases or {})}
        self.default = default

    # --- Parsing ---------------------------------------------------------------------------

    def parse(self, text: str) -> ParsedQuery:
        """Parse `text` into a tree and its warnings, or raise QueryError.

        Unknown keys and values of closed lists are ignored with a warning; a query whose every
        term is ignored raises the first warning as its error.
        """
        if len(text) > MAX_LENGTH:
            _fail(f"The query is longer than {MAX_LENGTH} characters", MAX_LENGTH)
        warnings: list[QueryWarning] = []
        node = _Parser(self._tokenize(text, warnings)).parse()
        pruned = _prune(node)
        if isinstance(pruned, _Ignored):
            _fail(warnings[0].message, warnings[0].position)
        return ParsedQuery(pruned, tuple(warnings))

    def _value_term(self, key: str, key_text: str, op: str, raw: str, position: int,
                    warnings: list[QueryWarning]) -> Term | None:
        spec = self.fields[key]
        value: str | int = raw
        if spec.kind == "number":
            if not (raw.isascii() and raw.isdigit()) or int(raw) > MAX_NUMBER:
                _fail(f"'{key_text}' needs a whole number from 0 to {MAX_NUMBER}, got '{raw}'", position)
            value = int(raw)
        elif spec.closed:
            value = raw.lower()
            if value not in spec.words:
                warnings.append(QueryWarning(f"Unknown {key} '{raw}'; use one of: {', '.join(spec.words)}", position))
                return None
        # For every kind but free text, `:` is plain equality; text keeps `:` as "contains".
        if op == ":" and spec.kind != "text":
            op = "="
        return Term(key, op, value, position)

    def _term(self, text: str, key_text: str, key_pos: int, op: str, op_pos: int, value_pos: int,
              warnings: list[QueryWarning]) -> tuple[_Parsed, int]:
        """A `key op value("|"value)*` term and the index after it; an unknown key is ignored."""
        key = self.aliases.get(key_text.lower())
        spec = self.fields.get(key) if key is not None else None
        if key is not None and spec is not None and op not in spec.ops:
            _fail(f"Operator '{op}' does not work with '{key_text}'; use ':', '=' or '!='", op_pos)
        values, end = _read_values(text, value_pos, f"{key_text}{op}")
        if key is None or spec is None:
            warnings.append(QueryWarning(f"Unknown key '{key_text}'", key_pos))
            return _IGNORED, end
        terms: list[Node] = []
        for index, (raw, position) in enumerate(values):
            term = self._value_term(key, key_text, op, raw, position, warnings)
            if term is not None:
                # The first value keeps the term's position (the key), the others their own.
                terms.append(Term(term.key, term.op, term.value, key_pos if index == 0 else position))
        if not terms:
            return _IGNORED, end
        if len(terms) == 1:
            return terms[0], end
        # `a!=x|y`: neither x nor y; every other operator: any of them.
        return (And(tuple(terms)) if op == "!=" else Or(tuple(terms))), end

    def _tokenize(self, text: str, warnings: list[QueryWarning]) -> list[_Token]:
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
            elif match := KEY_OP_RE.match(text, index):
                key_text, op = match.group(1), match.group(2)
                node, index = self._term(text, key_text, index, op, match.start(2), match.end(), warnings)
                tokens.append(_Token("term", match.start(), node))
            else:
                start = index
                if char != '"':
                    word, end = _read_word(text, index)
                    if word.lower() == "or" and (end >= len(text) or text[end] != VALUE_SEPARATOR):
                        tokens.append(_Token("or", index))
                        index = end
                        continue
                node, index = self._term(text, self.default, start, ":", start, start, warnings)
                tokens.append(_Token("term", start, node))
        tokens.append(_Token("end", len(text)))
        return tokens

    # --- Translation -----------------------------------------------------------------------

    def term_q(self, term: Term) -> Q:
        spec = self.fields[term.key]
        op, value = term.op, term.value
        if spec.kind == "number":
            if op in COMPARISON_OPS:
                return Q(**{f"{spec.lookups[0]}__{COMPARISON_LOOKUPS[op]}": value})
            q = Q(**{spec.lookups[0]: value})
        elif spec.kind == "ordered":
            if op in COMPARISON_OPS:
                return Q(**{f"{spec.order_lookup}__{COMPARISON_LOOKUPS[op]}": spec.values[str(value)]})
            q = Q(**{spec.lookups[0]: value})
        elif spec.kind == "choice":
            q = _any(spec.lookups, "", spec.values[str(value)])
        elif spec.kind == "flag":
            assert spec.condition is not None
            q = spec.condition if YES_NO[str(value)] else ~spec.condition
        elif spec.kind == "ref":
            q = _any(spec.lookups, "__iexact", value)
        elif spec.kind == "text":
            if op == ":":
                return _any(spec.lookups, "__icontains", value)
            q = _any(spec.lookups, "__iexact", value)
        else:
            raise ValueError(f"Unknown kind {spec.kind!r} of key {term.key!r}")
        return ~q if op == "!=" else q

    def to_q(self, node: Node) -> Q:
        """Translate a parsed query into a Q object for the language's model."""
        if isinstance(node, Term):
            return self.term_q(node)
        if isinstance(node, Not):
            return ~self.to_q(node.item)
        if isinstance(node, And):
            result = Q()
            for item in node.items:
                result &= self.to_q(item)
            return result
        if isinstance(node, Or):
            result = self.to_q(node.items[0])
            for item in node.items[1:]:
                result |= self.to_q(item)
            return result
        raise TypeError(f"Not a query node: {node!r}")

    def search(self, text: str) -> tuple[Q, tuple[QueryWarning, ...]]:
        """The Q of `text` and its warnings; a blank query matches everything."""
        if not text.strip():
            return Q(), ()
        parsed = self.parse(text)
        return self.to_q(parsed.node), parsed.warnings


def _any(lookups: tuple[str, ...], suffix: str, value: object) -> Q:
    q = Q()
    for lookup in lookups:
        q |= Q(**{f"{lookup}{suffix}": value})
    return q


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

    def parse(self) -> _Parsed:
        node = self.or_expr(0)
        token = self.peek()
        if token.kind == ")":
            _fail("Unexpected ')'", token.position)
        if node is None:
            _fail("The query is empty", 0)
        return node

    def or_expr(self, depth: int) -> _Parsed | None:
        items: list[_Parsed] = []
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
        return items[0] if len(items) == 1 else Or(tuple(items))  # type: ignore[arg-type]

    def and_expr(self, depth: int) -> _Parsed | None:
        items: list[_Parsed] = []
        while self.peek().kind in ("term", "not", "("):
            items.append(self.unary(depth))
        if not items:
            return None
        return items[0] if len(items) == 1 else And(tuple(items))  # type: ignore[arg-type]

    def unary(self, depth: int) -> _Parsed:
        token = self.advance()
        if token.node is not None:
            return token.node
        # Every '-' and '(' is one level, which bounds the recursion whatever the input.
        if depth + 1 > MAX_DEPTH:
            _fail(f"The query nests deeper than {MAX_DEPTH} levels", token.position)
        if token.kind == "not":
            if self.peek().kind not in ("term", "not", "("):
                _fail("'-' needs a term or group right after it", token.position)
            return Not(self.unary(depth + 1))  # type: ignore[arg-type]
        inner = self.or_expr(depth + 1)
        closing = self.peek()
        if closing.kind != ")":
            _fail("Unclosed parenthesis", token.position)
        if inner is None:
            _fail("Empty parentheses", token.position)
        self.advance()
        return inner
