"""Every Akin Legends rule constant has one name, in legends/engine/vocabulary.py: its value is the rulebook's,
and no other module writes the number where it means that rule (read from the source with `ast`)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from legends.engine.vocabulary import (
    ATTACK_ELEMENTS,
    DEFENSE_ELEMENTS,
    DUEL,
    DUEL_DRAW,
    FACE_UP_PASSES,
    HAND_SIZE,
    MAX_ROUNDS_DEFAULT,
    MAX_TEAM_DEFENSES,
    MODES,
    REDRAW_SIZE,
    SEAT_COUNTS,
    TEAM_COUNT,
    TEAMS,
)

from .helpers import ROOT

# --------------------------------------------------------------------------- the rulebook's numbers


def test_the_rule_constants_are_the_rulebooks() -> None:
    assert HAND_SIZE == 7  # "each player draws 7 cards"
    assert REDRAW_SIZE == 3  # "discards three cards to draw three new ones"
    assert TEAM_COUNT == 2
    assert (DEFENSE_ELEMENTS, ATTACK_ELEMENTS) == (2, 2)  # "two different elements"; "2 attacks"
    assert FACE_UP_PASSES == 1  # "the first face-up and the next two facedown"
    assert DUEL_DRAW == 1  # "draw a card each time they play a card"
    assert MAX_ROUNDS_DEFAULT == 30  # L12
    teams, duel = MODES[TEAMS], MODES[DUEL]
    assert (teams.teams, teams.players_per_team, teams.defenses_per_team, teams.passes) == (2, 2, 3, 2)
    assert (duel.teams, duel.players_per_team, duel.defenses_per_team, duel.passes) == (2, 1, 2, 3)
    assert (teams.counters, duel.counters) == (4, 2)  # "numbered 1 through 4"; L5: counters 1-2
    assert sorted(SEAT_COUNTS) == [2, 4]
    assert MAX_TEAM_DEFENSES == 3


def test_the_counters_dealt_let_teammates_alternate() -> None:
    assert [[MODES[TEAMS].seat_counter(t, p) for p in range(2)] for t in range(2)] == [[1, 3], [2, 4]]
    assert [MODES[DUEL].seat_counter(t, 0) for t in range(2)] == [1, 2]


# --------------------------------------------------------------------------- nowhere else

# The numbers the rules fix (0 and 1 are everywhere, for every reason: they are not looked for).
RULE_NUMBERS = frozenset(
    number
    for number in (
        HAND_SIZE, REDRAW_SIZE, TEAM_COUNT, DEFENSE_ELEMENTS, ATTACK_ELEMENTS, MAX_ROUNDS_DEFAULT,
        *(n for rules in MODES.values()
          for n in (rules.teams, rules.players_per_team, rules.defenses_per_team, rules.passes, rules.counters)),
    )
    if number > 1
)
# What a statement must be about for one of those numbers in it to be a rule: its names (identifiers split at
# underscores and capitals, never the words of a string or a comment) or the name of its function.
RULE_WORDS = re.compile(
    r"hands?|deal|dealt|redraws?|discards?|teams?|spirits?|players?|seats?|defen[cs]es?|counters?|pass(es)?|turns?"
    r"|elements?|attacks?|rounds?|face|destroy(ed)?"
)
LEGENDS = ROOT / "legends"
# Not read: the constants' own module, and the card faces' pixel geometry.
NOT_READ = ("legends/engine/vocabulary.py", "legends/rendering.py")


def modules() -> list[Path]:
    """Every Akin Legends module the rule constants are looked for in."""
    return sorted(
        path for path in LEGENDS.rglob("*.py")
        if "migrations" not in path.parts and not path.relative_to(ROOT).as_posix().startswith(NOT_READ)
    )


def names_in(node: ast.AST) -> Iterator[str]:
    """The words of the names `node` uses: variables, attributes, keywords and arguments."""
    for child in ast.walk(node):
        name = (child.id if isinstance(child, ast.Name) else child.attr if isinstance(child, ast.Attribute)
                else child.arg if isinstance(child, (ast.keyword, ast.arg)) else None)
        if name:
            yield from words(name)


def words(name: str) -> list[str]:
    """`max_hand` -> max, hand; `ElementPair` -> element, pair."""
    return [w.lower() for w in re.findall(r"[A-Za-z][a-z]*", re.sub(r"([a-z])([A-Z])", r"\1_\2", name))]


def header(statement: ast.stmt) -> list[ast.AST]:
    """What a statement says by itself: a simple statement whole, a compound one its test or its loop."""
    if isinstance(statement, (ast.If, ast.While)):
        return [statement.test]
    if isinstance(statement, ast.For):
        return [statement.target, statement.iter]
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return [*statement.args.defaults, *[d for d in statement.args.kw_defaults if d], *statement.decorator_list]
    if isinstance(statement, ast.ClassDef):
        return [*statement.bases, *statement.keywords, *statement.decorator_list]
    if isinstance(statement, (ast.With, ast.Try)):
        return []
    return [statement]


def is_not_a_quantity(number: ast.Constant, parent: ast.AST) -> bool:
    """A place, a key, a half or rounding: numbers that never state a rule."""
    return (
        (isinstance(parent, ast.Subscript) and parent.slice is number)  # data[2]
        or (isinstance(parent, ast.Dict) and number in parent.keys)  # {2: ...}
        or (isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.Div))  # width / 2
        or (isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id == "round")
    )


def is_param_call(call: ast.Call) -> bool:
    """Whether the call is a protector parameter's `Param(name, low, high)`."""
    return isinstance(call.func, ast.Name) and call.func.id == "Param"


def param_words(param: ast.Call) -> list[str]:
    """The words of a `Param(...)` call's string arguments (the parameter's name)."""
    return [w for arg in param.args if isinstance(arg, ast.Constant) and isinstance(arg.value, str)
            for w in words(arg.value)]


def statement_words(parent: ast.AST, parents: dict[ast.AST, ast.AST]) -> list[str]:
    """The words of the names in the header of `parent`'s statement and of its enclosing function's name."""
    statement = parent
    while not isinstance(statement, ast.stmt):
        statement = parents[statement]
    about = [w for part in header(statement) for w in names_in(part)]
    scope: ast.AST = statement
    while scope in parents and not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        scope = parents[scope]
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        about += words(scope.name)
    return about


def rule_literals(source: str) -> Iterator[tuple[int, int, str]]:
    """(line, number, what it is about) of each rule number written where its statement is about that rule.

    A protector parameter's bounds (`Param(name, low, high)`) are card design, judged by the parameter's name
    alone: `Param("count", 1, 2)` is design, `Param("max_hand", 7, 10)` starts from the hand size.
    """
    tree = ast.parse(source)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Constant) and type(node.value) is int and node.value in RULE_NUMBERS):
            continue
        parent = parents[node]
        if is_not_a_quantity(node, parent):
            continue
        if isinstance(parent, ast.Call) and is_param_call(parent):
            about = param_words(parent)
        else:
            about = statement_words(parent, parents)
        ruled = sorted({w for w in about if RULE_WORDS.fullmatch(w)})
        if ruled:
            yield node.lineno, node.value, ", ".join(ruled)


@pytest.mark.parametrize("path", modules(), ids=lambda path: path.relative_to(ROOT).as_posix())
def test_no_module_writes_a_rule_number_of_its_own(path: Path) -> None:
    found = [f"line {line}: {number} (about {about})" for line, number, about in rule_literals(path.read_text())]
    assert not found, f"use the constant of legends/engine/vocabulary.py: {'; '.join(found)}"


@pytest.mark.parametrize("source", [
    "if len(players) not in (2, 4):\n    pass",
    "spirits = rng.sample(pool.spirits, 2)",
    "element = card.attacks[rng.randrange(2)]",
    "params = (Param('max_hand', 7, 10),)",
    "def dealt(deck):\n    return deck[:7 * 4]",
    "destroyed = held + n >= 2",
    "match_options = dict(max_rounds=30)",
])
def test_a_rule_number_written_in_a_statement_about_its_rule_is_found(source: str) -> None:
    assert list(rule_literals(source))


@pytest.mark.parametrize("source", [
    "color = models.CharField(max_length=7, help_text='Colour on card faces.')",
    "spirit = data[2]",
    "center = (width / 2, team_height / 2)",
    "params = (Param('count', 1, 2),)",
    "share = round(wins / teams, 3)",
    "HEAL_STAGE = 2",
    "FIELDS = {2: ('round', 'team')}",
    "if len(code) % 4:\n    pass",
])
def test_numbers_that_state_no_rule_are_left_alone(source: str) -> None:
    assert not list(rule_literals(source))


def test_the_vocabulary_is_where_the_constants_are() -> None:
    source = (LEGENDS / "engine" / "vocabulary.py").read_text()
    assert list(rule_literals(source)), "the vocabulary itself writes the numbers (the check is not blind)"
