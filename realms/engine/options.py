"""Echo Realms match options and their validator."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from realms.engine.vocabulary import (
    MAX_ACTIONS_DEFAULT,
    MAX_ACTIONS_LIMIT,
    MAX_ROUNDS_DEFAULT,
    MAX_ROUNDS_LIMIT,
)
from simulate.engine.options import check_int, merge_options, raise_if_errors

TIE_BREAKS = ("random", "alternate")
FIRST_PLAYERS = ("a", "b", "random")

DEFAULTS: dict[str, Any] = {
    "tie_break": "random",  # R9
    "max_rounds": MAX_ROUNDS_DEFAULT,  # R16
    "max_actions": MAX_ACTIONS_DEFAULT,  # hard cap on decisions (flex moves + actions + deployments)
    "first_player": "random",  # R6 / R9: seeded coin unless given
}


def validate_options(options: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Options with defaults filled in; OptionsError lists every unknown key and bad value."""
    merged, errors = merge_options(options, DEFAULTS)
    if merged["tie_break"] not in TIE_BREAKS:
        errors.append(("tie_break", f"must be one of {', '.join(TIE_BREAKS)} (got {merged['tie_break']!r})"))
    if merged["first_player"] not in FIRST_PLAYERS:
        errors.append(
            ("first_player", f"must be one of {', '.join(FIRST_PLAYERS)} (got {merged['first_player']!r})")
        )
    check_int(errors, "max_rounds", merged["max_rounds"], 1, MAX_ROUNDS_LIMIT)
    check_int(errors, "max_actions", merged["max_actions"], 1, MAX_ACTIONS_LIMIT)
    raise_if_errors(errors)
    return merged
