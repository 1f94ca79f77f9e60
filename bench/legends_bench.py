"""Akin Legends benchmark: prints figures, asserts nothing.

1. Speed: greedy matches per second on one core, with the event log on and off, in teams mode
   and in the duel (the official catalogue parsed once, as a batch does; and once parsed at
   every match, as a single request does).
2. Strength: the search agent against greedy in mirror matches: for every seed, the search
   team plays team 0 against the greedy team, then team 1 (seats swapped). Win rate = search
   wins / matches (draws count as not won); the median over `--runs` runs of `--seeds` seeds.

Usage (from the repository root):
    .venv/bin/python bench/legends_bench.py [--matches 300] [--seeds 100] [--runs 3] [--jobs 2]
                                            [--mode teams|duel|both] [--skip-speed] [--skip-search]
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from legends.engine.agents import SearchAgent  # noqa: E402
from legends.engine.cards import load_fixture_catalogue, parse_catalogue  # noqa: E402
from legends.engine.game import play_legends_match, winner_team  # noqa: E402

FIXTURE = ROOT / "fixtures" / "legends_official.json"
RAW = load_fixture_catalogue(FIXTURE)
CATALOGUE = parse_catalogue(RAW)


def setup(mode: str, catalogue: Any = CATALOGUE) -> dict[str, Any]:
    """A setup of the official set; protectors and defenses drawn from the seed (L6)."""
    if mode == "teams":
        teams = [
            {"spirit": "akin", "players": [{"name": "Ann", "counter": 1}, {"name": "Ben", "counter": 3}]},
            {"spirit": "yulin", "players": [{"name": "Cat", "counter": 2}, {"name": "Dan", "counter": 4}]},
        ]
    else:
        teams = [
            {"spirit": "akin", "players": [{"name": "Ann", "counter": 1}]},
            {"spirit": "yulin", "players": [{"name": "Cat", "counter": 2}]},
        ]
    return {"mode": mode, "teams": teams, "catalogue": catalogue}


def seats(mode: str) -> int:
    return 4 if mode == "teams" else 2


def speed(mode: str, matches: int, keep_log: bool, catalogue: Any = CATALOGUE) -> tuple[float, float, Counter]:
    """Greedy matches per second (one process), mean rounds, and the outcomes."""
    s = setup(mode, catalogue)
    agents = ["greedy"] * seats(mode)
    outcomes: Counter = Counter()
    rounds = 0
    start = time.perf_counter()
    for seed in range(matches):
        result = play_legends_match(setup=s, agents=agents, seed=seed, keep_log=keep_log)
        rounds += result.rounds
        outcomes[result.reason] += 1
    elapsed = time.perf_counter() - start
    return matches / elapsed, rounds / matches, outcomes


def mirror(args: tuple[str, int, int]) -> str:
    """One mirror match: the search team on `side`, greedy on the other; 'win', 'draw' or 'loss'."""
    mode, seed, side = args
    per = seats(mode) // 2
    agents: list[Any] = []
    for team in (0, 1):
        agents += [SearchAgent() if team == side else "greedy" for _ in range(per)]
    result = play_legends_match(setup=setup(mode), agents=agents, seed=seed, keep_log=False)
    won = winner_team(result)
    return "draw" if won is None else "win" if won == side else "loss"


def strength(mode: str, seeds: int, runs: int, jobs: int) -> None:
    """Search against greedy: per run and the median win rate."""
    rates = []
    per_match = []
    totals: Counter = Counter()
    for run in range(runs):
        tasks = [(mode, 10_000 * (run + 1) + seed, side) for seed in range(seeds) for side in (0, 1)]
        start = time.perf_counter()
        if jobs > 1:
            with multiprocessing.Pool(jobs) as pool:
                results = pool.map(mirror, tasks, chunksize=2)
        else:
            results = [mirror(t) for t in tasks]
        elapsed = time.perf_counter() - start
        counts = Counter(results)
        totals.update(counts)
        rate = counts["win"] / len(tasks)
        rates.append(rate)
        per_match.append(elapsed * jobs / len(tasks))
        decisive = counts["win"] / max(1, counts["win"] + counts["loss"])
        print(f"  run {run + 1}: {len(tasks)} matches, search wins {counts['win']}, draws {counts['draw']}, "
              f"loses {counts['loss']}: win rate {rate:.1%} (of decided matches {decisive:.1%}); "
              f"{elapsed * jobs / len(tasks):.2f} s a match a core", flush=True)
    print(f"  {mode}: search vs greedy win rate, median of {runs} runs: {statistics.median(rates):.1%} "
          f"(runs {', '.join(f'{r:.1%}' for r in rates)}; all {sum(totals.values())} matches: "
          f"{totals['win']} wins, {totals['draw']} draws, {totals['loss']} losses); "
          f"{statistics.median(per_match):.2f} s a match a core", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=300, help="greedy matches per speed figure")
    parser.add_argument("--seeds", type=int, default=100, help="seeds per strength run (two matches each)")
    parser.add_argument("--runs", type=int, default=3, help="strength runs (the median is reported)")
    parser.add_argument("--jobs", type=int, default=min(2, multiprocessing.cpu_count()),
                        help="processes for the strength runs (speed always uses one)")
    parser.add_argument("--mode", choices=("teams", "duel", "both"), default="both")
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--skip-search", action="store_true")
    args = parser.parse_args()
    modes = ("teams", "duel") if args.mode == "both" else (args.mode,)
    print(f"Akin Legends benchmark (Python {sys.version.split()[0]}; official set, 72 cards)")
    if not args.skip_speed:
        print("Speed: greedy for every player, one core")
        for mode in modes:
            for keep_log in (True, False):
                rate, rounds, outcomes = speed(mode, args.matches, keep_log)
                print(f"  {mode:5} log {'on ' if keep_log else 'off'}: {rate:7.1f} matches/s "
                      f"({args.matches} matches, {rounds:.1f} rounds on average; {dict(sorted(outcomes.items()))})",
                      flush=True)
            rate, _, _ = speed(mode, args.matches, False, RAW)
            print(f"  {mode:5} log off, catalogue parsed at every match: {rate:7.1f} matches/s", flush=True)
    if not args.skip_search:
        print(f"Strength: search (its defaults) against greedy, mirror matches, seats swapped, {args.jobs} process(es)")
        for mode in modes:
            strength(mode, args.seeds, args.runs, args.jobs)


if __name__ == "__main__":
    main()
