"""The game protocol every rules engine implements, and the registry of games.

A game plugs into the core with one module exposing `RULES` (a `GameRules`); its states are
`GameState`s and what a player sees of one is an `Observation`. The core never imports a game
at module level: `GAMES` maps a game name to that module, imported on first use (games depend
on the core, not the reverse).
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from simulate.engine.errors import UnknownGameError
from simulate.engine.events import EventLog

GAMES: dict[str, str] = {
    "realms": "realms.engine.game",
    "legends": "legends.engine.game",
}

# The mover of a change made at a table between decisions (a physical game's players correcting what stands on
# it), as a game's moves record it beside its players' decisions: a state that allows them is `TableAdjustable`.
TABLE = "table"

# A seat's agent as the runner hands it to a state: (observation, legal actions) -> one of them.
Decider = Callable[[Any, list[Any]], Any]


@dataclass(frozen=True)
class Outcome:
    """How a match ended: the winning side as the game names it (None for a draw), reason, rounds, survivors."""

    winner: str | None
    reason: str
    rounds: int
    survivors: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    # What each side played, by side, where the game tells it (the cards each side played, say), so that a
    # study can count it without keeping the log.
    played: dict[str, list[str]] | None = None
    # The side of the player who acts first in the match, where the game's rules name one (a first player, or
    # the team whose turn comes first): studies split their figures by it.
    first: str | None = None


class Observation(Protocol):
    """What one player may see of a match now (G2): built by the engine, never the state itself."""

    def sandbox(self, seed: int) -> GameState:
        """A look-ahead match consistent with what this player sees, without log, seeded from `seed`:
        a copy of the match when nothing is hidden from the player, otherwise a determinisation (every
        card the player cannot see dealt at random from the cards it has not seen)."""


class GameState(Protocol):
    """OpenSpiel-like match state: whose decision, its legal actions, apply, terminal, outcome."""

    @property
    def rng(self) -> random.Random:
        """The match generator (G1); never handed to an agent (G2)."""

    @property
    def agent_seeds(self) -> dict[str, int]:
        """Per seat, drawn from `rng` when the match starts (G2); logged."""

    def current_player(self) -> str | None:
        """The player who decides now, or None when the match is over."""

    def legal_actions(self) -> list[Any]:
        """The actions the current player may take (never empty while not terminal)."""

    def apply(self, action: Any) -> None:
        """Play one action of the current player and run on to the next decision; IllegalAction if not legal."""

    def is_terminal(self) -> bool:
        """Whether the match is over."""

    def observation(self, player: str) -> Observation:
        """What `player` may see now (G2)."""

    def outcome(self) -> Outcome:
        """The result of a finished match."""

    def stop(self, reason: str) -> None:
        """End the match now as a draw with the given reason (the runner's hard caps)."""

    def events(self) -> list[dict[str, Any]] | None:
        """The event log so far, or None when the log is off."""

    def event_log(self) -> EventLog | None:
        """The log itself, as recorded (its events are made into dicts when read), or None when it is off."""

    def clone(self, seed: int) -> GameState:
        """An independent copy of the whole state, without log, with a generator seeded from `seed`
        (look-ahead from a state that is already complete, such as a sandbox)."""


class TableAdjustable(Protocol):
    """A state whose players may change what stands on the table while a decision is pending."""

    def table_change(self, change: Any) -> None:
        """Make one change (as JSON writes it), log it and what it causes; IllegalAction saying why not."""


class PlaysDecisions(Protocol):
    """A state may also take a whole decision in one call, which the runner then uses in its loop."""

    def play_decision(self, agents: Mapping[str, Decider]) -> None:
        """Ask the current player's decider (unless one action is legal) and apply its action."""


class GameRules(Protocol):
    """What a game plugs into the core (`RULES` in the module `GAMES` names)."""

    @property
    def name(self) -> str:
        """The game's registered name."""

    @property
    def schema_version(self) -> int:
        """The version of its event schema."""

    @property
    def players(self) -> Sequence[str]:
        """Every seat a match may have, in seat order."""

    @property
    def event_fields(self) -> Mapping[str, tuple[str, ...]]:
        """The fields of each event type."""

    @property
    def past_event_fields(self) -> Mapping[int, Mapping[str, tuple[str, ...]]]:
        """The fields of each event type for each earlier schema version."""

    def validate_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """Options with defaults filled in; raise OptionsError naming every bad one."""

    def new_state(
        self, setup: Any, options: dict[str, Any], seed: int, keep_log: bool, agents: Mapping[str, str] | None = None
    ) -> GameState:
        """A match at its first decision from a setup, validated options and a seed; SetupError if it cannot
        start. `agents` names each seat's agent (logged)."""

    def render(self, events: Sequence[dict[str, Any]]) -> str:
        """The event log as a readable play-by-play."""


class SeatsBySetup(Protocol):
    """Rules whose seats depend on the setup (fewer players in some modes) also say which a setup has."""

    def players_for(self, setup: Any) -> Sequence[str]:
        """The seats of this setup, in seat order, for the runner to fill (a subset of `players`)."""


def missing_members(obj: object, protocol: type) -> list[str]:
    """The members (methods and attributes) that `protocol` declares and `obj` lacks: the check `isinstance` makes
    of a runtime-checkable protocol, which a compiled protocol class cannot be."""
    declared = [name for name in vars(protocol) if not name.startswith("_")]  # its data members are properties
    return [name for name in declared if not hasattr(obj, name)]


_LOADED: dict[str, GameRules] = {}  # a registered game's rules by module path


def get_game(name: str) -> GameRules:
    """The rules of a registered game; UnknownGameError for any other name."""
    path = GAMES.get(name) if isinstance(name, str) else None
    if path is None:
        known = ", ".join(sorted(GAMES))
        raise UnknownGameError(f"Unknown game {name!r}; known games: {known}.", [("game", "unknown")])
    rules = _LOADED.get(path)
    if rules is None:  # imported once: the runner asks for a game's rules at every match
        rules = _LOADED[path] = importlib.import_module(path).RULES
    return rules
