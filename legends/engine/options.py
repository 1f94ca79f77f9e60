"""Akin Legends match options and their validator."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from simulate.engine.errors import OptionsError

MAX_ROUNDS_LIMIT = 200
MAX_ACTIONS_LIMIT = 100_000

DEFAULTS: dict[str, Any] = {
    "max_rounds": 30,  # L12: reached without a winner -> draw
    "max_actions": 5_000,  # hard cap on decisions (turns and allocations) -> draw
}


def _int_in(errors: list[tuple[str, str]], key: str, value: Any, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        errors.append((key, f"must be an integer from {low} to {high} (got {value!r})"))
    elif not low <= value <= high:
        errors.append((key, f"must be from {low} to {high} (got {value})"))


def validate_options(options: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Options with defaults filled in; OptionsError lists every unknown key and bad value."""
    if options is None:
        options = {}
    if not isinstance(options, Mapping):
        raise OptionsError("Options must be a mapping of option names to values.", [("options", "type")])
    errors: list[tuple[str, str]] = []
    for key in sorted(set(options) - set(DEFAULTS), key=str):
        errors.append((str(key), f"is not an option (known: {', '.join(DEFAULTS)})"))
    merged = {**DEFAULTS, **{k: v for k, v in options.items() if k in DEFAULTS}}
    _int_in(errors, "max_rounds", merged["max_rounds"], 1, MAX_ROUNDS_LIMIT)
    _int_in(errors, "max_actions", merged["max_actions"], 1, MAX_ACTIONS_LIMIT)
    if errors:
        raise OptionsError("Bad match options: " + "; ".join(f"{k} {r}" for k, r in errors), errors)
    return merged
