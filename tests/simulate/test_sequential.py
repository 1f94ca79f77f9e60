"""The sequential test of a paired difference: its bounds and ratios by hand, and its error rates checked on
synthetic paired games whose true difference is known."""

import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulate.engine.sequential import (
    INSIDE,
    LOWERED,
    MIN_PAIRS,
    OUTSIDE,
    RAISED,
    UNCHANGED,
    UNDECIDED,
    Design,
    band_verdict,
    fixed_pairs,
    llr,
    verdict,
)

LOOK = 50  # pairs between two looks, as a study's chunk adds them
RUNS = 1000


def sequential_run(rng: np.random.Generator, design: Design, lowered: float, raised: float) -> tuple[str, int]:
    """One test on synthetic pairs: each pair scores -1 with chance `lowered`, +1 with chance `raised`."""
    pairs = first_only = second_only = 0
    while pairs < 100_000:
        minus, plus, _ = rng.multinomial(LOOK, [lowered, raised, 1 - lowered - raised])
        pairs, first_only, second_only = pairs + LOOK, first_only + int(minus), second_only + int(plus)
        found = verdict(design, pairs, first_only, second_only)
        if found.decided:
            return found.decision, pairs
    return UNDECIDED, pairs


def test_the_bounds_are_walds_with_alpha_split_between_the_two_directions():
    design = Design(delta=0.05, alpha=0.05, beta=0.05)
    assert design.upper == pytest.approx(math.log(0.95 / 0.025))  # 3.6376
    assert design.lower == pytest.approx(math.log(0.05 / 0.975))  # -2.9704


def test_the_ratio_by_hand():
    # 400 pairs, 60 only the baseline won, 100 only the patched: mean 0.1, variance 160/400 - 0.01 = 0.39;
    # LLR(+0.05 against 0) = 400 * (0.1² - 0.05²) / (2 * 0.39) = 3.846...
    assert llr(400, 60, 100, 0.05) == pytest.approx(400 * (0.01 - 0.0025) / 0.78)
    found = verdict(Design(), 400, 60, 100)
    assert (found.decision, found.difference) == (RAISED, 0.1)
    assert verdict(Design(), 400, 100, 60).decision == LOWERED


def test_nothing_is_decided_before_the_least_count_of_pairs():
    assert verdict(Design(), MIN_PAIRS - 1, 0, MIN_PAIRS - 1).decision == UNDECIDED
    assert verdict(Design(), MIN_PAIRS, 0, MIN_PAIRS).decision == RAISED


def test_a_long_run_of_ties_says_unchanged_not_a_division_by_zero():
    assert verdict(Design(), 2000, 0, 0).decision == UNCHANGED


@pytest.mark.parametrize("chance", [0.05, 0.2, 0.35])
def test_with_no_difference_a_difference_is_announced_at_most_alpha_of_the_time(chance):
    rng = np.random.default_rng(20261205)
    outcomes = Counter(sequential_run(rng, Design(), chance, chance)[0] for _ in range(RUNS))
    wrong = (outcomes[RAISED] + outcomes[LOWERED]) / RUNS
    # alpha plus three standard errors of a rate of alpha measured over RUNS runs
    assert wrong <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / RUNS), outcomes
    assert outcomes[UNDECIDED] == 0


@pytest.mark.parametrize(("lowered", "raised", "expected"), [(0.15, 0.20, RAISED), (0.25, 0.20, LOWERED)])
def test_a_difference_of_delta_is_missed_at_most_beta_of_the_time(lowered, raised, expected):
    rng = np.random.default_rng(7)
    outcomes = Counter(sequential_run(rng, Design(), lowered, raised)[0] for _ in range(RUNS))
    assert outcomes[expected] / RUNS >= 0.95 - 3 * math.sqrt(0.05 * 0.95 / RUNS), outcomes
    assert outcomes[RAISED if expected == LOWERED else LOWERED] == 0


def test_on_average_it_needs_fewer_pairs_than_a_fixed_count_of_the_same_errors():
    rng = np.random.default_rng(11)
    for lowered, raised in ((0.2, 0.2), (0.15, 0.2), (0.1, 0.2)):
        used = [sequential_run(rng, Design(), lowered, raised)[1] for _ in range(200)]
        fixed = fixed_pairs(Design(), int(lowered * 10_000), int(raised * 10_000), 10_000)
        assert fixed is not None and float(np.mean(used)) < fixed


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 5000), st.integers(0, 5000), st.integers(0, 5000))
def test_more_wins_of_the_patched_half_never_lower_the_case_for_raised(first_only, second_only, ties):
    pairs = first_only + second_only + ties
    better = llr(pairs + 1, first_only, second_only + 1, 0.05)
    tie = llr(pairs + 1, first_only, second_only, 0.05)
    assert better >= tie - 1e-9
    assert verdict(Design(), pairs, first_only, second_only).decision in {RAISED, LOWERED, UNCHANGED, UNDECIDED}


# ------------------------------------------------------------------------------ placed against a band


def band_run(rng: np.random.Generator, design: Design, lowered: float, raised: float, low: float,
             high: float) -> str:
    """One test against the band [low, high] on synthetic pairs, looked at every LOOK pairs."""
    pairs = first_only = second_only = 0
    while pairs < 100_000:
        minus, plus, _ = rng.multinomial(LOOK, [lowered, raised, 1 - lowered - raised])
        pairs, first_only, second_only = pairs + LOOK, first_only + int(minus), second_only + int(plus)
        decision = band_verdict(design, pairs, first_only, second_only, low, high)[0]
        if decision != UNDECIDED:
            return decision
    return UNDECIDED


def test_the_band_ratios_by_hand():
    # 400 pairs, 60 -1 and 100 +1: mean 0.1, variance 0.39; against the edge 0.08 with delta 0.02:
    # LLR(0.10 against 0.06) = 400 * 2 * 0.02 * (0.1 - 0.08) / 0.39.
    decision, above, below = band_verdict(Design(delta=0.02), 400, 60, 100, -0.08, 0.08)
    assert above == pytest.approx(400 * 2 * 0.02 * 0.02 / 0.39)
    assert below == pytest.approx(-400 * 2 * 0.02 * 0.18 / 0.39)
    assert decision == UNDECIDED  # 0.82 is short of the upper bound 3.64
    assert band_verdict(Design(delta=0.02), 4000, 600, 1000, -0.08, 0.08)[0] == OUTSIDE
    assert band_verdict(Design(delta=0.02), 4000, 700, 700, -0.08, 0.08)[0] == INSIDE


@pytest.mark.parametrize(("lowered", "raised", "wrong"), [
    (0.10, 0.18, INSIDE),  # mean +0.08: outside the band [-0.06, 0.04] by delta 0.04
    (0.14, 0.14, OUTSIDE),  # mean 0: inside it by 0.04 from its upper edge
    (0.20, 0.10, INSIDE),  # mean -0.10: outside it below by delta
])
def test_a_difference_delta_from_an_edge_is_placed_on_the_wrong_side_at_most_alpha_or_beta_of_the_time(
        lowered, raised, wrong):
    design = Design(delta=0.04)
    rng = np.random.default_rng(11)
    outcomes = Counter(band_run(rng, design, lowered, raised, -0.06, 0.04) for _ in range(RUNS))
    assert outcomes[wrong] / RUNS <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / RUNS), outcomes
    assert outcomes[UNDECIDED] == 0
