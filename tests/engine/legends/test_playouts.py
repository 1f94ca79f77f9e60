"""Thousands of seeded matches, every agent pairing and both modes, each log audited from the log alone.

Setups draw their protectors and defenses (L6), so every protector plays in both modes (the Spy
in teams mode only). The auditor (audit.py) must find nothing.
"""

from __future__ import annotations

import random

import pytest

from legends.engine.agents import GreedyAgent
from legends.engine.cards import parse_catalogue
from legends.engine.game import new_match, play_legends_match

from .audit import Audit
from .helpers import duel_setup, official, small_deck, teams_setup

DECK = 72
PROTECTORS = set(parse_catalogue(official()).protectors)
SEATS = {"teams": 4, "duel": 2}


def drawn_setup(mode: str) -> dict:
    return (teams_setup if mode == "teams" else duel_setup)(protectors=(None, None), defenses=(None, None))


def seating(mode: str, team0: str, team1: str) -> list[str]:
    return [team0, team0, team1, team1] if mode == "teams" else [team0, team1]


def audited(mode: str, agents: list[str], seed: int, **options) -> tuple[dict, set[str]]:
    """Play one match through the core runner, audit its log; the match_start and the protectors."""
    result = play_legends_match(setup=drawn_setup(mode), agents=agents, seed=seed, options=options or None)
    audit = Audit(result.events)
    assert audit.problems == [], (mode, agents, seed, audit.problems[:5])
    assert audit.checks > 500
    start = result.events[0]
    return start, {t["protector"]["slug"] for t in start["teams"]}


@pytest.mark.parametrize("mode, team0, team1, count", [
    ("teams", "random", "random", 250), ("teams", "random", "greedy", 400), ("teams", "greedy", "random", 400),
    ("teams", "greedy", "greedy", 400),
    ("duel", "random", "random", 150), ("duel", "random", "greedy", 350), ("duel", "greedy", "random", 350),
    ("duel", "greedy", "greedy", 350),
])
def test_every_log_passes_the_audit(mode, team0, team1, count):
    seen: set[str] = set()
    for seed in range(count):
        start, protectors = audited(mode, seating(mode, team0, team1), 10_000 * len(team0 + team1) + seed)
        seen |= protectors
        seats = [p["id"] for t in start["teams"] for p in t["players"]]
        assert start["agent_names"] == dict(zip(seats, seating(mode, team0, team1), strict=True))
    # Every protector played (the Spy is never drawn for a duel).
    assert seen == (PROTECTORS if mode == "teams" else PROTECTORS - {"spy"})


@pytest.mark.parametrize("mode, count", [("teams", 3), ("duel", 4)])
def test_search_matches_pass_the_audit(mode, count):
    pairings = [("search", "random"), ("random", "search"), ("search", "greedy"), ("greedy", "search"),
                ("search", "search")]
    for i, (team0, team1) in enumerate(pairings):
        for seed in range(count):
            audited(mode, seating(mode, team0, team1), 500 + 10 * i + seed)
    # Mixed teams too: a search player with a random teammate.
    if mode == "teams":
        audited(mode, ["search", "random", "greedy", "search"], 77)


@pytest.mark.parametrize("mode, cards", [("teams", 30), ("duel", 16)])
def test_small_decks_pass_the_audit(mode, cards):
    """Decks barely larger than the deal: refills in the middle of redraws, redraws short of cards (L8)."""
    refills = short = 0
    for seed in range(150):
        setup = drawn_setup(mode)
        setup["catalogue"] = small_deck(cards)
        agents = seating(mode, *(("random", "greedy") if seed % 2 else ("greedy", "random")))
        events = play_legends_match(setup=setup, agents=agents, seed=seed, options={"max_rounds": 12}).events
        audit = Audit(events)
        assert audit.problems == [], (mode, seed, audit.problems[:5])
        redraws = [i for i, e in enumerate(events) if e["type"] == "redraw"]
        short += sum(1 for i in redraws if events[i]["short"])
        refills += sum(1 for i in redraws if events[i + 1]["type"] == "shuffle" or events[i + 2]["type"] == "shuffle")
    assert refills > 20 and short > 20


def test_the_round_and_action_caps_pass_the_audit():
    for seed in range(30):
        audited("teams", ["random"] * 4, seed, max_rounds=2)
        audited("duel", ["greedy"] * 2, seed, max_actions=7 + seed)


# ------------------------------------------------------------------ step by step, with the state's invariants


def check_state(state) -> None:
    """Invariants that hold at every decision."""
    table = len(state.plays)
    cards = sum(len(s.hand) for s in state.seats) + len(state.draw) + len(state.discard) + table
    assert cards == DECK, "every card is somewhere, once"
    counters = sorted(s.counter for s in state.seats)
    assert counters == list(range(1, len(state.seats) + 1))
    check_markers(state)
    assert state.legal_actions(), "a decision always has an action (a redraw at worst)"
    if state.phase() == "play":
        assert state.current_player() == state.seats[state.order[state.turn % len(state.order)]].pid
    if state.phase() == "allocate":
        check_allocation_cap(state)


def check_markers(state) -> None:
    """Each defense holds each of its elements' markers at most once, and both only while it falls."""
    for team in state.defenses:
        for d in team:
            assert len(d.markers) == len(set(d.markers)) and set(d.markers) <= set(d.elements)
            # Between the two allocations a defense may hold both elements: step 5 comes after both.
            assert d.destroyed or len(d.markers) < 2 or state.phase() == "allocate"


def check_allocation_cap(state) -> None:
    """No allocation offered places more markers than the team played attack cards."""
    team = state.alloc_queue[0]
    attacks = sum(1 for p in state.plays if p.team == team and p.orientation == "attack")
    assert max(len(a[1]) for a in state.legal_actions()) <= attacks  # the cap of L9, absolute


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
    ("teams", "random", 250), ("teams", "mixed", 150), ("duel", "random", 200), ("duel", "greedy", 100),
])
def test_step_by_step_playouts_keep_every_invariant(mode, mix, count):
    results: dict[tuple, int] = {}
    for seed in range(count):
        key = run(drawn_setup(mode), 1000 + seed, mix)
        results[key] = results.get(key, 0) + 1
    assert "defenses_destroyed" in {reason for _, reason in results}  # matches do end by destruction
    assert sum(results.values()) == count
