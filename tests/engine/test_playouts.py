"""Seeded random playouts: thousands of matches, invariants checked at every decision and in every log."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from realms.engine.cards import CharacterCard, cards_from_fixture
from realms.engine.events import EVENT_FIELDS
from realms.engine.formation import random_army
from realms.engine.game import new_match
from realms.engine.state import RealmsState
from simulate.engine.agents import get_agent
from simulate.engine.events import schema_problems
from tests.engine.audit import audit
from tests.engine.cardset import all_cards

STARTER = Path(__file__).resolve().parents[2] / "fixtures" / "realms_starter.json"


def card_pools() -> list[list[CharacterCard]]:
    """The test set and the official starter set."""
    return [all_cards(), cards_from_fixture(json.loads(STARTER.read_text()))]


def check_decision(st: RealmsState) -> None:
    """Invariants that hold at every decision."""
    for u in st.units:
        assert 0 <= u.hp <= u.max_hp
        assert u.alive == (u in st.living[u.side])
        if u.alive:
            assert u.hp > 0
            assert u.ea >= 0 and u.ed >= 0 and u.es >= 0
    for side in ("a", "b"):
        for line in ("vanguard", "rearguard"):
            assert sum(1 for u in st.living[side] if u.line == line) <= 5
    legal = st.legal_actions()
    assert legal
    actor = st.acting_unit()
    if st.phase() == "act":
        assert actor is not None and actor.alive
        foes = st.living["b" if actor.side == "a" else "a"]
        front = [u.uid for u in foes if u.line == "vanguard"]
        allowed = set(front) if actor.line == "vanguard" and front else {u.uid for u in foes}
        assert {a[1] for a in legal if a[0] == "attack"} == allowed  # R12
        has_ability = any(a[0] == "ability" for a in legal)
        assert has_ability == (actor.main is not None and actor.ready <= st.round and not actor.silence)  # R10/R13


def play(st: RealmsState, agents: dict, rng: random.Random, cap: int = 5000) -> int:
    """Play to the end checking invariants; the number of decisions."""
    steps = 0
    seat_rngs = {p: random.Random(s) for p, s in st.agent_seeds.items()}  # G2: never the match generator
    while not st.is_terminal():
        check_decision(st)
        legal = st.legal_actions()
        player = st.current_player()
        action = agents[player].act(st.observation(player), legal, seat_rngs[player]) if len(legal) > 1 else legal[0]
        st.apply(action)
        steps += 1
        assert steps < cap, "a match did not end"
    return steps


@pytest.mark.parametrize("pool_index", range(len(card_pools())))
def test_thousands_of_random_playouts_keep_every_invariant(pool_index: int) -> None:
    cards = card_pools()[pool_index]
    rng = random.Random(2024 + pool_index)
    reasons: dict[str, int] = {}
    for seed in range(1500):
        setup = {"armies": {"a": random_army(cards, rng), "b": random_army(cards, rng)}}
        options = {"tie_break": rng.choice(["random", "alternate"]), "max_rounds": rng.choice([5, 20, 50])}
        st = new_match(setup, seed=seed, options=options)
        names = ("random", "greedy") if seed % 3 == 0 else ("random", "random")
        play(st, {"a": get_agent(names[seed % 2]), "b": get_agent(names[1 - seed % 2])}, rng)
        events = st.events()
        assert not schema_problems(events, EVENT_FIELDS)
        assert audit(events) == [], (seed, audit(events)[:5])
        outcome = st.outcome()
        assert outcome.rounds <= options["max_rounds"]
        reasons[outcome.reason] = reasons.get(outcome.reason, 0) + 1
    assert set(reasons) <= {"elimination", "mutual_elimination", "max_rounds"}
    assert reasons.get("elimination", 0) > 0


def test_greedy_and_formation_playouts_keep_every_invariant() -> None:
    cards = all_cards()
    rng = random.Random(99)
    for seed in range(200):
        st = new_match({"collections": {"a": cards, "b": cards}}, seed=seed)
        agents = {"a": get_agent("greedy"), "b": get_agent("random" if seed % 2 else "greedy")}
        seat_rngs = {p: random.Random(s) for p, s in st.agent_seeds.items()}
        while st.phase() == "formation":
            p = st.current_player()
            st.apply(agents[p].act(st.observation(p), st.legal_actions(), seat_rngs[p]))
        play(st, agents, rng)
        events = st.events()
        assert not schema_problems(events, EVENT_FIELDS)
        assert audit(events) == []
        assert len([e for e in events if e["type"] == "deploy"]) == 14
