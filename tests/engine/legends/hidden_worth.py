"""The worth of hidden information in Akin Legends, measured in a test harness only: one seat plays a flat Monte
Carlo look-ahead whose sampled worlds are copies of the match itself (it sees every hand and face-down card),
against the same look-ahead on worlds sampled from what its player may see (`observation.sandbox`, G2). Only
the world each look-ahead starts from differs, so the gap between them is what seeing everything is worth.
No agent of the service sees the match: this one lives here, and plays through the engine's public methods.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from legends.engine.agents import GreedyAgent, default_allocation, default_heal, evaluate
from legends.engine.game import new_match
from legends.engine.state import LegendsState
from simulate.engine.rng import child_seed
from tests.engine.legends.helpers import duel_setup

Worlds = Callable[[int], LegendsState]  # a seed -> a world to look ahead in


@dataclass
class LookAhead:
    """Greedy's best `candidates` actions, each played out with greedy play for everyone to the end of the
    round in `worlds` worlds (common to every candidate), the best mean value taken."""

    worlds: int = 4
    candidates: int = 3

    def choose(self, state: LegendsState, world: Worlds, rng: random.Random) -> object:
        player = state.current_player()
        assert player is not None
        observation = state.observation(player)
        legal = state.legal_actions()
        if observation.stage == "allocate":
            return default_allocation(observation, legal)
        if observation.stage == "heal":
            return default_heal(observation, legal)
        greedy = GreedyAgent()
        ranked = sorted(greedy.scores(observation, legal), key=lambda item: -item[0])[: self.candidates]
        totals = [0.0] * len(ranked)
        for _ in range(self.worlds):
            seed = child_seed(rng)
            for i, (_, action) in enumerate(ranked):
                sim = world(seed).clone(seed + i + 1)
                sim.apply(action)
                totals[i] += playout(sim, greedy, observation.team, observation.round)
        return ranked[max(range(len(ranked)), key=lambda i: totals[i])][1]


def playout(sim: LegendsState, greedy: GreedyAgent, team: int, start_round: int) -> float:
    while not sim.is_terminal() and sim.round <= start_round:
        legal = sim.pending_actions()
        player = sim.current_player()
        sim.apply(legal[0] if len(legal) == 1 or player is None else greedy.act(sim.observation(player), legal, sim.rng))
    return evaluate(sim, team)


def copies_of(state: LegendsState) -> Worlds:
    """Worlds that are the match itself, as it stands now (every hidden card where it really is)."""
    return state.clone


def duel(seed: int, seeing_team: int, look: LookAhead) -> str | None:
    """One duel of the official deck: team `seeing_team` looks ahead in copies of the match, the other in worlds
    sampled from its observation; the winning team ('0', '1') or None for a draw."""
    state = new_match(duel_setup(), seed=seed, options={"max_rounds": 30}, keep_log=False)
    rngs = {team: random.Random(f"look:{seed}:{team}") for team in (0, 1)}
    while not state.is_terminal():
        legal = state.legal_actions()
        player = state.current_player()
        if len(legal) == 1 or player is None:
            state.apply(legal[0])
            continue
        team = state.observation(player).team
        world = copies_of(state) if team == seeing_team else state.observation(player).sandbox
        state.apply(look.choose(state, world, rngs[team]))
    return state.outcome().winner
