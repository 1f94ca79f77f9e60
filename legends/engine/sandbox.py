"""Look-ahead matches built from an observation alone (G2): what a search agent plays out.

`determinise(obs, rng, seed)` deals every card the observer cannot see from the cards it has
not seen (`LegendsObservation.unseen()`), so the sample is consistent with what the observer
knows and nothing else. It is reached through `LegendsObservation.sandbox(seed)`.
"""

from __future__ import annotations

import random

from legends.engine.observation import LegendsObservation
from legends.engine.showdown import ATTACK, Defense, Play
from legends.engine.state import PLAY_STAGE, THEN_TURNS, LegendsState, Seat


def determinise(obs: LegendsObservation, rng: random.Random, seed: int) -> LegendsState:
    """A match consistent with what `obs` shows: every hidden card sampled from the unseen ones.

    Only the observation is read (G2). Hidden face-down cards are dealt first, then the other
    players' hands (their sizes are public), then the draw pile. Only turns can be sampled
    (an allocation or a healing choice is resolved in the match itself).
    """
    if obs.stage != "play":
        raise ValueError("A look-ahead match starts at a turn, not at an allocation, a heal or the end.")
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
    # Only the live match needs the mode's numbers and its start.
    s.rules = None  # type: ignore[assignment]
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
    s.everyone = [seat.pid for seat in s.seats]
    plays: list[Play] = []
    for v in obs.plays:
        card, element = v.card, v.element
        if card is None or element is None:
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
        for v in obs.last_plays  # every card of the last round was revealed: card and element are set
    ]
    s.known = [set(), set()]
    s.known[obs.team].update(obs.spied)
    s.known[1 - obs.team].update(obs.spied_by_opponents)
    s.spy_used = list(obs.spy_used)
    s.revealed = False
    s.stage = PLAY_STAGE
    s.points = [{}, {}]
    s.alloc_queue = []
    s.alloc_options = []
    s.alloc_cap = 0
    s.heal_queue = []
    s.heal_choices = []
    s.heal_then = THEN_TURNS
    s.legal = None
    s.winner = None
    s.reason = ""
    s.steps = 0
    return s
