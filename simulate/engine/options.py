"""What every game's options validator shares: defaults, unknown keys, integer ranges, one error."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from simulate.engine.errors import OptionsError


def merge_options(options: Mapping[str, Any] | None, defaults: Mapping[str, Any]) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """Options over their defaults, and an error for each unknown key; OptionsError if not a mapping."""
    if options is None:
        options = {}
    if not isinstance(options, Mapping):
        raise OptionsError("Options must be a mapping of option names to values.", [("options", "type")])
    errors: list[tuple[str, str]] = [
        (str(key), f"is not an option (known: {', '.join(defaults)})")
        for key in sorted(set(options) - set(defaults), key=str)
    ]
    merged = {**defaults, **{k: v for k, v in options.items() if k in defaults}}
    return merged, errors


def check_int(errors: list[tuple[str, str]], key: str, value: Any, low: int, high: int) -> None:
    """Note an error unless `value` is an integer within [low, high]."""
    if isinstance(value, bool) or not isinstance(value, int):
        errors.append((key, f"must be an integer from {low} to {high} (got {value!r})"))
    elif not low <= value <= high:
        errors.append((key, f"must be from {low} to {high} (got {value})"))


def raise_if_errors(errors: list[tuple[str, str]]) -> None:
    """One OptionsError naming every bad option, if there is any."""
    if errors:
        raise OptionsError("Bad match options: " + "; ".join(f"{k} {r}" for k, r in errors), errors)
