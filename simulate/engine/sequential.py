"""Sequential tests of a paired difference: a study stops as soon as its answer is known, instead of playing
a fixed count.

Every pair of games on one seed scores +1 (only the patched game won), -1 (only the baseline won) or 0 (both
or neither): the paired difference of win rates is the mean score. The test is the generalized sequential
probability ratio test (GSPRT) that Stockfish's Fishtest runs on its game pairs: the log-likelihood ratio of
two hypotheses about the mean under the normal approximation, with the variance estimated from the pairs so
far (M. Lai, "Generalized sequential probability ratio tests", and the Fishtest documentation; A. Wald, 1945,
for the bounds).

A difference is looked for in both directions, as two one-sided tests of H0: mean 0 against H1: mean +delta
(raised) and against H1: mean -delta (lowered), each at half the error rate alpha. The answer is known when
one of them accepts its H1, or both accept H0 (the patch moves the rate by less than delta). `alpha` is the
chance of announcing a difference that is not there; `beta` the chance of missing one of at least delta.

A difference may instead be placed against a band [low, high] (where a patched card should land): two Wald
SPRTs, one at each edge, of mean `edge - delta` against `edge + delta` (inside against outside by delta), each at
half the error rate alpha. The answer is inside when both accept their inside hypothesis, outside when one
accepts its outside one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import Final

RAISED: Final = "raised"
LOWERED: Final = "lowered"
UNCHANGED: Final = "unchanged"
UNDECIDED: Final = "undecided"
INSIDE: Final = "inside"
OUTSIDE: Final = "outside"
MIN_PAIRS: Final = 30  # below this many pairs the normal approximation is not trusted: no decision yet


@dataclass(frozen=True)
class Design:
    """What a sequential test is asked: the smallest difference that matters (a rate, 0.05 = 5 points) and
    its two error rates."""

    delta: float = 0.05
    alpha: float = 0.05
    beta: float = 0.05

    @property
    def lower(self) -> float:
        """The log-likelihood ratio at or below which a one-sided test accepts H0."""
        return math.log(self.beta / (1 - self.alpha / 2))

    @property
    def upper(self) -> float:
        """The log-likelihood ratio at or above which a one-sided test accepts H1."""
        return math.log((1 - self.beta) / (self.alpha / 2))


@dataclass(frozen=True)
class Verdict:
    """Where a sequential test stands after `pairs` pairs."""

    pairs: int
    difference: float | None  # the mean score: patched less baseline
    llr_raised: float  # the log-likelihood ratio of mean +delta against mean 0
    llr_lowered: float  # of mean -delta against mean 0
    decision: str  # RAISED, LOWERED, UNCHANGED or UNDECIDED

    @property
    def decided(self) -> bool:
        return self.decision != UNDECIDED


def moments(pairs: int, first_only: int, second_only: int) -> tuple[float, float]:
    """The mean score of `pairs` pairs (at least one) and its variance, never below that of one discordant pair
    among them (a run of ties says little about how wide the scores spread)."""
    mean = (second_only - first_only) / pairs
    return mean, max((first_only + second_only) / pairs - mean * mean, 1.0 / pairs)


def llr(pairs: int, first_only: int, second_only: int, mean1: float) -> float:
    """The GSPRT's log-likelihood ratio of a mean score `mean1` against 0, after `pairs` pairs of which
    `first_only` scored -1 and `second_only` +1, with the variance of `moments`."""
    if pairs <= 0:
        return 0.0
    mean, variance = moments(pairs, first_only, second_only)
    return pairs * ((mean * mean) - (mean - mean1) * (mean - mean1)) / (2 * variance)


def verdict(design: Design, pairs: int, first_only: int, second_only: int) -> Verdict:
    """The test after these pairs (`first_only`: only the baseline won; `second_only`: only the patched)."""
    raised = llr(pairs, first_only, second_only, design.delta)
    lowered = llr(pairs, first_only, second_only, -design.delta)
    decision = UNDECIDED
    if pairs >= MIN_PAIRS:
        if raised >= design.upper:
            decision = RAISED
        elif lowered >= design.upper:
            decision = LOWERED
        elif raised <= design.lower and lowered <= design.lower:
            decision = UNCHANGED
    difference = (second_only - first_only) / pairs if pairs else None
    return Verdict(pairs, difference, raised, lowered, decision)


def fixed_pairs(design: Design, first_only: int, second_only: int, pairs: int) -> int | None:
    """The pairs a test of a fixed count would need for the same errors (two-sided alpha, power 1 - beta to
    see delta), with the spread of the scores these pairs showed; None before any pair."""
    if pairs <= 0:
        return None
    _, variance = moments(pairs, first_only, second_only)
    normal = NormalDist()
    z = normal.inv_cdf(1 - design.alpha / 2) + normal.inv_cdf(1 - design.beta)
    return math.ceil(variance * (z / design.delta) ** 2)


def edge_llr(pairs: int, first_only: int, second_only: int, edge: float, delta: float) -> float:
    """The log-likelihood ratio of a mean score `edge + delta` against `edge - delta` (beyond an edge of a band
    against short of it), with the variance of `moments`."""
    if pairs <= 0:
        return 0.0
    mean, variance = moments(pairs, first_only, second_only)
    return pairs * 2 * delta * (mean - edge) / variance


def band_verdict(design: Design, pairs: int, first_only: int, second_only: int, low: float,
                 high: float) -> tuple[str, float, float]:
    """Where the mean score lies against the band [low, high]: INSIDE, OUTSIDE or UNDECIDED, with the
    log-likelihood ratios of lying above `high` and below `low` (each of outside by delta against inside)."""
    above = edge_llr(pairs, first_only, second_only, high, design.delta)
    below = -edge_llr(pairs, first_only, second_only, low, design.delta)
    decision = UNDECIDED
    if pairs >= MIN_PAIRS:
        if above >= design.upper or below >= design.upper:
            decision = OUTSIDE
        elif above <= design.lower and below <= design.lower:
            decision = INSIDE
    return decision, above, below
