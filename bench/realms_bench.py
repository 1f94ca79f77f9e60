"""Echo Realms engine benchmark: greedy-vs-greedy matches per second on one core (with and without
the event log), where the time goes, and the search agent's win rate over mirror matches.

    .venv/bin/python bench/realms_bench.py [--matches 500] [--repeats 5] [--mirror 100] [--no-profile]

Armies are random legal armies (3 Common, 2 Uncommon, 1 Rare, 1 Legendary, printed lines, at most
5 per line) drawn from the official starter set (fixtures/realms_starter.json), or from the test
card set when that fixture is missing. Everything runs in this one process.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from realms.engine.cards import CharacterCard, cards_from_fixture  # noqa: E402
from realms.engine.formation import random_army  # noqa: E402
from simulate.engine import events as event_log  # noqa: E402
from simulate.engine.runner import play_match  # noqa: E402

STARTER = ROOT / "fixtures" / "realms_starter.json"


def load_cards() -> tuple[list[CharacterCard], str]:
    """The starter set, or the test set when the fixture is not there."""
    if STARTER.exists():
        return cards_from_fixture(json.loads(STARTER.read_text())), f"starter set ({STARTER.name})"
    from tests.engine.cardset import all_cards

    return all_cards(), "test card set (fixtures/realms_starter.json missing)"


def make_setups(cards: list[CharacterCard], count: int, seed: int) -> list[dict]:
    """`count` pairs of random legal armies."""
    rng = random.Random(seed)
    return [{"armies": {"a": random_army(cards, rng), "b": random_army(cards, rng)}} for _ in range(count)]


def run_batch(setups: list[dict], keep_log: bool) -> tuple[float, float, dict]:
    """Play every setup greedy vs greedy; wall seconds, CPU seconds of this process, and totals."""
    totals = {"rounds": 0, "actions": 0, "bytes": 0, "zbytes": 0, "events": 0, "draws": 0}
    logs: list[list[dict]] = []
    cpu = time.process_time()
    start = time.perf_counter()
    for i, setup in enumerate(setups):
        result = play_match("realms", setup=setup, agents=["greedy", "greedy"], seed=i, keep_log=keep_log)
        totals["rounds"] += result.rounds
        totals["actions"] += result.actions
        totals["draws"] += result.winner is None
        if keep_log:
            assert result.events is not None  # kept
            totals["events"] += len(result.events)
            logs.append(result.events)
    seconds = time.perf_counter() - start
    cpu = time.process_time() - cpu
    for events in logs:  # sizes are measured outside the timed loop
        totals["bytes"] += len(event_log.dumps(events).encode())
        totals["zbytes"] += len(event_log.compress(events))
    return seconds, cpu, totals


def throughput(setups: list[dict], repeats: int) -> None:
    """Median matches per second over several runs, without and with the log.

    The runs of both modes alternate, so that a change in the machine's load affects both alike; the
    rate by CPU time of this process is shown too, as it varies less when other processes run.
    """
    run_batch(setups[:50], keep_log=False)  # warm-up
    n = len(setups)
    rates: dict[bool, list[float]] = {False: [], True: []}
    cpu_rates: dict[bool, list[float]] = {False: [], True: []}
    all_totals: dict[bool, dict] = {}
    for _ in range(repeats):
        for keep_log in (False, True):
            seconds, cpu, all_totals[keep_log] = run_batch(setups, keep_log)
            rates[keep_log].append(n / seconds)
            cpu_rates[keep_log].append(n / cpu if cpu > 0 else float("inf"))
    for keep_log in (False, True):
        totals = all_totals[keep_log]
        wall, by_cpu = rates[keep_log], cpu_rates[keep_log]
        label = "with log   " if keep_log else "without log"
        line = (
            f"  {label}: {statistics.median(wall):7.0f} matches/s (median of {repeats}; "
            f"min {min(wall):.0f}, max {max(wall):.0f}; by CPU time {statistics.median(by_cpu):.0f})"
        )
        print(line)
        if keep_log:
            print(
                f"    log: {totals['events'] / n:.0f} events, {totals['bytes'] / n / 1024:.1f} KB of compact JSON, "
                f"{totals['zbytes'] / n / 1024:.1f} KB compressed per match"
            )
        else:
            print(
                f"    per match: {totals['rounds'] / n:.1f} rounds, {totals['actions'] / n:.0f} decisions, "
                f"{totals['draws'] / n:.1%} draws; {1e6 * n / statistics.median(wall) / max(1, totals['actions']):.1f}"
                " us per decision"
            )


def profile(setups: list[dict]) -> None:
    """Where the time goes: the top functions by own time, and the share of agent vs engine."""
    prof = cProfile.Profile()
    prof.enable()
    run_batch(setups, keep_log=False)
    prof.disable()
    stats = pstats.Stats(prof)
    total = stats.total_tt  # type: ignore[attr-defined]
    shares: dict[str, float] = {}
    for (filename, _, _), row in stats.stats.items():  # type: ignore[attr-defined]
        own = row[2]
        if "realms/engine/agents" in filename or "realms/engine/observation" in filename or filename.startswith(
            "<greedy plan"  # the abilities the greedy agent compiles
        ):
            key = "greedy agent + observations"
        elif "realms/engine" in filename:
            key = "rules engine (realms/engine/state.py)"
        elif "simulate/engine" in filename:
            key = "core runner"
        else:
            key = "builtins / other"
        shares[key] = shares.get(key, 0.0) + own
    print(f"  profile of {len(setups)} matches without log (cProfile, own time):")
    for key, own in sorted(shares.items(), key=lambda kv: -kv[1]):
        print(f"    {own / total:5.1%}  {key}")
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(12)
    lines = [ln for ln in out.getvalue().splitlines() if ln.strip() and ("(" in ln or "ncalls" in ln)]
    print("    top functions by own time:")
    for ln in lines[:14]:
        print("     " + ln.replace(str(ROOT) + "/", ""))


def mirror(cards: list[CharacterCard], count: int, seed: int) -> None:
    """Search vs greedy over mirror matches: both sides field the same army, and each army is
    played twice with the agents swapping sides."""
    rng = random.Random(seed)
    wins = losses = draws = 0
    start = time.perf_counter()
    pairs = max(1, count // 2)
    for i in range(pairs):
        army = random_army(cards, rng)
        setup = {"armies": {"a": army, "b": army}}
        for search_side, agents in (("a", ["search", "greedy"]), ("b", ["greedy", "search"])):
            result = play_match("realms", setup=setup, agents=agents, seed=seed + i, keep_log=False)
            if result.winner == search_side:
                wins += 1
            elif result.winner is None:
                draws += 1
            else:
                losses += 1
    played = 2 * pairs
    seconds = time.perf_counter() - start
    print(
        f"  search vs greedy, {played} mirror matches ({pairs} armies x 2 sides): "
        f"{wins} wins, {losses} losses, {draws} draws -> win rate {wins / played:.1%} "
        f"(score {(wins + draws / 2) / played:.1%}); {seconds / played:.2f} s per match"
    )


def main() -> None:
    """Parse the arguments and print every figure."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=500, help="greedy-vs-greedy matches per run")
    parser.add_argument("--repeats", type=int, default=5, help="runs per mode (the median is reported)")
    parser.add_argument("--mirror", type=int, default=100, help="search-vs-greedy mirror matches (0: skip)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--no-profile", action="store_true")
    args = parser.parse_args()

    cards, source = load_cards()
    print(f"Echo Realms engine benchmark - {len(cards)} cards from the {source}; Python {sys.version.split()[0]}")
    setups = make_setups(cards, args.matches, args.seed)
    print(f"greedy vs greedy, {args.matches} random legal army pairs, one core:")
    throughput(setups, args.repeats)
    if not args.no_profile:
        profile(setups[: min(200, len(setups))])
    if args.mirror:
        mirror(cards, args.mirror, args.seed)


if __name__ == "__main__":
    main()
