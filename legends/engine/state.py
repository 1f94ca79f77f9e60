"""The Akin Legends match: rulings L5-L13 as an OpenSpiel-like state machine on the shared core.

`LegendsState` runs the automatic steps (dealing, protector hooks, the showdown, the end of
round) on its own and stops at each decision: a player's turn (play a card or redraw, L8) or
a team's allocation of markers (L9 step 4, L10). `legal_actions()`, `apply(action)`,
`is_terminal()`, `observation(player)` and `outcome()` are the whole interface; every random
choice comes from `self.rng` (G1) and everything that happens is appended to the event log
(legends/engine/events.py, docs/legends-engine.md).

Actions are small tuples (JSON lists are accepted too):
    ("attack", card_slug, element)          play a card as an attack with one of its two elements
    ("effect", card_slug)                   play a card as its special effect
    ("redraw", (slug, slug, slug), size)    discard those cards (the whole hand if fewer), draw `size`
    ("allocate", ((defense_slug, element), ...))   place the markers (L9 step 4)
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from itertools import combinations
from typing import Any

from legends.engine.cards import Catalogue, SummoningCard
from legends.engine.events import SCHEMA_VERSION
from legends.engine.observation import LegendsObservation, observe
from legends.engine.protectors import ProtectorEffect
from legends.engine.setup import ModeRules
from legends.engine.showdown import (
    ATTACK,
    EFFECT,
    Defense,
    Play,
    allocation_options,
    attack_cards,
    boost_step,
    defense_step,
    destroy_step,
    heal_markers,
    heal_step,
    intact,
    place,
    team_strength,
)
from legends.engine.start import MatchStart
from simulate.engine.errors import IllegalAction
from simulate.engine.events import EventLog
from simulate.engine.rng import seat_seeds
from simulate.engine.games import Outcome

# The core runner seats agents by these ids (team 0 first); a duel uses t0p0 and t1p0 only.
PLAYERS = ("t0p0", "t0p1", "t1p0", "t1p1")
HAND_SIZE = 7
REDRAW = "redraw"
ALLOCATE = "allocate"

PLAY_STAGE, ALLOC_STAGE, OVER = range(3)
STAGE_NAMES = ("play", "allocate", "over")


class Seat:
    """A player at the table: id, team, name, turn counter and hand."""

    __slots__ = ("index", "pid", "team", "name", "counter", "hand")

    def __init__(self, index: int, pid: str, team: int, name: str, counter: int, hand: list[SummoningCard]) -> None:
        self.index = index
        self.pid = pid
        self.team = team
        self.name = name
        self.counter = counter
        self.hand = hand

    def copy(self) -> Seat:
        """An independent copy (look-ahead states)."""
        return Seat(self.index, self.pid, self.team, self.name, self.counter, list(self.hand))


def _as_action(action: Any) -> Any:
    """Actions arriving as JSON lists become the engine's tuples."""
    if isinstance(action, list):
        return tuple(_as_action(a) for a in action)
    if isinstance(action, tuple) and any(isinstance(a, list) for a in action):
        return tuple(_as_action(a) for a in action)
    return action


class LegendsState:
    """One Akin Legends match, from the deal to its end."""

    __slots__ = (
        "options", "seed", "rng", "log", "emit", "max_rounds", "mode", "rules", "catalogue", "elements",
        "start_info", "spirits", "protectors", "effects", "spy", "redraw_sizes", "extra_markers",
        "defenses", "seats", "by_pid", "draw", "discard", "round", "order", "passes", "turn", "plays",
        "last_plays", "known", "spy_used", "stage", "points", "alloc_queue", "alloc_options", "alloc_cap",
        "legal", "winner", "reason", "steps", "agent_names", "agent_seeds",
    )

    def __init__(
        self, options: Mapping[str, Any], seed: int, keep_log: bool = True, agents: Mapping[str, str] | None = None
    ) -> None:
        self.agent_names = dict(agents or {})
        self.agent_seeds: dict[str, int] = {}
        self.options = dict(options)
        self.seed = seed
        self.rng = random.Random(seed)
        self.log: EventLog | None = EventLog() if keep_log else None
        self.emit = self.log.append if self.log is not None else None
        self.max_rounds: int = options["max_rounds"]
        self.stage = PLAY_STAGE
        self.round = 0
        self.turn = 0
        self.plays: list[Play] = []
        self.last_plays: list[Play] = []
        self.known: list[set[int]] = [set(), set()]
        self.spy_used = [False, False]
        self.points: list[dict[str, int]] = [{}, {}]
        self.alloc_queue: list[int] = []
        self.alloc_options: list[tuple] = []
        self.alloc_cap = 0
        self.legal: list[tuple] | None = None
        self.winner: int | None = None
        self.reason = ""
        self.steps = 0
        self.draw: list[SummoningCard] = []
        self.discard: list[SummoningCard] = []

    # ------------------------------------------------------------------ setup

    def start(self, start: MatchStart) -> None:
        """Seat the players, shuffle and deal (L5), log match_start and run to the first decision."""
        self.start_info = start
        self.mode = start.mode
        self.rules: ModeRules = start.rules
        self.catalogue: Catalogue = start.catalogue
        self.elements = start.catalogue.elements
        self.passes = 2 if start.rules.players_per_team > 1 else 3  # L7
        self.spirits = tuple(t.spirit for t in start.teams)
        self.protectors = tuple(t.protector for t in start.teams)
        self._effects_from([t.protector.effect for t in start.teams])
        self.defenses = [[Defense(card, t.index) for card in t.defenses] for t in start.teams]
        self.seats = [
            Seat(i, p.pid, p.team, p.name, p.counter, []) for i, p in enumerate(start.players)
        ]
        self.by_pid = {s.pid: s for s in self.seats}
        self.agent_seeds = seat_seeds(self.rng, [s.pid for s in self.seats])  # G2
        deck = start.catalogue.deck()
        self.rng.shuffle(deck)
        self.draw = deck
        if self.emit is not None:
            self.emit({
                "type": "match_start", "schema": SCHEMA_VERSION, "seed": self.seed, "mode": self.mode,
                "options": dict(self.options),
                "teams": [
                    {
                        "team": t.index, "spirit": t.spirit,
                        "protector": {"slug": t.protector.slug, "name": t.protector.name,
                                      "effect": dict(t.protector.raw_effect)},
                        "defenses": [d.as_dict() for d in t.defenses],
                        "players": [{"id": p.pid, "name": p.name, "counter": p.counter} for p in t.players],
                    }
                    for t in start.teams
                ],
                "drawn": [dict(d) for d in start.drawn], "deck": len(deck),
            })
        for seat in sorted(self.seats, key=lambda s: s.counter):
            self._draw_cards(seat, HAND_SIZE)
        if self.emit is not None:
            self.emit({"type": "deal", "hands": {s.pid: len(s.hand) for s in self.seats}, "draw_pile": len(self.draw)})
        self._start_round()

    def _effects_from(self, effects: list[ProtectorEffect]) -> None:
        self.effects = tuple(effects)
        self.spy = [e.count if e.kind == "reveal_facedown" else 0 for e in effects]
        self.redraw_sizes = [e.count if e.kind == "redraw_size" else 3 for e in effects]
        self.extra_markers = [e.count if e.kind == "extra_marker" else 0 for e in effects]

    # ------------------------------------------------------------------ protocol

    def current_player(self) -> str | None:
        """The player who decides now (a turn, or a team's allocation), None when the match is over."""
        if self.stage == PLAY_STAGE:
            return self.seats[self.order[self.turn % len(self.order)]].pid
        if self.stage == ALLOC_STAGE:
            return self._decider(self.alloc_queue[0]).pid
        return None

    def legal_actions(self) -> list[tuple]:
        """The actions the current player may take."""
        legal = self.legal
        if legal is None:
            if self.stage == PLAY_STAGE:
                legal = self._play_legal(self.seats[self.order[self.turn % len(self.order)]])
            elif self.stage == ALLOC_STAGE:
                legal = [(ALLOCATE, option) for option in self.alloc_options]
            else:
                legal = []
            self.legal = legal
        return legal

    def is_terminal(self) -> bool:
        """Whether the match is over."""
        return self.stage == OVER

    def phase(self) -> str:
        """play, allocate or over."""
        return STAGE_NAMES[self.stage]

    def observation(self, player: str) -> LegendsObservation:
        """What `player` may see now (G2): a snapshot built here, holding no reference to the state."""
        return observe(self, player)

    def events(self) -> list[dict[str, Any]] | None:
        """The event log so far, or None when the log is off."""
        return self.log.to_list() if self.log is not None else None

    def outcome(self) -> Outcome:
        """Winner ('0', '1' or None), reason, rounds played and each team's standing defenses."""
        survivors = {
            str(t): [
                {"defense": d.slug, "name": d.card.name, "elements": list(d.elements), "markers": list(d.markers)}
                for d in intact(self.defenses[t])
            ]
            for t in (0, 1)
        }
        winner = None if self.winner is None else str(self.winner)
        return Outcome(winner=winner, reason=self.reason, rounds=self.round, survivors=survivors)

    def stop(self, reason: str) -> None:
        """End the match now as a draw (the runner's hard cap on actions)."""
        if self.stage != OVER:
            self._finish(None, reason)

    def apply(self, action: Any) -> None:
        """Play one action of the pending decision and run on to the next one; IllegalAction if not legal."""
        if self.stage == OVER:
            raise IllegalAction(action, [], "The match is over; no action is legal.")
        action = _as_action(action)
        legal = self.legal_actions()
        if action not in legal:
            raise IllegalAction(action, legal)
        self.steps += 1
        self.legal = None
        if self.stage == ALLOC_STAGE:
            team = self.alloc_queue.pop(0)
            self._place(team, action[1], "agent")
            self._next_allocation()
        elif action[0] == REDRAW:
            self._redraw(self.seats[self.order[self.turn % len(self.order)]], action)
        else:
            self._play(self.seats[self.order[self.turn % len(self.order)]], action)

    # ------------------------------------------------------------------ look-ahead copies

    def clone(self, seed: int) -> LegendsState:
        """An independent copy without a log and with its own generator (for look-ahead agents)."""
        c = LegendsState.__new__(LegendsState)
        c.options = self.options
        c.seed = seed
        c.rng = random.Random(seed)
        c.agent_names = self.agent_names
        c.agent_seeds = self.agent_seeds
        c.log = None
        c.emit = None
        c.max_rounds = self.max_rounds
        c.mode = self.mode
        c.rules = self.rules
        c.catalogue = self.catalogue
        c.elements = self.elements
        c.start_info = self.start_info
        c.spirits = self.spirits
        c.protectors = self.protectors
        c.effects = self.effects
        c.spy = self.spy
        c.redraw_sizes = self.redraw_sizes
        c.extra_markers = self.extra_markers
        c.defenses = [[d.copy() for d in team] for team in self.defenses]
        c.seats = [s.copy() for s in self.seats]
        c.by_pid = {s.pid: s for s in c.seats}
        c.draw = list(self.draw)
        c.discard = list(self.discard)
        c.round = self.round
        c.order = self.order
        c.passes = self.passes
        c.turn = self.turn
        c.plays = list(self.plays)
        c.last_plays = self.last_plays
        c.known = [set(k) for k in self.known]
        c.spy_used = list(self.spy_used)
        c.stage = self.stage
        c.points = [dict(p) for p in self.points]
        c.alloc_queue = list(self.alloc_queue)
        c.alloc_options = self.alloc_options
        c.alloc_cap = self.alloc_cap
        c.legal = self.legal
        c.winner = self.winner
        c.reason = self.reason
        c.steps = self.steps
        return c

    # ------------------------------------------------------------------ rounds

    def _start_round(self) -> None:
        """L7: counter order, protector round_start hooks, then the first turn."""
        self.round += 1
        self.order = [s.index for s in sorted(self.seats, key=lambda s: s.counter)]
        self.turn = 0
        self.plays = []
        self.known = [set(), set()]
        self.spy_used = [False, False]
        self.stage = PLAY_STAGE
        self.legal = None
        emit = self.emit
        if emit is not None:
            emit({"type": "round_start", "round": self.round, "order": [self.seats[i].pid for i in self.order],
                  "counters": {s.pid: s.counter for s in self.seats}})
        for team, effect in enumerate(self.effects):
            if effect.kind == "heal_marker":
                removed = heal_markers(self.defenses[team], effect)
                if emit is not None:
                    for slug, element in removed:
                        emit({"type": "heal", "round": self.round, "team": team, "via": "protector",
                              "source": self.protectors[team].slug, "player": None, "seq": None,
                              "element": element, "defense": slug, "removed": True})
        self._before_turn()

    def _before_turn(self) -> None:
        """L13: a Spy team looks at an opponent's face-down card before its first face-down turn
        that follows one (once per round)."""
        n = len(self.order)
        if self.turn < n:
            return
        seat = self.seats[self.order[self.turn % n]]
        team = seat.team
        count = self.spy[team]
        if not count or self.spy_used[team]:
            return
        hidden = [p for p in reversed(self.plays) if p.team != team and not p.face_up]
        if not hidden:
            return
        self.spy_used[team] = True
        for p in hidden[:count]:
            self.known[team].add(p.seq)
            if self.emit is not None:
                self.emit({"type": "spy", "round": self.round, "team": team, "protector": self.protectors[team].slug,
                           "player": p.pid, "seq": p.seq, "card": p.card.slug, "orientation": p.orientation,
                           "element": p.element})

    def _play_legal(self, seat: Seat) -> list[tuple]:
        """L8: each distinct card as an attack with either element or as its effect; or a redraw."""
        legal: list[tuple] = []
        seen: set[str] = set()
        for card in seat.hand:
            slug = card.slug
            if slug in seen:
                continue
            seen.add(slug)
            a0, a1 = card.attacks
            legal.append((ATTACK, slug, a0))
            if a1 != a0:
                legal.append((ATTACK, slug, a1))
            legal.append((EFFECT, slug))
        legal.extend(self._redraw_legal(seat))
        return legal

    def _redraw_legal(self, seat: Seat) -> list[tuple]:
        """Every redraw: `size` 3 (up to a redraw_size protector's count), discarding that many cards
        (the whole hand if fewer), any distinct choice of them."""
        hand = sorted(c.slug for c in seat.hand)
        out: list[tuple] = []
        for size in range(3, self.redraw_sizes[seat.team] + 1):
            k = min(size, len(hand))
            for discards in dict.fromkeys(combinations(hand, k)):
                out.append((REDRAW, discards, size))
        return out

    def _take(self, seat: Seat, slug: str) -> SummoningCard:
        hand = seat.hand
        for i, card in enumerate(hand):
            if card.slug == slug:
                return hand.pop(i)
        raise IllegalAction(slug, [c.slug for c in hand], f"{seat.pid} holds no {slug!r}.")

    def _play(self, seat: Seat, action: tuple) -> None:
        """L8: play a card as an attack or as its effect; a duel player then draws one."""
        card = self._take(seat, action[1])
        n = len(self.order)
        face_up = self.turn < n
        if action[0] == ATTACK:
            play = Play(self.turn, seat.index, seat.pid, seat.team, face_up, ATTACK, card, action[2])
        else:
            play = Play(self.turn, seat.index, seat.pid, seat.team, face_up, EFFECT, card, card.element)
        self.plays.append(play)
        emit = self.emit
        if emit is not None:
            emit({"type": "turn", "round": self.round, "seq": play.seq, "pass": self.turn // n + 1,
                  "player": seat.pid, "team": seat.team, "counter": seat.counter,
                  "face": "up" if face_up else "down", "orientation": play.orientation,
                  "card": card.slug if face_up else None, "element": play.element if face_up else None,
                  "kind": play.kind if face_up else None})
        if self.passes == 3:  # the two-player variant draws after every card played (L8)
            drawn = self._draw_cards(seat, 1)
            if emit is not None:
                emit({"type": "draw", "round": self.round, "player": seat.pid, "reason": "play", "count": 1,
                      "drawn": drawn, "hand": len(seat.hand), "draw_pile": len(self.draw)})
        self._next_turn()

    def _redraw(self, seat: Seat, action: tuple) -> None:
        """L8: discard the chosen cards, draw `size`; the turn is skipped."""
        _, discards, size = action
        for slug in discards:
            self.discard.append(self._take(seat, slug))
        drawn = self._draw_cards(seat, size)
        if self.emit is not None:
            n = len(self.order)
            self.emit({"type": "redraw", "round": self.round, "seq": self.turn, "pass": self.turn // n + 1,
                       "player": seat.pid, "team": seat.team, "counter": seat.counter,
                       "discarded": list(discards), "size": size, "drawn": drawn, "hand": len(seat.hand)})
        self._next_turn()

    def _draw_cards(self, seat: Seat, count: int) -> int:
        """Draw up to `count` cards; an empty draw pile is refilled from the shuffled discard pile (L8)."""
        drawn = 0
        hand = seat.hand
        for _ in range(count):
            if not self.draw:
                if not self.discard:
                    break
                self._refill()
            hand.append(self.draw.pop())
            drawn += 1
        return drawn

    def _refill(self) -> None:
        cards = self.discard
        self.rng.shuffle(cards)
        self.draw = cards
        self.discard = []
        if self.emit is not None:
            self.emit({"type": "refill", "round": self.round, "cards": len(cards), "draw_pile": len(cards)})

    def _next_turn(self) -> None:
        self.turn += 1
        if self.turn >= len(self.order) * self.passes:
            self._showdown()
        else:
            self._before_turn()

    # ------------------------------------------------------------------ showdown (L9)

    def _showdown(self) -> None:
        """Reveal, heal, boost, cancel; then the allocations (decisions) and destruction."""
        emit = self.emit
        rnd = self.round
        plays = self.plays
        if emit is not None:
            emit({"type": "showdown_start", "round": rnd})
            for p in plays:
                if not p.face_up:
                    emit({"type": "reveal", "round": rnd, "seq": p.seq, "player": p.pid, "team": p.team,
                          "orientation": p.orientation, "card": p.card.slug, "element": p.element, "kind": p.kind})
        heals = heal_step(plays, self.defenses)
        strength, boosts = boost_step(plays, self.effects)
        totals = [team_strength(plays, strength, t, self.elements) for t in (0, 1)]
        if emit is not None:
            for h in heals:
                p = h["play"]
                emit({"type": "heal", "round": rnd, "team": h["team"], "via": "card", "source": p.card.slug,
                      "player": p.pid, "seq": p.seq, "element": h["element"], "defense": h["defense"],
                      "removed": h["removed"]})
            for b in boosts:
                self._emit_source(b, "boost", {"amount": b["amount"], "attacks": b["attacks"]})
            for t in (0, 1):
                emit({"type": "strength", "round": rnd, "team": t, "attack_cards": attack_cards(plays, t),
                      "points": dict(totals[t])})
        cancels = defense_step(plays, totals, self.effects, self.elements)
        if emit is not None:
            for c in cancels:
                self._emit_source(c, "cancel", {"cancelled": c["cancelled"], "left": c["left"]})
        self.points = totals
        first = self.seats[self.order[0]].team
        self.alloc_queue = [first, 1 - first]
        self._next_allocation()

    def _emit_source(self, record: dict[str, Any], kind: str, extra: dict[str, Any]) -> None:
        p = record["play"]
        team = record["team"]
        source = p.card.slug if p is not None else self.protectors[team].slug
        self.emit({"type": kind, "round": self.round, "team": team, "via": record["via"], "source": source,
                   "player": p.pid if p is not None else None, "seq": p.seq if p is not None else None,
                   "element": record["element"], **extra})

    def _decider(self, team: int) -> Seat:
        """The team's agent for an allocation: its first player in this round's counter order."""
        for i in self.order:
            if self.seats[i].team == team:
                return self.seats[i]
        raise AssertionError("a team without players")

    def _next_allocation(self) -> None:
        """L9 step 4 for each team in turn: a decision when there is a choice, else placed at once."""
        while self.alloc_queue:
            team = self.alloc_queue[0]
            cap = attack_cards(self.plays, team) + self.extra_markers[team]
            options = allocation_options(self.points[team], cap, self.defenses[1 - team])
            if len(options) > 1:
                self.stage = ALLOC_STAGE
                self.alloc_options = options
                self.alloc_cap = cap
                self.legal = None
                return
            self.alloc_queue.pop(0)
            self.alloc_cap = cap
            self._place(team, options[0], "auto")
        self.stage = PLAY_STAGE
        self.alloc_options = []
        self._end_showdown()

    def _place(self, team: int, placements: tuple, chosen_by: str) -> None:
        place(placements, self.defenses[1 - team])
        if self.emit is not None:
            cards = attack_cards(self.plays, team)
            self.emit({"type": "allocation", "round": self.round, "team": team,
                       "player": self._decider(team).pid if chosen_by == "agent" else None,
                       "points": dict(self.points[team]), "attack_cards": cards,
                       "extra": self.extra_markers[team], "cap": cards + self.extra_markers[team],
                       "placements": [list(p) for p in placements], "placed": len(placements),
                       "chosen_by": chosen_by})

    def _end_showdown(self) -> None:
        """L9 step 5 and L12: destruction, then victory, draw or the end of the round."""
        emit = self.emit
        for team in (0, 1):
            for d in destroy_step(self.defenses[team]):
                if emit is not None:
                    emit({"type": "destroyed", "round": self.round, "team": team, "defense": d.slug,
                          "elements": list(d.elements), "by": 1 - team})
        left = [len(intact(self.defenses[t])) for t in (0, 1)]
        if emit is not None:
            emit({"type": "showdown_end", "round": self.round, "defenses": left})
        if not left[0] and not left[1]:
            self._finish(None, "mutual_destruction")
        elif not left[0] or not left[1]:
            self._finish(0 if left[0] else 1, "defenses_destroyed")
        else:
            self._end_round()

    def _end_round(self) -> None:
        """L11: played cards to the discard pile, counters handed on, round_end hooks; L12 round cap."""
        emit = self.emit
        for p in self.plays:
            self.discard.append(p.card)
        if emit is not None:
            emit({"type": "round_end", "round": self.round, "discarded": len(self.plays),
                  "discard_pile": len(self.discard)})
        self.last_plays = self.plays
        self.plays = []
        n = len(self.seats)
        before = {s.pid: s.counter for s in self.seats} if emit is not None else None
        for s in self.seats:  # card 1 goes to the holder of 2, ..., card N to the holder of 1
            s.counter = s.counter - 1 if s.counter > 1 else n
        if emit is not None:
            emit({"type": "counters", "round": self.round, "before": before,
                  "after": {s.pid: s.counter for s in self.seats}})
        for team, effect in enumerate(self.effects):
            if effect.kind != "extra_draw":
                continue
            for i in sorted((s.index for s in self.seats if s.team == team), key=lambda i: self.seats[i].counter):
                seat = self.seats[i]
                room = effect.max_hand - len(seat.hand)
                count = min(effect.count, room) if room > 0 else 0
                drawn = self._draw_cards(seat, count) if count else 0
                if emit is not None:
                    emit({"type": "draw", "round": self.round, "player": seat.pid, "reason": "protector",
                          "count": count, "drawn": drawn, "hand": len(seat.hand), "draw_pile": len(self.draw)})
        if self.round >= self.max_rounds:
            self._finish(None, "max_rounds")
        else:
            self._start_round()

    def _finish(self, winner: int | None, reason: str) -> None:
        self.stage = OVER
        self.winner = winner
        self.reason = reason
        self.legal = []
        if self.emit is not None:
            self.emit({"type": "match_end", "winner": winner, "reason": reason, "rounds": self.round})


def determinise(obs: LegendsObservation, rng: random.Random, seed: int) -> LegendsState:
    """A match consistent with what `obs` shows: every hidden card sampled from the unseen ones.

    Only the observation is read (G2). Hidden face-down cards are dealt first, then the other
    players' hands (their sizes are public), then the draw pile. Only turns can be sampled
    (an allocation is resolved in the match itself).
    """
    if obs.stage != "play":
        raise ValueError("A look-ahead match starts at a turn, not at an allocation or the end.")
    catalogue = obs.catalogue
    pool = obs.unseen()
    rng.shuffle(pool)
    s = LegendsState.__new__(LegendsState)
    s.options = {"max_rounds": obs.max_rounds, "max_actions": obs.max_actions}
    s.seed = seed
    s.rng = rng
    s.agent_names = {}
    s.agent_seeds = {}
    s.log = None
    s.emit = None
    s.max_rounds = obs.max_rounds
    s.mode = obs.mode
    s.rules = None  # type: ignore[assignment]  (only the live match needs the mode's numbers)
    s.catalogue = catalogue
    s.elements = obs.elements
    s.start_info = None  # type: ignore[assignment]
    s.spirits = obs.spirits
    s.protectors = obs.protectors
    s._effects_from([p.effect for p in obs.protectors])
    s.defenses = [[Defense(v.card, v.team, v.markers, v.destroyed) for v in team] for team in obs.defenses]
    index = {p.pid: i for i, p in enumerate(obs.players)}
    s.seats = [Seat(i, p.pid, p.team, p.name, p.counter, []) for i, p in enumerate(obs.players)]
    s.by_pid = {seat.pid: seat for seat in s.seats}
    plays: list[Play] = []
    for v in obs.plays:
        card, element = v.card, v.element
        if card is None:
            card = pool.pop()
            element = card.attacks[rng.randrange(2)] if v.orientation == ATTACK else card.element
        plays.append(Play(v.seq, index[v.player], v.player, v.team, v.face_up, v.orientation, card, element))
    for p in obs.players:
        seat = s.by_pid[p.pid]
        if p.pid == obs.player:
            seat.hand = list(obs.hand)
        else:
            seat.hand = [pool.pop() for _ in range(p.hand_size)]
    if len(pool) != obs.draw_pile:
        raise AssertionError(f"{len(pool)} unseen cards left for a draw pile of {obs.draw_pile}")
    s.draw = pool
    s.discard = list(obs.discard)
    s.round = obs.round
    s.order = [index[pid] for pid in obs.order]
    s.passes = obs.passes
    s.turn = obs.turn
    s.plays = plays
    s.last_plays = [
        Play(v.seq, index[v.player], v.player, v.team, v.face_up, v.orientation, v.card, v.element)  # type: ignore[arg-type]
        for v in obs.last_plays
    ]
    s.known = [set(), set()]
    s.known[obs.team].update(obs.spied)
    s.known[1 - obs.team].update(obs.spied_by_opponents)
    s.spy_used = list(obs.spy_used)
    s.stage = PLAY_STAGE
    s.points = [{}, {}]
    s.alloc_queue = []
    s.alloc_options = []
    s.alloc_cap = 0
    s.legal = None
    s.winner = None
    s.reason = ""
    s.steps = 0
    return s
