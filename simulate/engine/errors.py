"""The engines' one error family: an illegal action, or bad input (a spec, options, a setup, a name)
carrying the (path, reason) pairs behind it. Bad input says how the API answers it (400 `invalid` with
`fields`), in plain attributes: the simulate app registers it as a `cardsdb.errors.DomainError`."""

from __future__ import annotations

from typing import ClassVar


class EngineError(Exception):
    """Anything an engine refuses."""


class IllegalAction(EngineError):
    """An action that is not among the legal actions of the current decision."""

    def __init__(self, action: object, legal: list[object] | tuple[object, ...], message: str = "") -> None:
        """An illegal `action` with the legal ones, and a message naming them."""
        self.action = action
        self.legal = list(legal)
        shown = ", ".join(repr(a) for a in self.legal[:12])
        more = f" (+{len(self.legal) - 12} more)" if len(self.legal) > 12 else ""
        super().__init__(message or f"Illegal action {action!r}; legal actions are: {shown}{more}")


class InputError(EngineError, ValueError):
    """Bad input to an engine; `errors` lists the (path, reason) pairs, the message says what and why."""

    # Its API answer (a DomainError's attributes): the message and each reason at its dotted request path.
    # Class variables (ClassVar), so that the compiled engine keeps them readable on every instance.
    status: ClassVar[int] = 400
    code: ClassVar[str] = "invalid"
    field: ClassVar[str] = ""  # the input its paths start from, as a match request names it ("": request paths)

    def __init__(self, message: str, errors: list[tuple[str, str]] | None = None) -> None:
        """A message and the (path, reason) pairs behind it."""
        self.errors = errors or []
        super().__init__(message)

    def details(self) -> dict[str, object]:
        """The answer's `fields`: {dotted request path: [reasons]}."""
        return {"fields": input_error_fields(self)}


class SpecError(InputError):
    """A card's ability or effect spec that cannot be executed."""

    field: ClassVar[str] = "setup"

    def __init__(self, errors: list[tuple[str, str]]) -> None:
        """Every (path, reason) pair of the spec, joined as the message."""
        super().__init__("; ".join(f"{path}: {reason}" for path, reason in errors), errors)


class OptionsError(InputError):
    """Match options that are unknown or out of range."""

    field: ClassVar[str] = "options"


class SetupError(InputError):
    """A match setup (armies, collections, teams) the engine cannot start from."""

    field: ClassVar[str] = "setup"


class UnknownAgentError(InputError):
    """An agent name that is not registered for the game."""

    field: ClassVar[str] = "agents"


class UnknownGameError(InputError):
    """A game name that has no engine."""

    field: ClassVar[str] = "game"


def input_error_fields(exc: InputError) -> dict[str, list[str]]:
    """{dotted request path: [reasons]} for an input error (`teams[0].players` reads `teams.0.players`), each
    path under the input it starts from."""
    root = exc.field
    fields: dict[str, list[str]] = {}
    for path, reason in exc.errors:
        dotted = path.replace("[", ".").replace("]", "")
        if root and dotted != root and not dotted.startswith(f"{root}."):
            dotted = f"{root}.{dotted}" if dotted else root
        fields.setdefault(dotted or "non_field_errors", []).append(reason)
    return fields or {root or "non_field_errors": [str(exc)]}
