"""The effect kinds, one module each (see `base`): `KINDS` maps a kind's name to it.

The registry finds the kinds itself: every module of this package that holds a `KIND` is one, so a new
kind is its module alone (setup.py compiles it as it compiles every engine module). The modules they share
(`base`, `words`, `lasting`, `modifier`, `ongoing`, `removal`, `restraint`) hold none. Kinds are listed by
name.
"""

from __future__ import annotations

import importlib
import pkgutil

from realms.engine.effects.base import EffectKind


def _discover() -> dict[str, EffectKind]:
    """Every kind of the package's modules, by name."""
    kinds: dict[str, EffectKind] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        kind = getattr(importlib.import_module(f"{__name__}.{info.name}"), "KIND", None)
        if isinstance(kind, EffectKind):
            assert kind.name == info.name, f"the kind of effects/{info.name} is named {kind.name!r}"
            kinds[kind.name] = kind
    return kinds


KINDS: dict[str, EffectKind] = _discover()
EFFECT_KINDS = tuple(KINDS)
LASTING_KINDS = tuple(name for name, kind in KINDS.items() if kind.lasting)
ONGOING_KINDS = tuple(name for name, kind in KINDS.items() if kind.ongoing)
