"""The package build: setuptools reads pyproject.toml; this file adds the compiled engines.

The pure-Python rules engines are compiled with mypyc (from mypy) when the build can: the same typed
source, a C extension beside each module, which Python imports in its place. Without a compiler, or
with CARDSDB_PURE_PYTHON=1, the build installs the source alone and everything runs as plain Python.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from setuptools import setup

ROOT = Path(__file__).resolve().parent
# The engine modules compiled, in dependency order (each is pure Python: stdlib and the engines only).
COMPILED = [
    "simulate/engine/errors.py",
    "simulate/engine/events.py",
    "simulate/engine/rng.py",
    "simulate/engine/deciders.py",
    "simulate/engine/budget.py",
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


def compiled_engines() -> list:  # type: ignore[type-arg]
    """The mypyc extensions, or none when the build cannot make them (the source then runs as is)."""
    if os.environ.get("CARDSDB_PURE_PYTHON") == "1":
        return []
    try:
        from mypyc.build import mypycify

        return mypycify([str(ROOT / p) for p in COMPILED], opt_level="3", multi_file=False)
    except Exception as exc:  # noqa: BLE001 - any failure leaves the pure-Python engines in place
        print(f"mypyc: the engines stay pure Python ({type(exc).__name__}: {exc})", file=sys.stderr)
        return []


setup(ext_modules=compiled_engines())
