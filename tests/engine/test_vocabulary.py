"""Every Echo Realms rule number has one name, in realms/engine/vocabulary.py, and the engine writes the name.

The engine's modules are read with `ast`, and each rule's number is looked for in the places where a
number means that rule (a clamp for the minimum damage, a bound of a spec field or an option, a count
compared with a limit, the words of a message): a number written there instead of its name would make a
change of the rule an edit of several files, some of them missed.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from realms.engine import vocabulary

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "realms" / "engine"
VOCABULARY = ENGINE / "vocabulary.py"


def engine_modules() -> list[Path]:
    return sorted(p for p in ENGINE.rglob("*.py") if p != VOCABULARY)


def _is_number(node: ast.AST, value: float) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return _is_number(node.operand, -value)
    return (isinstance(node, ast.Constant) and type(node.value) in (int, float)
            and not isinstance(node.value, bool) and node.value == value and type(node.value) is type(value))


def _names(node: ast.AST) -> set[str]:
    """Every name and attribute an expression reads, in lower case."""
    found = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            found.add(sub.id.lower())
        elif isinstance(sub, ast.Attribute):
            found.add(sub.attr.lower())
    return found


DAMAGE_WORDS = ("power", "amount", "damage", "dmg", "def", "atk", "hp")


def clamps(tree: ast.AST, value: int, about: tuple[str, ...] = DAMAGE_WORDS) -> Iterator[int]:
    """Where `value` is a floor or ceiling of an amount of damage (an expression reading one of `about`):
    max(value, x) / min(value, x), `x if x > value else value`, and `if x < value: x = value`."""
    for node in ast.walk(tree):
        if isinstance(node, ast.expr | ast.stmt) and (
                _clamping_call(node, value, about) or _clamping_branch(node, value, about)):
            yield node.lineno


def _of_damage(nodes: list[ast.AST], value: int, about: tuple[str, ...]) -> bool:
    """Whether an operand other than `value` itself reads one of the words of `about`."""
    return any(word in name for node in nodes if not _is_number(node, value)
               for name in _names(node) for word in about)


def _clamping_call(node: ast.AST, value: int, about: tuple[str, ...]) -> bool:
    """max(value, x) or min(value, x), x an amount of damage."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("max", "min")
            and any(_is_number(arg, value) for arg in node.args) and _of_damage(list(node.args), value, about))


def _clamping_branch(node: ast.AST, value: int, about: tuple[str, ...]) -> bool:
    """`x if x > value else value`, or `if x < value: x = value`, x an amount of damage."""
    if not (isinstance(node, ast.IfExp | ast.If) and isinstance(node.test, ast.Compare)):
        return False
    operands: list[ast.AST] = [node.test.left, *node.test.comparators]
    if not any(_is_number(x, value) for x in operands) or not _of_damage(operands, value, about):
        return False
    if isinstance(node, ast.IfExp):
        return _is_number(node.body, value) or _is_number(node.orelse, value)
    return len(node.body) == 1 and isinstance(node.body[0], ast.Assign) and _is_number(node.body[0].value, value)


def _counts(node: ast.AST) -> bool:
    """Whether an expression counts units, cards, effects or rounds: len(...), sum(...), line_count(...),
    or a name or attribute that says it (a count, a depth, a round, a duration)."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            func = sub.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if name in ("len", "sum", "line_count", "_count", "count"):
                return True
        name = sub.id if isinstance(sub, ast.Name) else sub.attr if isinstance(sub, ast.Attribute) else ""
        if any(word in name for word in ("count", "depth", "round", "duration", "held", "size")):
            return True
    return False


def compared(tree: ast.AST, value: int | float) -> Iterator[int]:
    """Where `value` is a limit compared with a count (see `_counts`)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            for i, x in enumerate(operands):
                if _is_number(x, value) and any(_counts(y) for j, y in enumerate(operands) if j != i):
                    yield node.lineno


def bounds(tree: ast.AST, value: int | float) -> Iterator[int]:
    """Where `value` is a bound or default handed to a validator (`check.integer`, `check.number`,
    `check_int`) or to range()."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if name in ("integer", "number", "check_int", "range"):
                given = list(node.args) if name == "range" else list(node.args[2:])
                given += [k.value for k in node.keywords if k.arg == "default"]
                if any(_is_number(b, value) for b in given):
                    yield node.lineno


def limits(tree: ast.AST, value: int | float) -> Iterator[int]:
    """`compared` and `bounds` together."""
    yield from compared(tree, value)
    yield from bounds(tree, value)


def words(tree: ast.AST, phrase: str) -> Iterator[int]:
    """Where a string written in the code holds `phrase` (a rule said in words with its numbers)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and phrase in node.value:
            yield node.lineno


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring nodes (prose, which may say a rule's number)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def findings(search, *args) -> list[str]:  # type: ignore[no-untyped-def]
    """`search`'s hits over every engine module but the vocabulary, as "path:line"."""
    hits = []
    for path in engine_modules():
        tree = ast.parse(path.read_text())
        docs = _docstrings(tree)
        if search is words:
            lines = [n.lineno for n in ast.walk(tree)
                     if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs
                     and args[0] in n.value]
        else:
            lines = list(search(tree, *args))
        hits += [f"{path.relative_to(ROOT)}:{line}" for line in sorted(set(lines))]
    return hits


# (name in vocabulary, how the engine would write its number, the number's own argument)
RULES = [
    ("MIN_DAMAGE", clamps),
    ("LINE_CAPACITY", limits),
    ("ARMY_SIZE", limits),
    ("MAX_EFFECTS", limits),
    ("MAX_DURATION", bounds),
    ("MAX_AMOUNT", bounds),
    ("MAX_SCALE", bounds),
    ("MAX_SUMMONS", bounds),
    ("MAX_COOLDOWN_SHIFT", bounds),
    ("MAX_TRIGGER_DEPTH", limits),
    ("MAX_ROUNDS_DEFAULT", bounds),
    ("MAX_ROUNDS_LIMIT", bounds),
    ("MAX_ACTIONS_DEFAULT", bounds),
    ("MAX_ACTIONS_LIMIT", bounds),
]


@pytest.mark.parametrize(("name", "search"), RULES, ids=[name for name, _ in RULES])
def test_the_engine_writes_the_rule_by_its_name(name, search):
    value = getattr(vocabulary, name)
    assert findings(search, value) == [], f"{name} ({value}) is written as a number: use vocabulary.{name}"


def test_the_quotas_are_said_from_the_vocabulary():
    phrase = vocabulary.QUOTA_WORDS.split(",")[0]  # "3 Common"
    assert findings(words, phrase) == []
    assert vocabulary.QUOTA_WORDS == "3 Common, 2 Uncommon, 1 Rare, 1 Legendary"


def test_the_printed_bounds_are_the_vocabulary_s():
    """A summon's values are bounded as a card's (STAT_BOUNDS), never by numbers of its own."""
    highs = {high for stat, (_, high) in vocabulary.STAT_BOUNDS.items() if stat != "cooldown"}
    assert [hit for high in sorted(highs) for hit in findings(limits, high)] == []


# --- the searches themselves ------------------------------------------------------------------------------


SAMPLE = '''
def f(power, defense, line_count, bf, check, data, path):
    a = max(1, power - defense)
    b = power if power > 1 else 1
    if power < 1:
        power = 1
    c = x - 1 if x > 1 else 0
    d = "1 round" if n == 1 else "rounds"
    if bf.line_count("a", "vanguard") >= 5:
        pass
    if len(army) != 7:
        pass
    e = check.integer(data, "duration", path, 1, 5)
    g = v.hp * 5 < v.max_hp * 2
    sets = max(len(prefixes), 1)
    if bf.depth >= 8:
        pass
    h = i if front else 5
'''


def test_the_searches_find_the_numbers_where_the_rules_use_them_and_nowhere_else():
    tree = ast.parse(SAMPLE)
    assert sorted(clamps(tree, 1)) == [3, 4, 5]
    assert sorted(limits(tree, 5)) == [9, 13]
    assert list(limits(tree, 7)) == [11]
    assert list(limits(tree, 8)) == [16]
