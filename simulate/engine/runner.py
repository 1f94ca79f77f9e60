"""The runner: plays a match to the end under hard caps and returns its result and log."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from simulate.engine.agents import Agent, get_agent
from simulate.engine.deciders import SeatDecider, observes
from simulate.engine.errors import InputError, OptionsError
from simulate.engine.events import EventLog
from simulate.engine.games import GameRules, get_game

# No game may run past this many applied actions, whatever its options say.
HARD_MAX_ACTIONS = 100_000


@dataclass
class MatchResult:
    """The outcome of one match, with its event log when it was kept."""

    game: str
    seed: int
    winner: str | None
    reason: str
    rounds: int
    actions: int
    survivors: dict[str, list[dict[str, Any]]]
    log: EventLog | None  # the log as the engine recorded it; `events` reads it
    schema_version: int
    options: dict[str, Any]
    agents: dict[str, str]
    played: dict[str, list[str]] | None = None  # Outcome.played; not part of to_dict (nor of any answer)
    first: str | None = None  # Outcome.first: the side that acted first; not part of to_dict

    @property
    def events(self) -> list[dict[str, Any]] | None:
        """The event log as documented dicts (made when first read: a match whose log nobody reads pays only
        for its compact records), or None when it was not kept."""
        return self.log.to_list() if self.log is not None else None

    @property
    def is_draw(self) -> bool:
        """Whether the match ended without a winner."""
        return self.winner is None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable copy."""
        return {
            "game": self.game,
            "seed": self.seed,
            "winner": self.winner,
            "reason": self.reason,
            "rounds": self.rounds,
            "actions": self.actions,
            "survivors": self.survivors,
            "events": self.events,
            "schema_version": self.schema_version,
            "options": self.options,
            "agents": self.agents,
        }


def validate_options(game: str, options: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The game's options with defaults filled in; OptionsError (a ValueError) names every bad one."""
    return get_game(game).validate_options(options)


def _seat_agents(
    agents: Mapping[str, str | Agent] | Sequence[str | Agent], rules: GameRules, setup: Any
) -> dict[str, Agent]:
    """One agent per player of this setup, from names (registry) or ready agent objects.

    A game whose seats depend on the setup (a duel seats fewer players) says so with `players_for`.
    """
    players = list(rules.players_for(setup) if hasattr(rules, "players_for") else rules.players)
    if isinstance(agents, Mapping):
        unknown = sorted(set(agents) - set(players))
        missing = [p for p in players if p not in agents]
        if unknown or missing:
            raise InputError(
                f"Agents are needed for players {', '.join(players)}"
                + (f"; missing {', '.join(missing)}" if missing else "")
                + (f"; unknown players {', '.join(map(str, unknown))}" if unknown else "")
                + ".",
                [("agents", "players")],
            )
        chosen = [agents[p] for p in players]
    elif isinstance(agents, Sequence) and not isinstance(agents, str):
        if len(agents) != len(players):
            raise InputError(
                f"Give {len(players)} agents (one per player {', '.join(players)}), not {len(agents)}.",
                [("agents", "count")],
            )
        chosen = list(agents)
    else:
        raise InputError("Agents are a mapping player -> name or a list of names.", [("agents", "type")])
    return {
        p: (get_agent(a, rules.name) if isinstance(a, str) else a) for p, a in zip(players, chosen, strict=True)
    }


def _play_decision(state: Any, agents: Mapping[str, Any]) -> None:
    """Take the pending decision: its player's agent chooses (`agents` maps a player to a function of
    the observation and the legal actions), except that a single legal action is applied without asking.

    A game state may offer this as `play_decision(agents)`, to save calls in the loop below.
    """
    player = state.current_player()
    legal = state.legal_actions()
    if len(legal) == 1:
        state.apply(legal[0])
        return
    decide = agents[player]
    state.apply(decide(state.observation(player) if observes(decide) else None, list(legal)))


def _decider(agent: Agent, rng: random.Random) -> SeatDecider:
    """The agent's `act` with its own generator bound (G2: never the match generator)."""
    return SeatDecider(agent, rng)


def play_match(
    game: str,
    *,
    setup: Any,
    agents: Mapping[str, str | Agent] | Sequence[str | Agent],
    seed: object,  # checked below: a compiled function would refuse a non-integer before a clear message
    options: Mapping[str, Any] | None = None,
    keep_log: bool = True,
) -> MatchResult:
    """Play one match to the end (or a hard cap) and return its result."""
    rules = get_game(game)
    opts = rules.validate_options(options)
    seats = _seat_agents(agents, rules, setup)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise OptionsError(f"The seed must be an integer (got {seed!r}).", [("seed", "type")])
    names = {p: getattr(a, "name", type(a).__name__) for p, a in seats.items()}
    state = rules.new_state(setup, opts, seed, keep_log, names)
    cap = min(int(opts.get("max_actions", HARD_MAX_ACTIONS)), HARD_MAX_ACTIONS)
    applied = 0
    # Bound methods in locals: this loop runs once per decision of every match.
    is_terminal = state.is_terminal
    play = getattr(state, "play_decision", None) or partial(_play_decision, state)
    acts = {p: _decider(a, random.Random(state.agent_seeds[p])) for p, a in seats.items()}
    while not is_terminal():
        if applied >= cap:
            state.stop("max_actions")
            break
        play(acts)
        applied += 1
    outcome = state.outcome()
    return MatchResult(
        game=rules.name,
        seed=seed,
        winner=outcome.winner,
        reason=outcome.reason,
        rounds=outcome.rounds,
        actions=applied,
        survivors=outcome.survivors,
        log=state.event_log(),
        schema_version=rules.schema_version,
        options=opts,
        agents=names,
        played=outcome.played,
        first=outcome.first,
    )


def render_log(game: str, events: Sequence[dict[str, Any]]) -> str:
    """The event log of a `game` match as readable play-by-play text."""
    return get_game(game).render(events)
