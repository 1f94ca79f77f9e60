"""The softmax agent of each game: greedy's values, its choices drawn from its seat's generator, so that one
seed replays one match (G1) and another seed plays another; greedy itself plays as it always did."""

from __future__ import annotations

import hashlib
import json
import math
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from scipy.stats import binomtest

from legends.engine.cards import load_fixture_catalogue, parse_catalogue
from realms.engine import selectors
from realms.engine.cards import CharacterCard, cards_from_fixture
from realms.engine.formation import legal_deployments
from simulate.engine.agents import agent_names, softmax_choice
from simulate.engine.runner import play_match

ROOT = Path(__file__).resolve().parents[2]
REALMS_CARDS = cards_from_fixture(json.loads((ROOT / "fixtures" / "realms_starter.json").read_text()))
LEGENDS_CATALOGUE = parse_catalogue(load_fixture_catalogue(ROOT / "fixtures" / "legends_official.json"))
# Greedy's logs over the matches of `greedy_logs`, as they were before the softmax agent was added.
GREEDY_DIGEST = "8e4f2f5466932bdca37f0cc51660845ab5d209d0acec4ff74fdee50f6a030e10"
# Fixed armies, no random tie-break, side a first: greedy plays every seed alike (checked below).
FIXED_OPTIONS = {"tie_break": "alternate", "first_player": "a"}


def picks_at_random(card: CharacterCard) -> bool:
    """Whether one of the card's abilities aims at a unit picked at random (drawn from the match's generator)."""
    effects = [*card.main.effects, *card.faction_ability.effects]
    return any(selectors.BY_NAME[e.target].random for e in effects if e.target in selectors.BY_NAME)


def stepped_army(step: int, cards: Sequence[CharacterCard] = REALMS_CARDS) -> list[tuple[CharacterCard, str]]:
    """A legal army of `cards` chosen without a generator: at each slot, a legal deployment picked by `step`."""
    by_slug = {c.slug: c for c in cards}
    army: list[tuple[CharacterCard, str]] = []
    while len(army) < 7:
        options = legal_deployments(army, cards)
        _, slug, line = options[(step * (len(army) + 3)) % len(options)]
        army.append((by_slug[slug], line))
    return army


def legends_teams() -> dict[str, Any]:
    """A teams setup of the official deck, its protectors and defenses drawn from the match seed."""
    teams = [{"spirit": ("akin", "yulin")[t],
              "players": [{"name": f"P{t}{k}", "counter": t + 1 + 2 * k} for k in range(2)]} for t in range(2)]
    return {"mode": "teams", "teams": teams, "catalogue": LEGENDS_CATALOGUE}


def realms_log(agent: str, seed: int) -> str:
    result = play_match("realms", setup={"armies": {"a": stepped_army(2), "b": stepped_army(6)}},
                        agents=[agent, agent], seed=seed)
    return json.dumps(result.events, sort_keys=True)


def realms_play(agent: str, seed: int) -> str:
    """What happened in a match of fixed armies that pick no unit at random: its log but the events that name its
    seeds."""
    cards = [card for card in REALMS_CARDS if not picks_at_random(card)]
    result = play_match("realms", setup={"armies": {"a": stepped_army(2, cards), "b": stepped_army(6, cards)}},
                        agents=[agent, agent], seed=seed, options=FIXED_OPTIONS)
    return json.dumps([e for e in result.events or [] if e["type"] not in ("match_start", "seeds")], sort_keys=True)


def legends_log(agent: str, seed: int) -> str:
    result = play_match("legends", setup=legends_teams(), agents=[agent] * 4, seed=seed)
    return json.dumps(result.events, sort_keys=True)


def test_softmax_is_an_agent_of_both_games() -> None:
    assert "softmax" in agent_names("realms")
    assert "softmax" in agent_names("legends")


def test_the_same_seed_replays_the_same_softmax_match() -> None:
    assert realms_log("softmax", 11) == realms_log("softmax", 11)
    assert legends_log("softmax", 11) == legends_log("softmax", 11)


def test_softmax_matches_differ_across_seeds_where_greedy_plays_one_game() -> None:
    greedy = {realms_play("greedy", seed) for seed in range(6)}
    softmax = {realms_play("softmax", seed) for seed in range(6)}
    assert len(greedy) == 1  # nothing in these matches depends on the seed but the agents' own draws
    assert len(softmax) == 6


def test_softmax_akin_legends_matches_differ_across_seeds() -> None:
    assert len({legends_log("softmax", seed) for seed in range(6)}) == 6


def test_a_formation_round_of_softmax_agents_deploys_differently_by_seed() -> None:
    armies = set()
    for seed in range(5):
        result = play_match("realms", setup={"collections": {"a": REALMS_CARDS, "b": REALMS_CARDS}},
                            agents=["softmax", "softmax"], seed=seed)
        deployed = [event for event in result.events or [] if event["type"] == "deploy"]
        armies.add(json.dumps(deployed, sort_keys=True))
    assert len(armies) == 5


def test_greedy_plays_as_it_did_before_the_softmax_agent() -> None:
    digest = hashlib.sha256()
    for seed in range(4):
        for setup in ({"armies": {"a": stepped_army(seed + 1), "b": stepped_army(seed + 5)}},
                      {"collections": {"a": REALMS_CARDS, "b": REALMS_CARDS}}):
            result = play_match("realms", setup=setup, agents=["greedy", "greedy"], seed=seed)
            digest.update(json.dumps(result.events, sort_keys=True).encode())
    for seed in range(4):
        result = play_match("legends", setup=legends_teams(), agents=["greedy"] * 4, seed=seed)
        digest.update(json.dumps(result.events, sort_keys=True).encode())
    assert digest.hexdigest() == GREEDY_DIGEST


def test_a_softmax_choice_is_drawn_in_proportion_to_exp_value_over_temperature() -> None:
    temperature = 0.5
    scored = [(0.0, "low"), (temperature * math.log(3.0), "high")]  # weights 1 and 3: "high" three times in four
    rng = random.Random(21)
    draws = 4000
    high = sum(softmax_choice(scored, temperature, rng) == "high" for _ in range(draws))
    assert binomtest(high, draws, 0.75).pvalue > 0.001
    assert binomtest(high, draws, 0.5).pvalue < 1e-6  # not a coin


def test_a_softmax_choice_never_draws_an_action_that_is_far_worse() -> None:
    rng = random.Random(2)
    scored = [(0.0, "far worse"), (1000.0, "best"), (999.9, "close")]
    drawn = {softmax_choice(scored, 1.0, rng) for _ in range(200)}
    assert drawn == {"best", "close"}
