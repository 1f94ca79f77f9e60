"""No import cycle among the project's own modules (cardsdb, realms, legends, simulate).

The graph is read from the source with `ast`: an edge for every import that runs, at module level or
inside a function (a deferred import still closes a loop: it only moves the failure to run time), and
for import_module("...") named literally; none for imports under `if TYPE_CHECKING:`, which never run.
An edge goes to the module an import names (`from realms import models` names realms.models), not to
the parent packages Python loads on the way.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROJECT = ("cardsdb", "realms", "legends", "simulate")


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    line: int


def project_modules() -> dict[str, Path]:
    found = {}
    for package in PROJECT:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _absolute(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    package = module.split(".") if is_package else module.split(".")[:-1]
    base = package[: len(package) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def _is_import_call(func: ast.expr) -> bool:
    """Whether `func` is `import_module` (bare or `importlib.import_module`) or `__import__`."""
    return ((isinstance(func, ast.Attribute) and func.attr == "import_module")
            or (isinstance(func, ast.Name) and func.id in ("import_module", "__import__")))


def _module_imported_by_call(node: ast.Call) -> str | None:
    """The module an `import_module("...")` or `__import__("...")` call names literally, else None."""
    if (node.args and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str) and _is_import_call(node.func)):
        return node.args[0].value
    return None


def imported_names(source: str, module: str, is_package: bool = False) -> list[tuple[str, int]]:
    """(module or module.name, line) for every import that runs, TYPE_CHECKING blocks left out."""
    found: list[tuple[str, int]] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for branch in node.orelse:
                visit(branch)
            return
        if isinstance(node, ast.Import):
            found.extend((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, module, is_package)
            found.extend((f"{base}.{alias.name}" if alias.name != "*" else base, node.lineno) for alias in node.names)
        elif isinstance(node, ast.Call) and (called := _module_imported_by_call(node)) is not None:
            found.append((called, node.lineno))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(source))
    return found


def resolve(name: str, modules) -> str | None:
    """The project module `name` denotes: itself, or for `module.attribute` the longest module prefix."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in modules:
            return candidate
    return None


def import_graph(sources: dict[str, tuple[str, bool]]) -> dict[str, list[Edge]]:
    """module -> its edges to other project modules; `sources` maps a module to (source, is_package)."""
    graph: dict[str, list[Edge]] = {module: [] for module in sources}
    for module, (source, is_package) in sources.items():
        for name, line in imported_names(source, module, is_package):
            target = resolve(name, sources)
            if target is not None and target != module:
                graph[module].append(Edge(module, target, line))
    return graph


def cycles(graph: dict[str, list[Edge]]) -> list[frozenset[str]]:
    """The strongly connected groups of more than one module (Tarjan), each a set of modules."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[frozenset[str]] = []

    def connect(start: str) -> None:
        # Iterative: the graph is deep enough that recursion would be fragile.
        work = [(start, iter(graph[start]))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for edge in edges:
                if edge.target not in index:
                    index[edge.target] = low[edge.target] = len(index)
                    stack.append(edge.target)
                    on_stack.add(edge.target)
                    work.append((edge.target, iter(graph[edge.target])))
                    break
                if edge.target in on_stack:
                    low[node] = min(low[node], index[edge.target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.add(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        groups.append(frozenset(group))

    for module in sorted(graph):
        if module not in index:
            connect(module)
    return sorted(groups, key=sorted)


def a_loop(graph: dict[str, list[Edge]], group: frozenset[str]) -> list[Edge]:
    """One closed path through `group`, from its first module back to it (breadth first: a shortest one)."""
    start = min(group)
    paths: dict[str, list[Edge]] = {start: []}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for edge in graph[node]:
            if edge.target == start:
                return [*paths[node], edge]
            if edge.target in group and edge.target not in paths:
                paths[edge.target] = [*paths[node], edge]
                queue.append(edge.target)
    raise AssertionError(f"no loop through {start}")


def describe(graph: dict[str, list[Edge]], group: frozenset[str]) -> str:
    steps = "; ".join(f"{edge.source}:{edge.line} imports {edge.target}" for edge in a_loop(graph, group))
    return f"{len(group)} modules {sorted(group)}, for instance {steps}"


def project_graph() -> dict[str, list[Edge]]:
    modules = project_modules()
    return import_graph({name: (path.read_text(), path.name == "__init__.py") for name, path in modules.items()})


# --- the project --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def graph() -> dict[str, list[Edge]]:
    return project_graph()


def test_the_graph_covers_the_project(graph):
    assert {"cardsdb.models", "realms.engine.state", "legends.engine.state", "simulate.engine.runner"} <= set(graph)
    assert sum(len(edges) for edges in graph.values()) > 200


def test_no_import_cycle(graph):
    found = [describe(graph, group) for group in cycles(graph)]
    assert found == [], "import cycles:\n" + "\n".join(found)


# --- the check itself ---------------------------------------------------------------------------------


def sample(**sources: str) -> dict[str, list[Edge]]:
    return import_graph({name.replace("__", "."): (source, False) for name, source in sources.items()})


def test_a_loop_through_a_function_import_is_a_cycle():
    graph = sample(app__a="from app import b\n", app__b="def f():\n    from app.a import thing\n", app__c="import app.a\n")
    assert cycles(graph) == [frozenset({"app.a", "app.b"})]
    assert describe(graph, frozenset({"app.a", "app.b"})) == (
        "2 modules ['app.a', 'app.b'], for instance app.a:1 imports app.b; app.b:2 imports app.a")


def test_type_checking_imports_do_not_count():
    graph = sample(
        app__a="from app import b\n",
        app__b="import typing\nif typing.TYPE_CHECKING:\n    from app.a import A\nelse:\n    pass\n",
        app__c="from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import app.a\nelse:\n    import app.d\n",
        app__d="import importlib\nimportlib.import_module('app.c')\n",
    )
    assert cycles(graph) == [frozenset({"app.c", "app.d"})]


def test_relative_and_attribute_imports_resolve_to_modules():
    graph = import_graph({
        "app": ("from .a import helper\n", True),
        "app.a": ("from . import b\n", False),
        "app.b": ("from .. import app\nfrom app import *\n", False),
    })
    assert [edge.target for edge in graph["app"]] == ["app.a"]
    assert [edge.target for edge in graph["app.a"]] == ["app.b"]
    assert cycles(graph) == [frozenset({"app", "app.a", "app.b"})]
