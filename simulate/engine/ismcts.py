"""Information-set Monte Carlo tree search (single-observer SO-ISMCTS, Cowling, Powley & Whitehouse 2012).

One tree is grown over the searching player's information set: every iteration deals the cards the player
cannot see at random (`observation.sandbox(seed)`, G2), descends the tree by UCB1 over the actions the tree
branches on in that deal (counting for each child how often it was available, since a child can be missing
from a deal), expands one action, plays on with a cheap policy to a decision limit or a horizon, and credits
every node with the reward, in [0, 1], of the side that chose the action into it. The final action is the
root's most visited child.

The game plugs in through `IsmctsHooks`: which actions the tree branches on (a bounded few; one means forced,
no node), the playout policy, the reward and the side of a player. Seeds come from the seat's own generator
(`child_seed`), and the work is counted in simulated decisions charged to a `LookaheadBudget`, never in time,
so a match replays from its seed (G1).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from simulate.engine.budget import LookaheadBudget
from simulate.engine.rng import child_seed

EXPLORATION = 0.7  # UCB1's constant for rewards in [0, 1] (about 1 / sqrt(2), the usual choice)


class IsmctsHooks(Protocol):
    """The per-game parts of the search, each reading a look-ahead state (a sandbox)."""

    def decider(self, state: Any) -> str | None:
        """The player choosing at `state`, or None when its next step is taken without a choice (`forced`)."""

    def forced(self, state: Any) -> Any:
        """The step a state takes when no player chooses."""

    def branches(self, state: Any, player: str) -> list[Any]:
        """The legal actions the tree branches on at `player`'s decision, best first (one: forced, no node)."""

    def playout_action(self, state: Any, player: str) -> Any:
        """The playout policy's action for `player`."""

    def reward(self, state: Any, player: str) -> float:
        """How good `state` is for `player`'s side, in [0, 1]."""

    def side_of(self, state: Any, player: str) -> str:
        """`player`'s side (its team where players share one): the players who share rewards."""

    def progress(self, state: Any) -> int:
        """How far the match is (its round, say): a playout stops `horizon` past the root's."""


@dataclass(frozen=True)
class IsmctsSettings:
    """How far the search reaches: `iterations` deals a decision, each applying at most `iteration_decisions`
    decisions and playing out to at most `horizon` steps of `progress` past the root."""

    iterations: int
    iteration_decisions: int
    horizon: int
    exploration: float = EXPLORATION


class Node:
    """One action of the tree: who chose it, how often it was tried and available, the rewards it earned."""

    __slots__ = ("action", "player", "side", "children", "visits", "available", "total")

    def __init__(self, action: Any, player: str, side: str) -> None:
        """An untried node for `action`, chosen by `player` of `side`."""
        self.action = action
        self.player = player
        self.side = side
        self.children: list[Node] = []
        self.visits = 0
        self.available = 1
        self.total = 0.0

    def child_for(self, action: Any) -> Node | None:
        """The child of `action`, if it was expanded (actions compared by equality: a deal's copies differ)."""
        for child in self.children:
            if child.action == action:
                return child
        return None

    def score(self, exploration: float) -> float:
        """UCB1 with the availability count in place of the parent's visits (SO-ISMCTS)."""
        return self.total / self.visits + exploration * math.sqrt(math.log(self.available) / self.visits)


class Iteration:
    """One deal's walk: the state, the nodes passed and the decisions applied, within a limit."""

    __slots__ = ("state", "path", "steps", "limit")

    def __init__(self, state: Any, root: Node, limit: int) -> None:
        """A walk from the root over `state`, applying at most `limit` decisions."""
        self.state = state
        self.path = [root]
        self.steps = 0
        self.limit = limit

    def open(self) -> bool:
        """Whether the walk may still apply a decision."""
        return self.steps < self.limit and not self.state.is_terminal()

    def apply(self, action: Any) -> None:
        """Apply `action`, counting it."""
        self.state.apply(action)
        self.steps += 1


def select_or_expand(walk: Iteration, hooks: IsmctsHooks, exploration: float) -> bool:
    """One step down the tree: a forced step, a UCB1 choice among the expanded children, or the expansion of
    the first untried action; whether the walk goes on down the tree (False once it expanded a node)."""
    state = walk.state
    player = hooks.decider(state)
    if player is None:
        walk.apply(hooks.forced(state))
        return True
    actions = hooks.branches(state, player)
    if len(actions) == 1:
        walk.apply(actions[0])
        return True
    node = walk.path[-1]
    present: list[Node] = []
    for action in actions:
        child = node.child_for(action)
        if child is None:  # untried: expanded now, the playout goes on from it
            child = Node(action, player, hooks.side_of(state, player))
            node.children.append(child)
            for other in present:
                other.available += 1
            walk.path.append(child)
            walk.apply(action)
            return False
        present.append(child)
    for child in present:
        child.available += 1
    best = max(present, key=lambda c: c.score(exploration))  # the first one on ties
    walk.path.append(best)
    walk.apply(best.action)
    return True


def play_out(walk: Iteration, hooks: IsmctsHooks, stop: int) -> None:
    """The playout policy for every player until the limit, the end of the match or `stop` progress."""
    state = walk.state
    while walk.open() and hooks.progress(state) < stop:
        player = hooks.decider(state)
        walk.apply(hooks.forced(state) if player is None else hooks.playout_action(state, player))


def back_propagate(walk: Iteration, hooks: IsmctsHooks) -> None:
    """Credit every node passed with the reward of the side that chose it (one reward a side: teammates share)."""
    rewards: dict[str, float] = {}
    for node in walk.path[1:]:
        side = node.side
        if side not in rewards:
            rewards[side] = hooks.reward(walk.state, node.player)
        node.visits += 1
        node.total += rewards[side]


def iterate(root: Node, walk: Iteration, hooks: IsmctsHooks, settings: IsmctsSettings) -> None:
    """One iteration on the deal `walk` holds: selection, expansion, playout, back-propagation."""
    stop = hooks.progress(walk.state) + settings.horizon
    while walk.open() and select_or_expand(walk, hooks, settings.exploration):
        pass
    play_out(walk, hooks, stop)
    back_propagate(walk, hooks)
    root.visits += 1


def most_visited(root: Node) -> Any:
    """The root's most visited action (the first expanded on ties), or None when nothing was expanded."""
    best: Node | None = None
    for child in root.children:
        if best is None or child.visits > best.visits:
            best = child
    return None if best is None else best.action


def search(
    observation: Any, hooks: IsmctsHooks, settings: IsmctsSettings, budget: LookaheadBudget, rng: random.Random,
) -> Any:
    """The most visited root action after at most `settings.iterations` deals, each charged to `budget` for the
    seat of `rng`; None when the budget left cannot afford one whole iteration, or nothing was expanded (the
    caller then plays its default choice)."""
    allowance = budget.allowance(rng)
    if allowance < settings.iteration_decisions:
        return None
    root = Node(None, "", "")
    spent = 0
    for _ in range(settings.iterations):
        left = allowance - spent
        if left <= 0:
            break
        walk = Iteration(observation.sandbox(child_seed(rng)), root, min(settings.iteration_decisions, left))
        iterate(root, walk, hooks, settings)
        spent += walk.steps
    budget.spend(rng, spent)
    return most_visited(root)


class IsmctsPlayer:
    """What every game's ISMCTS agent is made of: its hooks, its reach and its budget (`iterations` ×
    `iteration_decisions` simulated decisions for one decision, `match_searches` times that over a seat's whole
    match)."""

    def __init__(self, hooks: IsmctsHooks, iterations: int, iteration_decisions: int, horizon: int,
                 match_searches: int) -> None:
        self.hooks = hooks
        self.settings = IsmctsSettings(iterations, iteration_decisions, horizon)
        per_decision = iterations * iteration_decisions
        self.budget = LookaheadBudget(per_decision, per_decision * match_searches)

    def choose(self, observation: Any, legal_actions: Sequence[Any], rng: random.Random) -> Any:
        """The search's most visited legal action (the legal action itself, not a copy); None when the budget
        cannot afford a search (the agent then plays its default)."""
        if len(legal_actions) == 1:
            return legal_actions[0]
        choice = search(observation, self.hooks, self.settings, self.budget, rng)
        for action in legal_actions:
            if action == choice:
                return action
        return None
