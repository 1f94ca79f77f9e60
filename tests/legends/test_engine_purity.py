"""The Akin Legends engine is pure Python: importing it loads nothing from Django."""

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "legends" / "engine"


def test_engine_modules_import_no_django():
    modules = sorted(f"legends.engine.{path.stem}" for path in ENGINE.glob("*.py") if path.stem != "__init__")
    assert {"legends.engine.protectors", "legends.engine.setup"} <= set(modules)
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}: importlib.import_module(name)\n"
        "print(sorted(m for m in sys.modules if m == 'django' or m.startswith('django.')))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_engine_sources_name_only_the_standard_library_and_the_engines():
    # The shared engine core (simulate.engine) is pure Python too, and the game engines build on it.
    allowed_roots = set(sys.stdlib_module_names) | {"legends", "simulate"}
    for path in ENGINE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                roots = {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                roots = {(node.module or "").split(".")[0]}
                if roots & {"legends", "simulate"}:
                    assert node.module.split(".")[1] == "engine", f"{path.name}: {node.module}"
            else:
                continue
            assert roots <= allowed_roots, f"{path.name} imports {roots - allowed_roots}"
