"""The meta a matchup matrix implies: the Nash equilibrium of its zero-sum game, an α-Rank ranking, the health
figures of the meta (support, entropy, top-3 share), its cycles, and how stable the support is when the matrix
is resampled within what its matches measured.

The game: entrant i against entrant j pays i its wins less its losses over the matches played, as a share
(draws pay nothing), so the payoff matrix is antisymmetric and the game symmetric and zero-sum; its value is 0
and an equilibrium is a mix of entrants that no entrant beats on average. It is found by linear programming
(scipy's HiGHS). α-Rank (Omidshafiei et al., 2019) ranks the entrants by the stationary distribution of the
single-population Markov chain in which a mutant entrant takes over a population of another with the
fixation probability of the Moran process at selection intensity α.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linprog

SUPPORT = 1e-6  # a weight above this is in the support
ALPHA = 10.0  # α-Rank's selection intensity (payoffs lie in [-1, 1])
POPULATION = 50  # α-Rank's population size
MAX_CYCLES = 50  # cycles listed at most
Outcomes = Sequence[Sequence[tuple[int, int, int] | None]]  # [i][j]: i's (wins, draws, losses) against j


@dataclass(frozen=True)
class Meta:
    """What a matrix implies: the equilibrium's weights, the α-Rank mass and ranking, the health figures."""

    weights: list[float]
    alpha_rank: list[float]
    support: list[int]
    entropy_bits: float
    top3_share: float
    cycles: list[list[int]]


def payoffs(outcomes: Outcomes) -> np.ndarray:
    """The antisymmetric payoff matrix: (wins - losses) / played of the row against the column."""
    size = len(outcomes)
    matrix = np.zeros((size, size))
    for i in range(size):
        for j in range(size):
            cell = outcomes[i][j]
            played = 0 if cell is None else cell[0] + cell[1] + cell[2]
            if i != j and cell is not None and played:
                matrix[i, j] = (cell[0] - cell[2]) / played
    return matrix


def nash(matrix: np.ndarray) -> np.ndarray:
    """A maximin mix of the row player of a zero-sum game (the column player pays `matrix`): the weights x
    maximising v with x·matrix[:, j] >= v for every column j."""
    size = matrix.shape[0]
    # Variables x_1..x_n, v; minimise -v.
    cost = np.zeros(size + 1)
    cost[-1] = -1.0
    upper = np.hstack([-matrix.T, np.ones((size, 1))])  # v - x·M[:, j] <= 0
    equal = np.hstack([np.ones((1, size)), np.zeros((1, 1))])
    found = linprog(cost, A_ub=upper, b_ub=np.zeros(size), A_eq=equal, b_eq=[1.0],
                    bounds=[(0, None)] * size + [(None, None)], method="highs")
    weights = np.clip(found.x[:size], 0.0, None)
    return weights / weights.sum()


def alpha_rank(matrix: np.ndarray, alpha: float = ALPHA, population: int = POPULATION) -> np.ndarray:
    """The stationary distribution of single-population α-Rank over the entrants."""
    size = matrix.shape[0]
    if size == 1:
        return np.ones(1)
    chain = np.zeros((size, size))
    for resident in range(size):
        for mutant in range(size):
            if mutant != resident:
                chain[resident, mutant] = fixation(matrix, mutant, resident, alpha, population) / (size - 1)
        chain[resident, resident] = 1.0 - chain[resident].sum()
    values, vectors = np.linalg.eig(chain.T)
    stationary = np.abs(np.real(vectors[:, int(np.argmin(np.abs(values - 1.0)))]))
    return stationary / stationary.sum()


def fixation(matrix: np.ndarray, mutant: int, resident: int, alpha: float, population: int) -> float:
    """The chance one mutant takes over a population of residents (the Moran process: k mutants, each side's
    fitness its mean payoff against the others)."""
    m = population
    total, product = 1.0, 1.0
    for k in range(1, m):
        mutant_fitness = ((k - 1) * matrix[mutant, mutant] + (m - k) * matrix[mutant, resident]) / (m - 1)
        resident_fitness = (k * matrix[resident, mutant] + (m - k - 1) * matrix[resident, resident]) / (m - 1)
        product *= math.exp(-alpha * (mutant_fitness - resident_fitness))
        total += product
        if total > 1e300:  # the mutant cannot take over
            return 0.0
    return 1.0 / total


def beats(lower: Sequence[Sequence[float | None]]) -> list[list[int]]:
    """Who beats whom beyond noise: j in beats[i] when the lower end of i's win-rate interval against j lies
    above 50%."""
    return [[j for j, low in enumerate(row) if j != i and low is not None and low > 0.5]
            for i, row in enumerate(lower)]


def cycles(edges: list[list[int]]) -> list[list[int]]:
    """Every simple cycle of the beats graph (each once, from its smallest entrant), shortest first, at most
    MAX_CYCLES: rock-paper-scissors loops of the meta."""
    found: list[list[int]] = []

    def walk(start: int, path: list[int]) -> None:
        for nxt in edges[path[-1]]:
            if nxt == start and len(path) > 2:
                found.append(list(path))
            elif nxt > start and nxt not in path:
                walk(start, [*path, nxt])

    for start in range(len(edges)):
        walk(start, [start])
    found.sort(key=lambda cycle: (len(cycle), cycle))
    return found[:MAX_CYCLES]


def meta(outcomes: Outcomes, lower: Sequence[Sequence[float | None]]) -> Meta:
    """The equilibrium, α-Rank and health figures of a matrix (`lower`: each cell's win-rate interval's lower
    end, for its cycles)."""
    matrix = payoffs(outcomes)
    weights = nash(matrix)
    ranked = alpha_rank(matrix)
    support = [i for i, weight in enumerate(weights) if weight > SUPPORT]
    entropy = max(0.0, -sum(float(w) * math.log2(float(w)) for w in weights if w > SUPPORT))
    top3 = float(sum(sorted((float(w) for w in weights), reverse=True)[:3]))
    return Meta([round(float(w), 6) for w in weights], [round(float(p), 6) for p in ranked], support,
                round(entropy, 6), round(top3, 6), cycles(beats(lower)))


def resampled_support(outcomes: Outcomes, draws: int, seed: int) -> tuple[list[float], list[tuple[float, float]]]:
    """How stable the equilibrium is within what the matches measured: each cell's (win, draw, loss) shares
    drawn from their posterior (Dirichlet, uniform prior) `draws` times, the equilibrium found each time; per
    entrant the share of draws it is in the support, and its weight's 2.5th and 97.5th percentiles."""
    rng = np.random.default_rng(seed)
    size = len(outcomes)
    inside = np.zeros(size)
    weights = np.zeros((draws, size))
    for draw in range(draws):
        matrix = np.zeros((size, size))
        for i in range(size):
            for j in range(i + 1, size):
                cell = outcomes[i][j]
                if cell is None:
                    continue
                win, _, loss = rng.dirichlet([cell[0] + 1, cell[1] + 1, cell[2] + 1])
                matrix[i, j], matrix[j, i] = win - loss, loss - win
        weights[draw] = nash(matrix)
        inside += weights[draw] > SUPPORT
    low, high = np.percentile(weights, [2.5, 97.5], axis=0)
    return ([round(float(share), 4) for share in inside / draws],
            [(round(float(a), 6), round(float(b), 6)) for a, b in zip(low, high, strict=True)])
