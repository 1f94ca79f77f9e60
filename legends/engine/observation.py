"""What an Akin Legends player sees (G2): a snapshot built by the engine, never the state.

An observation holds the player's own hand; what is public (defenses and their markers,
protectors, counters, hand and pile sizes, the discard pile, face-up cards, every card once a
showdown revealed it); face-down cards of other players as their orientation only (attack or
effect, no card, no element), teammates included; and the face-down cards a Spy revealed to
the player's team (L13); at a healing choice, the heal and its options. It keeps no
reference to the match state, so an agent cannot reach hidden cards through it. `sandbox(seed)` builds a look-ahead match from the observation
alone: every card the player cannot see is sampled from the cards it has not seen.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import TYPE_CHECKING, Any, NamedTuple

from legends.engine.cards import Catalogue, DefenseCard, ProtectorCard, SummoningCard

if TYPE_CHECKING:
    from legends.engine.showdown import Play
    from legends.engine.state import LegendsState


class PlayView(NamedTuple):
    """A card played this round as the observer sees it: `card` and `element` are None when hidden."""

    seq: int
    player: str
    team: int
    face_up: bool
    orientation: str
    card: SummoningCard | None
    element: str | None

    @property
    def kind(self) -> str | None:
        """'attack', the effect kind, or None for a hidden effect."""
        if self.orientation == "attack":
            return "attack"
        return self.card.kind if self.card is not None else None


class DefenseView(NamedTuple):
    """A defense card in play: its elements, the markers on it, whether it is destroyed."""

    card: DefenseCard
    slug: str
    team: int
    elements: tuple[str, str]
    markers: tuple[str, ...]
    destroyed: bool

    def missing(self) -> list[str]:
        """The elements it still requires."""
        return [e for e in self.elements if e not in self.markers]


class PlayerView(NamedTuple):
    """A player at the table: public facts only."""

    pid: str
    team: int
    name: str
    counter: int
    hand_size: int


class AllocationView(NamedTuple):
    """The deciding team's allocation (L9 step 4): strength points left by element and the cap."""

    team: int
    points: dict[str, int]
    attack_cards: int
    cap: int


class HealView(NamedTuple):
    """A pending healing choice (L9 step 1, or a heal_marker protector at round start): whose heal, of
    which element, from which card (`seq`) or protector, and the markers it may remove."""

    team: int
    player: str
    element: str
    via: str
    source: str
    seq: int | None
    options: tuple[tuple[str, str], ...]


def _view(p: Play, visible: bool) -> PlayView:
    if visible:
        return PlayView(p.seq, p.pid, p.team, p.face_up, p.orientation, p.card, p.element)
    return PlayView(p.seq, p.pid, p.team, p.face_up, p.orientation, None, None)


class LegendsObservation:
    """One player's view of the match at a decision (a snapshot)."""

    __slots__ = (
        "player", "team", "mode", "round", "max_rounds", "max_actions", "stage", "players", "order", "turn",
        "passes", "hand", "draw_pile", "discard", "plays", "last_plays", "defenses", "protectors", "spirits",
        "spy_used", "spied", "spied_by_opponents", "allocation", "heal", "catalogue", "elements",
    )

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

    @property
    def opponent(self) -> int:
        """The opposing team's index."""
        return 1 - self.team

    @property
    def pass_index(self) -> int:
        """0 for the face-up pass of the round, 1 (and 2 in a duel) for the face-down ones."""
        return self.turn // len(self.order)

    @property
    def face_up(self) -> bool:
        """Whether the current turn is played face up (the first of the round, L7)."""
        return self.turn < len(self.order)

    def turns_left(self, team: int) -> int:
        """How many turns of `team` remain this round after the current one."""
        n = len(self.order)
        total = n * self.passes
        by_pid = {p.pid: p.team for p in self.players}
        return sum(1 for t in range(self.turn + 1, total) if by_pid[self.order[t % n]] == team)

    def teammates(self) -> list[str]:
        """The other players of the observer's team."""
        return [p.pid for p in self.players if p.team == self.team and p.pid != self.player]

    def to_dict(self) -> dict[str, Any]:
        """The observation as plain JSON-friendly data (the catalogue, being public and fixed, is left out)."""

        def play(v: PlayView) -> dict[str, Any]:
            return {"seq": v.seq, "player": v.player, "team": v.team, "face_up": v.face_up,
                    "orientation": v.orientation, "card": v.card.slug if v.card else None, "element": v.element}

        return {
            "player": self.player, "team": self.team, "mode": self.mode, "round": self.round,
            "max_rounds": self.max_rounds, "stage": self.stage,
            "players": [p._asdict() for p in self.players], "order": list(self.order), "turn": self.turn,
            "passes": self.passes, "hand": [c.slug for c in self.hand], "draw_pile": self.draw_pile,
            "discard": [c.slug for c in self.discard], "plays": [play(v) for v in self.plays],
            "last_plays": [play(v) for v in self.last_plays],
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
            n = pool[c.slug]
            if n > 0:
                out.extend([c] * n)
        return out

    def sandbox(self, seed: int) -> LegendsState:
        """A look-ahead match built from this observation only: hidden cards sampled from `unseen()`
        (face-down attacks get one of their card's elements at random), without log, seeded."""
        from legends.engine.sandbox import determinise

        return determinise(self, random.Random(seed), seed)


def observe(state: LegendsState, pid: str) -> LegendsObservation:
    """The observation of player `pid` (G2)."""
    seat = state.by_pid[pid]
    team = seat.team
    known = state.known[team]
    o = LegendsObservation.__new__(LegendsObservation)
    o.player = pid
    o.team = team
    o.mode = state.mode
    o.round = state.round
    o.max_rounds = state.max_rounds
    o.max_actions = state.options.get("max_actions", 0)
    o.stage = state.phase()
    o.players = tuple(PlayerView(s.pid, s.team, s.name, s.counter, len(s.hand)) for s in state.seats)
    o.order = tuple(state.seats[i].pid for i in state.order)
    o.turn = state.turn
    o.passes = state.passes
    o.hand = tuple(seat.hand)
    o.draw_pile = len(state.draw)
    o.discard = tuple(state.discard)
    shown = state.revealed  # the showdown has revealed every card of the round
    o.plays = tuple(_view(p, shown or p.face_up or p.pid == pid or p.seq in known) for p in state.plays)
    o.last_plays = tuple(_view(p, True) for p in state.last_plays)
    o.defenses = tuple(
        tuple(DefenseView(d.card, d.slug, d.team, d.elements, tuple(d.markers), d.destroyed) for d in defs)
        for defs in state.defenses
    )
    o.protectors = state.protectors
    o.spirits = state.spirits
    o.spy_used = tuple(state.spy_used)
    o.spied = tuple(sorted(known))
    o.spied_by_opponents = tuple(sorted(state.known[1 - team]))
    o.allocation = None
    o.heal = None
    if o.stage == "allocate":
        t = state.alloc_queue[0]
        cards = sum(1 for p in state.plays if p.team == t and p.orientation == "attack")
        o.allocation = AllocationView(t, dict(state.points[t]), cards, state.alloc_cap)
    elif o.stage == "heal":
        task = state.heal_queue[0]
        p = task.play
        o.heal = HealView(task.team, state.current_player() or "", task.element, task.via,
                          p.card.slug if p is not None else state.protectors[task.team].slug,
                          p.seq if p is not None else None, tuple(state.heal_choices))
    o.catalogue = state.catalogue
    o.elements = state.elements
    return o
