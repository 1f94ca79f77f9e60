"""Echo Realms' information-set Monte Carlo tree search agents, `ismcts` and `ismcts-strong` (the search itself:
`simulate.engine.ismcts`).

The tree branches on greedy's best few deployments in the Formation Round and on its best few actions of a
unit's turn (both Flex choices), so that its width stays bounded; playouts are greedy play for both sides. A
position is worth 1 won, 0 lost, 0.5 drawn, and between 0.1 and 0.9 by the sides' remaining material when a
playout stops before the end.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Final

from realms.engine.agents import GreedyAgent, kind_of, material
from realms.engine.observation import RealmsObservation
from simulate.engine.agents import register_agent
from simulate.engine.ismcts import IsmctsPlayer

# Iterations a decision (deals of the hidden cards, each one walk down the tree and one playout), chosen by
# measuring (docs/simulate.md): the default beats greedy clearly at a few times search's cost; the strong one
# searches four times as long.
ITERATIONS: Final = 24
STRONG_ITERATIONS: Final = 96
BRANCHING: Final = 3  # greedy's best actions the tree branches on at a decision
ITERATION_DECISIONS: Final = 60  # decisions one iteration may apply: tree and playout
HORIZON: Final = 3  # rounds a playout looks ahead before it is judged on material
# A seat's whole match may simulate as much as this many whole searches: the budget binds only in matches that stall.
MATCH_SEARCHES: Final = 100


class RealmsIsmctsHooks:
    """What the search needs of Echo Realms: greedy's best few actions to branch on, greedy playouts, material."""

    def __init__(self, branching: int = BRANCHING) -> None:
        """Hooks branching on greedy's best `branching` actions at a decision."""
        self.branching = branching
        self.greedy = GreedyAgent()

    def decider(self, state: Any) -> str | None:
        """The player deciding (every step of an Echo Realms match is some player's decision)."""
        player: str | None = state.current_player()
        return player

    def forced(self, state: Any) -> Any:
        """The only action (not reached while a match goes on: a player always decides)."""
        return state.legal_actions()[0]

    def branches(self, state: Any, player: str) -> list[Any]:
        """Greedy's best `branching` deployments or turn actions, best first; both Flex choices."""
        legal: list[Any] = state.legal_actions()
        kind = kind_of(legal[0])
        if len(legal) == 1 or kind == "stay" or kind == "switch":
            return legal
        obs: RealmsObservation = state.observation(player)
        scored = self.greedy.deploy_scores(obs, legal) if kind == "deploy" else self.greedy.scores(obs, legal)
        return best_first(scored, self.branching)

    def playout_action(self, state: Any, player: str) -> Any:
        """Greedy's choice."""
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        return self.greedy.act(state.observation(player), legal, state.rng)

    def reward(self, state: Any, player: str) -> float:
        """A win 1, a loss 0, a draw 0.5; else 0.1 to 0.9 by `player`'s share of the remaining material."""
        if state.is_terminal():
            winner = state.outcome().winner
            return 0.5 if winner is None else (1.0 if winner == player else 0.0)
        view: RealmsObservation = state.observation(player)
        mine = material(view.allies())
        theirs = material(view.enemies())
        share = mine / (mine + theirs) if mine + theirs > 0 else 0.5
        return 0.1 + 0.8 * share

    def side_of(self, state: Any, player: str) -> str:
        """Each player is a side."""
        return player

    def progress(self, state: Any) -> int:
        """The round."""
        rnd: int = state.round
        return rnd


def best_first(scored: Sequence[tuple[float, Any]], count: int) -> list[Any]:
    """The `count` actions of the highest values, best first (the earlier one on ties)."""
    order = sorted(range(len(scored)), key=lambda i: -scored[i][0])
    return [scored[i][1] for i in order[:count]]


class IsmctsAgent:
    """Information-set MCTS: the Formation Round's deployments and every turn searched over deals of what the
    player cannot see (`simulate.engine.ismcts`).

    Its budget, in simulated decisions (`simulate.engine.budget`): `iterations` × `ITERATION_DECISIONS` for one
    decision, and `MATCH_SEARCHES` times that over a seat's whole match; when the budget left cannot afford one
    iteration, it plays greedy's choice.
    """

    def __init__(self, name: str = "ismcts", iterations: int = ITERATIONS, branching: int = BRANCHING,
                 horizon: int = HORIZON) -> None:
        """An agent registered as `name`, searching `iterations` deals a decision, branching on `branching` actions
        and looking `horizon` rounds ahead."""
        self.name = name
        hooks = RealmsIsmctsHooks(branching)
        self.player = IsmctsPlayer(hooks, iterations, ITERATION_DECISIONS, horizon, MATCH_SEARCHES)
        self.greedy = hooks.greedy

    @property
    def simulated(self) -> int:
        """Decisions simulated so far, over every decision and match of this agent."""
        return self.player.budget.simulated

    def act(self, observation: RealmsObservation, legal_actions: Sequence[Any], rng: random.Random) -> Any:
        """The most visited action of the search; greedy's choice when the budget cannot afford a search."""
        choice = self.player.choose(observation, legal_actions, rng)
        if choice is not None:
            return choice
        return self.greedy.act(observation, legal_actions, rng)


def strong_ismcts() -> IsmctsAgent:
    """The strong level: four times the iterations."""
    return IsmctsAgent("ismcts-strong", STRONG_ITERATIONS)


register_agent("ismcts", description="Information-set MCTS over deals of the hidden cards: deployments and turns, "
               f"{ITERATIONS} iterations a decision, greedy playouts.", game="realms", lookahead=True)(IsmctsAgent)
register_agent("ismcts-strong", description=f"ismcts with {STRONG_ITERATIONS} iterations a decision.",
               game="realms", lookahead=True)(strong_ismcts)
