"""Every engine module is compiled with mypyc, the list read off the tree by setup.py (which `make install`
counts), and an installed build leaves none of them interpreted; with CARDSDB_PURE_PYTHON=1 (and CI's
.ci/pure-engines on the path) every one runs from its source."""

from __future__ import annotations

import importlib
import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def load_setup():  # type: ignore[no-untyped-def]
    """setup.py as a module (imported, not run: `setup()` runs only as __main__)."""
    spec = importlib.util.spec_from_file_location("cardsdb_setup", ROOT / "setup.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SETUP = load_setup()


def module_of(path: str) -> str:
    parts = path.removesuffix(".py").split("/")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def every_engine_module() -> set[str]:
    return {p.relative_to(ROOT).as_posix() for engine in SETUP.ENGINES for p in (ROOT / engine).rglob("*.py")}


def test_every_engine_module_is_compiled():
    assert set(SETUP.COMPILED) == every_engine_module()
    assert "realms/engine/effects/damage.py" in SETUP.COMPILED and "simulate/engine/runner.py" in SETUP.COMPILED


def test_a_new_effect_module_would_be_compiled(tmp_path, monkeypatch):
    for engine in SETUP.ENGINES:
        for path in (ROOT / engine).rglob("*.py"):
            target = tmp_path / path.relative_to(ROOT)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text("")
    (tmp_path / "realms/engine/effects/taunt_example.py").write_text("")
    monkeypatch.setattr(SETUP, "ROOT", tmp_path)
    assert "realms/engine/effects/taunt_example.py" in SETUP.compiled_modules()


def loaded_engine_modules() -> dict[str, str]:
    """Every engine module imported (all of them, by name), with the file it was loaded from."""
    for path in sorted(every_engine_module()):
        importlib.import_module(module_of(path))
    return {module_of(path): sys.modules[module_of(path)].__file__ or "" for path in every_engine_module()}


def test_an_installed_build_runs_every_engine_module_compiled_or_none():
    files = loaded_engine_modules()
    compiled = sorted(name for name, file in files.items() if file.endswith(".so"))
    interpreted = sorted(name for name, file in files.items() if not file.endswith(".so"))
    if os.environ.get("CARDSDB_PURE_PYTHON") == "1":
        assert compiled == [], f"CARDSDB_PURE_PYTHON=1, yet these run compiled: {compiled}"
        return
    libraries = list(ROOT.glob("*__mypyc*.so"))
    if not compiled and not libraries:
        pytest.skip("a pure-Python install (no compiler, or CARDSDB_PURE_PYTHON=1 at install)")
    assert interpreted == [], f"compiled install, but these engine modules run from source: {interpreted}"


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_install_counts_the_compiled_modules(tmp_path):
    probe = tmp_path / "probe.mk"
    probe.write_text(f"include {ROOT / 'Makefile'}\nprobe:\n\t@echo $(ENGINE_MODULES)\n")
    out = subprocess.run(["make", "-s", "-f", str(probe), "probe"], cwd=ROOT, capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert int(out.stdout.split()[-1]) == len(SETUP.COMPILED)
