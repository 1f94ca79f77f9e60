"""Matches with people at some seats: the match is its inputs, its seed and the decisions taken so far.

A person decides at a seat exactly where an agent would: only when the pending decision has more than one legal
action (the runner applies a single one without asking), from the same legal actions, seeing what the seat's
observation shows (G2). Every decision asked of a player, a person's or an agent's, is a move (player, action as
JSON). `resume` replays the match from its seed through the recorded moves, so what a person sees is always what
the rules made of them, and a finished match replays with `runner.play_match` from the same seed, each person's
seat played by a `Scripted` agent of its moves.

Agents keep state across a match (their own generator, a look-ahead's budget), so their recorded moves are not
enough to go on: `resume(..., agents=...)` calls every agent at each of its decisions from the start, checks that
it chooses what it chose before, and lets it decide the decisions that follow until a person's turn comes.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from simulate.engine.agents import get_agent
from simulate.engine.deciders import SeatDecider
from simulate.engine.errors import IllegalAction, InputError
from simulate.engine.games import TABLE, GameState, get_game
from simulate.engine.runner import HARD_MAX_ACTIONS

PERSON = "person"  # a seat's entry in a match's agents when a person plays it
Move = tuple[str, Any]  # (player, action as JSON: lists, never tuples)


def as_json(action: Any) -> Any:
    """An action as JSON writes it: tuples as lists, all the way down."""
    if isinstance(action, (tuple, list)):
        return [as_json(part) for part in action]
    return action


def find_legal(legal: Sequence[Any], action: Any) -> Any | None:
    """The legal action that is `action` written as JSON, or None."""
    wanted = as_json(action)
    for offered in legal:
        if as_json(offered) == wanted:
            return offered
    return None


class Diverged(Exception):
    """An agent chose otherwise than its recorded move: the moves are not this match's."""


@dataclass
class Resumed:
    """A match replayed to its first decision with no move recorded (or to its end)."""

    state: GameState
    waiting: str | None  # the player to decide now; None when the match is over
    moves: list[Move]  # the recorded moves, with those the agents took in this resumption after them
    applied: int  # decisions applied, asked or not (the runner's cap counts these)

    @property
    def over(self) -> bool:
        return self.waiting is None


def resume(
    game: str,
    *,
    setup: Any,
    options: Mapping[str, Any],
    seed: int,
    seats: Mapping[str, str],
    moves: Sequence[Move],
    agents: bool = False,
    keep_log: bool = True,
) -> Resumed:
    """Replay a match through `moves`. `seats` names each player's agent, or PERSON. With `agents` off, every
    decision asked is taken from `moves` and the replay stops at the first one with no move left (a person's or an
    agent's); with it on, every agent seat's agent decides (checked against its recorded moves, Diverged if it
    chose otherwise) and the replay stops at the first person's decision with no move left."""
    rules = get_game(game)
    opts = rules.validate_options(options)
    names = {player: seats[player] for player in seats}
    state = rules.new_state(setup, opts, seed, keep_log, names)
    deciders: dict[str, SeatDecider] = {}
    if agents:
        deciders = {player: SeatDecider(get_agent(name, rules.name), random.Random(state.agent_seeds[player]))
                    for player, name in seats.items() if name != PERSON}
    cap = min(int(opts.get("max_actions", HARD_MAX_ACTIONS)), HARD_MAX_ACTIONS)
    played: list[Move] = []
    applied = 0
    while not state.is_terminal():
        if applied >= cap:
            state.stop("max_actions")
            break
        legal = state.legal_actions()
        if len(legal) == 1:
            state.apply(legal[0])
            applied += 1
            continue
        player = state.current_player()
        assert player is not None
        recorded = moves[len(played)] if len(played) < len(moves) else None
        if recorded is not None and recorded[0] == TABLE:
            table_change(state, recorded[1], len(played))
            played.append((TABLE, as_json(recorded[1])))
            continue
        decider = deciders.get(player)
        if decider is None and recorded is None:
            return Resumed(state, player, played, applied)
        chosen = decided(state, player, legal, decider, recorded, len(played))
        state.apply(chosen)
        played.append((player, as_json(chosen)))
        applied += 1
    return Resumed(state, None, played, applied)


def table_change(state: GameState, change: Any, number: int) -> None:
    """Move `number`, a change made at the table while the decision is pending; Diverged when the game takes
    none or it is not possible there."""
    adjust = getattr(state, "table_change", None)
    if adjust is None:
        raise Diverged(f"Move {number} is a table change, which this game does not take.")
    try:
        adjust(change)
    except IllegalAction as refused:
        raise Diverged(f"Move {number} ({as_json(change)}): {refused}") from None


def decided(state: GameState, player: str, legal: list[Any], decider: SeatDecider | None, recorded: Move | None,
            number: int) -> Any:
    """Decision `number` of the match, `player`'s: its agent's choice (which must be the recorded move, if any),
    or the recorded move of a person's seat; Diverged when they are not this match's."""
    if recorded is not None and recorded[0] != player:
        raise Diverged(f"Move {number} is {recorded[0]}'s, but {player} decides there.")
    if decider is not None:
        chosen = decider(state.observation(player) if decider.observes else None, list(legal))
        if recorded is not None and as_json(chosen) != as_json(recorded[1]):
            raise Diverged(f"Move {number}: {player}'s agent chose {as_json(chosen)}, not {as_json(recorded[1])}.")
        return chosen
    assert recorded is not None
    chosen = find_legal(legal, recorded[1])
    if chosen is None:
        raise Diverged(f"Move {number} ({as_json(recorded[1])}) is not legal there.")
    return chosen


def check_move(resumed: Resumed, player: str, action: Any) -> Any:
    """The legal action `action` (JSON) of `player`, who must be the one to decide now; IllegalAction naming the
    legal ones otherwise."""
    if resumed.waiting != player:
        raise IllegalAction(action, [], "It is not this seat's turn." if resumed.waiting else "The match is over.")
    legal = resumed.state.legal_actions()
    chosen = find_legal(legal, action)
    if chosen is None:
        raise IllegalAction(action, [as_json(a) for a in legal], "This action is not legal now.")
    return chosen


class Scripted:
    """A person's seat in a replay: it plays the seat's recorded actions in order."""

    name = PERSON
    observes = False

    def __init__(self, actions: Sequence[Any]) -> None:
        self.actions = list(actions)
        self.next = 0

    def act(self, observation: Any, legal_actions: Sequence[Any], rng: random.Random) -> Any:
        if self.next >= len(self.actions):
            raise InputError("A person's seat has no move left to replay.", [("moves", "short")])
        chosen = find_legal(legal_actions, self.actions[self.next])
        if chosen is None:
            raise InputError(f"Recorded move {as_json(self.actions[self.next])} is not legal there.",
                             [("moves", "illegal")])
        self.next += 1
        return chosen


def scripted_agents(seats: Mapping[str, str], moves: Sequence[Sequence[Any]]) -> dict[str, Any]:
    """The agents that replay a match with people at some seats: each person's seat its recorded actions. `moves`
    are (player, action) pairs, as tuples or as the lists JSON gives."""
    return {player: Scripted([move[1] for move in moves if move[0] == player]) if name == PERSON else name
            for player, name in seats.items()}


def visible_events(events: Sequence[Mapping[str, Any]], player: str) -> list[Mapping[str, Any]]:
    """The events `player` could see when they happened (G2): those public (no `visible_to`) or visible to it."""
    return [event for event in events if "visible_to" not in event or player in event["visible_to"]]
