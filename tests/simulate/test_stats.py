"""The statistics of the balance lab against hand-computed values, published examples and scipy."""

import math

import pytest
from scipy.stats import binomtest

from simulate.engine.stats import (
    Z95,
    binomial_half_p,
    difference_interval,
    mcnemar_p,
    paired_difference_interval,
    wilson,
)

Z2 = Z95 * Z95  # 3.841458820694124


def test_wilson_of_7_in_10_by_hand():
    # centre = (p + z²/2n) / (1 + z²/n); half = z·sqrt(p(1-p)/n + z²/4n²) / (1 + z²/n)
    p, n = 0.7, 10
    centre = (p + Z2 / 20) / (1 + Z2 / 10)  # 0.644485...
    half = Z95 * math.sqrt(p * (1 - p) / n + Z2 / 400) / (1 + Z2 / 10)  # 0.247714...
    low, high = wilson(7, 10)
    assert (low, high) == pytest.approx((centre - half, centre + half))
    assert (round(low, 4), round(high, 4)) == (0.3968, 0.8922)


def test_wilson_ends_are_exact_at_none_and_all():
    assert wilson(0, 10) == (0.0, pytest.approx(Z2 / (10 + Z2)))  # 0.2775: the upper end is z²/(n+z²)
    assert wilson(10, 10) == (pytest.approx(10 / (10 + Z2)), 1.0)
    assert wilson(0, 0) == (0.0, 1.0)  # nothing played: nothing known


@pytest.mark.parametrize("successes, trials", [(1, 3), (17, 40), (250, 1000), (999, 1000), (5123, 10_000)])
def test_wilson_agrees_with_scipy(successes, trials):
    expected = binomtest(successes, trials).proportion_ci(confidence_level=0.95, method="wilson")
    assert wilson(successes, trials) == pytest.approx((expected.low, expected.high), abs=1e-12)


def test_wilson_refuses_impossible_counts():
    with pytest.raises(ValueError):
        wilson(11, 10)


@pytest.mark.parametrize("x1, n1, x2, n2, low, high", [
    # Newcombe (1998), Statistics in Medicine 17:873, Table II, method 10
    (56, 70, 48, 80, 0.0524, 0.3339),
    (9, 10, 3, 10, 0.1705, 0.8090),
])
def test_the_difference_of_two_rates_matches_newcombes_examples(x1, n1, x2, n2, low, high):
    assert tuple(round(v, 4) for v in difference_interval(x1, n1, x2, n2)) == (low, high)


def test_the_paired_difference_by_hand():
    # 36 seeds won with and without the patch, 2 only without, 12 only with, none lost both: n = 50.
    p1, p2 = 38 / 50, 48 / 50
    l1, u1 = wilson(38, 50)
    l2, u2 = wilson(48, 50)
    phi = (36 * 0 - 2 * 12) / math.sqrt(38 * 12 * 48 * 2)  # -0.1147: negative, so no correction
    low = (p2 - p1) - math.sqrt((p2 - l2) ** 2 - 2 * phi * (p2 - l2) * (u1 - p1) + (u1 - p1) ** 2)
    high = (p2 - p1) + math.sqrt((u2 - p2) ** 2 - 2 * phi * (u2 - p2) * (p1 - l1) + (p1 - l1) ** 2)
    assert paired_difference_interval(36, 2, 12, 0) == pytest.approx((low, high))
    assert (round(low, 4), round(high, 4)) == (0.0569, 0.3404)


def test_a_paired_difference_with_positive_correlation_is_corrected_towards_zero():
    # ad - bc = 40·40 - 5·15 = 1525 > n/2 = 50: phi uses 1525 - 50.
    l1, u1 = wilson(45, 100)
    l2, u2 = wilson(55, 100)
    phi = (1525 - 50) / math.sqrt(45 * 55 * 55 * 45)
    low = 0.1 - math.sqrt((0.55 - l2) ** 2 - 2 * phi * (0.55 - l2) * (u1 - 0.45) + (u1 - 0.45) ** 2)
    assert paired_difference_interval(40, 5, 15, 40)[0] == pytest.approx(low)
    # Pairs that all agree tell the same rate twice: the interval holds zero and is narrow.
    no_change = paired_difference_interval(30, 0, 0, 70)
    assert no_change[0] <= 0 <= no_change[1] and no_change[1] - no_change[0] < 0.1


def test_mcnemar_by_hand():
    # 12 pairs went one way, 2 the other: p = 2 · (C(14,0) + C(14,1) + C(14,2)) / 2^14 = 212 / 16384
    assert mcnemar_p(12, 2) == pytest.approx(212 / 16384)
    assert mcnemar_p(2, 12) == pytest.approx(0.012939453125)
    assert mcnemar_p(0, 0) == 1.0
    assert mcnemar_p(5, 5) == 1.0


@pytest.mark.parametrize("b, c", [(0, 7), (30, 45), (480, 530), (4_000, 4_200)])
def test_mcnemar_agrees_with_scipys_exact_binomial_test(b, c):
    assert mcnemar_p(b, c) == pytest.approx(binomtest(b, b + c, 0.5).pvalue, rel=1e-9)


def test_the_binomial_test_against_a_coin_by_hand():
    """9 heads of 10: P(X >= 9) = 11/1024 on each side."""
    assert binomial_half_p(9, 1) == pytest.approx(22 / 1024)
    assert binomial_half_p(1, 9) == binomial_half_p(9, 1)
    assert binomial_half_p(0, 0) == 1.0 and binomial_half_p(3, 3) == 1.0


@pytest.mark.parametrize("successes, failures", [(0, 1), (7, 3), (30, 50), (260, 240)])
def test_the_binomial_test_agrees_with_scipy(successes, failures):
    expected = binomtest(successes, successes + failures, 0.5).pvalue
    assert binomial_half_p(successes, failures) == pytest.approx(expected, rel=1e-9)

