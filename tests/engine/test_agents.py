"""Agents: what they see (G2), what they choose, and how strong they are."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest

from realms.engine.agents import GreedyAgent, SearchAgent
from realms.engine.formation import random_army
from realms.engine.game import new_match
from realms.engine.observation import RealmsObservation, UnitInfo
from simulate.engine.agents import RandomAgent
from simulate.engine.runner import play_match
from tests.engine.cardset import all_cards
from tests.engine.helpers import attack, battle, card, main

HEAL = main({"kind": "heal", "target": "target", "flat": 12}, choose="ally", name="Heal")


def test_agents_get_an_observation_of_immutable_snapshots_not_the_state() -> None:
    seen: list[object] = []

    class Spy:
        name = "spy"

        def act(self, observation, legal, rng):  # type: ignore[no-untyped-def]
            seen.append(observation)
            return legal[0]

    play_match("realms", setup={"armies": {"a": random_army(all_cards(), random.Random(1)),
                                           "b": random_army(all_cards(), random.Random(2))}},
               agents=[Spy(), Spy()], seed=1, keep_log=False)
    obs = seen[0]
    assert isinstance(obs, RealmsObservation) and not hasattr(obs, "__dict__")
    unit = obs.enemies()[0]
    assert isinstance(unit, UnitInfo)
    with pytest.raises(AttributeError):
        unit.hp = 0  # type: ignore[misc]


def test_snapshots_follow_the_battle() -> None:
    st = battle([card("x", atk=9, spd=9)], [card("t", df=0, hp=30, spd=1)])
    before = st.observation("a").unit("b1")
    attack(st, "b1")
    after = st.observation("a").unit("b1")
    assert (before.hp, after.hp) == (30, 21)


def test_random_agent_picks_every_legal_action_over_time() -> None:
    rng = random.Random(3)
    agent = RandomAgent()
    legal = [("attack", "b1"), ("attack", "b2"), ("ability", "b1")]
    assert {agent.act(None, legal, rng) for _ in range(60)} == set(legal)


def test_greedy_act_is_the_best_of_its_scores() -> None:
    cards = all_cards()
    rng = random.Random(4)
    greedy = GreedyAgent()
    checked = 0
    for seed in range(30):
        st = new_match({"armies": {"a": random_army(cards, rng), "b": random_army(cards, rng)}}, seed=seed)
        while not st.is_terminal():
            legal = st.legal_actions()
            obs = st.observation(st.current_player())
            choice = greedy.act(obs, legal, st.rng)
            if st.phase() == "act":
                scores = greedy.scores(obs, legal)
                best = max(v for v, _ in scores)
                assert next(a for v, a in scores if v == best) == choice
                checked += 1
            st.apply(choice)
    assert checked > 500


def test_greedy_finishes_off_a_unit_it_can_defeat() -> None:
    st = battle([card("x", cls="archer", atk=8, spd=9)],
                [card("big", atk=9, hp=30, df=0, spd=1), card("frail", cls="mage", atk=4, hp=5, df=0, spd=1)])
    legal = [a for a in st.legal_actions() if a[0] == "attack"]
    assert GreedyAgent().act(st.observation("a"), legal, st.rng) == ("attack", "b2")


def test_greedy_heals_a_badly_hurt_ally_and_attacks_otherwise() -> None:
    medic = card("medic", cls="support", atk=2, spd=5, main=HEAL)
    ally = card("ally", atk=8, df=0, hp=30, spd=1)
    st = battle([medic, ally], [card("brute", atk=22, spd=9), card("wall", cls="tank", df=30, spd=1)])
    attack(st, "a2")  # 30 -> 8
    assert GreedyAgent().act(st.observation("a"), st.legal_actions(), st.rng) == ("ability", "a2")
    calm = battle([medic, ally], [card("wall", cls="tank", df=0, hp=12, spd=1)])
    assert GreedyAgent().act(calm.observation("a"), calm.legal_actions(), calm.rng)[0] == "attack"


def test_greedy_beats_random_nearly_always() -> None:
    cards = all_cards()
    rng = random.Random(8)
    wins = 0
    for seed in range(20):
        army = random_army(cards, rng)
        agents = ["greedy", "random"] if seed % 2 else ["random", "greedy"]
        result = play_match("realms", setup={"armies": {"a": army, "b": army}}, agents=agents, seed=seed,
                            keep_log=False)
        wins += result.winner == ("a" if seed % 2 else "b")
    assert wins >= 18


def test_search_only_returns_legal_actions_and_is_reproducible() -> None:
    cards = all_cards()
    st = new_match({"armies": {"a": random_army(cards, random.Random(1)), "b": random_army(cards, random.Random(2))}},
                   seed=9)
    while st.phase() != "act":
        st.apply(st.legal_actions()[0])
    obs = st.observation(st.current_player())
    picks = {SearchAgent().act(obs, st.legal_actions(), random.Random(5)) for _ in range(2)}
    assert len(picks) == 1 and picks <= set(st.legal_actions())


@pytest.mark.slow
def test_search_wins_more_mirror_matches_than_greedy() -> None:
    cards = all_cards()
    rng = random.Random(2026)
    wins = losses = 0
    for i in range(5):
        army = random_army(cards, rng)
        for side, agents in (("a", ["search", "greedy"]), ("b", ["greedy", "search"])):
            result = play_match("realms", setup={"armies": {"a": army, "b": army}}, agents=agents, seed=i,
                                keep_log=False)
            wins += result.winner == side
            losses += result.winner not in (side, None)
    assert wins > losses


def _play_out(state: object, rng: random.Random) -> list[object]:
    """Play a match on with seeded random actions; what each step offered, and the end."""
    trace: list[object] = []
    while not state.is_terminal():  # type: ignore[attr-defined]
        legal = state.legal_actions()  # type: ignore[attr-defined]
        trace.append((state.phase(), state.round, legal))  # type: ignore[attr-defined]
        state.apply(legal[rng.randrange(len(legal))])  # type: ignore[attr-defined]
    outcome = state.outcome()  # type: ignore[attr-defined]
    trace.append((outcome.winner, outcome.reason, outcome.rounds, outcome.survivors))
    return trace


@pytest.mark.parametrize("pool", ["starter", "stress"])
def test_a_look_ahead_built_from_an_observation_plays_on_exactly_as_a_copy_of_the_match(pool: str) -> None:
    """Everything on an Echo Realms battlefield is public: a look-ahead match built from what a player sees
    (units, effects, readiness, faction limits, the order and whose turn it is) plays on as the match itself
    would under the same generator, decision for decision, to the same end."""
    from tests.engine.test_playouts import starter_cards, stress_cards

    cards = list(starter_cards() if pool == "starter" else stress_cards())
    rng = random.Random(17)
    compared = 0
    for seed in range(12):
        state = new_match({"armies": {"a": random_army(cards, rng), "b": random_army(cards, rng)}}, seed=seed,
                          options={"tie_break": ("random", "alternate")[seed % 2], "max_rounds": 12})
        step = 0
        while not state.is_terminal():
            if step % 3 == 1:
                player = state.current_player()
                look = state.observation(player).sandbox(seed * 100 + step)
                copy = state.clone(seed * 100 + step)
                assert look.current_player() == player and look.legal_actions() == state.legal_actions()
                assert _play_out(look, random.Random(step)) == _play_out(copy, random.Random(step))
                compared += 1
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
            step += 1
    assert compared > 60


def test_a_formation_look_ahead_lends_the_other_player_this_players_cards() -> None:
    from tests.engine.test_playouts import starter_cards

    cards = starter_cards()
    mine = [c for c in cards if c.faction in ("arcane", "shadow", "tribal", "undead")]
    theirs = [c for c in cards if c not in mine]
    state = new_match({"collections": {"a": mine, "b": theirs}}, seed=3, options={"first_player": "a"})
    state.apply(state.legal_actions()[0])  # a deploys
    state.apply(state.legal_actions()[-1])  # b deploys
    look = state.observation("a").sandbox(1)
    assert look.current_player() == "a" and look.legal_actions() == state.legal_actions()
    deployed_b = [c.slug for c, _ in state.deployed["b"]]
    assert [c.slug for c in look.collections["b"]][:1] == deployed_b  # what b showed, then a's own cards
    assert {c.slug for c in look.collections["b"][1:]} == {c.slug for c in mine} - set(deployed_b)
    while not look.is_terminal():
        look.apply(look.legal_actions()[0])
    assert look.outcome().reason in ("elimination", "mutual_elimination", "max_rounds")


# ---------------------------------------------------------------- the search agent's budget

WALL = card("wall", cls="tank", atk=4, df=9, hp=34, spd=3, main=main(
    {"kind": "shield", "target": "ally_vanguard", "flat": 4, "duration": 2}, choose="none", name="Raise Shields"))
MEDIC = card("medic", cls="support", atk=3, df=4, hp=18, spd=6, cooldown=1, main=HEAL)


def _stalling_armies() -> dict[str, object]:
    """Walls and medics on both sides: blows of 1 damage that heals undo, so matches run to their round cap."""
    army = [(WALL, "vanguard"), (WALL, "vanguard"), (MEDIC, "rearguard"), (MEDIC, "rearguard")]
    return {"armies": {"a": army, "b": army}}


class CountedSearch:
    """A search agent whose look-ahead is counted from outside: its observation builds every sandbox through a
    hook that keeps it, and after each decision the decisions applied to those sandboxes (each state's own step
    count) are summed. The agent plays exactly as it would uncounted."""

    name = "search"

    def __init__(self, agent: SearchAgent) -> None:
        self.agent = agent
        self.per_decision: list[int] = []
        self.reported: list[int] = []  # what the agent says it simulated, decision by decision

    def act(self, observation: RealmsObservation, legal: Sequence[object], rng: random.Random) -> object:
        built: list[Any] = []
        build = observation.lookahead

        def counting(obs: RealmsObservation, seed: int) -> Any:
            world = build(obs, seed)
            built.append((world, world.steps))
            return world

        before = self.agent.simulated
        choice = self.agent.act(observation.replaced(lookahead=counting), legal, rng)
        self.per_decision.append(sum(world.steps - start for world, start in built))
        self.reported.append(self.agent.simulated - before)
        return choice


@pytest.mark.parametrize("budget", [7, 40, 150])
def test_search_never_simulates_more_decisions_than_its_budget_for_one_decision(budget: int) -> None:
    seats = [CountedSearch(SearchAgent(budget=budget, match_budget=10**9)) for _ in range(2)]
    result = play_match("realms", setup=_stalling_armies(), agents=seats, seed=3, options={"max_rounds": 6},
                        keep_log=False)
    assert result.reason == "max_rounds"
    counts = [n for seat in seats for n in seat.per_decision]
    assert len(counts) > 30
    assert max(counts) <= budget
    assert max(counts) > budget // 2  # the budget is what bounds these playouts, not their horizon
    assert [seat.reported for seat in seats] == [seat.per_decision for seat in seats]  # its own count is true


def test_the_default_search_budget_bounds_every_decision() -> None:
    from realms.engine.agents import DECISION_BUDGET

    seat = CountedSearch(SearchAgent())
    cards = all_cards()
    rng = random.Random(12)
    for seed in range(3):
        play_match("realms", setup={"armies": {"a": random_army(cards, rng), "b": random_army(cards, rng)}},
                   agents=[seat, "greedy"], seed=seed, keep_log=False)
    assert 0 < max(seat.per_decision) <= DECISION_BUDGET


def test_search_never_simulates_more_decisions_than_its_budget_for_a_match() -> None:
    seats = [CountedSearch(SearchAgent(budget=60, match_budget=700)) for _ in range(2)]
    result = play_match("realms", setup=_stalling_armies(), agents=seats, seed=4, options={"max_rounds": 12},
                        keep_log=False)
    assert result.reason == "max_rounds"
    for seat in seats:
        assert sum(seat.per_decision) <= 700
        assert sum(seat.per_decision) > 700 - 60  # spent to what cannot try every candidate
        assert seat.per_decision[-1] == 0  # the rest of the match is greedy play
        assert seat.reported == seat.per_decision


def test_a_spent_budget_plays_greedys_choice() -> None:
    greedy = GreedyAgent()
    searched = 0
    for budget, match_budget in ((0, 10**9), (1, 10**9), (600, 0)):
        agent = SearchAgent(budget=budget, match_budget=match_budget)
        st = new_match(_stalling_armies(), seed=5, options={"max_rounds": 4})
        while not st.is_terminal():
            legal = st.legal_actions()
            if len(legal) > 1:
                obs = st.observation(st.current_player())
                assert agent.act(obs, legal, random.Random(1)) == greedy.act(obs, legal, random.Random(1))
                searched += 1
            st.apply(legal[0])
        assert agent.simulated == 0
    assert searched > 30


def test_the_same_seed_gives_the_same_match_under_a_binding_budget() -> None:
    def logs(agents: list[SearchAgent]) -> list[dict[str, Any]]:
        return play_match("realms", setup=_stalling_armies(), agents=agents, seed=8, options={"max_rounds": 10},
                          keep_log=True).events or []

    first = [SearchAgent(budget=45, match_budget=900) for _ in range(2)]
    reference = logs(first)
    assert logs([SearchAgent(budget=45, match_budget=900) for _ in range(2)]) == reference
    # The same agent objects again: each seat's count starts anew with the match's generator.
    assert logs(first) == reference
    assert all(a.simulated > 900 for a in first)  # both matches were counted, each up to its own budget


def test_a_budget_is_a_whole_number_of_decisions() -> None:
    with pytest.raises(ValueError, match="whole number of decisions"):
        SearchAgent(budget=-1)
    with pytest.raises(ValueError, match="whole number of decisions"):
        SearchAgent(match_budget=-1)
    # A fraction is refused too: by the compiled engine's argument check, or by the budget in plain Python.
    with pytest.raises((TypeError, ValueError)):
        SearchAgent(budget=1.5)  # type: ignore[arg-type]
