"""How the softmax agent's temperature moves a study's figures, for the table in docs/simulate.md.

    .venv/bin/python bench/softmax_temperature.py [--temperatures 0 0.5 1 2 5] [--count 100]

Temperature 0 stands for greedy. For each temperature, Echo Realms (the starter set, no database):
- the faction matrix as the `matrix` kind plays it (every faction's strongest legal army, sides swapped every
  second match, match i with seed 1 + i): the share of its cells at 0% or 100%, of those within 5 points of
  them, the mean distinct games of a cell and the cells that were effectively one game;
- four random pairs of armies, `count` matches each: side a's win rates;
- the agent against greedy over 300 pairs of random armies, both seats: its score (a draw is half a win).
Akin Legends: four teams setups of the official deck, `count` matches each (team 0's win rates), and the agent
against greedy over 100 setups, both sides.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cardsdb.settings")

import django  # noqa: E402

django.setup()  # realms.studies (the strongest army of a faction) is read, never the database

from legends.engine import agents as legends_agents  # noqa: E402
from legends.engine.cards import load_fixture_catalogue, parse_catalogue  # noqa: E402
from legends.engine.start import normalize_setup  # noqa: E402
from realms.engine import agents as realms_agents  # noqa: E402
from realms.engine.cards import cards_from_fixture  # noqa: E402
from realms.engine.formation import random_army  # noqa: E402
from realms.studies import strongest_army  # noqa: E402
from simulate.engine.runner import play_match  # noqa: E402
from simulate.engine.tally import ONE_GAME_MATCHES_PER_GAME, ONE_GAME_MIN_MATCHES, fingerprint  # noqa: E402

Agent = Callable[[], Any]


def agent_at(module: Any, temperature: float) -> Agent:
    """A new agent per seat: greedy at temperature 0, else softmax at `temperature`."""
    if temperature == 0:
        return lambda: "greedy"
    return lambda: module.SoftmaxAgent(temperature)


def faction_armies(cards: Sequence[Any]) -> list[Any]:
    """Every faction's strongest legal army, factions by slug (as a matrix of `factions` chooses them)."""
    by_faction: dict[str, list[Any]] = {}
    for card in sorted(cards, key=lambda c: c.slug):
        by_faction.setdefault(card.faction, []).append(card)
    armies = (strongest_army(members) for _, members in sorted(by_faction.items()))
    return [army for army in armies if army is not None]


def realms_matrix(armies: list[Any], agent: Agent, count: int) -> str:
    """The faction matrix's cells: at 0% or 100%, within 5 points of them, games per cell, one-game cells."""
    rates, games, one_game = [], [], 0
    for i in range(len(armies)):
        for j in range(i + 1, len(armies)):
            wins, seen = 0, set()
            for k in range(count):
                swapped = k % 2 == 1
                a, b = (armies[j], armies[i]) if swapped else (armies[i], armies[j])
                r = play_match("realms", setup={"armies": {"a": a, "b": b}}, agents=[agent(), agent()], seed=1 + k,
                               keep_log=False)
                wins += r.winner == ("b" if swapped else "a")
                seen.add(fingerprint(swapped, r.winner, r.reason, r.rounds, r.actions, r.survivors))
            rates.append(wins / count)
            games.append(len(seen))
            one_game += count >= ONE_GAME_MIN_MATCHES and len(seen) * ONE_GAME_MATCHES_PER_GAME <= count
    extreme = sum(rate in (0.0, 1.0) for rate in rates) / len(rates)
    near = sum(rate <= 0.05 or rate >= 0.95 for rate in rates) / len(rates)
    return (f"matrix cells at 0%/100% {extreme:.0%}, within 5 points {near:.0%}, "
            f"games per cell {sum(games) / len(games):.0f}, one-game cells {one_game}/{len(rates)}")


def realms_pairs(cards: Sequence[Any], agent: Agent, count: int) -> str:
    """Side a's win rate in four random pairs of armies."""
    rng = random.Random(2026)
    pairs = [(random_army(cards, rng), random_army(cards, rng)) for _ in range(4)]
    rates = []
    for a, b in pairs:
        wins = sum(play_match("realms", setup={"armies": {"a": a, "b": b}}, agents=[agent(), agent()],
                              seed=1000 + i, keep_log=False).winner == "a" for i in range(count))
        rates.append(f"{wins / count:.0%}")
    return "random pairs " + " / ".join(rates)


def against_greedy(game: str, setups: Callable[[int], Any], seats: int, agent: Agent, matches: int) -> str:
    """The agent's score against greedy, each setup played with the agent on either side."""
    score = 0.0
    half = seats // 2
    for i in range(matches):
        for mine in (0, 1):
            agents = [agent() if k // half == mine else "greedy" for k in range(seats)]
            winner = play_match(game, setup=setups(i), agents=agents, seed=i, keep_log=False).winner
            ours = ("a", "b")[mine] if game == "realms" else str(mine)
            score += 1.0 if winner == ours else 0.5 if winner is None else 0.0
    return f"against greedy {score / (2 * matches):.1%}"


def legends_setup(catalogue: Any, seed: int) -> Any:
    """A teams setup of the official deck, its protectors and defenses drawn from `seed`."""
    teams = [{"spirit": ("akin", "yulin")[t],
              "players": [{"name": f"P{t}{k}", "counter": t + 1 + 2 * k} for k in range(2)]} for t in range(2)]
    return normalize_setup({"mode": "teams", "teams": teams, "catalogue": catalogue}, random.Random(seed))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--temperatures", type=float, nargs="+", default=[0.0, 0.5, 1.0, 2.0, 5.0])
    parser.add_argument("--count", type=int, default=100)
    args = parser.parse_args()
    cards = cards_from_fixture(json.loads((ROOT / "fixtures" / "realms_starter.json").read_text()))
    armies = faction_armies(cards)
    catalogue = parse_catalogue(load_fixture_catalogue(ROOT / "fixtures" / "legends_official.json"))
    for temperature in args.temperatures:
        realms = agent_at(realms_agents, temperature)
        parts = [realms_matrix(armies, realms, args.count), realms_pairs(cards, realms, args.count)]
        if temperature:
            pair_rng = random.Random(7)
            pairs = [{"armies": {"a": random_army(cards, pair_rng), "b": random_army(cards, pair_rng)}}
                     for _ in range(300)]
            parts.append(against_greedy("realms", pairs.__getitem__, 2, realms, 300))
        print(f"Echo Realms T={temperature:g}: " + "; ".join(parts), flush=True)
        legends = agent_at(legends_agents, temperature)
        rates = []
        for setup in (legends_setup(catalogue, seed) for seed in range(4)):
            wins = sum(play_match("legends", setup=setup, agents=[legends() for _ in range(4)], seed=500 + i,
                                  keep_log=False).winner == "0" for i in range(args.count))
            rates.append(f"{wins / args.count:.0%}")
        parts = ["fixed setups " + " / ".join(rates)]
        if temperature:
            parts.append(against_greedy("legends", lambda i: legends_setup(catalogue, 10_000 + i), 4, legends, 100))
        print(f"Akin Legends T={temperature:g}: " + "; ".join(parts), flush=True)


if __name__ == "__main__":
    main()
