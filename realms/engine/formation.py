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
from typing import Generic, Protocol, TypeVar

from realms.engine.vocabulary import ARMY_SIZE, LINE_CAPACITY, LINES, QUOTA_WORDS, RARITIES, RARITY_QUOTA
from simulate.engine.rng import below


class Deployable(Protocol):
    """What the Formation Round rules read of a card (a CharacterCard, or the catalogue's ArmyCard)."""

    @property
    def slug(self) -> str: ...
    @property
    def rarity(self) -> str: ...
    @property
    def position(self) -> str: ...


DEPLOY = "deploy"
POSITION_ORDER = ("vanguard", "rearguard", "flex")  # the order of a rarity's counts of available cards
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
        groups[card.rarity][POSITION_ORDER.index(card.position)] += 1
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


# The legal lines of each (rarity, position) by the counts they were found at (`_Counts.known_lines`): a field
# study draws every army slot by slot from the same few states.
_LEGAL_LINES: dict[tuple[object, ...], dict[tuple[str, str], list[str]]] = {}
LEGAL_LINES_KEPT = 4096


class _Counts:
    """An army being deployed from a collection, as the legality of the next deployment reads it: the slugs used,
    the cards held per rarity and per line, and the cards still available per rarity and position (each slug once)."""

    def __init__(self, deployed: Sequence[tuple[Deployable, str]], collection: Iterable[Deployable]) -> None:
        self.used = {c.slug for c, _ in deployed}
        self.have = dict.fromkeys(RARITIES, 0)
        self.lines = {"vanguard": 0, "rearguard": 0}
        for c, ln in deployed:
            self.have[c.rarity] = self.have.get(c.rarity, 0) + 1
            self.lines[ln] += 1
        self.groups = {r: [0, 0, 0] for r in RARITIES}
        counted = set(self.used)
        for card in collection:
            if card.slug in counted or card.rarity not in self.groups:
                continue
            counted.add(card.slug)
            self.groups[card.rarity][POSITION_ORDER.index(card.position)] += 1

    def known_lines(self) -> dict[tuple[str, str], list[str]]:
        """The legal lines found so far for this state of the army (what is held, per rarity and per line, and what
        is still available): shared by every army that reaches the same counts, whatever its cards."""
        key = (tuple(self.have[r] for r in RARITIES), self.lines["vanguard"], self.lines["rearguard"],
               tuple(n for r in RARITIES for n in self.groups[r]))
        known = _LEGAL_LINES.get(key)
        if known is None:
            if len(_LEGAL_LINES) >= LEGAL_LINES_KEPT:
                _LEGAL_LINES.clear()
            known = _LEGAL_LINES[key] = {}
        return known

    def legal_lines(self, card: Deployable, known: dict[tuple[str, str], list[str]]) -> list[str]:
        """The lines `card` (not deployed yet) may be deployed in now, in LINES order. They depend on its rarity
        and position only: `known` (`known_lines`) keeps them (the list is shared, not to be changed)."""
        key = (card.rarity, card.position)
        lines = known.get(key)
        if lines is None:
            lines = known[key] = self.lines_for(card)
        return lines

    def lines_for(self, card: Deployable) -> list[str]:
        if self.have.get(card.rarity, 0) >= RARITY_QUOTA.get(card.rarity, 0):
            return []
        return [line for line in LINES if line_allows(card.position, line) and self.lines[line] < LINE_CAPACITY
                and self.completes_with(card, line)]

    def completes_with(self, card: Deployable, line: str) -> bool:
        """`can_complete` of the army with `card` added in `line`, from the counts: one more of its rarity held, one
        fewer of its group available, one place fewer in its line."""
        needs = tuple(RARITY_QUOTA[r] - self.have[r] - (1 if r == card.rarity else 0) for r in RARITIES)
        if min(needs) < 0:
            return False
        mine = POSITION_ORDER.index(card.position)
        available = []
        for r in RARITIES:
            v, rg, f = self.groups[r]
            if r == card.rarity:
                v, rg, f = v - (mine == 0), rg - (mine == 1), f - (mine == 2)
            available.append((int(v), int(rg), int(f)))
        cap_v = LINE_CAPACITY - self.lines["vanguard"] - (1 if line == "vanguard" else 0)
        cap_r = LINE_CAPACITY - self.lines["rearguard"] - (1 if line == "rearguard" else 0)
        return _feasible(needs, tuple(available), cap_v, cap_r)

    def deploy(self, card: Deployable, line: str) -> None:
        self.used.add(card.slug)
        self.have[card.rarity] += 1
        self.lines[line] += 1
        self.groups[card.rarity][POSITION_ORDER.index(card.position)] -= 1


def first_of_each(collection: Iterable[CardT]) -> list[CardT]:
    """Each slug's first card, in collection order."""
    seen: set[str] = set()
    unique = []
    for card in collection:
        if card.slug not in seen:
            seen.add(card.slug)
            unique.append(card)
    return unique


def legal_deployments(
    deployed: Sequence[tuple[Deployable, str]], collection: Sequence[Deployable]
) -> list[tuple[str, str, str]]:
    """Every legal ("deploy", slug, line) for a player, in collection order: what `deployment_problems` allows,
    read off counts of the cards still available (not one `can_complete` a candidate: a field study draws
    thousands of armies)."""
    if len(deployed) >= ARMY_SIZE:
        return []
    counts = _Counts(deployed, collection)
    known = counts.known_lines()
    return [(DEPLOY, card.slug, line) for card in first_of_each(collection) if card.slug not in counts.used
            for line in counts.legal_lines(card, known)]


RANDOM_ARMY_DRAW = ("Slot by slot, a card drawn uniformly among the cards with a legal deployment (so a Flex card is "
                    "no likelier than another), then one of its legal lines uniformly")


def random_army(cards: Sequence[CardT], rng: random.Random) -> list[tuple[CardT, str]]:
    """A random legal army (R1–R3) from `cards`, drawn with `rng`: the quotas, printed lines, ≤ 5 per line.

    Slot by slot, a card is drawn uniformly among the cards with a legal deployment, then one of its legal lines
    uniformly (RANDOM_ARMY_DRAW): a draw among the deployments themselves would field a Flex card, which has two,
    twice as often as the others.
    """
    return ArmyDraw(cards).draw(rng)


class ArmyDraw(Generic[CardT]):
    """`random_army` for one pool of cards, read once: a field study draws thousands of armies from the same pool.
    Each card's kind (rarity, position) is a small number; an army being drawn is a count of each kind taken and
    of the Vanguard's places filled, and every kind's legal lines are kept by that state: the army's cards matter
    to them only through these counts."""

    def __init__(self, cards: Sequence[CardT]) -> None:
        self.cards = cards
        self.unique = first_of_each(cards)
        kinds = sorted({(card.rarity, card.position) for card in self.unique})
        number = {kind: i for i, kind in enumerate(kinds)}
        self.kind_of = [number[(card.rarity, card.position)] for card in self.unique]
        # One card of each kind: the legal lines `_Counts` finds for it are its kind's.
        self.first_of_kind = [self.unique[self.kind_of.index(i)] for i in range(len(kinds))]
        self.cards_of_kind = [self.kind_of.count(i) for i in range(len(kinds))]
        # An army being drawn is one number: each kind's count of cards taken and the Vanguard's count, in base 8
        # (an army holds at most 7 cards).
        self.step_of = [8 ** i for i in range(len(kinds))]
        self.vanguard_step = 8 ** len(kinds)
        self.lines_at: dict[int, list[list[str]]] = {}

    def draw(self, rng: random.Random) -> list[tuple[CardT, str]]:
        army: list[tuple[CardT, str]] = []
        kind_of, step_of = self.kind_of, self.step_of
        state = 0  # the army so far as one number (`step_of`): what its kinds' legal lines are kept by
        left = list(range(len(self.unique)))  # the cards not deployed yet, in collection order
        remaining = list(self.cards_of_kind)  # of them, how many of each kind
        while len(army) < ARMY_SIZE:
            lines_of = self.lines_at.get(state)
            if lines_of is None:
                lines_of = self.legal_lines(army, state)
            # The options are the cards left whose kind has a legal line, in collection order: the one drawn is
            # found by counting, not by listing them all.
            count = 0
            for kind, lines in enumerate(lines_of):
                if lines:
                    count += remaining[kind]
            if not count:
                raise ValueError(f"These cards cannot make a legal army ({QUOTA_WORDS}).")
            nth = below(rng, count)
            at = 0
            while True:
                if lines_of[kind_of[left[at]]]:
                    if not nth:
                        break
                    nth -= 1
                at += 1
            chosen = left.pop(at)
            kind = kind_of[chosen]
            lines = lines_of[kind]
            line = lines[below(rng, len(lines))]
            army.append((self.unique[chosen], line))
            remaining[kind] -= 1
            state += step_of[kind] + (self.vanguard_step if line == "vanguard" else 0)
        return army

    def legal_lines(self, army: list[tuple[CardT, str]], state: int) -> list[list[str]]:
        """Each kind's legal lines for the army drawn so far, as legal_deployments has them, kept by its state."""
        if len(self.lines_at) >= LEGAL_LINES_KEPT:
            self.lines_at.clear()
        counts = _Counts(army, self.unique)
        known = counts.known_lines()
        lines_of = self.lines_at[state] = [counts.legal_lines(card, known) for card in self.first_of_kind]
        return lines_of
