"""Echo Realms armies as an army search explores them (simulate.elites): a genome is a legal army, seven
(card, line) slots in deployment order; a mutation puts another card of the same rarity (or the same card on its
other line) in one slot, so every army it makes is legal (R1–R3: the quotas, printed lines, at most 5 a line);
the behaviour descriptors are figures a designer reads off an army at a glance.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from random import Random
from typing import Any

from realms.engine.cards import CharacterCard
from realms.engine.formation import legal_deployments, random_army

Genome = tuple[tuple[str, str], ...]  # (card slug, line) per slot


def faction_count(army: Sequence[tuple[CharacterCard, str]]) -> int:
    return len({card.faction for card, _ in army})


def vanguard_count(army: Sequence[tuple[CharacterCard, str]]) -> int:
    return sum(1 for _, line in army if line == "vanguard")


def mean_spd(army: Sequence[tuple[CharacterCard, str]]) -> int:
    return sum(card.spd for card, _ in army) // len(army)


@dataclass(frozen=True)
class Descriptor:
    """A behaviour descriptor: its value for an army (a whole number), and how an axis labels a value."""

    title: str
    measure: Callable[[Sequence[tuple[CharacterCard, str]]], int]
    label: Callable[[int], str]


DESCRIPTORS = {
    "factions": Descriptor("Factions fielded", faction_count, lambda n: f"{n} faction{'s' if n != 1 else ''}"),
    "vanguard": Descriptor("Characters in the Vanguard", vanguard_count, lambda n: f"{n} in the Vanguard"),
    "mean_spd": Descriptor("Mean SPD (rounded down)", mean_spd, lambda n: f"SPD {n}"),
}


class ArmySpace:
    """Legal armies from a pool's cards, their mutation and their cells over `descriptors`."""

    def __init__(self, cards: Sequence[CharacterCard], descriptors: Sequence[str]) -> None:
        self.cards = tuple(cards)
        self.by_slug = {card.slug: card for card in self.cards}
        self.descriptors = [DESCRIPTORS[name] for name in descriptors]

    def army(self, genome: Genome) -> list[tuple[CharacterCard, str]]:
        return [(self.by_slug[slug], line) for slug, line in genome]

    def random(self, rng: Random) -> Genome:
        return tuple((card.slug, line) for card, line in random_army(self.cards, rng))

    def mutate(self, genome: Genome, rng: Random) -> Genome:
        """One slot changed: another card of its rarity on a legal line, or its card on its other line."""
        slot = rng.randrange(len(genome))
        slug, line = genome[slot]
        rest = self.army(genome[:slot] + genome[slot + 1:])
        rarity = self.by_slug[slug].rarity
        options = [(other, on) for _, other, on in legal_deployments(rest, self.cards)
                   if self.by_slug[other].rarity == rarity and (other, on) != (slug, line)]
        if not options:  # the only card of its rarity that fits: the army stays as it is
            return genome
        return genome[:slot] + (options[rng.randrange(len(options))],) + genome[slot + 1:]

    def cell(self, genome: Genome) -> tuple[int, ...]:
        army = self.army(genome)
        return tuple(descriptor.measure(army) for descriptor in self.descriptors)

    def key(self, genome: Genome) -> Genome:
        return genome

    def describe(self, genome: Genome) -> list[dict[str, Any]]:
        """Its cards slot by slot, as the search played them."""
        return [{"card": card.slug, "name": card.name, "line": line, "rarity": card.rarity, "faction": card.faction,
                 "atk": card.atk, "def": card.def_, "hp": card.hp, "spd": card.spd} for card, line in self.army(genome)]

    def titles(self) -> list[str]:
        """Each descriptor's title, as the archive's axes are titled."""
        return [descriptor.title for descriptor in self.descriptors]

    def label(self, axis: int, value: int) -> str:
        """Value `value` of descriptor `axis` in words."""
        return self.descriptors[axis].label(value)

    def encode(self, genome: Genome) -> list[list[str]]:
        return [list(slot) for slot in genome]

    def decode(self, data: Sequence[Sequence[str]]) -> Genome:
        return tuple((str(slug), str(line)) for slug, line in data)

    def fielding(self, pool: Any, genome: Genome) -> Any:
        """The pool with side a's army fixed to `genome` (side b still drawn from it)."""
        return replace(pool, army=tuple(self.army(genome)))

