"""Intervals and tests for win rates: Wilson score intervals, Newcombe's intervals for a difference of two
rates (independent or paired by seed) and McNemar's exact test. Pure functions of counts.

References: E. B. Wilson (1927), "Probable inference, the law of succession, and statistical inference";
R. G. Newcombe (1998), "Interval estimation for the difference between independent proportions" (method 10)
and "Improved confidence intervals for the difference between binomial proportions based on paired data"
(method 10), both in Statistics in Medicine 17; McNemar (1947), exact form: a two-sided binomial test of the
discordant pairs (`binomial_half_p`, which also tests a first seat's decisive matches against a coin); the
difference of two independent studies' estimates with their standard errors combined (`independent_difference`).
"""

from __future__ import annotations

import math
from statistics import NormalDist

CONFIDENCE = 0.95
Z95 = NormalDist().inv_cdf(1 - (1 - CONFIDENCE) / 2)  # 1.959963984540054

Interval = tuple[float, float]


def wilson(successes: int, trials: int, z: float = Z95) -> Interval:
    """The Wilson score interval of `successes` in `trials`; (0, 1) when nothing was tried."""
    if not 0 <= successes <= trials:
        raise ValueError(f"successes must lie in 0..trials (got {successes} of {trials})")
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    z2 = z * z
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / (1 + z2 / trials)
    # The exact ends: no rounding may put 0 of n above 0 or n of n below 1.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return low, high


def difference_interval(x1: int, n1: int, x2: int, n2: int, z: float = Z95) -> Interval:
    """Newcombe's hybrid score interval for p1 - p2 of two independent rates x1/n1 and x2/n2."""
    if n1 == 0 or n2 == 0:
        return -1.0, 1.0
    p1, p2 = x1 / n1, x2 / n2
    l1, u1 = wilson(x1, n1, z)
    l2, u2 = wilson(x2, n2, z)
    d = p1 - p2
    low = d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    high = d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return max(-1.0, low), min(1.0, high)


def paired_difference_interval(both: int, first_only: int, second_only: int, neither: int,
                               z: float = Z95) -> Interval:
    """Newcombe's score interval for p2 - p1 of two rates measured on the same pairs: `both` pairs
    succeeded twice, `first_only` only in the first measure, `second_only` only in the second."""
    n = both + first_only + second_only + neither
    if n == 0:
        return -1.0, 1.0
    x1, x2 = both + first_only, both + second_only
    p1, p2 = x1 / n, x2 / n
    l1, u1 = wilson(x1, n, z)
    l2, u2 = wilson(x2, n, z)
    margins = x1 * (n - x1) * x2 * (n - x2)
    cross = both * neither - first_only * second_only
    if margins == 0:
        phi = 0.0
    elif cross > 0:  # Newcombe's continuity correction of the correlation, towards zero
        phi = max(cross - n / 2, 0.0) / math.sqrt(margins)
    else:
        phi = cross / math.sqrt(margins)
    d = p2 - p1
    low = d - math.sqrt(max(0.0, (p2 - l2) ** 2 - 2 * phi * (p2 - l2) * (u1 - p1) + (u1 - p1) ** 2))
    high = d + math.sqrt(max(0.0, (u2 - p2) ** 2 - 2 * phi * (u2 - p2) * (p1 - l1) + (p1 - l1) ** 2))
    return max(-1.0, low), min(1.0, high)


def _log_binomial_half(n: int, k: int) -> float:
    """log P(X = k) for X ~ Binomial(n, 1/2)."""
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) - n * math.log(2)


def binomial_half_p(successes: int, failures: int) -> float:
    """The exact two-sided binomial test of `successes` against `failures` when each goes either way with
    probability 1/2: p = 2 * P(X <= min) for X ~ Binomial(successes + failures, 1/2), at most 1 (1 for none)."""
    n = successes + failures
    if n == 0:
        return 1.0
    k = min(successes, failures)
    logs = [_log_binomial_half(n, i) for i in range(k + 1)]
    top = max(logs)
    tail = math.exp(top) * math.fsum(math.exp(value - top) for value in logs)
    return min(1.0, 2 * tail)


def mcnemar_p(first_only: int, second_only: int) -> float:
    """McNemar's exact two-sided p-value: under no difference each discordant pair goes either way with
    probability 1/2, a binomial test of the discordant pairs."""
    return binomial_half_p(first_only, second_only)


def independent_difference(first: float, first_interval: Interval, second: float, second_interval: Interval,
                           z: float = Z95) -> tuple[float, Interval]:
    """The difference `first - second` of two estimates from independent studies, with its interval: each
    one's standard error read off its own 95% interval (its width over 2z), combined as the root of the sum of
    their squares; a normal approximation (Newcombe's intervals are not quite symmetric)."""
    first_se = (first_interval[1] - first_interval[0]) / (2 * z)
    second_se = (second_interval[1] - second_interval[0]) / (2 * z)
    margin = z * math.sqrt(first_se**2 + second_se**2)
    difference = first - second
    return difference, (difference - margin, difference + margin)
