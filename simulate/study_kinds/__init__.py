"""The kinds of study of the balance lab, one module each, and their registry.

A new kind is a module of this package defining a `StudyKind` subclass named `Kind`, and its name in
`REGISTERED` (the order the API's enum, the form and the docs list them in). See docs/architecture.md,
"A new kind of study".
"""

from __future__ import annotations

from importlib import import_module

from simulate.engine.errors import InputError
from simulate.study_kinds.base import StudyKind

REGISTERED = ("matchup", "gauntlet", "matrix", "equilibrium", "field", "whatif", "sweep", "suggest", "targets", "regression", "ladder", "skill", "search", "mirror")

KINDS: dict[str, StudyKind] = {name: import_module(f"{__name__}.{name}").Kind() for name in REGISTERED}
DEFAULT_KIND = "matchup"


def study_kind(name: str) -> StudyKind:
    """The registered kind `name`; InputError at `kind` for an unknown one."""
    kind = KINDS.get(name)
    if kind is None:
        raise InputError(f"Unknown kind {name!r}; known: {', '.join(KINDS)}.", [("kind", "unknown")])
    return kind


def kind_names() -> list[str]:
    """Every registered kind's name, in registration order."""
    return list(KINDS)


def kind_choices() -> list[tuple[str, str]]:
    """(name, label) of every registered kind, for a form's select."""
    return [(name, kind.label) for name, kind in KINDS.items()]


def kind_label(name: str) -> str:
    """How the pages name a kind (its name when it is not registered)."""
    kind = KINDS.get(name)
    return kind.label if kind else name
