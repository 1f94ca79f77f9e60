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

Where each rule lives: table.py (the match's data, the piles, who decides), turns.py (L7, L8, L13),
heals.py (L9 step 1, heal_marker), rounds.py (the round and the showdown as the match runs it),
showdown.py (the steps of L9 as pure functions), effects/ (one module per protector effect kind).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from legends.engine import heals, rounds, turns
from legends.engine.cards import SummoningCard
from legends.engine.events import SCHEMA_VERSION
from legends.engine.observation import LegendsObservation, observe
from legends.engine.showdown import Defense, Play, intact
from legends.engine.start import MatchStart
from legends.engine.table import (
    ALLOCATE_STAGE,
    HEAL_STAGE,
    OVER,
    PLAY_STAGE,
    STAGE_NAMES,
    Action,
    Seat,
    Table,
)
from legends.engine.vocabulary import ALLOCATE, ATTACK, ATTACK_ELEMENTS, HAND_SIZE, HEAL, REDRAW
from simulate.engine.deciders import observes
from simulate.engine.errors import IllegalAction
from simulate.engine.events import Event, EventLog
from simulate.engine.games import Decider, Outcome
from simulate.engine.rng import below, seat_seeds, shuffle


def _as_action(action: Any) -> Any:
    """Actions arriving as JSON lists become the engine's tuples."""
    if isinstance(action, (list, tuple)):
        return tuple(_as_action(item) if isinstance(item, list) else item for item in action)
    return action


class LegendsState(Table):
    """One Akin Legends match, from the deal to its end."""

    # ------------------------------------------------------------------ setup

    def start(self, start: MatchStart) -> None:
        """Seat the players, shuffle and deal (L5), log it all and run to the first decision."""
        self.passes = start.rules.passes  # L7
        self.spirits = tuple(t.spirit for t in start.teams)
        self.protectors = tuple(t.protector for t in start.teams)
        self.set_effects()
        self.defenses = [[Defense(card, t.index) for card in t.defenses] for t in start.teams]
        self.seat_players([Seat(i, p.pid, p.team, p.name, p.counter, []) for i, p in enumerate(start.players)])
        self.first_team = min(start.players, key=lambda player: player.counter).team  # turns go by counter (L7)
        self.agent_seeds = seat_seeds(self.rng, self.everyone)  # G2
        deck = self.catalogue.deck()
        if self.emit is not None:
            self.emit(self.match_start_event(start, len(deck)))
            # G2: the match seed replays every shuffle and an agent's seed predicts that agent, so they are
            # logged apart from the public setup, for no seat (G3: the log is read after the match).
            self.emit({"type": "seeds", "seed": self.seed, "agent_seeds": dict(self.agent_seeds), "visible_to": []})
        shuffle(self.rng, deck)
        self.draw = deck
        if self.record is not None:  # the pile's order: seen by nobody, logged for the audit (G3)
            self.record(("shuffle", 0, "start", tuple([c.slug for c in reversed(deck)]), ()))
        for seat in sorted(self.seats, key=lambda s: s.counter):
            cards = [self.draw.pop() for _ in range(HAND_SIZE)]
            seat.hand.extend(cards)
            if self.record is not None:
                self.record(("deal", seat.pid, tuple([c.slug for c in cards]), len(seat.hand), len(self.draw),
                             (seat.pid,)))
        rounds.start_round(self)
        rounds.advance(self)

    def set_effects(self) -> None:
        """The protectors' effects, and what they fix for the whole match (the redraw sizes)."""
        self.effects = tuple(p.effect for p in self.protectors)
        self.redraw_limits = [effect.handler.redraw_limit(effect) for effect in self.effects]

    def seat_players(self, seats: list[Seat]) -> None:
        """Seat the players (setup order)."""
        self.seats = seats
        self.by_pid = {s.pid: s for s in seats}
        self.everyone = [s.pid for s in seats]
        self.public = tuple(self.everyone)

    def match_start_event(self, start: MatchStart, deck_size: int) -> Event:
        """G3: the whole public setup (deck, teams, protector specs, seats and their agents, setup draws), seen by
        every seat; the seeds are in the `seeds` event that follows."""
        names = self.catalogue.spirit_names
        return {
            "type": "match_start", "schema": SCHEMA_VERSION, "mode": self.mode,
            "options": dict(self.options), "elements": list(self.elements),
            "deck": [c.as_dict() for c in self.catalogue.designs], "deck_size": deck_size,
            "teams": [
                {
                    "team": t.index, "spirit": {"slug": t.spirit, "name": names.get(t.spirit, t.spirit)},
                    "protector": t.protector.as_dict(),
                    "defenses": [d.as_dict() for d in t.defenses],
                    "players": [{"id": p.pid, "name": p.name, "counter": p.counter} for p in t.players],
                }
                for t in start.teams
            ],
            "drawn": [{**d, "cards": list(d["cards"]), "pool": list(d["pool"])} for d in start.drawn],
            "agent_names": {pid: self.agent_names.get(pid) for pid in self.everyone},
            "visible_to": list(self.everyone),
        }

    # ------------------------------------------------------------------ protocol

    def current_player(self) -> str | None:
        """The player who decides now (a turn, a healing choice or a team's allocation); None at the end."""
        stage = self.stage
        if stage == PLAY_STAGE:
            return self.turn_seat().pid
        if stage == ALLOCATE_STAGE:
            return self.decider(self.alloc_queue[0]).pid
        if stage == HEAL_STAGE:
            return self.healer(self.heal_queue[0]).pid
        return None

    def legal_actions(self) -> list[Action]:
        """The actions the current player may take (a fresh list: the caller may change it)."""
        return list(self.pending_actions())

    def pending_actions(self) -> list[Action]:
        """The actions the current player may take, as the state keeps them (the engine's own steps read this
        list without copying it; it must not be changed)."""
        legal = self.legal
        if legal is None:
            stage = self.stage
            if stage == PLAY_STAGE:
                legal = turns.turn_actions(self, self.turn_seat())
            elif stage == ALLOCATE_STAGE:
                legal = [(ALLOCATE, option) for option in self.alloc_options]
            elif stage == HEAL_STAGE:
                legal = [(HEAL, slug, element) for slug, element in self.heal_choices]
            else:
                legal = []
            self.legal = legal
        return legal

    def play_decision(self, agents: Mapping[str, Decider]) -> None:
        """The runner's step: the pending decision taken by its player's agent (`agents` maps a player to a
        function of observation and legal actions) and applied; a single legal action is applied without asking."""
        legal = self.pending_actions()
        if len(legal) == 1:
            self.apply(legal[0])
            return
        player = self.current_player()
        if player is None:
            raise IllegalAction(None, [], "The match is over; no action is legal.")
        decide = agents[player]
        observation = self.observation(player) if observes(decide) else None
        self.apply(decide(observation, list(legal)))  # a copy of the legal actions: the agent cannot change ours

    def is_terminal(self) -> bool:
        """Whether the match is over."""
        return self.stage == OVER

    def phase(self) -> str:
        """play, allocate, heal or over."""
        return STAGE_NAMES[self.stage]

    def observation(self, player: str) -> LegendsObservation:
        """What `player` may see now (G2): a snapshot built here, holding no reference to the state."""
        return observe(self, player, determinise)

    def events(self) -> list[dict[str, Any]] | None:
        """The event log so far, or None when the log is off."""
        return self.log.to_list() if self.log is not None else None

    def event_log(self) -> EventLog | None:
        """The log as recorded (its events are made into dicts when read), or None when it is off."""
        return self.log

    def outcome(self) -> Outcome:
        """Winner ('0', '1' or None), reason, rounds played, each team's standing defenses and the summoning
        cards each team played."""
        survivors = {
            str(team): [
                {"defense": d.slug, "name": d.card.name, "elements": list(d.elements), "markers": list(d.markers)}
                for d in intact(self.defenses[team])
            ]
            for team in (0, 1)
        }
        winner = None if self.winner is None else str(self.winner)
        played = {str(team): sorted(self.played[team]) for team in (0, 1)}
        return Outcome(winner=winner, reason=self.reason, rounds=self.round, survivors=survivors, played=played,
                       first=None if self.first_team is None else str(self.first_team))

    def stop(self, reason: str) -> None:
        """End the match now as a draw (the runner's hard cap on actions)."""
        if self.stage != OVER:
            rounds.finish(self, None, reason)

    def apply(self, action: Any) -> None:
        """Play one action of the pending decision and run on to the next one; IllegalAction if not legal."""
        legal = self.pending_actions()
        # An agent returns one of the legal actions themselves: found by identity before comparing values.
        if not any(candidate is action for candidate in legal) and action not in legal:
            if self.stage == OVER:
                raise IllegalAction(action, [], "The match is over; no action is legal.")
            action = _as_action(action)
            if action not in legal:
                raise IllegalAction(action, list(legal))
        stage = self.stage
        if self.record is not None:  # G3: the decision, what was offered and what was taken
            player = self.current_player()
            # The legal actions by reference: the list is never changed (a new one is made for the next decision).
            self.record(("decision", self.round, STAGE_NAMES[stage], player, legal, action,
                         (player,) if stage == PLAY_STAGE else self.public))
        self.legal = None
        if stage == ALLOCATE_STAGE:
            team = self.alloc_queue.pop(0)
            rounds.place_markers(self, team, action[1], "agent")
        elif stage == HEAL_STAGE:
            task = self.heal_queue.pop(0)
            self.heal_choices = []
            heals.heal(self, task, (action[1], action[2]), "agent")
        else:
            seat = self.turn_seat()
            if action[0] == REDRAW:
                turns.redraw(self, seat, action)
            else:
                turns.play_card(self, seat, action)
                self.played[seat.team].add(action[1])
            self.turn += 1
        rounds.advance(self)

    # ------------------------------------------------------------------ look-ahead copies

    def clone(self, seed: int) -> LegendsState:
        """An independent copy without a log and with its own generator (for look-ahead agents)."""
        c = LegendsState(self.mode, self.catalogue, self.options, seed, keep_log=False, agents=self.agent_names)
        c.agent_seeds = self.agent_seeds
        c.max_rounds = self.max_rounds
        c.passes = self.passes
        c.spirits = self.spirits
        c.protectors = self.protectors
        c.effects = self.effects
        c.redraw_limits = self.redraw_limits
        c.defenses = [[d.copy() for d in team] for team in self.defenses]
        c.seat_players([s.copy() for s in self.seats])
        c.draw = list(self.draw)
        c.discard = list(self.discard)
        c.round = self.round
        c.order = self.order
        c.turn = self.turn
        c.plays = list(self.plays)
        c.last_plays = self.last_plays
        c.played = [set(p) for p in self.played]
        c.known = [set(k) for k in self.known]
        c.spy_used = list(self.spy_used)
        c.revealed = self.revealed
        c.stage = self.stage
        c.step = self.step
        c.points = [dict(p) for p in self.points]
        c.alloc_queue = list(self.alloc_queue)
        c.alloc_options = self.alloc_options
        c.alloc_cap = self.alloc_cap
        c.heal_queue = list(self.heal_queue)
        c.heal_choices = self.heal_choices
        c.legal = self.legal
        c.winner = self.winner
        c.reason = self.reason
        return c


def determinise(obs: LegendsObservation, seed: int) -> LegendsState:
    """A look-ahead match consistent with what `obs` shows, without log: every hidden card sampled from the
    unseen ones with a generator seeded with `seed`, which the match then keeps.

    Only the observation is read (G2). Hidden face-down cards are dealt first (a face-down attack takes one
    of its card's elements at random), then the other players' hands (their sizes are public), then the draw
    pile. Only turns can be sampled (an allocation or a healing choice is resolved in the match itself).
    """
    if obs.stage != "play":
        raise ValueError("A look-ahead match starts at a turn, not at an allocation, a heal or the end.")
    rng = random.Random(seed)
    pool = obs.unseen()
    shuffle(rng, pool)
    options = {"max_rounds": obs.max_rounds, "max_actions": obs.max_actions}
    world = LegendsState(obs.mode, obs.catalogue, options, seed, keep_log=False, rng=rng)
    world.passes = obs.passes
    world.spirits = obs.spirits
    world.protectors = obs.protectors
    world.set_effects()
    world.defenses = [[Defense(v.card, v.team, v.markers, v.destroyed) for v in team] for team in obs.defenses]
    index = {p.pid: i for i, p in enumerate(obs.players)}
    world.seat_players([Seat(i, p.pid, p.team, p.name, p.counter, []) for i, p in enumerate(obs.players)])
    _sample_plays(world, obs, index, pool, rng)
    _sample_hands(world, obs, pool)
    world.draw = pool
    world.discard = list(obs.discard)
    world.round = obs.round
    world.order = [index[pid] for pid in obs.order]
    world.turn = obs.turn
    _last_plays(world, obs, index)
    world.known[obs.team].update(obs.spied)
    world.known[1 - obs.team].update(obs.spied_by_opponents)
    world.spy_used = list(obs.spy_used)
    return world


def _sample_plays(
    world: LegendsState, obs: LegendsObservation, index: dict[str, int], pool: list[SummoningCard],
    rng: random.Random,
) -> None:
    """The round's plays, each hidden card taken from the pool (a face-down attack with one of its elements)."""
    for v in obs.plays:
        card, element = v.card, v.element
        if card is None or element is None:
            card = pool.pop()
            element = card.attacks[below(rng, ATTACK_ELEMENTS)] if v.orientation == ATTACK else card.element
        world.plays.append(Play(v.seq, index[v.player], v.player, v.team, v.face_up, v.orientation, card, element))


def _sample_hands(world: LegendsState, obs: LegendsObservation, pool: list[SummoningCard]) -> None:
    """The observer's own hand, and every other hand of its public size from the pool; the rest is the draw pile."""
    for p in obs.players:
        seat = world.by_pid[p.pid]
        seat.hand = list(obs.hand) if p.pid == obs.player else [pool.pop() for _ in range(p.hand_size)]
    if len(pool) != obs.draw_pile:
        raise AssertionError(f"{len(pool)} unseen cards left for a draw pile of {obs.draw_pile}")


def _last_plays(world: LegendsState, obs: LegendsObservation, index: dict[str, int]) -> None:
    """The last round's plays, every one revealed at its showdown: card and element are set."""
    for v in obs.last_plays:
        if v.card is None or v.element is None:
            raise AssertionError(f"the last round's card #{v.seq} is not revealed")
        world.last_plays.append(Play(v.seq, index[v.player], v.player, v.team, v.face_up, v.orientation, v.card,
                                     v.element))
