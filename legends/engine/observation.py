"""What an Akin Legends player sees (G2): a snapshot built by the engine, never the state.

An observation holds the player's own hand; what is public (defenses and their markers,
protectors, counters, hand and pile sizes, the discard pile, face-up cards, every card once a
showdown revealed it); face-down cards of other players as their orientation only (attack or
effect, no card, no element), teammates included; and the face-down cards a Spy revealed to
the player's team (L13); at a healing choice, the heal and its options. It is made of tuples and
frozen cards only and keeps no reference to the match state, so an agent cannot reach hidden cards
through it. `sandbox(seed)` builds a look-ahead match from the observation alone: every card the
player cannot see is sampled from the cards it has not seen.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from legends.engine.cards import Catalogue, ProtectorCard, SummoningCard
from legends.engine.table import ALLOCATE_STAGE, HEAL_STAGE, STAGE_NAMES, Table
from legends.engine.views import AllocationView, DefenseView, HealView, PlayerView, PlayView, new_view
from legends.engine.vocabulary import ATTACK

if TYPE_CHECKING:
    from legends.engine.state import LegendsState


# How a look-ahead match is built from an observation (the state's determinisation): the state making an
# observation hands it over, so that what a player sees needs nothing of the match to play on.
Lookahead = Callable[["LegendsObservation", int], "LegendsState"]


class LegendsObservation(NamedTuple):
    """One player's view of the match at a decision (a snapshot)."""

    player: str
    team: int
    mode: str
    round: int
    max_rounds: int
    max_actions: int
    stage: str
    players: tuple[PlayerView, ...]
    order: tuple[str, ...]
    turn: int
    passes: int
    hand: tuple[SummoningCard, ...]
    draw_pile: int
    discard: tuple[SummoningCard, ...]
    plays: tuple[PlayView, ...]
    last_plays: tuple[PlayView, ...]
    defenses: tuple[tuple[DefenseView, ...], ...]
    protectors: tuple[ProtectorCard, ...]
    spirits: tuple[str, ...]
    spy_used: tuple[bool, ...]
    spied: tuple[int, ...]
    spied_by_opponents: tuple[int, ...]
    allocation: AllocationView | None
    heal: HealView | None
    catalogue: Catalogue
    elements: tuple[str, ...]
    lookahead: Lookahead

    @property
    def opponent(self) -> int:
        """The opposing team's index."""
        return 1 - self.team

    def turns_left(self, team: int) -> int:
        """How many turns of `team` remain this round after the current one."""
        count = len(self.order)
        teams = {p.pid: p.team for p in self.players}
        left = 0
        for turn in range(self.turn + 1, count * self.passes):
            if teams[self.order[turn % count]] == team:
                left += 1
        return left

    def to_dict(self) -> dict[str, Any]:
        """The observation as plain JSON-friendly data (the catalogue, being public and fixed, is left out)."""
        return {
            "player": self.player, "team": self.team, "mode": self.mode, "round": self.round,
            "max_rounds": self.max_rounds, "stage": self.stage,
            "players": [p._asdict() for p in self.players], "order": list(self.order), "turn": self.turn,
            "passes": self.passes, "hand": [c.slug for c in self.hand], "draw_pile": self.draw_pile,
            "discard": [c.slug for c in self.discard], "plays": [v.to_dict() for v in self.plays],
            "last_plays": [v.to_dict() for v in self.last_plays],
            "defenses": [
                [{"defense": d.slug, "elements": list(d.elements), "markers": list(d.markers),
                  "destroyed": d.destroyed} for d in team]
                for team in self.defenses
            ],
            "protectors": [p.slug for p in self.protectors], "spirits": list(self.spirits),
            "spy_used": list(self.spy_used), "spied": list(self.spied),
            "spied_by_opponents": list(self.spied_by_opponents),
            "allocation": None if self.allocation is None else {
                "team": self.allocation.team, "points": dict(self.allocation.points),
                "attack_cards": self.allocation.attack_cards, "cap": self.allocation.cap,
            },
            "heal": None if self.heal is None else {
                "team": self.heal.team, "player": self.heal.player, "element": self.heal.element,
                "via": self.heal.via, "source": self.heal.source, "seq": self.heal.seq,
                "options": [list(o) for o in self.heal.options],
            },
        }

    def unseen(self) -> list[SummoningCard]:
        """The cards the observer cannot see (other hands, the draw pile, hidden face-down cards),
        as a multiset in catalogue order: the deck minus every card it can see."""
        pool = Counter({c.slug: c.copies for c in self.catalogue.designs})
        for c in self.hand:
            pool[c.slug] -= 1
        for c in self.discard:
            pool[c.slug] -= 1
        for v in self.plays:
            if v.card is not None:
                pool[v.card.slug] -= 1
        out: list[SummoningCard] = []
        for c in self.catalogue.designs:
            copies = pool[c.slug]
            if copies > 0:
                out.extend([c] * copies)
        return out

    def sandbox(self, seed: int) -> LegendsState:
        """A look-ahead match built from this observation only: hidden cards sampled from `unseen()`
        (face-down attacks get one of their card's elements at random), without log, seeded."""
        return self.lookahead(self, seed)


def observe(table: Table, pid: str, lookahead: Lookahead) -> LegendsObservation:
    """The observation of player `pid` (G2); `lookahead` builds its sandboxes."""
    seat = table.by_pid[pid]
    team = seat.team
    known = table.known[team]
    stage = table.stage
    allocation: AllocationView | None = None
    heal: HealView | None = None
    if stage == ALLOCATE_STAGE:
        deciding = table.alloc_queue[0]
        cards = sum(1 for p in table.plays if p.team == deciding and p.orientation == ATTACK)
        allocation = new_view(AllocationView, (deciding, dict(table.points[deciding]), cards, table.alloc_cap))
    elif stage == HEAL_STAGE:
        task = table.heal_queue[0]
        p = task.play
        heal = new_view(HealView, (task.team, table.healer(task).pid, task.element, task.via,
                                   p.card.slug if p is not None else table.protectors[task.team].slug,
                                   p.seq if p is not None else None, tuple(table.heal_choices)))
    opposing = table.known[1 - team]
    views = table.views
    plays = views.round_views(table.plays, pid, known, table.revealed)
    return new_view(LegendsObservation, (
        pid, team, table.mode, table.round, table.max_rounds, table.options.get("max_actions", 0), STAGE_NAMES[stage],
        views.player_views(table.seats), views.order_view(table.order, table.seats), table.turn, table.passes,
        tuple(seat.hand), len(table.draw), views.discard_view(table.discard), plays, views.last_views(table.last_plays),
        views.defense_views(table.defenses), table.protectors, table.spirits, tuple(table.spy_used),
        tuple(sorted(known)) if known else (), tuple(sorted(opposing)) if opposing else (), allocation, heal,
        table.catalogue, table.elements, lookahead,
    ))
