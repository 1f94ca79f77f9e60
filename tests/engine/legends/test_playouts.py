"""Seeded random playouts of thousands of matches: invariants at every step, the log audited."""

from __future__ import annotations

import random
from copy import deepcopy

import pytest

from legends.engine.agents import GreedyAgent
from legends.engine.game import new_match

from .audit import Audit
from .helpers import duel_setup, teams_setup

DECK = 72


def check_state(state) -> None:
    """Invariants that hold at every decision."""
    table = len(state.plays)
    cards = sum(len(s.hand) for s in state.seats) + len(state.draw) + len(state.discard) + table
    assert cards == DECK, "every card is somewhere, once"
    counters = sorted(s.counter for s in state.seats)
    assert counters == list(range(1, len(state.seats) + 1))
    for team in state.defenses:
        for d in team:
            assert len(d.markers) == len(set(d.markers)) and set(d.markers) <= set(d.elements)
            # Between the two allocations a defense may hold both elements: step 5 comes after both.
            assert d.destroyed or len(d.markers) < 2 or state.phase() == "allocate"
    if state.phase() == "play":
        assert state.legal_actions(), "a player always has a turn (redraw at worst)"
        assert state.current_player() == state.seats[state.order[state.turn % len(state.order)]].pid


def run(setup, seed: int, agent_mix: str) -> tuple:
    state = new_match(setup, seed=seed, options={"max_rounds": 40})
    rng = random.Random(seed)
    greedy = GreedyAgent()
    destroyed_before = 0
    while not state.is_terminal():
        check_state(state)
        legal = state.legal_actions()
        player = state.current_player()
        if agent_mix == "greedy" or (agent_mix == "mixed" and player.startswith("t0")):
            action = greedy.act(state.observation(player), legal, rng)
        else:
            action = legal[rng.randrange(len(legal))]
        state.apply(action)
        destroyed = sum(d.destroyed for t in state.defenses for d in t)
        assert destroyed >= destroyed_before, "a destroyed defense never comes back"
        destroyed_before = destroyed
    audit = Audit(state.events())
    assert audit.problems == [], (seed, audit.problems[:5])
    outcome = state.outcome()
    assert outcome.rounds <= 40
    return outcome.winner, outcome.reason


@pytest.mark.parametrize(("mode", "mix", "count"), [
    ("teams", "random", 700), ("teams", "mixed", 300), ("teams", "greedy", 300),
    ("duel", "random", 500), ("duel", "greedy", 200),
])
def test_random_playouts_keep_every_invariant(mode, mix, count):
    results = {}
    for seed in range(count):
        setup = (teams_setup if mode == "teams" else duel_setup)(protectors=(None, None), defenses=(None, None))
        key = run(setup, 1000 + seed, mix)
        results[key] = results.get(key, 0) + 1
    reasons = {reason for _, reason in results}
    assert "defenses_destroyed" in reasons  # matches do end by destruction
    assert sum(results.values()) == count


def test_the_auditor_catches_a_wrong_showdown():
    setup = teams_setup(protectors=("flame-herald", "tide-keeper"), defenses=(None, None))
    state = new_match(setup, seed=5)
    greedy = GreedyAgent()
    rng = random.Random(5)
    while not state.is_terminal():
        state.apply(greedy.act(state.observation(state.current_player()), state.legal_actions(), rng))
    events = state.events()
    assert Audit(events).problems == []

    def broken(kind: str, change) -> list[str]:
        copy = deepcopy(events)
        target = next(e for e in copy if e["type"] == kind and change(e) is not False)
        assert target
        return Audit(copy).problems

    assert broken("strength", lambda e: e["points"].update(fire=e["points"]["fire"] + 1))
    assert broken("cancel", lambda e: e.update(left=e["left"] + 1))
    assert broken("allocation", lambda e: e.update(cap=e["cap"] + 1))
    assert broken("counters", lambda e: e.update(after=dict(e["before"])))
    assert broken("match_end", lambda e: e.update(rounds=e["rounds"] + 1))
    assert broken("turn", lambda e: e.update(player="t0p1") if e["seq"] == 1 else False)
