"""The Akin Legends search agent's look-ahead budget: decisions simulated for one decision and for a seat's match
never pass it, a spent budget plays greedy's choice, and a match still plays the same from its seed."""

from __future__ import annotations

import copy
import random
from collections.abc import Sequence
from typing import Any

import pytest

from legends.engine.agents import DECISION_BUDGET, GreedyAgent, SearchAgent
from legends.engine.game import new_match
from legends.engine.observation import LegendsObservation
from simulate.engine.runner import play_match

from .helpers import official, teams_setup


def stalling_setup() -> dict[str, Any]:
    """Teams mode with every attack of every card fire: no defense (each needs two elements) can fall, so
    matches run to their round cap."""
    setup = teams_setup()
    catalogue = copy.deepcopy(official())
    for card in catalogue["deck"]:
        card["attacks"] = ["fire", "fire"]
    return {**setup, "catalogue": catalogue}


class Counted:
    """A search agent whose count is read decision by decision (what it reports having simulated)."""

    name = "search"

    def __init__(self, agent: SearchAgent) -> None:
        self.agent = agent
        self.per_decision: list[int] = []

    def act(self, observation: LegendsObservation, legal: Sequence[Any], rng: random.Random) -> Any:
        before = self.agent.simulated
        choice = self.agent.act(observation, legal, rng)
        self.per_decision.append(self.agent.simulated - before)
        return choice


@pytest.mark.parametrize("budget", [9, 60])
def test_one_decision_never_simulates_more_than_its_budget(budget: int) -> None:
    seats = [Counted(SearchAgent(budget=budget, match_budget=10**9)) for _ in range(4)]
    result = play_match("legends", setup=stalling_setup(), agents=seats, seed=3, options={"max_rounds": 3},
                        keep_log=False)
    assert result.reason == "max_rounds"
    counts = [n for seat in seats for n in seat.per_decision]
    assert len(counts) > 20
    assert max(counts) <= budget
    assert max(counts) > budget // 2  # the budget is what bounds these playouts


def test_the_default_budget_bounds_every_decision_of_official_matches() -> None:
    seats = [Counted(SearchAgent()) for _ in range(4)]
    play_match("legends", setup=teams_setup(), agents=seats, seed=5, keep_log=False)
    counts = [n for seat in seats for n in seat.per_decision]
    assert 0 < max(counts) <= DECISION_BUDGET


def test_a_seats_match_never_simulates_more_than_its_match_budget() -> None:
    seats = [Counted(SearchAgent(budget=40, match_budget=300)) for _ in range(4)]
    result = play_match("legends", setup=stalling_setup(), agents=seats, seed=4, options={"max_rounds": 8},
                        keep_log=False)
    assert result.reason == "max_rounds"
    for seat in seats:
        assert 300 - 40 < sum(seat.per_decision) <= 300
        assert seat.per_decision[-1] == 0  # the rest of the match is greedy play


def test_a_spent_budget_plays_greedys_choice() -> None:
    greedy = GreedyAgent()
    compared = 0
    for budget, match_budget in ((0, 10**9), (1, 10**9), (600, 0)):
        agent = SearchAgent(budget=budget, match_budget=match_budget)
        st = new_match(stalling_setup(), seed=6, options={"max_rounds": 2})
        while not st.is_terminal():
            legal = st.legal_actions()
            player = st.current_player()
            if len(legal) > 1 and player is not None:
                obs = st.observation(player)
                assert agent.act(obs, legal, random.Random(1)) == greedy.act(obs, legal, random.Random(1))
                compared += 1
            st.apply(legal[0])
        assert agent.simulated == 0
    assert compared > 10


def test_the_same_seed_gives_the_same_match_under_a_binding_budget() -> None:
    def log(agents: list[SearchAgent]) -> list[Any]:
        return play_match("legends", setup=stalling_setup(), agents=agents, seed=8, options={"max_rounds": 4},
                          keep_log=True).events or []

    first = [SearchAgent(budget=30, match_budget=200) for _ in range(4)]
    reference = log(first)
    assert log([SearchAgent(budget=30, match_budget=200) for _ in range(4)]) == reference
    assert log(first) == reference  # the same agents again: each seat's count starts anew
