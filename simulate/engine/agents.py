"""The agent protocol and the registry of agents by name.

An agent gets the observation its player may see (G2) and the legal actions, and returns
one of them. Randomness comes only from the match generator it is handed (G1). Games add
their own agents with `register_agent`; `random` works for every game.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from simulate.engine.errors import UnknownAgentError
from simulate.engine.games import get_game
from simulate.engine.rng import below

ANY_GAME = "*"
ActionT = TypeVar("ActionT")


class Agent(Protocol):
    """Chooses one legal action from an observation."""

    @property
    def name(self) -> str:
        """The agent's registered name."""

    def act(self, observation: Any, legal_actions: Sequence[Any], rng: random.Random) -> Any:
        """One of `legal_actions`; `rng` is the agent's own generator, seeded from the match generator (G2).
        An agent whose class sets `observes = False` never reads `observation`, and is handed None."""


@dataclass
class AgentEntry:
    """A registered agent name: what it does and how to build one for each game."""

    name: str
    description: str
    factories: dict[str, Callable[[], Agent]] = field(default_factory=dict)
    # It plays copies of the match before it decides: a match costs far more, so studies take fewer (smaller
    # chunks, lower batch limits).
    lookahead: bool = False

    def games(self) -> list[str]:
        """The games this agent plays ('*' means every game)."""
        return sorted(self.factories)


AGENTS: dict[str, AgentEntry] = {}


def register_agent(
    name: str, *, description: str, game: str = ANY_GAME, lookahead: bool = False
) -> Callable[[Callable[[], Agent]], Callable[[], Agent]]:
    """Decorator registering a zero-argument agent factory under `name` for `game` (`lookahead`: it plays copies of
    the match before it decides)."""

    def decorate(factory: Callable[[], Agent]) -> Callable[[], Agent]:
        """Register `factory` and return it unchanged."""
        entry = AGENTS.setdefault(name, AgentEntry(name=name, description=description))
        entry.factories[game] = factory
        entry.lookahead = entry.lookahead or lookahead
        return factory

    return decorate


def agent_names(game: str) -> list[str]:
    """The agent names that can play `game`."""
    get_game(game)  # importing a game registers its agents
    return sorted(n for n, e in AGENTS.items() if game in e.factories or ANY_GAME in e.factories)


def looks_ahead(name: str, game: str) -> bool:
    """Whether the agent registered as `name` (for `game`) plays copies of the match before it decides."""
    get_game(game)  # importing a game registers its agents
    entry = AGENTS.get(name)
    return entry is not None and entry.lookahead


def get_agent(name: str, game: str) -> Agent:
    """A fresh agent registered as `name` for `game`; UnknownAgentError names the known ones."""
    get_game(game)
    entry = AGENTS.get(name) if isinstance(name, str) else None
    factory = None
    if entry is not None:
        factory = entry.factories.get(game) or entry.factories.get(ANY_GAME)
    if factory is None:
        known = ", ".join(agent_names(game))
        raise UnknownAgentError(
            f"Unknown agent {name!r} for {game}; known agents: {known}.", [("agent", "unknown")]
        )
    return factory()


class RandomAgent:
    """Uniform over the legal actions, drawn from the match generator."""

    name = "random"
    observes = False  # it reads nothing but the legal actions: no observation is built for it

    def act(self, observation: Any, legal_actions: Sequence[Any], rng: random.Random) -> Any:
        """A uniformly random legal action."""
        return legal_actions[below(rng, len(legal_actions))]


def best_scored(scored: Sequence[tuple[float, ActionT]], first: ActionT) -> ActionT:
    """The scored action of the highest value, the first one on ties; `first` when none is scored. Greedy's
    choice, where softmax draws among the same values."""
    best, best_value = first, float("-inf")
    for value, action in scored:
        if value > best_value:
            best, best_value = action, value
    return best


def softmax_choice(scored: Sequence[tuple[float, ActionT]], temperature: float, rng: random.Random) -> ActionT:
    """One of the scored actions, each drawn with probability proportional to exp(value / temperature), from the
    agent's own generator (G1). The best value is subtracted first, so that no exponential overflows."""
    best = max(value for value, _ in scored)
    weights = [math.exp((value - best) / temperature) for value, _ in scored]
    pick = rng.random() * sum(weights)
    for weight, (_, action) in zip(weights, scored, strict=True):
        pick -= weight
        if pick < 0.0:
            return action
    return scored[-1][1]  # only when rounding leaves a sliver of `pick` past the last weight


register_agent("random", description="Uniformly random legal actions.")(RandomAgent)
