"""cardsdb, the shared app, is the lowest Django layer: none of its modules imports an app above it
(realms, legends, simulate), so that those apps build on it and never the other way round.

Read from the source with `ast`: every import counts wherever it stands (inside functions and under
`if TYPE_CHECKING:` too), as does `import_module("...")` named literally. Where the project itself is wired
(settings, URLs, the Celery schedule) cardsdb names the apps above by dotted path, as Django and Celery
take them; those names are listed below with their reasons, and no other module may hold one.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
ABOVE = ("realms", "legends", "simulate")

# The modules of cardsdb that name an app above it by a dotted path (never an import), and why.
NAMED_BY_PATH = {
    "cardsdb/settings.py": "the project's settings: the schema's enum names point at realms.choices",
    "cardsdb/urls.py": "the root URLconf mounts each app's API and pages (include by dotted path)",
    "cardsdb/celery.py": "the Celery beat schedule names simulate's periodic tasks",
    "cardsdb/bulk.py": "the bulk file of each game's catalogue, found by dotted path when first asked for",
}


def _is_above(name: str) -> bool:
    return name.split(".")[0] in ABOVE


def _module_imported_by_call(node: ast.Call) -> str | None:
    """The module an `import_module("...")` or `__import__("...")` call names literally, else None."""
    if (node.args and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
            and getattr(node.func, "attr", getattr(node.func, "id", "")) in ("import_module", "__import__")):
        return node.args[0].value
    return None


def imports_above(source: str) -> list[tuple[str, int]]:
    """(module, line) of every import of an app above cardsdb in `source`."""
    found: list[tuple[str, int]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names if _is_above(alias.name)]
        elif isinstance(node, ast.ImportFrom) and not node.level and _is_above(node.module or ""):
            found.append((node.module or "", node.lineno))
        elif (isinstance(node, ast.Call) and (called := _module_imported_by_call(node)) is not None
              and _is_above(called)):
            found.append((called, node.lineno))
    return found


def dotted_names_above(source: str) -> list[tuple[str, int]]:
    """(text, line) of every string that names a module or object of an app above cardsdb by dotted path."""
    return [(node.value, node.lineno) for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and "." in node.value
            and " " not in node.value and _is_above(node.value)]


def cardsdb_modules() -> dict[str, str]:
    return {path.relative_to(ROOT).as_posix(): path.read_text() for path in sorted((ROOT / "cardsdb").rglob("*.py"))}


def test_cardsdb_imports_no_app_above_it():
    found = [f"{path}:{line} imports {name}" for path, source in cardsdb_modules().items()
             for name, line in imports_above(source)]
    assert found == [], "cardsdb imports an app above it:\n" + "\n".join(found)


def test_cardsdb_names_apps_above_it_only_where_the_project_is_wired():
    modules = cardsdb_modules()
    naming = {path for path, source in modules.items() if dotted_names_above(source)}
    assert naming <= set(NAMED_BY_PATH), f"unlisted: {sorted(naming - set(NAMED_BY_PATH))}"
    assert set(NAMED_BY_PATH) <= set(modules), "a listed module is gone: drop it from NAMED_BY_PATH"


def test_the_scan_finds_every_kind_of_import():
    source = (
        "import os\nimport realms.models\nfrom simulate.engine import errors\nfrom . import simulate\n"
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from legends.models import Spirit\n"
        "def f():\n    import importlib\n    return importlib.import_module('simulate.services')\n"
    )
    assert imports_above(source) == [("realms.models", 2), ("simulate.engine", 3), ("legends.models", 7),
                                      ("simulate.services", 10)]
    assert dotted_names_above("URLS = include('realms.api.urls')\nNAME = 'realms'\nTEXT = 'simulate. it'\n") == [
        ("realms.api.urls", 1)]
