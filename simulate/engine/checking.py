"""The spec checker both games share: it reads plain data field by field, notes every problem with its
path instead of stopping at the first, and raises one error listing them all.

A parser makes one `Checker`, reads its input through it (each reader notes what is wrong and returns a
neutral value so reading goes on), and ends with `raise_if_failed`. Each problem is a `(path, reason)` pair,
the shape of `InputError.errors`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

# What a problem is: where in the input (a dotted path, "effects[2].amount"), and why it is refused.
Problem = tuple[str, str]


class Checker:
    """Collects every problem of a spec instead of stopping at the first."""

    def __init__(self) -> None:
        """A checker that has found nothing yet."""
        self.errors: list[Problem] = []

    def fail(self, path: str, reason: str) -> None:
        """Note one problem at `path`."""
        self.errors.append((path, reason))

    def extend(self, problems: Sequence[Problem]) -> None:
        """Note the problems another parser found (a nested spec's error), in their order."""
        self.errors.extend(problems)

    def mark(self) -> int:
        """A point to compare with later (`failed_since`): the problems noted so far."""
        return len(self.errors)

    def failed_since(self, mark: int) -> bool:
        """Whether a problem was noted after `mark` (one part of the input is wrong, the rest may be fine)."""
        return len(self.errors) > mark

    def raise_if_failed(self, error: Callable[[list[Problem]], Exception]) -> None:
        """Raise `error(problems)` once, listing every problem, when any was noted."""
        if self.errors:
            raise error(self.errors)

    def obj(self, value: Any, path: str) -> dict[str, Any] | None:
        """`value` if it is an object."""
        if not isinstance(value, dict):
            self.fail(path, "must be an object")
            return None
        return value

    def mapping(self, value: Any, path: str, reason: str = "must be an object") -> Mapping[str, Any] | None:
        """`value` if it is any mapping (a dict or a read-only view of one)."""
        if not isinstance(value, Mapping):
            self.fail(path, reason)
            return None
        return value

    def text(self, data: dict[str, Any], key: str, path: str, required: bool = True, max_len: int = 400) -> str:
        """A non-empty string field."""
        value = data.get(key)
        if value is None:
            if required:
                self.fail(f"{path}.{key}", "is required")
            return ""
        if not isinstance(value, str) or not value.strip():
            self.fail(f"{path}.{key}", "must be a non-empty string")
            return ""
        if len(value) > max_len:
            self.fail(f"{path}.{key}", f"must be at most {max_len} characters")
        return value

    def choice(
        self, data: Mapping[str, Any], key: str, options: Sequence[str], path: str, default: str | None = None
    ) -> str:
        """One of `options`."""
        value = data.get(key, default)
        if value is None:
            self.fail(f"{path}.{key}", "is required")
            return ""
        if value not in options:
            self.fail(f"{path}.{key}", f"must be one of {', '.join(options)} (got {value!r})")
            return ""
        return str(value)

    def integer(
        self, data: Mapping[str, Any], key: str, path: str, low: int, high: int, default: int | None = None
    ) -> int:
        """An integer within bounds."""
        value = data.get(key, default)
        if value is None:
            self.fail(f"{path}.{key}", "is required")
            return 0
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(f"{path}.{key}", "must be an integer")
            return 0
        if not low <= value <= high:
            self.fail(f"{path}.{key}", f"must be between {low} and {high}")
        return value

    def number(self, data: dict[str, Any], key: str, path: str, low: float, high: float) -> float:
        """A number within bounds (0 when absent)."""
        value = data.get(key, 0)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            self.fail(f"{path}.{key}", "must be a number")
            return 0.0
        if not low <= value <= high:
            self.fail(f"{path}.{key}", f"must be between {low} and {high}")
        return float(value)

    def boolean(self, data: dict[str, Any], key: str, path: str) -> bool:
        """true or false (false when absent)."""
        value = data.get(key, False)
        if not isinstance(value, bool):
            self.fail(f"{path}.{key}", "must be true or false")
            return False
        return value

    def unknown_keys(
        self, data: Mapping[Any, Any], allowed: set[str] | frozenset[str], path: str,
        refused: Mapping[str, str] | None = None,
    ) -> None:
        """Every key that is not allowed, in the order of its text; `refused` gives some keys their own reason."""
        reasons = refused or {}
        for key in sorted(set(data) - allowed, key=str):
            self.fail(f"{path}.{key}", reasons.get(key, "is not a known field"))
