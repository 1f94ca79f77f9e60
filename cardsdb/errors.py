"""Domain errors that carry their own API answer (HackSoft's `ApplicationError`), so that the one error
handler (`cardsdb.api.errors.exception_handler`) knows this base and no app above the shared one.

A domain error declares its HTTP `status` and its `code`; its message is `str(error)`, and `details()` gives
the other keys of its answer (`fields`, `violations`...). An app's error subclasses `DomainError`; an error
that may not import Django or cardsdb (an engine's, pure Python) declares the same attributes and its app
registers it from `ready()`: `DomainError.register(InputError)`.
"""

from __future__ import annotations

from abc import ABCMeta
from typing import Any, ClassVar


class DomainError(Exception, metaclass=ABCMeta):
    """A refusal of the domain, answered with `status`, `code`, `str(self)` as the message and `details()`."""

    status: ClassVar[int]  # the HTTP status of the answer (4xx)
    code: ClassVar[str]  # the machine `code` of the answer

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Refuse, at import, a concrete error that does not say how it is answered."""
        super().__init_subclass__(**kwargs)
        missing = [name for name in ("status", "code") if not hasattr(cls, name)]
        if missing:
            raise TypeError(f"{cls.__qualname__} declares no {' or '.join(missing)} (a DomainError's answer)")

    def details(self) -> dict[str, Any]:
        """The keys of the answer besides `message` and `code` (none unless the error says)."""
        return {}
