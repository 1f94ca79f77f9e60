"""The Formation Round (R6): per-deployment legality and the legal deployments of a player.

A deployment is illegal when it would make the army impossible to complete: an 8th card, a
4th Common / 3rd Uncommon / 2nd Rare / 2nd Legendary, a 6th card in a line, a line the card's
position forbids, a card already deployed by that player, a card not in the player's
collection, or (the general clause of R6) when no choice of the remaining collection cards
could still fill the quotas within the line capacities. Codes match the army validator's.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Protocol, TypeVar

from realms.engine.vocabulary import ARMY_SIZE, LINE_CAPACITY, LINES, QUOTA_WORDS, RARITIES, RARITY_QUOTA


class Deployable(Protocol):
    """What the Formation Round rules read of a card (a CharacterCard, or the catalogue's ArmyCard)."""

    @property
    def slug(self) -> str: ...
    @property
    def rarity(self) -> str: ...
    @property
    def position(self) -> str: ...


DEPLOY = "deploy"
CardT = TypeVar("CardT", bound=Deployable)


def line_allows(position: str, line: str) -> bool:
    """R3: a card's printed position decides its legal line; flex fits either."""
    return position == "flex" or position == line


@lru_cache(maxsize=4096)
def _feasible(needs: tuple[int, ...], groups: tuple[tuple[int, int, int], ...], cap_v: int, cap_r: int) -> bool:
    """Whether each rarity's need can be met from (vanguard-only, rearguard-only, flex) counts within caps."""
    totals = {(0, 0)}
    for need, (n_v, n_r, n_f) in zip(needs, groups, strict=True):
        step = set()
        for x in range(min(need, n_v) + 1):
            for y in range(min(need - x, n_r) + 1):
                if need - x - y <= n_f:
                    step.add((x, y))
        if not step:
            return False
        totals = {(a + x, b + y) for a, b in totals for x, y in step if a + x <= cap_v and b + y <= cap_r}
        if not totals:
            return False
    return True


def can_complete(deployed: Sequence[tuple[Deployable, str]], available: Iterable[Deployable]) -> bool:
    """Whether an army holding `deployed` can still reach the quotas with cards from `available`."""
    have = dict.fromkeys(RARITIES, 0)
    lines = {"vanguard": 0, "rearguard": 0}
    used = set()
    for card, line in deployed:
        have[card.rarity] = have.get(card.rarity, 0) + 1
        lines[line] += 1
        used.add(card.slug)
    groups = {r: [0, 0, 0] for r in RARITIES}
    for card in available:
        if card.slug in used or card.rarity not in groups:
            continue
        used.add(card.slug)
        groups[card.rarity][("vanguard", "rearguard", "flex").index(card.position)] += 1
    needs = tuple(RARITY_QUOTA[r] - have[r] for r in RARITIES)
    if min(needs) < 0:
        return False
    return _feasible(
        needs,
        tuple((groups[r][0], groups[r][1], groups[r][2]) for r in RARITIES),
        LINE_CAPACITY - lines["vanguard"],
        LINE_CAPACITY - lines["rearguard"],
    )


def deployment_problems(
    deployed: Sequence[tuple[Deployable, str]], collection: Sequence[Deployable], card: Deployable, line: str
) -> list[str]:
    """Codes of every reason deploying `card` in `line` is illegal now (empty list: legal)."""
    problems = _slot_problems(deployed, collection, card, line) + _count_problems(deployed, card, line)
    if not problems and not can_complete([*deployed, (card, line)], collection):
        problems.append("cannot_complete")
    return problems


def _slot_problems(
    deployed: Sequence[tuple[Deployable, str]], collection: Sequence[Deployable], card: Deployable, line: str
) -> list[str]:
    """R1, R3, R4: a full army, a line the card's position forbids, a card not owned or already deployed."""
    problems: list[str] = []
    if len(deployed) >= ARMY_SIZE:
        problems.append("army_size")
    if line not in LINES or not line_allows(card.position, line):
        problems.append("wrong_line")
    if all(c.slug != card.slug for c in collection):
        problems.append("not_owned")
    if any(c.slug == card.slug for c, _ in deployed):
        problems.append("duplicate_card")
    return problems


def _count_problems(deployed: Sequence[tuple[Deployable, str]], card: Deployable, line: str) -> list[str]:
    """R1, R2: a rarity over its quota, a line over its capacity."""
    problems: list[str] = []
    held = sum(1 for c, _ in deployed if c.rarity == card.rarity)
    if held + 1 > RARITY_QUOTA.get(card.rarity, 0):
        problems.append("rarity_count")
    if line in LINES and sum(1 for _, ln in deployed if ln == line) + 1 > LINE_CAPACITY:
        problems.append("line_full")
    return problems


def legal_deployments(
    deployed: Sequence[tuple[Deployable, str]], collection: Sequence[Deployable]
) -> list[tuple[str, str, str]]:
    """Every legal ("deploy", slug, line) for a player, in collection order."""
    if len(deployed) >= ARMY_SIZE:
        return []
    used = {c.slug for c, _ in deployed}
    have = dict.fromkeys(RARITIES, 0)
    lines = {"vanguard": 0, "rearguard": 0}
    for c, ln in deployed:
        have[c.rarity] = have.get(c.rarity, 0) + 1
        lines[ln] += 1
    verdict: dict[tuple[str, str, str], bool] = {}
    actions: list[tuple[str, str, str]] = []
    seen: set[str] = set()
    for card in collection:
        if card.slug in used or card.slug in seen:
            continue
        seen.add(card.slug)
        if have.get(card.rarity, 0) >= RARITY_QUOTA.get(card.rarity, 0):
            continue
        for line in LINES:
            if not line_allows(card.position, line) or lines[line] >= LINE_CAPACITY:
                continue
            key = (card.rarity, card.position, line)
            ok = verdict.get(key)
            if ok is None:
                ok = verdict[key] = can_complete([*deployed, (card, line)], collection)
            if ok:
                actions.append((DEPLOY, card.slug, line))
    return actions


RANDOM_ARMY_DRAW = ("Slot by slot, a card drawn uniformly among the cards with a legal deployment (so a Flex card is "
                    "no likelier than another), then one of its legal lines uniformly")


def random_army(cards: Sequence[CardT], rng: random.Random) -> list[tuple[CardT, str]]:
    """A random legal army (R1–R3) from `cards`, drawn with `rng`: the quotas, printed lines, ≤ 5 per line.

    Slot by slot, a card is drawn uniformly among the cards with a legal deployment, then one of its legal lines
    uniformly (RANDOM_ARMY_DRAW): a draw among the deployments themselves would field a Flex card, which has two,
    twice as often as the others.
    """
    army: list[tuple[CardT, str]] = []
    while len(army) < ARMY_SIZE:
        lines_of: dict[str, list[str]] = {}  # each card with a legal deployment, in collection order: its lines
        for _, slug, line in legal_deployments(army, cards):
            lines_of.setdefault(slug, []).append(line)
        if not lines_of:
            raise ValueError(f"These cards cannot make a legal army ({QUOTA_WORDS}).")
        slugs = list(lines_of)
        slug = slugs[rng.randrange(len(slugs))]
        lines = lines_of[slug]
        army.append((next(c for c in cards if c.slug == slug), lines[rng.randrange(len(lines))]))
    return army
