"""The modules setup.py compiles with mypyc follow from the tree: every engine module but those it keeps
interpreted, which may not subclass a compiled class (a compiled install would fail to import them:
"interpreted classes cannot inherit from compiled"), and `make install` counts the same list."""

from __future__ import annotations

import ast
import builtins
import importlib.util
import shutil
import subprocess
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


def test_every_engine_module_is_compiled_unless_kept_interpreted_by_name():
    every = every_engine_module()
    assert set(SETUP.COMPILED) == every - SETUP.INTERPRETED
    assert every >= SETUP.INTERPRETED, f"no such module: {sorted(SETUP.INTERPRETED - every)}"
    assert "realms/engine/effects/damage.py" in SETUP.COMPILED and "realms/engine/units.py" in SETUP.COMPILED


def test_a_new_effect_module_would_be_compiled(tmp_path, monkeypatch):
    for engine in SETUP.ENGINES:
        for path in (ROOT / engine).rglob("*.py"):
            target = tmp_path / path.relative_to(ROOT)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text("")
    (tmp_path / "realms/engine/effects/taunt_example.py").write_text("")
    monkeypatch.setattr(SETUP, "ROOT", tmp_path)
    assert "realms/engine/effects/taunt_example.py" in SETUP.compiled_modules()


def classes_and_bases() -> dict[str, dict[str, list[str]]]:
    """Per engine module: its classes and the full names of their bases (as its imports resolve them)."""
    found: dict[str, dict[str, list[str]]] = {}
    for path in sorted(every_engine_module()):
        module = module_of(path)
        tree = ast.parse((ROOT / path).read_text())
        names: dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        classes: dict[str, list[str]] = {}
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                bases = []
                for base in node.bases:
                    if isinstance(base, ast.Name):
                        bases.append(names.get(base.id, f"{module}.{base.id}"))
                    elif isinstance(base, ast.Attribute):
                        bases.append(ast.unparse(base))
                classes[node.name] = bases
        found[module] = classes
    return found


def test_no_interpreted_class_inherits_from_a_compiled_one():
    compiled = {module_of(p) for p in SETUP.COMPILED}
    classes = classes_and_bases()
    where = {f"{module}.{name}": module for module, names in classes.items() for name in names}

    def compiled_ancestor(full: str, seen: frozenset[str] = frozenset()) -> str | None:
        module = where.get(full)
        if module is None or full in seen:
            return None
        if module in compiled:
            return full
        for base in classes[module][full.rsplit(".", 1)[1]]:
            hit = compiled_ancestor(base, seen | {full})
            if hit:
                return hit
        return None

    def exception(full: str) -> bool:
        """Whether the class derives from a built-in exception (mypyc gives those no check of subclasses)."""
        module = where.get(full)
        if module is None:
            builtin = getattr(builtins, full.rsplit(".", 1)[-1], None)
            return isinstance(builtin, type) and issubclass(builtin, BaseException)
        return any(exception(base) for base in classes[module][full.rsplit(".", 1)[1]])

    problems = []
    for module, names in classes.items():
        if module in compiled:
            continue
        for name, bases in names.items():
            for base in bases:
                hit = compiled_ancestor(base)
                if hit and not exception(hit):
                    problems.append(f"{module}.{name} (interpreted) inherits from {hit} (compiled)")
    assert problems == []


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_install_counts_the_compiled_modules(tmp_path):
    probe = tmp_path / "probe.mk"
    probe.write_text(f"include {ROOT / 'Makefile'}\nprobe:\n\t@echo $(ENGINE_MODULES)\n")
    out = subprocess.run(["make", "-s", "-f", str(probe), "probe"], cwd=ROOT, capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert int(out.stdout.split()[-1]) == len(SETUP.COMPILED)
