"""Look-ahead budgets: how much a searching agent may simulate, counted in decisions, never in time.

A look-ahead agent plays copies of the match (sandboxes) before it chooses. Its budget bounds the decisions
those copies apply: at most `per_decision` while it makes one decision of the real match, and at most
`per_match` over all its decisions at one seat of one match. Counted in decisions rather than in seconds,
a search does the same work on every machine, under any load, so a match still plays the same from its
seed (G1); and the work a match can cost is bounded whatever its options: the decisions of the match
(its `max_actions`) each with at most `per_decision`, and never more than `per_match` per seat in all.

A seat is known by the generator it hands the agent (the runner makes a new one for every seat of every
match, G2), so one agent object seated twice, or reused for another match, counts each seat apart and plays
a reused seat exactly as a fresh agent would.
"""

from __future__ import annotations

import random

SEATS_KEPT = 8  # seat counts an agent keeps (a match has at most four seats); older ones are forgotten


class SeatCount:
    """The decisions simulated for one seat: its generator, and the count."""

    __slots__ = ("rng", "spent")

    def __init__(self, rng: random.Random) -> None:
        """No decision simulated yet for the seat of `rng`."""
        self.rng = rng
        self.spent = 0


class LookaheadBudget:
    """What a look-ahead agent may still simulate: `per_decision` decisions for one decision, `per_match`
    for one seat over a whole match; `simulated` counts every decision it was charged, over every seat."""

    __slots__ = ("per_decision", "per_match", "simulated", "seats")

    def __init__(self, per_decision: int, per_match: int) -> None:
        """A budget of `per_decision` simulated decisions a decision and `per_match` a seat's match."""
        for name, value in (("per_decision", per_decision), ("per_match", per_match)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"A look-ahead budget's {name} is a whole number of decisions, 0 or more "
                                 f"(got {value!r}).")
        self.per_decision = per_decision
        self.per_match = per_match
        self.simulated = 0
        self.seats: list[SeatCount] = []  # most recent last

    def seat(self, rng: random.Random) -> SeatCount:
        """The count of the seat whose generator is `rng` (a new one for a generator not seen yet)."""
        for count in self.seats:
            if count.rng is rng:
                return count
        count = SeatCount(rng)
        self.seats.append(count)
        if len(self.seats) > SEATS_KEPT:
            del self.seats[0]
        return count

    def allowance(self, rng: random.Random) -> int:
        """How many decisions the decision at hand may simulate: `per_decision`, or what is left of the seat's
        `per_match` when that is less."""
        left = self.per_match - self.seat(rng).spent
        return left if left < self.per_decision else self.per_decision

    def split(self, rng: random.Random, candidates: int, samples: int) -> tuple[int, int]:
        """How the decision at hand shares its allowance among `candidates` actions, each tried on up to
        `samples` sampled playouts: (samples, decisions of one playout, the candidate's own included), fewer
        samples when the allowance cannot give every candidate one decision in each; (0, 0) when it cannot
        give every candidate even one (the agent then decides without looking ahead)."""
        allowance = self.allowance(rng)
        if allowance < candidates:
            return 0, 0
        taken = min(samples, allowance // candidates)
        return taken, allowance // (candidates * taken)

    def spend(self, rng: random.Random, decisions: int) -> None:
        """Charge `decisions` simulated decisions to the seat whose generator is `rng`."""
        self.seat(rng).spent += decisions
        self.simulated += decisions
