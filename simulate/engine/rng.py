"""G1: one seeded random generator per match; nothing in the engines uses the global `random`."""

from __future__ import annotations

import random

SEED_BITS = 63


def match_rng(seed: int) -> random.Random:
    """The match's own generator: every random choice of a match is drawn from it."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"A match seed is an integer (got {type(seed).__name__}).")
    return random.Random(seed)


def child_seed(rng: random.Random) -> int:
    """A seed drawn from a match generator, for a look-ahead copy that must not disturb the match."""
    return rng.getrandbits(SEED_BITS)


def seat_seeds(rng: random.Random, seats: list[str] | tuple[str, ...]) -> dict[str, int]:
    """G2: a seed per seat, drawn from the match generator in seat order, for that seat's agent.

    An agent never holds the match generator (it could replay the shuffles and read hidden cards);
    a generator of its own, seeded from these, keeps the match reproducible from its seed alone.
    """
    return {seat: child_seed(rng) for seat in seats}
