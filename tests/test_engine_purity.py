"""Every rules engine is pure Python: the standard library and the engines only, and no global random.

Read from the source with `ast`, so every import counts wherever it stands (inside functions and
`if TYPE_CHECKING:` blocks too), relative imports included. The game engines build on the shared core
(`simulate.engine`); the core knows no game at module level and finds one only when asked for it.
A fresh interpreter then imports every engine module and checks that nothing else was loaded.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROJECT = ("cardsdb", "realms", "legends", "simulate")


@dataclass(frozen=True)
class Engine:
    package: str
    anywhere: tuple[str, ...]  # project packages its modules may import
    at_module_level: tuple[str, ...]  # ... of which these at import time (outside functions)


GAME_ENGINES = ("realms.engine", "legends.engine")
ENGINES = [
    Engine("realms.engine", ("realms.engine", "simulate.engine"), ("realms.engine", "simulate.engine")),
    Engine("legends.engine", ("legends.engine", "simulate.engine"), ("legends.engine", "simulate.engine")),
    Engine("simulate.engine", ("simulate.engine", *GAME_ENGINES), ("simulate.engine",)),
]


# --- reading the source -------------------------------------------------------------------------------


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def engine_files(engine: Engine) -> list[Path]:
    return sorted((ROOT / Path(*engine.package.split("."))).rglob("*.py"))


@dataclass(frozen=True)
class Import:
    name: str  # absolute module name
    line: int
    in_function: bool


def _absolute(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    package = module.split(".") if is_package else module.split(".")[:-1]
    base = package[: len(package) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def imports(source: str, module: str, is_package: bool = False) -> list[Import]:
    """Every import in `source` (of module `module`), with where it stands."""
    found: list[Import] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        if isinstance(node, ast.Import):
            found.extend(Import(alias.name, node.lineno, in_function) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, module, is_package)
            found.append(Import(base, node.lineno, in_function))
            # `from package import module` imports the submodule; a name that is not a module is harmless here.
            found.extend(Import(f"{base}.{alias.name}", node.lineno, in_function) for alias in node.names
                         if alias.name != "*" and base.split(".")[0] in PROJECT)
        elif (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
              and isinstance(node.args[0].value, str) and _is_dynamic_import(node.func)):
            found.append(Import(node.args[0].value, node.lineno, in_function))
        inner = in_function or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        for child in ast.iter_child_nodes(node):
            visit(child, inner)

    visit(ast.parse(source), False)
    return found


def _is_dynamic_import(func: ast.expr) -> bool:
    """importlib.import_module("...") or __import__("..."), named literally."""
    if isinstance(func, ast.Name):
        return func.id in ("__import__", "import_module")
    return isinstance(func, ast.Attribute) and func.attr == "import_module"


def _under(name: str, packages: tuple[str, ...]) -> bool:
    return any(name == package or name.startswith(f"{package}.") for package in packages)


def impurities(engine: Engine, source: str, module: str, is_package: bool = False) -> list[str]:
    """What `module` of `engine` imports that an engine may not."""
    problems = []
    for found in imports(source, module, is_package):
        root = found.name.split(".")[0]
        where = "in a function" if found.in_function else "at module level"
        if root in PROJECT:
            allowed = engine.anywhere if found.in_function else engine.at_module_level
            if not _under(found.name, allowed):
                problems.append(f"{module}:{found.line} imports {found.name} {where}")
        elif root not in sys.stdlib_module_names:
            problems.append(f"{module}:{found.line} imports {found.name} (not the standard library) {where}")
    return problems


def global_random_uses(source: str, module: str) -> list[str]:
    """Draws from the global `random` generator, and random.Random made without a seed."""
    tree = ast.parse(source)
    module_aliases, class_aliases = random_aliases(tree)
    problems = []
    for node in ast.walk(tree):
        problems += global_random_use(node, module, module_aliases, class_aliases)
    return problems


def random_aliases(tree: ast.AST) -> tuple[set[str], set[str]]:
    """The names the `random` module and the `random.Random` class are imported under."""
    module_aliases = {alias.asname or alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                      for alias in node.names if alias.name == "random"}
    class_aliases = {alias.asname or alias.name for node in ast.walk(tree)
                     if isinstance(node, ast.ImportFrom) and node.module == "random" and not node.level
                     for alias in node.names if alias.name == "Random"}
    return module_aliases, class_aliases


def global_random_use(node: ast.AST, module: str, module_aliases: set[str], class_aliases: set[str]) -> list[str]:
    """What one node of the tree draws from the global generator (or an unseeded Random it makes)."""
    if isinstance(node, ast.ImportFrom) and node.module == "random" and not node.level:
        return [f"{module}:{node.lineno} from random import {alias.name}" for alias in node.names
                if alias.name != "Random"]
    if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
            and node.value.id in module_aliases and node.attr != "Random"):
        return [f"{module}:{node.lineno} random.{node.attr}"]
    if (isinstance(node, ast.Call) and not node.args and not node.keywords
            and makes_random(node.func, module_aliases, class_aliases)):
        return [f"{module}:{node.lineno} random.Random() without a seed"]
    return []


def makes_random(func: ast.expr, module_aliases: set[str], class_aliases: set[str]) -> bool:
    """The function called is random.Random (under whatever name it was imported)."""
    return (isinstance(func, ast.Name) and func.id in class_aliases) or (
        isinstance(func, ast.Attribute) and func.attr == "Random" and isinstance(func.value, ast.Name)
        and func.value.id in module_aliases)


# --- the engines -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES, ids=lambda engine: engine.package)
def test_engine_imports_only_the_standard_library_and_the_engines_it_builds_on(engine):
    files = engine_files(engine)
    assert len(files) >= 5, f"{engine.package}: only {len(files)} modules found"
    problems = [problem for path in files
                for problem in impurities(engine, path.read_text(), module_name(path), path.name == "__init__.py")]
    assert problems == []


@pytest.mark.parametrize("engine", ENGINES, ids=lambda engine: engine.package)
def test_engine_never_draws_from_the_global_random_module(engine):
    """G1: every random choice comes from a seeded random.Random owned by the match (or handed to an agent)."""
    problems = [problem for path in engine_files(engine)
                for problem in global_random_uses(path.read_text(), module_name(path))]
    assert problems == []


def test_importing_every_engine_module_loads_nothing_but_the_engines():
    modules = sorted(module_name(path) for engine in ENGINES for path in engine_files(engine))
    code = (
        "import importlib, json, sys\n"
        f"for name in {modules!r}: importlib.import_module(name)\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    loaded = json.loads(result.stdout)
    engines = tuple(engine.package for engine in ENGINES)
    outside = [name for name in loaded if name.split(".")[0] in PROJECT and name not in PROJECT
               and not _under(name, engines)]
    foreign = [name for name in loaded if name.split(".")[0] in ("django", "rest_framework", "django_filters",
                                                                  "celery", "PIL")]
    assert outside == [] and foreign == []


# --- the checks themselves -------------------------------------------------------------------------------


REALMS, LEGENDS, CORE = ENGINES

IMPURE = '''
import os
from typing import TYPE_CHECKING
from simulate.engine.rng import new_rng
from . import units
from .effects import base
if TYPE_CHECKING:
    from django.db.models import Model
def later():
    import cardsdb.models
    from ..models import Character
    from legends.engine import state
    importlib.import_module("rest_framework")
    import numpy
'''


def test_the_import_check_sees_every_kind_of_import():
    problems = impurities(REALMS, IMPURE, "realms.engine.sample")
    assert [problem.split(" imports ")[1] for problem in problems] == [
        "django.db.models (not the standard library) at module level",
        "cardsdb.models in a function",
        "realms.models in a function",
        "realms.models.Character in a function",
        "legends.engine in a function",
        "legends.engine.state in a function",
        "rest_framework (not the standard library) in a function",
        "numpy (not the standard library) in a function",
    ]


def test_the_core_may_find_a_game_only_when_asked():
    source = "from realms.engine import game\ndef rules():\n    from legends.engine import game\n"
    assert impurities(CORE, source, "simulate.engine.games") == [
        "simulate.engine.games:1 imports realms.engine at module level",
        "simulate.engine.games:1 imports realms.engine.game at module level",
    ]
    assert impurities(CORE, source.replace("realms", "simulate"), "simulate.engine.games") == []
    assert impurities(LEGENDS, "from ..engine import state\nfrom .effects import x\n", "legends.engine.sub.mod") == []


def test_relative_imports_resolve_from_the_module():
    names = [found.name for found in imports("from . import a\nfrom ..b import c\n", "realms.engine.effects.x")]
    assert names == ["realms.engine.effects", "realms.engine.effects.a", "realms.engine.b", "realms.engine.b.c"]
    names = [found.name for found in imports("from . import a\n", "realms.engine.effects", is_package=True)]
    assert names == ["realms.engine.effects", "realms.engine.effects.a"]


def test_the_random_check_sees_the_global_generator():
    source = (
        "import random\nimport random as r\nfrom random import Random, choice\n"
        "rng = random.Random(4)\nother = Random(seed)\n"
        "def f(items):\n    random.shuffle(items)\n    return r.choice(items), random.Random(), Random()\n"
    )
    assert sorted(global_random_uses(source, "m")) == [
        "m:3 from random import choice",
        "m:7 random.shuffle",
        "m:8 random.Random() without a seed",
        "m:8 random.Random() without a seed",
        "m:8 random.choice",
    ]
