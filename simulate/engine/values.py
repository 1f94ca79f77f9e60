"""Values: objects that never change once made, such as the snapshots an observation holds (G2).

A value class declares every attribute `Final` and sets it in `__init__`. Compiled by mypyc, such a
class is native and its attributes are read-only; `read_only(cls)` gives it the same guarantee when
the engines run as plain Python (each attribute can be set once, while the object is made).
"""

from __future__ import annotations

from typing import Any, TypeVar

T = TypeVar("T", bound=type)


def read_only(cls: T) -> T:
    """Make the attributes of `cls`'s instances read-only once set (as they are when mypyc compiles it)."""
    if hasattr(cls, "__mypyc_attrs__"):  # compiled: Final attributes are read-only already
        return cls

    def __setattr__(self: Any, name: str, value: Any) -> None:
        if hasattr(self, name):
            raise AttributeError(f"attribute {name!r} of {type(self).__name__!r} objects is not writable")
        object.__setattr__(self, name, value)

    setattr(cls, "__setattr__", __setattr__)  # noqa: B010 - mypy: a method cannot be assigned directly
    return cls
