"""Akin Legends' information-set Monte Carlo tree search agents, `ismcts` and `ismcts-strong` (the search itself:
`simulate.engine.ismcts`).

Every iteration deals the cards the player cannot see (other hands, the draw pile, face-down cards) from the
cards it has not seen (`observation.sandbox`, G2): the search never reads a hidden card. The tree branches on
greedy's best few plays of a turn; allocations (L10) and healing choices (L9) take their default policies
(`default_allocation`, `default_heal`), so they are forced steps, not branches. Playouts are greedy play for
every player; teammates share one reward (teams mode). A position is worth 1 won, 0 lost, 0.5 drawn, and
between 0.1 and 0.9 by `evaluate` (defenses standing, markers on them) when a playout stops before the end.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Any, Final

from legends.engine.agents import GreedyAgent, default_allocation, default_heal, evaluate
from legends.engine.observation import LegendsObservation
from legends.engine.table import Action
from simulate.engine.agents import register_agent
from simulate.engine.ismcts import IsmctsPlayer

# Iterations a decision (deals of the hidden cards, each one walk down the tree and one playout), chosen by
# measuring (docs/simulate.md); the strong level searches four times as long.
ITERATIONS: Final = 96
STRONG_ITERATIONS: Final = 384
BRANCHING: Final = 3  # greedy's best plays the tree branches on at a turn
ITERATION_DECISIONS: Final = 60  # decisions one iteration may apply: tree and playout
HORIZON: Final = 2  # showdowns a playout looks ahead (1: to the end of the round) before it is judged
# A seat's match may simulate this many whole searches: about five times what an ordinary duel spends, so that it
# binds only in matches that stall.
MATCH_SEARCHES: Final = 20
VALUE_SCALE: Final = 10.0  # `evaluate`'s units (a defense destroyed is worth 10) in the reward's logistic


class LegendsIsmctsHooks:
    """What the search needs of Akin Legends: greedy's best plays to branch on, default allocations and heals,
    greedy playouts, `evaluate`'s value."""

    def __init__(self, branching: int = BRANCHING) -> None:
        """Hooks branching on greedy's best `branching` plays of a turn."""
        self.branching = branching
        self.greedy = GreedyAgent()

    def decider(self, state: Any) -> str | None:
        """The player deciding, or None at a step no player chooses."""
        player: str | None = state.current_player()
        return player

    def forced(self, state: Any) -> Any:
        """The state's first pending action (its only one where no player chooses)."""
        return state.pending_actions()[0]

    def branches(self, state: Any, player: str) -> list[Any]:
        """Greedy's best `branching` plays, best first; the default allocation or heal alone (forced)."""
        legal: list[Action] = state.pending_actions()
        if len(legal) == 1:
            return [legal[0]]
        obs: LegendsObservation = state.observation(player)
        if obs.stage == "allocate":
            return [default_allocation(obs, legal)]
        if obs.stage == "heal":
            return [default_heal(obs, legal)]
        scored = self.greedy.scores(obs, legal)
        order = sorted(range(len(scored)), key=lambda i: -scored[i][0])
        return [scored[i][1] for i in order[: self.branching]]

    def playout_action(self, state: Any, player: str) -> Any:
        """Greedy's choice (the default allocation and heal at those stages)."""
        legal: list[Action] = state.pending_actions()
        if len(legal) == 1:
            return legal[0]
        return self.greedy.act(state.observation(player), legal, state.rng)

    def reward(self, state: Any, player: str) -> float:
        """A win 1, a loss 0, a draw 0.5; else 0.1 to 0.9, logistic in `evaluate`'s value for `player`'s team."""
        team: int = state.by_pid[player].team
        if state.is_terminal():
            winner = state.winner
            return 0.5 if winner is None else (1.0 if winner == team else 0.0)
        return 0.1 + 0.8 / (1.0 + math.exp(-evaluate(state, team) / VALUE_SCALE))

    def side_of(self, state: Any, player: str) -> str:
        """The player's team: teammates share rewards."""
        return str(state.by_pid[player].team)

    def progress(self, state: Any) -> int:
        """The round."""
        rnd: int = state.round
        return rnd


class IsmctsAgent:
    """Information-set MCTS over deals of the hidden cards (`simulate.engine.ismcts`); it reads only the
    observation, and its deals' seeds come only from its seat's generator (G2).

    Its budget, in simulated decisions (`simulate.engine.budget`): `iterations` × `ITERATION_DECISIONS` for one
    decision, and `MATCH_SEARCHES` times that over a seat's whole match; when the budget left cannot afford one
    iteration, it plays greedy's choice.
    """

    def __init__(self, name: str = "ismcts", iterations: int = ITERATIONS, branching: int = BRANCHING,
                 horizon: int = HORIZON) -> None:
        """An agent registered as `name`, searching `iterations` deals a decision, branching on `branching` plays
        and looking `horizon` showdowns ahead."""
        self.name = name
        hooks = LegendsIsmctsHooks(branching)
        self.player = IsmctsPlayer(hooks, iterations, ITERATION_DECISIONS, horizon, MATCH_SEARCHES)
        self.greedy = hooks.greedy

    @property
    def simulated(self) -> int:
        """Decisions simulated so far, over every decision and match of this agent."""
        return self.player.budget.simulated

    def act(self, observation: LegendsObservation, legal_actions: Sequence[Action], rng: random.Random) -> Action:
        """The default allocation or heal at those stages; else the search's most visited play (greedy's choice
        when the budget cannot afford a search)."""
        if observation.stage == "allocate":
            return default_allocation(observation, legal_actions)
        if observation.stage == "heal":
            return default_heal(observation, legal_actions)
        choice: Action | None = self.player.choose(observation, legal_actions, rng)
        return choice if choice is not None else self.greedy.act(observation, legal_actions, rng)


def strong_ismcts() -> IsmctsAgent:
    """The strong level: four times the iterations."""
    return IsmctsAgent("ismcts-strong", STRONG_ITERATIONS)


register_agent("ismcts", description="Information-set MCTS over deals of the hidden cards (never seen), "
               f"{ITERATIONS} iterations a decision, greedy playouts.", game="legends", lookahead=True)(IsmctsAgent)
register_agent("ismcts-strong", description=f"ismcts with {STRONG_ITERATIONS} iterations a decision.",
               game="legends", lookahead=True)(strong_ismcts)
