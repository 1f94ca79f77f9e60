"""G1: one seeded random generator per match; nothing in the engines uses the global `random`."""

from __future__ import annotations

import random
from typing import TypeVar

SEED_BITS = 63
T = TypeVar("T")


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


def below(rng: random.Random, n: int) -> int:
    """`rng.randrange(n)` (n >= 1), drawing exactly what it draws (G1): the standard library's loop (its
    `_randbelow_with_getrandbits`), here compiled with the engines, where the standard one is Python code. A
    generator of another class draws its own way."""
    if type(rng) is not random.Random or n <= 0:
        return rng.randrange(n)
    bits = n.bit_length()
    r = rng.getrandbits(bits)
    while r >= n:  # k bits drawn until they fall below n
        r = rng.getrandbits(bits)
    return r


def shuffle(rng: random.Random, items: list[T]) -> None:
    """`rng.shuffle(items)`, drawing exactly what it draws (G1), compiled as `below` is: each position from the
    last down to 1 swapped with one drawn below it."""
    for i in range(len(items) - 1, 0, -1):
        j = below(rng, i + 1)
        items[i], items[j] = items[j], items[i]
