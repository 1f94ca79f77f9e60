"""The Akin Legends match engine is pure Python on the shared core: no Django, no third party."""

from __future__ import annotations

import ast
import subprocess
import sys

from .helpers import ROOT

ENGINE = ROOT / "legends" / "engine"


def test_importing_the_engine_loads_no_django():
    modules = sorted(f"legends.engine.{p.stem}" for p in ENGINE.glob("*.py") if p.stem != "__init__")
    assert {"legends.engine.game", "legends.engine.state", "legends.engine.agents"} <= set(modules)
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}: importlib.import_module(name)\n"
        "from simulate.engine.runner import play_match\n"
        "print(sorted(m for m in sys.modules if m == 'django' or m.startswith('django.')))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_engine_sources_import_the_standard_library_the_engine_and_the_shared_core_only():
    for path in ENGINE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            else:
                continue
            for name in names:
                root = name.split(".")[0]
                ok = (root in sys.stdlib_module_names or name.startswith("legends.engine")
                      or name.startswith("simulate.engine"))
                assert ok, f"{path.name} imports {name}"
