"""The engines' one error family: an illegal action, or bad input (a spec, options, a setup, a name)
carrying the (path, reason) pairs behind it. The API maps each to one answer (400 with `fields`)."""

from __future__ import annotations


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

    def __init__(self, message: str, errors: list[tuple[str, str]] | None = None) -> None:
        """A message and the (path, reason) pairs behind it."""
        self.errors = errors or []
        super().__init__(message)


class SpecError(InputError):
    """A card's ability or effect spec that cannot be executed."""

    def __init__(self, errors: list[tuple[str, str]]) -> None:
        """Every (path, reason) pair of the spec, joined as the message."""
        super().__init__("; ".join(f"{path}: {reason}" for path, reason in errors), errors)


class OptionsError(InputError):
    """Match options that are unknown or out of range."""


class SetupError(InputError):
    """A match setup (armies, collections, teams) the engine cannot start from."""


class UnknownAgentError(InputError):
    """An agent name that is not registered for the game."""


class UnknownGameError(InputError):
    """A game name that has no engine."""
