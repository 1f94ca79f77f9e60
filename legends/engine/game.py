"""Akin Legends plugged into the shared engine core (`simulate.engine.games.GAMES['legends']`).

Entry points:
- `play_match("legends", setup=..., agents=..., seed=..., options=...)` (core runner): the
  core asks `RULES.players_for(setup)` which seats the setup has ("t0p0", "t0p1", "t1p0", "t1p1" in
  teams mode; "t0p0" and "t1p0" in a duel) and seats agents for those.
- `play_legends_match(setup=..., agents=..., seed=..., options=...)`: the same match, with the
  agents given for the players the setup actually seats (4 in teams mode, 2 in a duel), as a
  list in setup order (team 0 first) or a mapping by player id. Use this one for duels.
- `new_match(setup, seed=...)`: a state for step-by-step play.
- `winner_team(result)`: the winning team index (0 or 1) or None for a draw; the core's
  `MatchResult.winner` carries it as the string "0" / "1" (or None).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

import legends.engine.agents  # noqa: F401  (registers the Akin Legends agents)
import legends.engine.ismcts_agent  # noqa: F401  (registers the Akin Legends search agents)
from legends.engine.events import EVENT_FIELDS, PAST_EVENT_FIELDS, SCHEMA_VERSION
from legends.engine.options import validate_options
from legends.engine.playbyplay import render_events
from legends.engine.start import normalize_setup, setup_players
from legends.engine.state import LegendsState
from legends.engine.vocabulary import PLAYER_IDS, SEAT_COUNTS
from simulate.engine.agents import Agent
from simulate.engine.runner import MatchResult, play_match


class LegendsRules:
    """The Akin Legends rules as the core runner sees them."""

    def __init__(self) -> None:
        """The game's name, log schema, every seat a match may have and the fields of each event type."""
        self.name = "legends"
        self.schema_version = SCHEMA_VERSION
        self.players = PLAYER_IDS
        self.event_fields = EVENT_FIELDS
        self.past_event_fields = PAST_EVENT_FIELDS

    def validate_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """Options with defaults; OptionsError naming every bad one."""
        return validate_options(options)

    def new_state(
        self, setup: Any, options: dict[str, Any], seed: int, keep_log: bool, agents: Mapping[str, str] | None = None
    ) -> LegendsState:
        """A match at its first decision: the setup checked (SetupError lists every violation), missing cards
        drawn from the match generator (L6), the players dealt."""
        rng = random.Random(seed)
        start = normalize_setup(setup, rng)
        state = LegendsState(start.mode, start.catalogue, options, seed, keep_log=keep_log, agents=agents, rng=rng)
        state.start(start)
        return state

    def render(self, events: Sequence[dict[str, Any]]) -> str:
        """The play-by-play text of an event log."""
        return render_events(events)

    def players_for(self, setup: Any) -> list[str]:
        """The seats of this setup (four in teams mode, two in a duel), for the runner to fill."""
        players = setup_players(setup)
        if len(players) not in SEAT_COUNTS:  # a malformed setup: report it rather than the agents
            normalize_setup(setup, random.Random(0))
        return players


RULES = LegendsRules()


def new_match(setup: Any, *, seed: int, options: Mapping[str, Any] | None = None, keep_log: bool = True) -> LegendsState:
    """A fresh Akin Legends match state (options validated), for step-by-step play."""
    return RULES.new_state(setup, validate_options(options), seed, keep_log)


def play_legends_match(
    *,
    setup: Any,
    agents: Mapping[str, str | Agent] | Sequence[str | Agent],
    seed: int,
    options: Mapping[str, Any] | None = None,
    keep_log: bool = True,
) -> MatchResult:
    """Play one match, agents given per player of the setup (teams or duel): a list in setup order or a
    mapping by player id."""
    return play_match("legends", setup=setup, agents=agents, seed=seed, options=options, keep_log=keep_log)


def winner_team(result: MatchResult | Any) -> int | None:
    """The winning team index of a result (or an Outcome): 0, 1, or None for a draw."""
    return None if result.winner is None else int(result.winner)
