"""The engine's exceptions: an illegal action, and bad match input (options, setup, names)."""

from __future__ import annotations


class IllegalAction(Exception):
    """An action that is not among the legal actions of the current decision."""

    def __init__(self, action: object, legal: list | tuple, message: str = "") -> None:
        """An illegal `action` with the legal ones, and a message naming them."""
        self.action = action
        self.legal = list(legal)
        shown = ", ".join(repr(a) for a in self.legal[:12])
        more = f" (+{len(self.legal) - 12} more)" if len(self.legal) > 12 else ""
        super().__init__(message or f"Illegal action {action!r}; legal actions are: {shown}{more}")


class MatchInputError(ValueError):
    """Bad input to a match (options, setup, agent or game name); the message says what and why."""

    def __init__(self, message: str, errors: list[tuple[str, str]] | None = None) -> None:
        """A message and the (field, reason) pairs behind it."""
        self.errors = errors or []
        super().__init__(message)


class OptionsError(MatchInputError):
    """Match options that are unknown or out of range."""


class SetupError(MatchInputError):
    """A match setup (armies, collections) the engine cannot start from."""


class UnknownAgentError(MatchInputError):
    """An agent name that is not registered for the game."""


class UnknownGameError(MatchInputError):
    """A game name that has no engine."""
