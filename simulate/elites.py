"""MAP-Elites (Mouret & Clune 2015) on one island: an archive keeping, in each cell of a grid of behaviour
descriptors, the fittest genome found, grown by mutating elites drawn uniformly from it; then every elite played
again on fresh games, so that the win rate shown of it is not the lucky estimate that made it an elite.

The genomes, their mutation and their cells are a game's (`Space`); fitness is the share of games a genome won
(draws are not wins, as every win rate here counts them), in games with consecutive match numbers, so that every game
of a search has its own number and plays again alone from it. No Django, no clock: an island plays the same
from its generator.

Written here rather than with pyribs: a genome is a list of card choices, not a vector of reals (pyribs'
emitters are Gaussian and CMA-ES ones), its archive would be the only part used, and it needs numba, pandas and
scikit-learn; an island's archive also has to be plain JSON, merged from many workers' chunks.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from random import Random
from typing import Any, Protocol

Cell = tuple[int, ...]
# (genome, number of its first game, games) -> games won
Evaluate = Callable[[Any, int, int], int]


class Space(Protocol):
    """What an island searches: random genomes, a mutation, each genome's cell and a key telling equal ones."""

    def random(self, rng: Random) -> Any: ...
    def mutate(self, genome: Any, rng: Random) -> Any: ...
    def cell(self, genome: Any) -> Cell: ...
    def key(self, genome: Any) -> Hashable: ...


@dataclass(frozen=True)
class Settings:
    """How an island spends its games: `per_evaluation` games a genome, the first `initial` genomes random (at
    most a tenth of them), `final_share` of its games kept to play every elite again (at least `final_min` each,
    fittest first)."""

    per_evaluation: int = 20
    initial: int = 24
    final_share: float = 0.25
    final_min: int = 10


@dataclass
class Elite:
    """A cell's fittest genome: its wins and games while searched, then on its own fresh games (`final_*`,
    numbered from `final_first`)."""

    genome: Any
    cell: Cell
    wins: int
    games: int
    final_wins: int = 0
    final_games: int = 0
    final_first: int = 0

    @property
    def fitness(self) -> float:
        """Its win rate while searched."""
        return self.wins / self.games


@dataclass
class Island:
    """An island's archive, and how its search went."""

    elites: dict[Cell, Elite] = field(default_factory=dict)
    evaluations: int = 0
    replaced: int = 0  # elites pushed out by a fitter genome of their cell
    games: int = 0  # every game played, the final ones included


def run_island(space: Space, evaluate: Evaluate, games: int, first: int, rng: Random,
               settings: Settings = Settings()) -> Island:
    """An island of `games` games numbered from `first`: MAP-Elites, then every elite played again."""
    island = Island()
    final = int(games * settings.final_share)
    number = first
    searched_to = first + games - final
    per = settings.per_evaluation
    # The first genomes random, never more than a tenth of a short island's (so that a small search mutates too).
    initial = min(settings.initial, max(2, (searched_to - first) // per // 10))
    while number + per <= searched_to:
        parents = list(island.elites.values())
        random_now = island.evaluations < initial or not parents
        genome = space.random(rng) if random_now else space.mutate(parents[rng.randrange(len(parents))].genome, rng)
        wins = evaluate(genome, number, per)
        number += per
        island.evaluations += 1
        place(island, space, Elite(genome, space.cell(genome), wins, per))
    number = replay_elites(island, evaluate, number, first + games, settings.final_min)
    island.games = number - first
    return island


def place(island: Island, space: Space, found: Elite) -> None:
    """Keep `found` in its cell if the cell is empty or it is fitter than the elite there; the same genome
    found again adds its games to the elite's instead (the estimate firms up rather than being drawn again)."""
    current = island.elites.get(found.cell)
    if current is not None and space.key(current.genome) == space.key(found.genome):
        current.wins += found.wins
        current.games += found.games
    elif current is None or found.fitness >= current.fitness:  # ties move on: the search drifts over plateaus
        island.replaced += current is not None
        island.elites[found.cell] = found


def replay_elites(island: Island, evaluate: Evaluate, number: int, end: int, least: int) -> int:
    """Every elite, fittest first, played again on games of its own up to `end` (an even share each, at least
    `least`: the least fit get none when the games run out); the next game's number."""
    ranked = sorted(island.elites.values(), key=lambda elite: (-elite.fitness, elite.cell))
    if not ranked:
        return number
    each = max(least, (end - number) // len(ranked))
    for elite in ranked:
        if number + each > end:
            break
        elite.final_first = number
        elite.final_wins = evaluate(elite.genome, number, each)
        elite.final_games = each
        number += each
    return number


def island_data(island: Island, encode: Callable[[Any], Any]) -> dict[str, Any]:
    """An island as plain JSON, each genome as `encode` writes it."""
    return {
        "elites": [{"cell": list(elite.cell), "genome": encode(elite.genome), "wins": elite.wins,
                    "games": elite.games, "final_wins": elite.final_wins, "final_games": elite.final_games,
                    "final_first": elite.final_first} for elite in island.elites.values()],
        "evaluations": island.evaluations, "replaced": island.replaced, "games": island.games,
    }


def merged_cells(islands: list[dict[str, Any]]) -> dict[Cell, dict[str, Any]]:
    """Every cell any island filled, with the elite that was fittest while searched (ties: more games, then the
    first island): chosen on the search's figures, so that its final games, never used to choose it, say how
    strong it is without the bias of the choice."""
    best: dict[Cell, dict[str, Any]] = {}
    for number, island in enumerate(islands):
        for elite in island["elites"]:
            cell = tuple(elite["cell"])
            rank = (elite["wins"] / elite["games"], elite["games"], -number)
            if cell not in best or rank > best[cell]["rank"]:
                best[cell] = {**elite, "island": number, "rank": rank}
    for elite in best.values():
        del elite["rank"]
    return best
