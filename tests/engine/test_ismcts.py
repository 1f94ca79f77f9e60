"""The ISMCTS agents: stronger than greedy in both games, reproducible from a match's seed, bounded by their
budget, able to find a winning action, and branching only on legal actions."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from legends.engine.cards import load_fixture_catalogue, parse_catalogue
from legends.engine.ismcts_agent import IsmctsAgent as LegendsIsmcts
from realms.engine.cards import cards_from_fixture
from realms.engine.formation import random_army
from realms.engine.ismcts_agent import IsmctsAgent as RealmsIsmcts
from simulate.engine.budget import LookaheadBudget
from simulate.engine.ismcts import IsmctsSettings, search
from simulate.engine.runner import play_match
from simulate.engine.stats import wilson

ROOT = Path(__file__).resolve().parents[2]
STARTER = cards_from_fixture(json.loads((ROOT / "fixtures" / "realms_starter.json").read_text()))
# Matches of ISMCTS against greedy, sides swapped every second match: the setups and seeds of the rates measured in
# docs/simulate.md (Echo Realms 12 won of 13 decisive, Akin Legends 25 of 33).
REALMS_MATCHES = 16
LEGENDS_MATCHES = 40


def mirror_armies(index: int) -> dict[str, Any]:
    """A random legal army of the starter set on both sides: only the play tells the sides apart."""
    army = random_army(STARTER, random.Random(1000 + index))
    return {"armies": {"a": army, "b": list(army)}}


def legends_duel() -> dict[str, Any]:
    """A duel with the official deck."""
    catalogue = parse_catalogue(load_fixture_catalogue(ROOT / "fixtures" / "legends_official.json"))
    return {"mode": "duel", "catalogue": catalogue, "teams": [
        {"spirit": "akin", "players": [{"name": "Ann", "counter": 1}]},
        {"spirit": "yulin", "players": [{"name": "Cat", "counter": 2}]}]}


def decisive_record(game: str, setups: Sequence[Any], matches: int) -> tuple[int, int]:
    """ISMCTS's wins and the decisive matches of `matches` against greedy, the sides swapped every second match
    (the same setup and seed for both halves of a pair)."""
    wins = decisive = 0
    for i in range(matches):
        seats = ["ismcts", "greedy"] if i % 2 == 0 else ["greedy", "ismcts"]
        result = play_match(game, setup=setups[(i // 2) % len(setups)], agents=seats, seed=i // 2, keep_log=False)
        if result.winner is None:
            continue
        decisive += 1
        first_seat_won = str(result.winner) in ("a", "0")
        wins += first_seat_won == (i % 2 == 0)
    return wins, decisive


@pytest.mark.strength
@pytest.mark.parametrize("game", ["realms", "legends"])
def test_ismcts_beats_greedy(game: str) -> None:
    if game == "realms":
        wins, decisive = decisive_record(game, [mirror_armies(i) for i in range(REALMS_MATCHES // 2)], REALMS_MATCHES)
    else:
        wins, decisive = decisive_record(game, [legends_duel()], LEGENDS_MATCHES)
    low, _ = wilson(wins, decisive)
    assert low > 0.5, (wins, decisive)


def test_the_same_seed_plays_the_same_match() -> None:
    for game, setup, agent in (("realms", mirror_armies(0), RealmsIsmcts), ("legends", legends_duel(), LegendsIsmcts)):
        logs = [play_match(game, setup=setup, agents=[agent(iterations=8), "greedy"], seed=5).events for _ in range(2)]
        assert logs[0] == logs[1]


class Metered:
    """An agent passing every decision to `inner`, noting the decisions it simulated for each one."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name = inner.name
        self.per_decision: list[int] = []

    def act(self, observation: Any, legal_actions: Sequence[Any], rng: random.Random) -> Any:
        before = self.inner.simulated
        action = self.inner.act(observation, legal_actions, rng)
        self.per_decision.append(self.inner.simulated - before)
        return action


@pytest.mark.parametrize("game", ["realms", "legends"])
def test_the_budget_bounds_each_decision_and_the_match(game: str) -> None:
    inner = RealmsIsmcts(iterations=6) if game == "realms" else LegendsIsmcts(iterations=6)
    inner.player.budget = LookaheadBudget(per_decision=100, per_match=700)
    metered = Metered(inner)
    setup = mirror_armies(1) if game == "realms" else legends_duel()
    play_match(game, setup=setup, agents=[metered, "greedy"], seed=3, keep_log=False)
    assert max(metered.per_decision) <= 100
    assert 0 < sum(metered.per_decision) <= 700
    assert metered.per_decision[-1] == 0  # the match budget spent: greedy's choice, nothing simulated


class OneWinningMove:
    """A hand-made position: the searcher's three actions, of which only the last (`win`) wins at once; after
    either other one the opponent wins."""

    def __init__(self) -> None:
        self.moves: list[str] = []
        self.rng = random.Random(0)

    def sandbox(self, seed: int) -> OneWinningMove:
        return OneWinningMove()

    def current_player(self) -> str | None:
        return None if self.is_terminal() else ("me" if not self.moves else "them")

    def legal_actions(self) -> list[str]:
        return ["wait", "pass", "win"] if not self.moves else ["finish"]

    def apply(self, action: str) -> None:
        assert action in self.legal_actions()
        self.moves.append(action)

    def is_terminal(self) -> bool:
        return self.moves[-1:] == ["win"] or len(self.moves) == 2

    def winner(self) -> str:
        return "me" if self.moves[-1:] == ["win"] else "them"


class FirstLegalHooks:
    """Hooks branching on every legal action in the order given (the winning one last), playing the first."""

    def decider(self, state: Any) -> str | None:
        player: str | None = state.current_player()
        return player

    def forced(self, state: Any) -> Any:
        return state.legal_actions()[0]

    def branches(self, state: Any, player: str) -> list[Any]:
        actions: list[Any] = state.legal_actions()
        return actions

    def playout_action(self, state: Any, player: str) -> Any:
        return state.legal_actions()[0]

    def reward(self, state: Any, player: str) -> float:
        return 1.0 if state.is_terminal() and state.winner() == player else 0.0

    def side_of(self, state: Any, player: str) -> str:
        return player

    def progress(self, state: Any) -> int:
        return len(state.moves)


def test_the_search_finds_the_one_winning_action() -> None:
    budget = LookaheadBudget(per_decision=100, per_match=1000)
    choice = search(OneWinningMove(), FirstLegalHooks(), IsmctsSettings(30, 5, 5), budget, random.Random(1))
    assert choice == "win"
    assert 0 < budget.simulated <= 100


def test_too_small_a_budget_searches_nothing() -> None:
    budget = LookaheadBudget(per_decision=4, per_match=1000)
    assert search(OneWinningMove(), FirstLegalHooks(), IsmctsSettings(30, 5, 5), budget, random.Random(1)) is None
    assert budget.simulated == 0


class LegalityChecked:
    """Hooks passing every call to `inner`, checking each branch is a legal action of its state."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.checked = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def branches(self, state: Any, player: str) -> list[Any]:
        actions: list[Any] = self.inner.branches(state, player)
        legal = state.legal_actions()
        assert actions and all(action in legal for action in actions), (actions, legal)
        self.checked += 1
        return actions


@pytest.mark.parametrize("game", ["realms", "legends"])
def test_the_tree_branches_only_on_legal_actions(game: str) -> None:
    if game == "realms":  # the Formation Round's deployments are searched too
        agents: list[Any] = [RealmsIsmcts(iterations=6) for _ in range(2)]
        setup: dict[str, Any] = {"collections": {"a": STARTER, "b": STARTER}}
        options = {"max_rounds": 3}
    else:
        agents = [LegendsIsmcts(iterations=6) for _ in range(2)]
        setup, options = legends_duel(), {"max_rounds": 3}
    for agent in agents:
        agent.player.hooks = LegalityChecked(agent.player.hooks)
    play_match(game, setup=setup, agents=agents, seed=2, options=options, keep_log=False)
    assert all(agent.player.hooks.checked > 50 for agent in agents)
