"""Akin Legends match options and their validator."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from simulate.engine.options import check_int, merge_options, raise_if_errors

MAX_ROUNDS_LIMIT = 200
MAX_ACTIONS_LIMIT = 100_000

DEFAULTS: dict[str, Any] = {
    "max_rounds": 30,  # L12: reached without a winner -> draw
    "max_actions": 5_000,  # hard cap on decisions (turns and allocations) -> draw
}


def validate_options(options: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Options with defaults filled in; OptionsError lists every unknown key and bad value."""
    merged, errors = merge_options(options, DEFAULTS)
    check_int(errors, "max_rounds", merged["max_rounds"], 1, MAX_ROUNDS_LIMIT)
    check_int(errors, "max_actions", merged["max_actions"], 1, MAX_ACTIONS_LIMIT)
    raise_if_errors(errors)
    return merged
