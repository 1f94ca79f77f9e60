"""What one decision of the ISMCTS agents costs: CPU time per decision at each budget (`ismcts`, `ismcts-strong`),
in both games, as a ratio to greedy's CPU time per decision measured in the same run, and the decisions each
simulated per decision.

Prints figures, asserts nothing. The decisions are taken from greedy-against-greedy matches (Echo Realms:
random legal armies of the starter set, the same on both sides; Akin Legends: duels of the official deck), then
each agent decides every one of them again, the agents interleaved decision by decision so that a change in
the machine's load moves all of them alike. CPU time is this process's (`time.process_time`); greedy decides
each decision `--greedy-repeats` times (one decision is too quick to time alone); each figure is the median
over the decisions.

    .venv/bin/python bench/ismcts_cost.py [--matches 3] [--decisions 40] [--only realms|legends]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from realms.engine.cards import cards_from_fixture  # noqa: E402
from realms.engine.formation import random_army  # noqa: E402
from simulate.engine.agents import get_agent  # noqa: E402
from simulate.engine.runner import play_match  # noqa: E402

STARTER = ROOT / "fixtures" / "realms_starter.json"
LEGENDS = ROOT / "fixtures" / "legends_official.json"
BUDGETS = ("ismcts", "ismcts-strong")


class Recorder:
    """Greedy play that keeps every decision it is asked: the observation, the legal actions, a seed."""

    def __init__(self, game: str, decisions: list[tuple[Any, list[Any], int]]) -> None:
        self.inner = get_agent("greedy", game)
        self.name = "greedy"
        self.decisions = decisions

    def act(self, observation: Any, legal_actions: Sequence[Any], rng: random.Random) -> Any:
        self.decisions.append((observation, list(legal_actions), rng.getrandbits(62)))
        return self.inner.act(observation, legal_actions, rng)


def setups(game: str, matches: int) -> list[Any]:
    """The matches' setups."""
    if game == "realms":
        pool = cards_from_fixture(json.loads(STARTER.read_text()))
        armies = [random_army(pool, random.Random(1000 + i)) for i in range(matches)]
        return [{"armies": {"a": army, "b": list(army)}} for army in armies]
    from legends.engine.cards import load_fixture_catalogue, parse_catalogue

    catalogue = parse_catalogue(load_fixture_catalogue(LEGENDS))
    duel = {"mode": "duel", "catalogue": catalogue, "teams": [
        {"spirit": "akin", "players": [{"name": "Ann", "counter": 1}]},
        {"spirit": "yulin", "players": [{"name": "Cat", "counter": 2}]}]}
    return [duel] * matches


def decisions_of(game: str, matches: int, most: int) -> list[tuple[Any, list[Any], int]]:
    """At most `most` of the decisions with more than one legal action of `matches` greedy matches, evenly spread
    over them."""
    found: list[tuple[Any, list[Any], int]] = []
    for seed, setup in enumerate(setups(game, matches)):
        play_match(game, setup=setup, agents=[Recorder(game, found), Recorder(game, found)], seed=seed,
                   keep_log=False)
    choices = [d for d in found if len(d[1]) > 1]
    step = max(1, len(choices) // most)
    return choices[::step][:most]


def timed(agent: Any, decision: tuple[Any, list[Any], int], repeats: int) -> float:
    """CPU seconds of one decision (the mean of `repeats`)."""
    observation, legal, seed = decision
    start = time.process_time()
    for _ in range(repeats):
        agent.act(observation, legal, random.Random(seed))
    return (time.process_time() - start) / repeats


def measure(game: str, matches: int, most: int, greedy_repeats: int) -> None:
    """The figures of one game."""
    decisions = decisions_of(game, matches, most)
    greedy = get_agent("greedy", game)
    times: dict[str, list[float]] = {name: [] for name in ("greedy", *BUDGETS)}
    simulated: dict[str, list[int]] = {name: [] for name in BUDGETS}
    for decision in decisions:
        times["greedy"].append(timed(greedy, decision, greedy_repeats))
        for name in BUDGETS:
            agent: Any = get_agent(name, game)  # a fresh agent: every decision has its whole budget
            times[name].append(timed(agent, decision, 1))
            simulated[name].append(agent.simulated)
    base = statistics.median(times["greedy"])
    print(f"{game}: {len(decisions)} decisions of {matches} greedy match(es); greedy median "
          f"{1e6 * base:.0f} us a decision", flush=True)
    for name in BUDGETS:
        cost = statistics.median(times[name])
        print(f"  {name}: median {1e3 * cost:.1f} ms a decision, {cost / base:,.0f} x greedy; simulated decisions "
              f"a decision median {statistics.median(simulated[name]):,.0f}, highest {max(simulated[name]):,}",
              flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--matches", type=int, default=3, help="greedy matches whose decisions are measured")
    parser.add_argument("--decisions", type=int, default=40, help="decisions measured at most, evenly spread")
    parser.add_argument("--greedy-repeats", type=int, default=20, help="times greedy decides each decision")
    parser.add_argument("--only", choices=["realms", "legends"], help="one game only")
    args = parser.parse_args()
    get_agent("greedy", "realms")  # imports the game's agents
    compiled = str(getattr(sys.modules["realms.engine.agents"], "__file__", "")).endswith(".so")
    print(f"Python {sys.version.split()[0]}, engines {'compiled (mypyc)' if compiled else 'plain Python'}")
    for game in ("realms", "legends"):
        if args.only in (None, game):
            measure(game, args.matches, args.decisions, args.greedy_repeats)


if __name__ == "__main__":
    main()
