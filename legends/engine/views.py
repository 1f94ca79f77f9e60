"""The parts of an observation (G2): immutable views of plays, defenses and players, and the views a match
keeps so that every observation does not build them again.

A view is made once and shared by every observation that shows the same thing: a play's whole view and
its orientation-only view, the last round's plays, each defense while its markers are unchanged, each
player while its counter and hand size are. Every kept view is checked against the table before it is
reused, so a change made to the table by hand shows at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from legends.engine.vocabulary import ATTACK

if TYPE_CHECKING:
    from legends.engine.cards import DefenseCard, SummoningCard
    from legends.engine.showdown import Defense, Placement, Play
    from legends.engine.table import Seat


# Views are made with tuple.__new__ straight away: a named tuple's own __new__ is a Python function, slow to call
# from compiled code at every decision.
new_view = tuple.__new__


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
        if self.orientation == ATTACK:
            return ATTACK
        return self.card.kind if self.card is not None else None

    def to_dict(self) -> dict[str, Any]:
        """The play as plain JSON-friendly data."""
        return {"seq": self.seq, "player": self.player, "team": self.team, "face_up": self.face_up,
                "orientation": self.orientation, "card": self.card.slug if self.card else None,
                "element": self.element}


class DefenseView(NamedTuple):
    """A defense card in play: its elements, the markers on it, whether it is destroyed."""

    card: DefenseCard
    slug: str
    team: int
    elements: tuple[str, str]
    markers: tuple[str, ...]
    destroyed: bool


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
    options: tuple[Placement, ...]


class KeptViews:
    """The views a match keeps for its observations (see the module docstring); a copy of the match starts
    with none."""

    def __init__(self) -> None:
        """Nothing kept yet."""
        self.plays: list[Play] = []  # this round's plays whose views are kept, in turn order
        self.whole: list[PlayView | None] = []  # each one's whole view, once made
        self.orientation_only: list[PlayView | None] = []  # each one's view without card and element, once made
        self.last_source: list[Play] | None = None  # the last round's plays the views below show
        self.last: tuple[PlayView, ...] = ()
        self.defenses: tuple[tuple[DefenseView, ...], ...] = ()
        self.players: tuple[PlayerView, ...] = ()
        self.discard_source: list[SummoningCard] | None = None  # the discard pile the tuple below shows
        self.discard: tuple[SummoningCard, ...] = ()
        self.order_seats: list[int] = []  # the turn order (seat indexes) the tuple below shows
        self.order: tuple[str, ...] = ()

    def round_views(self, plays: Sequence[Play], pid: str, known: set[int], revealed: bool) -> tuple[PlayView, ...]:
        """This round's plays as player `pid` sees them: whole once the showdown `revealed` them, when face up,
        when its own, or when a Spy showed them to its team (their seqs `known`); else the orientation only."""
        kept = self.plays
        whole = self.whole
        orientation_only = self.orientation_only
        views: list[PlayView] = []
        for i in range(len(plays)):
            p = plays[i]
            if i == len(kept):
                kept.append(p)
                whole.append(None)
                orientation_only.append(None)
            elif kept[i] is not p:
                kept[i] = p
                whole[i] = orientation_only[i] = None
            if revealed or p.face_up or p.pid == pid or p.seq in known:
                view = whole[i]
                if view is None or view.card is not p.card or view.element != p.element:
                    view = whole[i] = play_view(p)
            else:
                view = orientation_only[i]
                if view is None:
                    view = orientation_only[i] = new_view(
                        PlayView, (p.seq, p.pid, p.team, p.face_up, p.orientation, None, None))
            views.append(view)
        if len(kept) > len(plays):
            count = len(plays)
            del kept[count:], whole[count:], orientation_only[count:]
        return tuple(views)

    def discard_view(self, pile: list[SummoningCard]) -> tuple[SummoningCard, ...]:
        """The discard pile, face up for everyone: made again only when it changed (cards are only ever added to
        a pile, until a refill takes it whole and a new one starts)."""
        kept = self.discard
        if self.discard_source is not pile or len(kept) != len(pile) or (kept and kept[-1] is not pile[-1]):
            self.discard_source = pile
            kept = self.discard = tuple(pile)
        return kept

    def order_view(self, order: list[int], seats: Sequence[Seat]) -> tuple[str, ...]:
        """The round's turn order as player ids: made again only when the order changed (once a round)."""
        kept = self.order_seats
        same = len(kept) == len(order)
        if same:
            for i in range(len(order)):
                if kept[i] != order[i]:
                    same = False
                    break
        if not same or len(self.order) != len(order):
            self.order_seats = list(order)
            self.order = tuple([seats[i].pid for i in order])
        return self.order

    def last_views(self, plays: list[Play]) -> tuple[PlayView, ...]:
        """The last round's plays, every one revealed by its showdown."""
        if self.last_source is not plays or len(self.last) != len(plays):
            self.last_source = plays
            self.last = tuple([play_view(p) for p in plays])
        return self.last

    def defense_views(self, defenses: Sequence[Sequence[Defense]]) -> tuple[tuple[DefenseView, ...], ...]:
        """Each team's defenses with their markers (the view of a defense whose markers changed is made again,
        the others are kept)."""
        kept = self.defenses
        if len(kept) != len(defenses) or any(len(kept[t]) != len(defenses[t]) for t in range(len(kept))):
            self.defenses = tuple(tuple(defense_view(d) for d in team) for team in defenses)
            return self.defenses
        teams: list[tuple[DefenseView, ...]] | None = None
        for t in range(len(kept)):
            views = kept[t]
            team = defenses[t]
            changed: list[DefenseView] | None = None
            for k in range(len(views)):
                if not shows(views[k], team[k]):
                    if changed is None:
                        changed = list(views)
                    changed[k] = defense_view(team[k])
            if changed is not None:
                if teams is None:
                    teams = list(kept)
                teams[t] = tuple(changed)
        if teams is not None:
            self.defenses = tuple(teams)
        return self.defenses

    def player_views(self, seats: Sequence[Seat]) -> tuple[PlayerView, ...]:
        """Every player's public facts, in setup order (the view of a player whose counter or hand size
        changed is made again, the others are kept)."""
        kept = self.players
        if len(kept) != len(seats):
            kept = self.players = tuple([player_view(s) for s in seats])
            return kept
        views: list[PlayerView] | None = None
        for i in range(len(kept)):
            view = kept[i]
            s = seats[i]
            if (view.pid != s.pid or view.team != s.team or view.name != s.name or view.counter != s.counter
                    or view.hand_size != len(s.hand)):
                if views is None:
                    views = list(kept)
                views[i] = player_view(s)
        if views is not None:
            kept = self.players = tuple(views)
        return kept


def defense_view(d: Defense) -> DefenseView:
    """A defense as everyone sees it."""
    return new_view(DefenseView, (d.card, d.slug, d.team, d.elements, tuple(d.markers), d.destroyed))


def play_view(p: Play) -> PlayView:
    """A play as a player seeing its card sees it (whole)."""
    return new_view(PlayView, (p.seq, p.pid, p.team, p.face_up, p.orientation, p.card, p.element))


def player_view(s: Seat) -> PlayerView:
    """A player's public facts."""
    return new_view(PlayerView, (s.pid, s.team, s.name, s.counter, len(s.hand)))


def shows(view: DefenseView, d: Defense) -> bool:
    """Whether `view` still shows the defense `d` as it is (its markers compared one by one: no tuple is made)."""
    if view.card is not d.card or view.destroyed != d.destroyed:
        return False
    shown = view.markers
    markers = d.markers
    if len(shown) != len(markers):
        return False
    return all(shown[i] == markers[i] for i in range(len(markers)))
