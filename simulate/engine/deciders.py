"""A seat's decider: its agent's `act` with the seat's own generator bound (G2: never the match generator).

A compiled class rather than a closure, so that a match calls it at native speed at every decision. An
agent that never reads its observation says so (`observes = False`, as the random agent does); the match
then builds none for it and hands it None.
"""

from __future__ import annotations

import random
from typing import Any


class SeatDecider:
    """Calls the agent's `act(observation, legal_actions, rng)` with the seat's generator."""

    __slots__ = ("act", "rng", "observes")

    def __init__(self, agent: Any, rng: random.Random) -> None:
        """The decider of `agent` at a seat whose generator is `rng`."""
        self.act = agent.act
        self.rng = rng
        self.observes: bool = getattr(agent, "observes", True) is not False

    def __call__(self, observation: Any, legal_actions: Any) -> Any:
        """The agent's choice among `legal_actions`."""
        return self.act(observation, legal_actions, self.rng)


def observes(decide: Any) -> bool:
    """Whether a decider reads its observation (anything but a seat decider of an agent that says it does not)."""
    return decide.observes if isinstance(decide, SeatDecider) else True
