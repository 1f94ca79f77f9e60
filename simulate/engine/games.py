"""The game protocol every rules engine implements, and the registry of games.

The core never imports a game at module level: `GAMES` maps a game name to the module
holding its `RULES`, imported on first use (games depend on the core, not the reverse).
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from simulate.engine.errors import UnknownGameError

GAMES: dict[str, str] = {
    "realms": "realms.engine.game",
    "legends": "legends.engine.game",
}


@dataclass(frozen=True)
class Outcome:
    """How a match ended: winner ('a', 'b' or None for a draw), reason, rounds played, survivors."""

    winner: str | None
    reason: str
    rounds: int
    survivors: dict[str, list[dict[str, Any]]] = field(default_factory=dict)


@runtime_checkable
class GameState(Protocol):
    """OpenSpiel-like match state: whose decision, its legal actions, apply, terminal, result."""

    rng: random.Random  # the match generator (G1); never handed to an agent (G2)
    agent_seeds: dict[str, int]  # per seat, drawn from `rng` when the match starts (G2); logged

    def current_player(self) -> str | None:
        """The player who decides now, or None when the match is over."""

    def legal_actions(self) -> list[Any]:
        """The actions the current player may take (never empty while not terminal)."""

    def apply(self, action: Any) -> None:
        """Play one action of the current player; raise IllegalAction if it is not legal."""

    def is_terminal(self) -> bool:
        """Whether the match is over."""

    def observation(self, player: str) -> Any:
        """What `player` may see now (G2), built by the engine; never the state itself."""

    def outcome(self) -> Outcome:
        """The result of a finished match."""

    def stop(self, reason: str) -> None:
        """End the match now as a draw with the given reason (the runner's hard caps)."""

    def events(self) -> list[dict[str, Any]] | None:
        """The event log so far, or None when the log is off."""


class GameRules(Protocol):
    """What a game plugs into the core."""

    name: str
    schema_version: int
    players: Sequence[str]
    event_fields: Mapping[str, tuple[str, ...]]

    def validate_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """Options with defaults filled in; raise OptionsError naming every bad one."""

    def new_state(
        self, setup: Any, options: dict[str, Any], seed: int, keep_log: bool, agents: Mapping[str, str] | None = None
    ) -> GameState:
        """A fresh match from a setup, validated options and a seed; `agents` names each seat's agent (logged)."""

    def render(self, events: Sequence[dict[str, Any]]) -> str:
        """The event log as a readable play-by-play."""


def get_game(name: str) -> GameRules:
    """The rules of a registered game; UnknownGameError for any other name."""
    path = GAMES.get(name) if isinstance(name, str) else None
    if path is None:
        known = ", ".join(sorted(GAMES))
        raise UnknownGameError(f"Unknown game {name!r}; known games: {known}.", [("game", "unknown")])
    module = importlib.import_module(path)
    rules: GameRules = module.RULES
    return rules
