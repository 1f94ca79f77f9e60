"""The package build: setuptools reads pyproject.toml; this file adds the compiled engines.

The pure-Python rules engines are compiled with mypyc (from mypy) when the build can: the same typed
source, a C extension beside each module, which Python imports in its place. Without a compiler, or
with CARDSDB_PURE_PYTHON=1, the build installs the source alone and everything runs as plain Python.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
# The engines (pure Python: the standard library and the engines only). Every module of theirs is compiled
# unless it is named below, so a new module (a new effect kind, say) is compiled with no edit here; the
# `make install` line counts them from the same list (Makefile, ENGINE_MODULES).
ENGINES = ("simulate/engine", "realms/engine", "legends/engine")
# Kept interpreted: the packages' __init__ files (registries that import their modules), and what runs
# when cards, specs, options or logs are read or written, never during a match's steps (spec validation,
# card text, army codes and legality, option checks, play-by-play, the game registries and the runner's
# loop). Compiling them gains nothing and lengthens gcc. A class here may not subclass a compiled class
# (mypyc: "interpreted classes cannot inherit from compiled"): tests/engine/test_compiled_modules.py.
INTERPRETED = {
    "simulate/engine/__init__.py",
    "simulate/engine/agents.py",
    "simulate/engine/games.py",
    "simulate/engine/options.py",
    "simulate/engine/runner.py",
    "simulate/engine/stats.py",
    "simulate/engine/tally.py",
    "simulate/engine/values.py",
    "realms/engine/__init__.py",
    "realms/engine/army.py",
    "realms/engine/army_stats.py",
    "realms/engine/cards.py",
    "realms/engine/effects/__init__.py",
    "realms/engine/effects/words.py",
    "realms/engine/events.py",
    "realms/engine/formation.py",
    "realms/engine/game.py",
    "realms/engine/options.py",
    "realms/engine/playbyplay.py",
    "realms/engine/setup.py",
    "realms/engine/spec.py",
    "realms/engine/text.py",
    "legends/engine/__init__.py",
    "legends/engine/effects/__init__.py",
    "legends/engine/events.py",
    "legends/engine/game.py",
    "legends/engine/options.py",
    "legends/engine/playbyplay.py",
    "legends/engine/setup.py",
    "legends/engine/start.py",
}


def compiled_modules() -> list[str]:
    """Every engine module but the interpreted ones, as paths from the root, sorted: mypyc reads the imports
    itself (mypy's graph of the whole group), so the order given to it changes nothing but the hashed
    name of the shared library."""
    found = {path.relative_to(ROOT).as_posix() for engine in ENGINES for path in (ROOT / engine).rglob("*.py")}
    return sorted(found - INTERPRETED)


COMPILED = compiled_modules()


def progress(message: str) -> None:
    """One line of the build's progress, at once (`make install` shows the lines that start with "mypyc:")."""
    print(f"mypyc: {message}", file=sys.stderr, flush=True)


def compiled_engines() -> list:  # type: ignore[type-arg]
    """The mypyc extensions, or none when the build cannot make them (the source then runs as is)."""
    if os.environ.get("CARDSDB_PURE_PYTHON") == "1":
        return []
    try:
        from mypyc.build import mypycify

        started = time.monotonic()
        # The engines' own strict check, not the project's mypy settings: their Django plugins are not installed
        # where the package is built (a plugin that cannot be imported stops mypy, and so the build).
        options = ["--config-file=", "--strict"]
        extensions = mypycify([*options, *(str(ROOT / p) for p in COMPILED)], opt_level="3", multi_file=False)
        progress(f"{len(COMPILED)} engine modules type-checked and translated to C in {time.monotonic() - started:.0f} s")
        return extensions
    except Exception as exc:  # noqa: BLE001 - any failure leaves the pure-Python engines in place
        progress(f"the engines stay pure Python ({type(exc).__name__}: {exc})")
        return []


class BuildExtensions(build_ext):
    """setuptools' build_ext, saying when the long compilation starts and, every 30 s, that it still runs.

    mypyc puts the C of every module in one shared library (`<hash>__mypyc`): minutes of gcc. Each module's own
    small extension, which imports its part, takes a fraction of a second.
    """

    def build_extension(self, ext: Extension) -> None:
        if not ext.name.endswith("__mypyc"):
            super().build_extension(ext)
            return
        progress(f"gcc compiles the C of all {len(self.extensions) - 1} modules, one file: the long step, a few minutes")
        started = time.monotonic()
        done = threading.Event()

        def still_compiling() -> None:
            while not done.wait(30):
                progress(f"still compiling, {time.monotonic() - started:.0f} s")

        threading.Thread(target=still_compiling, daemon=True).start()
        try:
            super().build_extension(ext)
        finally:
            done.set()
        progress(f"C compiled in {time.monotonic() - started:.0f} s; then each module's small extension")


if __name__ == "__main__":  # as setuptools runs it (pip, build_ext); tests import it for `compiled_modules`
    setup(ext_modules=compiled_engines(), cmdclass={"build_ext": BuildExtensions})
