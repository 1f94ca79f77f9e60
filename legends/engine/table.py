"""The table: the seats and their hands, the piles, the defenses in play, the round's plays, what is
pending, the log; and the small steps every rule uses (drawing cards, refilling the pile, who decides).

The rules that use these steps live in their own modules (turns, heals, rounds); the match itself
(`state.LegendsState`) is a `Table` with the public interface on top.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any, Final

from legends.engine.cards import Catalogue, ProtectorCard, SummoningCard
from legends.engine.effects.base import ProtectorEffect
from legends.engine.events import EVENT_FIELDS
from legends.engine.showdown import Defense, Placement, Play
from legends.engine.views import KeptViews
from simulate.engine.events import Event, EventLog
from simulate.engine.rng import shuffle

# An action of a decision (see state.py): a tuple whose first item names its kind.
Action = tuple[Any, ...]

# What the match waits for.
PLAY_STAGE: Final = 0
ALLOCATE_STAGE: Final = 1
HEAL_STAGE: Final = 2
OVER: Final = 3
STAGE_NAMES: Final = ("play", "allocate", "heal", "over")

# What the round does next once no heal is pending: the turns (then the showdown), the showdown's
# attacks (steps 2 and 3, after its healing cards), the allocations (then the end of the round).
TURNS: Final = 0
ATTACKS: Final = 1
ALLOCATIONS: Final = 2


class Seat:
    """A player at the table: index, id, team, name, turn counter and hand."""

    __slots__ = ("index", "pid", "team", "name", "counter", "hand")

    def __init__(self, index: int, pid: str, team: int, name: str, counter: int, hand: list[SummoningCard]) -> None:
        """Seat `index` (setup order), player `pid` of `team`."""
        self.index = index
        self.pid = pid
        self.team = team
        self.name = name
        self.counter = counter
        self.hand = hand

    def copy(self) -> Seat:
        """An independent copy (look-ahead states)."""
        return Seat(self.index, self.pid, self.team, self.name, self.counter, list(self.hand))


class HealTask:
    """One pending heal of `team`: a healing card of the showdown (L9 step 1, `play` is the card) or a
    heal_marker protector's at round start (`play` None)."""

    __slots__ = ("team", "element", "via", "play")

    def __init__(self, team: int, element: str, via: str, play: Play | None) -> None:
        """A heal of `element` (or "any") for `team`'s defenses."""
        self.team = team
        self.element = element
        self.via = via
        self.play = play


class Table:
    """The match's data and its elementary steps."""

    def __init__(
        self, mode: str, catalogue: Catalogue, options: Mapping[str, Any], seed: int, *, keep_log: bool = True,
        agents: Mapping[str, str] | None = None, rng: random.Random | None = None,
    ) -> None:
        """An empty table for a match of `mode` with the cards of `catalogue`: options validated, the match
        generator (`rng`, else one seeded with `seed`), the log when kept, each seat's agent name (logged)."""
        self.mode = mode
        self.catalogue = catalogue
        self.elements = catalogue.elements
        self.options = dict(options)
        self.seed = seed
        self.rng = rng if rng is not None else random.Random(seed)
        self.log: EventLog | None = EventLog(EVENT_FIELDS) if keep_log else None
        # The public setup and the seeds are logged as dicts (`emit`); every other event as a compact record
        # (`record`: one tuple of the type and its fields' values in EVENT_FIELDS' order, made into the dict only
        # when the log is read). What a record holds is never changed afterwards.
        self.emit: Callable[[Event], None] | None = self.log.append if self.log is not None else None
        self.record: Callable[[tuple[Any, ...]], None] | None = self.log.record if self.log is not None else None
        self.agent_names: dict[str, str] = dict(agents or {})
        self.agent_seeds: dict[str, int] = {}
        self.max_rounds: int = options["max_rounds"]
        self.passes = 0  # the cards each player plays a round (L7)
        self.spirits: tuple[str, ...] = ()
        self.protectors: tuple[ProtectorCard, ...] = ()
        self.effects: tuple[ProtectorEffect, ...] = ()
        self.redraw_limits: list[int] = []  # per team: the largest redraw (L8, redraw_size)
        self.defenses: list[list[Defense]] = [[], []]
        self.seats: list[Seat] = []
        self.by_pid: dict[str, Seat] = {}
        self.everyone: list[str] = []  # every seat's player id, in setup order
        self.public: tuple[str, ...] = ()  # the same, as a record's `visible_to` for every seat (never changed)
        self.draw: list[SummoningCard] = []  # the draw pile, its top last
        self.discard: list[SummoningCard] = []
        self.round = 0
        self.first_team: int | None = None  # the team of the player who acts first in the match (L5)
        self.order: list[int] = []  # the round's turn order (seat indexes, by counter)
        self.turn = 0  # the turns taken this round (the next turn's seq)
        self.plays: list[Play] = []
        self.last_plays: list[Play] = []
        self.played: list[set[str]] = [set(), set()]  # per team: every summoning card it played (the outcome)
        self.known: list[set[int]] = [set(), set()]  # per team: the seqs of the face-down cards a Spy showed it
        self.spy_used = [False, False]
        self.revealed = False  # the showdown has revealed every card of the round
        self.stage = PLAY_STAGE
        self.step = TURNS
        self.points: list[dict[str, int]] = [{}, {}]  # per team: the points left to allocate (L9 step 4)
        self.alloc_queue: list[int] = []  # the teams still to allocate, in order
        self.alloc_options: list[tuple[Placement, ...]] = []
        self.alloc_cap = 0
        self.heal_queue: list[HealTask] = []
        self.heal_choices: list[Placement] = []
        self.legal: list[Action] | None = None  # the pending decision's actions, once computed
        self.winner: int | None = None
        self.reason = ""
        self.views = KeptViews()  # the views its observations share

    # ------------------------------------------------------------------ who decides

    def turn_seat(self) -> Seat:
        """The seat whose turn it is."""
        order = self.order
        return self.seats[order[self.turn % len(order)]]

    def decider(self, team: int) -> Seat:
        """The team's agent for an allocation or a protector's heal: its first player in counter order."""
        for i in self.order:
            if self.seats[i].team == team:
                return self.seats[i]
        raise AssertionError("a team without players")

    def healer(self, task: HealTask) -> Seat:
        """Who chooses a heal: the player of the healing card; for a protector, the team's decider."""
        return self.seats[task.play.seat] if task.play is not None else self.decider(task.team)

    # ------------------------------------------------------------------ the piles (L8)

    def draw_cards(self, seat: Seat, count: int, reason: str, source: str | None = None) -> int:
        """Draw up to `count` cards; an empty draw pile is refilled from the shuffled discard pile (L8), and when
        both are empty fewer cards are drawn. Cards the caller holds aside (a redraw's discards) are in neither
        pile, so no refill hands them back. Logged as `draw` events (the cards, for their owner), split where a
        refill happens."""
        drawn = 0
        hand = seat.hand
        logged = self.record is not None
        taken: list[str] = []
        for _ in range(count):
            if not self.draw:
                if not self.discard:
                    break
                if logged and taken:
                    self.log_draw(seat, reason, source, count, taken)
                    taken = []
                self.refill()
            card = self.draw.pop()
            hand.append(card)
            drawn += 1
            if logged:
                taken.append(card.slug)
        if logged:
            self.log_draw(seat, reason, source, count, taken)
        return drawn

    def log_draw(self, seat: Seat, reason: str, source: str | None, count: int, cards: list[str]) -> None:
        """The `draw` event of cards just drawn (visible to their owner); `cards` is the caller's fresh list."""
        if self.record is not None:
            self.record(("draw", self.round, seat.pid, reason, source, count, cards, len(seat.hand), len(self.draw),
                         (seat.pid,)))

    def refill(self) -> None:
        """The discard pile, shuffled with the match generator, becomes the draw pile (L8, G1)."""
        cards = self.discard
        shuffle(self.rng, cards)
        self.draw = cards
        self.discard = []
        if self.record is not None:
            self.record(("shuffle", self.round, "refill", tuple([c.slug for c in reversed(cards)]), ()))
