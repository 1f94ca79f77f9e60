"""Akin Legends match options and their validator."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from legends.engine.vocabulary import (
    MAX_ACTIONS_DEFAULT,
    MAX_ACTIONS_LIMIT,
    MAX_ROUNDS_DEFAULT,
    MAX_ROUNDS_LIMIT,
)
from simulate.engine.options import check_int, merge_options, raise_if_errors

DEFAULTS: dict[str, Any] = {
    "max_rounds": MAX_ROUNDS_DEFAULT,  # L12: reached without a winner -> draw
    "max_actions": MAX_ACTIONS_DEFAULT,  # hard cap on decisions (turns, heals and allocations) -> draw
}


def validate_options(options: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Options with defaults filled in; OptionsError lists every unknown key and bad value."""
    merged, errors = merge_options(options, DEFAULTS)
    check_int(errors, "max_rounds", merged["max_rounds"], 1, MAX_ROUNDS_LIMIT)
    check_int(errors, "max_actions", merged["max_actions"], 1, MAX_ACTIONS_LIMIT)
    raise_if_errors(errors)
    return merged
