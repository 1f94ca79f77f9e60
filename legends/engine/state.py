"""The Akin Legends match: rulings L5-L13 as an OpenSpiel-like state machine on the shared core.

`LegendsState` runs the automatic steps (dealing, protector hooks, the showdown, the end of
round) on its own and stops at each decision: a player's turn (play a card or redraw, L8), a
healing choice (which defense a heal cleans when several hold its element, L9 step 1) or a
team's allocation of markers (L9 step 4, L10). `legal_actions()`, `apply(action)`,
`is_terminal()`, `observation(player)` and `outcome()` are the whole interface; every random
choice comes from `self.rng` (G1) and everything that happens is appended to the event log
(legends/engine/events.py, docs/legends-engine.md), every decision with what was offered.

Actions are small tuples (JSON lists are accepted too):
    ("attack", card_slug, element)          play a card as an attack with one of its two elements
    ("effect", card_slug)                   play a card as its special effect
    ("redraw", (slug, slug, slug), size)    discard those cards (the whole hand if fewer), draw `size`
    ("heal", defense_slug, element)         the marker a heal removes (L9 step 1)
    ("allocate", ((defense_slug, element), ...))   place the markers (L9 step 4)
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from itertools import combinations
from typing import Any, NamedTuple

from legends.engine.cards import Catalogue, SummoningCard
from legends.engine.events import SCHEMA_VERSION, action_json
from legends.engine.observation import LegendsObservation, observe
from legends.engine.protectors import ProtectorEffect
from legends.engine.setup import ModeRules
from legends.engine.showdown import (
    ATTACK,
    EFFECT,
    Defense,
    Play,
    allocation_options,
    apply_heal,
    attack_points,
    destroy_step,
    heal_options,
    healing_cards,
    intact,
    marker_cap,
    place,
)
from legends.engine.start import MatchStart
from simulate.engine.errors import IllegalAction
from simulate.engine.events import EventLog
from simulate.engine.games import Outcome
from simulate.engine.rng import seat_seeds

# The core runner seats agents by these ids (team 0 first); a duel uses t0p0 and t1p0 only.
PLAYERS = ("t0p0", "t0p1", "t1p0", "t1p1")
HAND_SIZE = 7
REDRAW = "redraw"
ALLOCATE = "allocate"
HEAL = "heal"

PLAY_STAGE, ALLOC_STAGE, HEAL_STAGE, OVER = range(4)
STAGE_NAMES = ("play", "allocate", "heal", "over")
THEN_TURNS, THEN_ATTACKS = "turns", "attacks"  # what follows the pending heals


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


class HealTask(NamedTuple):
    """One pending heal: a healing card of the showdown (L9 step 1) or a heal_marker protector's."""

    team: int
    element: str
    via: str  # "card" or "protector"
    play: Play | None


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
        "start_info", "spirits", "protectors", "effects", "spy", "redraw_sizes", "defenses", "seats", "by_pid",
        "everyone", "draw", "discard", "round", "order", "passes", "turn", "plays", "last_plays", "known",
        "spy_used", "revealed", "stage", "points", "alloc_queue", "alloc_options", "alloc_cap", "heal_queue",
        "heal_choices", "heal_then", "legal", "winner", "reason", "steps", "agent_names", "agent_seeds",
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
        self.order: list[int] = []
        self.plays: list[Play] = []
        self.last_plays: list[Play] = []
        self.known: list[set[int]] = [set(), set()]
        self.spy_used = [False, False]
        self.revealed = False
        self.points: list[dict[str, int]] = [{}, {}]
        self.alloc_queue: list[int] = []
        self.alloc_options: list[tuple] = []
        self.alloc_cap = 0
        self.heal_queue: list[HealTask] = []
        self.heal_choices: list[tuple[str, str]] = []
        self.heal_then = THEN_TURNS
        self.legal: list[tuple] | None = None
        self.winner: int | None = None
        self.reason = ""
        self.steps = 0
        self.draw: list[SummoningCard] = []
        self.discard: list[SummoningCard] = []

    # ------------------------------------------------------------------ setup

    def start(self, start: MatchStart) -> None:
        """Seat the players, shuffle and deal (L5), log it all and run to the first decision."""
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
        self.seats = [Seat(i, p.pid, p.team, p.name, p.counter, []) for i, p in enumerate(start.players)]
        self.by_pid = {s.pid: s for s in self.seats}
        self.everyone = [s.pid for s in self.seats]
        self.agent_seeds = seat_seeds(self.rng, self.everyone)  # G2
        deck = start.catalogue.deck()
        if self.emit is not None:
            self.emit(self._match_start(start, len(deck)))
        self.rng.shuffle(deck)
        self.draw = deck
        if self.emit is not None:  # the pile's order: seen by nobody, logged for the audit (G3)
            self.emit({"type": "shuffle", "round": 0, "reason": "start", "order": [c.slug for c in reversed(deck)],
                       "visible_to": []})
        for seat in sorted(self.seats, key=lambda s: s.counter):
            cards = [self.draw.pop() for _ in range(HAND_SIZE)]
            seat.hand.extend(cards)
            if self.emit is not None:
                self.emit({"type": "deal", "player": seat.pid, "cards": [c.slug for c in cards],
                           "hand": len(seat.hand), "draw_pile": len(self.draw), "visible_to": [seat.pid]})
        self._start_round()

    def _match_start(self, start: MatchStart, deck_size: int) -> dict[str, Any]:
        names = self.catalogue.spirit_names
        return {
            "type": "match_start", "schema": SCHEMA_VERSION, "seed": self.seed, "mode": self.mode,
            "options": dict(self.options), "elements": list(self.elements),
            "deck": [c.as_dict() for c in self.catalogue.designs], "deck_size": deck_size,
            "teams": [
                {
                    "team": t.index, "spirit": {"slug": t.spirit, "name": names.get(t.spirit, t.spirit)},
                    "protector": {"slug": t.protector.slug, "name": t.protector.name,
                                  "effect": dict(t.protector.raw_effect), "duel_legal": t.protector.duel_legal},
                    "defenses": [d.as_dict() for d in t.defenses],
                    "players": [{"id": p.pid, "name": p.name, "counter": p.counter} for p in t.players],
                }
                for t in start.teams
            ],
            "drawn": [{**d, "cards": list(d["cards"]), "pool": list(d["pool"])} for d in start.drawn],
            "agent_names": {pid: self.agent_names.get(pid) for pid in self.everyone},
            "agent_seeds": dict(self.agent_seeds), "visible_to": list(self.everyone),
        }

    def _effects_from(self, effects: list[ProtectorEffect]) -> None:
        self.effects = tuple(effects)
        self.spy = [e.kind == "reveal_facedown" for e in effects]
        self.redraw_sizes = [e.count if e.kind == "redraw_size" else 3 for e in effects]

    # ------------------------------------------------------------------ protocol

    def current_player(self) -> str | None:
        """The player who decides now (a turn, a healing choice or a team's allocation); None at the end."""
        if self.stage == PLAY_STAGE:
            return self.seats[self.order[self.turn % len(self.order)]].pid
        if self.stage == ALLOC_STAGE:
            return self._decider(self.alloc_queue[0]).pid
        if self.stage == HEAL_STAGE:
            return self._healer(self.heal_queue[0]).pid
        return None

    def legal_actions(self) -> list[tuple]:
        """The actions the current player may take."""
        legal = self.legal
        if legal is None:
            if self.stage == PLAY_STAGE:
                legal = self._play_legal(self.seats[self.order[self.turn % len(self.order)]])
            elif self.stage == ALLOC_STAGE:
                legal = [(ALLOCATE, option) for option in self.alloc_options]
            elif self.stage == HEAL_STAGE:
                legal = [(HEAL, slug, element) for slug, element in self.heal_choices]
            else:
                legal = []
            self.legal = legal
        return legal

    def is_terminal(self) -> bool:
        """Whether the match is over."""
        return self.stage == OVER

    def phase(self) -> str:
        """play, allocate, heal or over."""
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
        if self.emit is not None:  # G3: the decision, what was offered and what was taken
            player = self.current_player()
            self.emit({"type": "decision", "round": self.round, "stage": STAGE_NAMES[self.stage], "player": player,
                       "offered": [action_json(a) for a in legal], "action": action_json(action),
                       "visible_to": [player] if self.stage == PLAY_STAGE else list(self.everyone)})
        self.legal = None
        if self.stage == ALLOC_STAGE:
            team = self.alloc_queue.pop(0)
            self._place(team, action[1], "agent")
            self._next_allocation()
        elif self.stage == HEAL_STAGE:
            self._heal(self.heal_queue.pop(0), (action[1], action[2]), "agent")
            self._next_heal()
        elif action[0] == REDRAW:
            self._redraw(self.seats[self.order[self.turn % len(self.order)]], action)
        else:
            self._play(self.seats[self.order[self.turn % len(self.order)]], action)

    # ------------------------------------------------------------------ look-ahead copies

    def clone(self, seed: int) -> LegendsState:
        """An independent copy without a log and with its own generator (for look-ahead agents)."""
        c = LegendsState.__new__(LegendsState)
        for name in ("options", "agent_names", "agent_seeds", "max_rounds", "mode", "rules", "catalogue", "elements",
                     "start_info", "spirits", "protectors", "effects", "spy", "redraw_sizes", "everyone", "round",
                     "order", "passes", "turn", "last_plays", "revealed", "stage", "alloc_options", "alloc_cap",
                     "heal_choices", "heal_then", "legal", "winner", "reason", "steps"):
            setattr(c, name, getattr(self, name))
        c.seed = seed
        c.rng = random.Random(seed)
        c.log = None
        c.emit = None
        c.defenses = [[d.copy() for d in team] for team in self.defenses]
        c.seats = [s.copy() for s in self.seats]
        c.by_pid = {s.pid: s for s in c.seats}
        c.draw = list(self.draw)
        c.discard = list(self.discard)
        c.plays = list(self.plays)
        c.known = [set(k) for k in self.known]
        c.spy_used = list(self.spy_used)
        c.points = [dict(p) for p in self.points]
        c.alloc_queue = list(self.alloc_queue)
        c.heal_queue = list(self.heal_queue)
        return c

    # ------------------------------------------------------------------ rounds

    def _start_round(self) -> None:
        """L7: counter order, protector round_start heals, then the first turn."""
        self.round += 1
        self.order = [s.index for s in sorted(self.seats, key=lambda s: s.counter)]
        self.turn = 0
        self.plays = []
        self.known = [set(), set()]
        self.spy_used = [False, False]
        self.revealed = False
        self.stage = PLAY_STAGE
        self.legal = None
        if self.emit is not None:
            self.emit({"type": "round_start", "round": self.round, "order": [self.seats[i].pid for i in self.order],
                       "counters": {s.pid: s.counter for s in self.seats}, "visible_to": list(self.everyone)})
        self.heal_queue = [
            HealTask(team, effect.element, "protector", None)
            for team, effect in enumerate(self.effects) if effect.kind == "heal_marker" for _ in range(effect.count)
        ]
        self.heal_then = THEN_TURNS
        self._next_heal()

    def _before_turn(self) -> None:
        """L13: a Spy team looks at an opponent's face-down card before its first face-down turn
        that follows one (once per round)."""
        n = len(self.order)
        if self.turn < n:
            return
        team = self.seats[self.order[self.turn % n]].team
        if not self.spy[team] or self.spy_used[team]:
            return
        p = next((p for p in reversed(self.plays) if p.team != team and not p.face_up), None)
        if p is None:
            return
        self.spy_used[team] = True
        self.known[team].add(p.seq)  # one card (L13)
        if self.emit is not None:  # seen by the Spy team and known to the card's owner
            seen = [s.pid for s in self.seats if s.team == team or s.pid == p.pid]
            self.emit({"type": "spy", "round": self.round, "team": team, "protector": self.protectors[team].slug,
                       "player": p.pid, "seq": p.seq, "card": p.card.slug, "orientation": p.orientation,
                       "element": p.element, "kind": p.kind, "visible_to": seen})

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
        element = action[2] if action[0] == ATTACK else card.element
        play = Play(self.turn, seat.index, seat.pid, seat.team, face_up, action[0], card, element)
        self.plays.append(play)
        emit = self.emit
        if emit is not None:
            emit({"type": "turn", "round": self.round, "seq": play.seq, "pass": self.turn // n + 1,
                  "player": seat.pid, "team": seat.team, "counter": seat.counter,
                  "face": "up" if face_up else "down", "orientation": play.orientation,
                  "card": card.slug if face_up else None, "element": element if face_up else None,
                  "kind": play.kind if face_up else None, "visible_to": list(self.everyone)})
            if not face_up:
                emit({"type": "facedown", "round": self.round, "seq": play.seq, "player": seat.pid,
                      "card": card.slug, "element": element, "kind": play.kind, "visible_to": [seat.pid]})
        if self.passes == 3:  # the two-player variant draws after every card played (L8)
            self._draw_cards(seat, 1, "play")
        self._next_turn()

    def _redraw(self, seat: Seat, action: tuple) -> None:
        """L8: discard the chosen cards (face up), draw `size`; the turn is skipped."""
        _, discards, size = action
        for slug in discards:
            self.discard.append(self._take(seat, slug))
        if self.emit is not None:
            n = len(self.order)
            drawn = min(size, len(self.draw) + len(self.discard))
            self.emit({"type": "redraw", "round": self.round, "seq": self.turn, "pass": self.turn // n + 1,
                       "player": seat.pid, "team": seat.team, "counter": seat.counter,
                       "discarded": list(discards), "size": size, "drawn": drawn, "hand": len(seat.hand) + drawn,
                       "visible_to": list(self.everyone)})
        self._draw_cards(seat, size, REDRAW)
        self._next_turn()

    def _draw_cards(self, seat: Seat, count: int, reason: str, source: str | None = None) -> int:
        """Draw up to `count` cards; an empty draw pile is refilled from the shuffled discard pile (L8).
        Logged as `draw` events (the cards, for their owner), split where a refill happens."""
        drawn = 0
        hand = seat.hand
        emit = self.emit
        taken: list[str] = []
        for _ in range(count):
            if not self.draw:
                if not self.discard:
                    break
                if emit is not None and taken:
                    self._emit_draw(seat, reason, source, count, taken)
                    taken = []
                self._refill()
            card = self.draw.pop()
            hand.append(card)
            drawn += 1
            if emit is not None:
                taken.append(card.slug)
        if emit is not None:
            self._emit_draw(seat, reason, source, count, taken)
        return drawn

    def _emit_draw(self, seat: Seat, reason: str, source: str | None, count: int, cards: list[str]) -> None:
        if self.emit is None:
            return
        self.emit({"type": "draw", "round": self.round, "player": seat.pid, "reason": reason, "source": source,
                   "count": count, "cards": cards, "hand": len(seat.hand), "draw_pile": len(self.draw),
                   "visible_to": [seat.pid]})

    def _refill(self) -> None:
        cards = self.discard
        self.rng.shuffle(cards)
        self.draw = cards
        self.discard = []
        if self.emit is not None:
            self.emit({"type": "shuffle", "round": self.round, "reason": "refill",
                       "order": [c.slug for c in reversed(cards)], "visible_to": []})

    def _next_turn(self) -> None:
        self.turn += 1
        if self.turn >= len(self.order) * self.passes:
            self._showdown()
        else:
            self._before_turn()

    # ------------------------------------------------------------------ heals (L9 step 1, heal_marker)

    def _healer(self, task: HealTask) -> Seat:
        """Who chooses a heal: the player of the healing card; for a protector, the team's decider."""
        return self.seats[task.play.seat] if task.play is not None else self._decider(task.team)

    def _next_heal(self) -> None:
        """Each pending heal in turn: a decision when several markers qualify, else done at once."""
        while self.heal_queue:
            task = self.heal_queue[0]
            options = heal_options(self.defenses[task.team], task.element)
            if len(options) > 1:
                self.stage = HEAL_STAGE
                self.heal_choices = options
                self.legal = None
                return
            self.heal_queue.pop(0)
            self._heal(task, options[0] if options else None, "auto")
        self.heal_choices = []
        if self.heal_then == THEN_TURNS:
            self.stage = PLAY_STAGE
            self.legal = None
            self._before_turn()
        else:
            self._resolve_attacks()

    def _heal(self, task: HealTask, choice: tuple[str, str] | None, chosen_by: str) -> None:
        if choice is not None:
            apply_heal(self.defenses[task.team], *choice)
        if self.emit is not None:
            p = task.play
            player: str | None
            seq: int | None
            if p is not None:
                source, player, seq = p.card.slug, p.pid, p.seq
            else:
                source, seq = self.protectors[task.team].slug, None
                player = self._healer(task).pid if chosen_by == "agent" else None
            self.emit({"type": "heal", "round": self.round, "team": task.team, "via": task.via, "source": source,
                       "player": player, "seq": seq, "element": choice[1] if choice else task.element,
                       "defense": choice[0] if choice else None, "removed": choice is not None,
                       "chosen_by": chosen_by, "visible_to": list(self.everyone)})

    # ------------------------------------------------------------------ showdown (L9)

    def _showdown(self) -> None:
        """Reveal, then the healing cards one at a time (decisions), then the attacks."""
        emit = self.emit
        self.revealed = True
        if emit is not None:
            emit({"type": "showdown_start", "round": self.round, "visible_to": list(self.everyone)})
            for p in self.plays:
                if not p.face_up:
                    emit({"type": "reveal", "round": self.round, "seq": p.seq, "player": p.pid, "team": p.team,
                          "orientation": p.orientation, "card": p.card.slug, "element": p.element, "kind": p.kind,
                          "visible_to": list(self.everyone)})
        self.heal_queue = [HealTask(p.team, p.element, "card", p) for p in healing_cards(self.plays)]
        self.heal_then = THEN_ATTACKS
        self._next_heal()

    def _resolve_attacks(self) -> None:
        """Steps 2 and 3 (boosts, defenses), then the allocations."""
        boosts, totals, cancels, left = attack_points(self.plays, self.effects, self.elements)
        if self.emit is not None:
            for b in boosts:
                self._emit_source(b, "boost", {"amount": b["amount"], "attacks": b["attacks"]})
            for t in (0, 1):
                self.emit({"type": "strength", "round": self.round, "team": t,
                           "attack_cards": marker_cap(self.plays, t), "points": dict(totals[t]),
                           "visible_to": list(self.everyone)})
            for c in cancels:
                if c["event"] == "pierce":
                    p = c["play"]
                    self.emit({"type": "pierce", "round": self.round, "team": c["team"],
                               "source": self.protectors[c["team"]].slug, "element": c["element"],
                               "player": p.pid, "seq": p.seq, "visible_to": list(self.everyone)})
                else:
                    self._emit_source(c, "cancel", {"cancelled": c["cancelled"], "pierced": c["pierced"],
                                                    "left": c["left"]})
        self.points = left
        first = self.seats[self.order[0]].team
        self.alloc_queue = [first, 1 - first]
        self._next_allocation()

    def _emit_source(self, record: dict[str, Any], kind: str, extra: dict[str, Any]) -> None:
        p = record["play"]
        team = record["team"]
        source = p.card.slug if p is not None else self.protectors[team].slug
        if self.emit is None:
            return
        self.emit({"type": kind, "round": self.round, "team": team, "via": record["via"], "source": source,
                   "player": p.pid if p is not None else None, "seq": p.seq if p is not None else None,
                   "element": record["element"], **extra, "visible_to": list(self.everyone)})

    def _decider(self, team: int) -> Seat:
        """The team's agent for an allocation or a protector's heal: its first player in counter order."""
        for i in self.order:
            if self.seats[i].team == team:
                return self.seats[i]
        raise AssertionError("a team without players")

    def _next_allocation(self) -> None:
        """L9 step 4 for each team in turn: a decision when there is a choice, else placed at once."""
        while self.alloc_queue:
            team = self.alloc_queue[0]
            cap = marker_cap(self.plays, team)  # the only cap (L9): nothing raises it
            options = allocation_options(self.points[team], cap, self.defenses[1 - team])
            self.alloc_cap = cap
            if len(options) > 1:
                self.stage = ALLOC_STAGE
                self.alloc_options = options
                self.legal = None
                return
            self.alloc_queue.pop(0)
            self._place(team, options[0], "auto")
        self.stage = PLAY_STAGE
        self.alloc_options = []
        self._end_showdown()

    def _place(self, team: int, placements: tuple, chosen_by: str) -> None:
        place(placements, self.defenses[1 - team])
        if self.emit is not None:
            self.emit({"type": "allocation", "round": self.round, "team": team,
                       "player": self._decider(team).pid if chosen_by == "agent" else None,
                       "points": dict(self.points[team]), "attack_cards": marker_cap(self.plays, team),
                       "cap": self.alloc_cap, "placements": [list(p) for p in placements],
                       "placed": len(placements), "chosen_by": chosen_by, "visible_to": list(self.everyone)})

    def _end_showdown(self) -> None:
        """L9 step 5 and L12: destruction, then victory, draw or the end of the round."""
        emit = self.emit
        for team in (0, 1):
            for d in destroy_step(self.defenses[team]):
                if emit is not None:
                    emit({"type": "destroyed", "round": self.round, "team": team, "defense": d.slug,
                          "elements": list(d.elements), "by": 1 - team, "visible_to": list(self.everyone)})
        left = [len(intact(self.defenses[t])) for t in (0, 1)]
        if emit is not None:
            emit({"type": "showdown_end", "round": self.round, "defenses": left, "visible_to": list(self.everyone)})
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
            emit({"type": "round_end", "round": self.round, "cards": [p.card.slug for p in self.plays],
                  "discard_pile": len(self.discard), "visible_to": list(self.everyone)})
        self.last_plays = self.plays
        self.plays = []
        n = len(self.seats)
        before = {s.pid: s.counter for s in self.seats} if emit is not None else None
        for s in self.seats:  # card 1 goes to the holder of 2, ..., card N to the holder of 1
            s.counter = s.counter - 1 if s.counter > 1 else n
        if emit is not None:
            emit({"type": "counters", "round": self.round, "before": before,
                  "after": {s.pid: s.counter for s in self.seats}, "visible_to": list(self.everyone)})
        for team, effect in enumerate(self.effects):
            if effect.kind != "extra_draw":
                continue
            for i in sorted((s.index for s in self.seats if s.team == team), key=lambda i: self.seats[i].counter):
                seat = self.seats[i]
                room = effect.max_hand - len(seat.hand)
                self._draw_cards(seat, min(effect.count, room) if room > 0 else 0, "protector",
                                 self.protectors[team].slug)
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
            self.emit({"type": "match_end", "winner": winner, "reason": reason, "rounds": self.round,
                       "visible_to": list(self.everyone)})
