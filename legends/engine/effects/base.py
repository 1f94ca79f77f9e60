"""What every protector effect kind has: its spec (hook and parameters), what it does at its hook of
the round, how the greedy agent reckons with it, and the words it prints on the card.

Each kind is one module of this package holding one `ProtectorKind`; `legends.engine.protectors.KINDS`
maps names to them. The spec parser, the match, the showdown steps, the agents and the card text all
go through it: a kind answers each hook, and the base answers "nothing" for the hooks a kind has not.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

from legends.engine.vocabulary import ANY_ELEMENT, REDRAW_SIZE

if TYPE_CHECKING:
    from legends.engine.showdown import BoostRecord, CancelRecord, Play


@dataclass(frozen=True)
class Param:
    """One integer parameter of an effect kind, with its bounds."""

    name: str
    low: int
    high: int


@dataclass(frozen=True)
class ProtectorEffect:
    """A validated protector effect; parameters a kind does not use stay at 0 / ""."""

    kind: str
    when: str
    handler: ProtectorKind = field(compare=False, repr=False)
    count: int = 0
    amount: int = 0
    max_hand: int = 0
    element: str = ""

    @property
    def teams_only(self) -> bool:
        """True when the effect needs a hook that only teams mode has (so it is illegal in a duel)."""
        return self.handler.teams_only

    def matches(self, element: str) -> bool:
        """Whether the effect applies to `element` (an element slug)."""
        return self.element in (ANY_ELEMENT, element)


class ProtectorKind:
    """One protector effect kind (see the module docstring); each kind overrides what applies to it."""

    name: ClassVar[str] = ""
    when: ClassVar[str] = ""  # the hook of the round at which it runs (vocabulary.HOOKS)
    params: ClassVar[tuple[Param, ...]] = ()  # its integer parameters
    element: ClassVar[bool] = False  # whether it takes an element parameter (an element slug or "any")
    teams_only: ClassVar[bool] = False  # whether only teams mode has its hook
    refused: ClassVar[tuple[tuple[str, str], ...]] = ()  # fields it refuses, with the reason
    draws_at_round_end: ClassVar[bool] = False  # L11: its team draws after the counters are handed on

    def describe(self, effect: ProtectorEffect, names: Mapping[str, str]) -> str:
        """The effect in plain words, as printed on the card (`names`: element slug -> name)."""
        raise NotImplementedError

    def look(self, effect: ProtectorEffect, plays: Sequence[Play], team: int) -> Play | None:
        """Before a face-down turn of `team`: the opposing face-down card its players see, if any."""
        return None

    def round_start_heals(self, effect: ProtectorEffect) -> int:
        """The markers its team removes at round start, one heal at a time."""
        return 0

    def redraw_limit(self, effect: ProtectorEffect) -> int:
        """The largest redraw a player of its team may make (L8: 3 without a protector raising it)."""
        return REDRAW_SIZE

    def boost(
        self, effect: ProtectorEffect, plays: Sequence[Play], strength: dict[int, int], team: int
    ) -> BoostRecord | None:
        """Showdown step 2, after the boost cards: add to the strength of `team`'s attacks (by seq)."""
        return None

    def pierce_budget(self, effect: ProtectorEffect) -> int:
        """Showdown step 3: how many opposing defense cards its team's attacks pierce."""
        return 0

    def cancel(
        self, effect: ProtectorEffect, target: dict[str, int], elements: Sequence[str], team: int
    ) -> list[CancelRecord]:
        """Showdown step 3, after the defense cards: cancel points of the opposing `target` (mutated)."""
        return []

    def round_end_draw(self, effect: ProtectorEffect, hand_size: int) -> int:
        """End of round: the cards a player of its team holding `hand_size` cards draws."""
        return 0

    def first_attack_bonus(self, effect: ProtectorEffect, element: str) -> int:
        """The greedy agent's reckoning of step 2: what it adds to its team's first `element` attack."""
        return 0

    def cancel_estimate(self, effect: ProtectorEffect, element: str) -> int:
        """The greedy agent's reckoning of step 3: the opposing `element` points it cancels."""
        return 0


def plural(count: int, word: str) -> str:
    """'1 card', '2 cards'."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def of_element(effect: ProtectorEffect, noun: str, names: Mapping[str, str]) -> str:
    """`noun` qualified by the effect's element: "Fire attack", or "attack of any element"."""
    if effect.element == ANY_ELEMENT:
        return f"{noun} of any element"
    return f"{names.get(effect.element, effect.element)} {noun}"
