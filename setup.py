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
# The engine modules compiled, in dependency order (each is pure Python: stdlib and the engines only).
COMPILED = [
    "simulate/engine/errors.py",
    "simulate/engine/events.py",
    "simulate/engine/rng.py",
    "simulate/engine/deciders.py",
    "simulate/engine/budget.py",
    "simulate/engine/checking.py",
    "realms/engine/vocabulary.py",
    "realms/engine/units.py",
    "realms/engine/effects/base.py",
    "realms/engine/battlefield.py",
    "realms/engine/order.py",
    "realms/engine/combat.py",
    "realms/engine/effects/damage.py",
    "realms/engine/effects/heal.py",
    "realms/engine/effects/lasting.py",
    "realms/engine/effects/shield.py",
    "realms/engine/effects/modifier.py",
    "realms/engine/effects/buff.py",
    "realms/engine/effects/debuff.py",
    "realms/engine/effects/ongoing.py",
    "realms/engine/effects/poison.py",
    "realms/engine/effects/burn.py",
    "realms/engine/effects/regen.py",
    "realms/engine/effects/silence.py",
    "realms/engine/effects/cooldown.py",
    "realms/engine/effects/move.py",
    "realms/engine/effects/removal.py",
    "realms/engine/effects/cleanse.py",
    "realms/engine/effects/dispel.py",
    "realms/engine/effects/summon.py",
    "realms/engine/triggers.py",
    "realms/engine/rounds.py",
    "realms/engine/observation.py",
    "realms/engine/state.py",
    "realms/engine/agents.py",
    "legends/engine/vocabulary.py",
    "legends/engine/cards.py",
    "legends/engine/effects/base.py",
    "legends/engine/effects/boost_first_attack.py",
    "legends/engine/effects/cancel_attack.py",
    "legends/engine/effects/extra_draw.py",
    "legends/engine/effects/heal_marker.py",
    "legends/engine/effects/pierce_defense.py",
    "legends/engine/effects/redraw_size.py",
    "legends/engine/effects/reveal_facedown.py",
    "legends/engine/protectors.py",
    "legends/engine/table.py",
    "legends/engine/showdown.py",
    "legends/engine/heals.py",
    "legends/engine/views.py",
    "legends/engine/observation.py",
    "legends/engine/turns.py",
    "legends/engine/rounds.py",
    "legends/engine/state.py",
    "legends/engine/agents.py",
]


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


setup(ext_modules=compiled_engines(), cmdclass={"build_ext": BuildExtensions})
