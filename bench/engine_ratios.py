"""Engine speed as ratios to a bare loop of the same game, measured in one process and run.

    .venv/bin/python bench/engine_ratios.py [--rounds 5] [--matches 300]

The bare loop is Echo Realms with nothing but its skeleton: the 14 printed units of two random
legal starter-set armies, an attack order by SPD each round, every unit hitting for
max(1, ATK - DEF) the lowest-HP enemy it may reach (R12), until one side is gone or 50 rounds
pass; no effects, no abilities, no agents, no log. Each engine plays greedy against greedy
(Akin Legends: four greedy seats, or two in a duel). One round of the benchmark runs every
variant once, in turn, so that a change in the machine's load falls on all of them alike;
the figures are the medians over the rounds, each timed by the CPU time of this process (so another
program on the machine slows no variant). Each ratio is printed beside its target. Memory: the peak Python allocation while one
match is running (tracemalloc), for each engine.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.legends_bench import seats  # noqa: E402  (one official-set setup for both benchmarks)
from bench.legends_bench import setup as legends_setup  # noqa: E402
from realms.engine.cards import CharacterCard, cards_from_fixture  # noqa: E402
from realms.engine.formation import random_army  # noqa: E402
from simulate.engine.runner import play_match  # noqa: E402

REALMS = cards_from_fixture(json.loads((ROOT / "fixtures" / "realms_starter.json").read_text()))
Army = list[tuple[CharacterCard, str]]
# The speed each variant is held to, as a ratio to the bare loop (docs/simulate.md, "Engine speed").
TARGETS = {
    "realms greedy, no log": 0.6,
    "realms greedy, log": 0.45,
    "legends teams greedy, no log": 0.4,
    "legends teams greedy, log": 0.3,
    "legends duel greedy, no log": 0.5,
    "legends duel greedy, log": 0.35,
}


# One function on purpose, though its branches are many: it is the floor every engine is measured against, and
# named steps called inside its loop would add the cost of those calls to the floor and change every ratio.
def bare_match(a: Army, b: Army, rng: random.Random) -> str | None:
    """The bare loop: one match of printed stats, SPD order and ATK - DEF hits; the winner or None."""
    units: list[list[Any]] = [[side, line, c.atk, c.def_, c.spd, c.hp] for side, army in (("a", a), ("b", b)) for c, line in army]
    for _ in range(50):
        order = sorted((u for u in units if u[5] > 0), key=lambda u: (-u[4], rng.random()))
        for u in order:
            if u[5] <= 0:
                continue
            foes = [t for t in units if t[0] != u[0] and t[5] > 0]
            if not foes:
                return u[0]
            if u[1] == "vanguard":
                foes = [t for t in foes if t[1] == "vanguard"] or foes
            target = min(foes, key=lambda t: t[5])
            target[5] -= max(1, u[2] - target[3])
        alive = {u[0] for u in units if u[5] > 0}
        if len(alive) < 2:
            return alive.pop() if alive else None
    return None


def variants(matches: int, seed: int) -> dict[str, Callable[[], None]]:
    """Each measured variant as a function playing `matches` matches."""
    rng = random.Random(seed)
    pairs = [(random_army(REALMS, rng), random_army(REALMS, rng)) for _ in range(matches)]

    def bare() -> None:
        loop_rng = random.Random(seed)
        for a, b in pairs:
            bare_match(a, b, loop_rng)

    def realms(keep_log: bool) -> Callable[[], None]:
        def run() -> None:
            for i, (a, b) in enumerate(pairs):
                play_match("realms", setup={"armies": {"a": a, "b": b}}, agents=["greedy", "greedy"], seed=i,
                           keep_log=keep_log)
        return run

    def legends(mode: str, keep_log: bool) -> Callable[[], None]:
        setup = legends_setup(mode)
        players = seats(mode)

        def run() -> None:
            for i in range(matches):
                play_match("legends", setup=setup, agents=["greedy"] * players, seed=i, keep_log=keep_log)
        return run

    return {
        "bare loop": bare,
        "realms greedy, no log": realms(False),
        "realms greedy, log": realms(True),
        "legends teams greedy, no log": legends("teams", False),
        "legends teams greedy, log": legends("teams", True),
        "legends duel greedy, no log": legends("duel", False),
        "legends duel greedy, log": legends("duel", True),
    }


def peak_memory(run_one: Callable[[], Any]) -> int:
    """Peak bytes allocated while one match runs."""
    tracemalloc.start()
    run_one()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def main() -> None:
    """Run the interleaved rounds and print rates, ratios and memory."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds (medians are reported)")
    parser.add_argument("--matches", type=int, default=300, help="matches per variant per round")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    runs = variants(args.matches, args.seed)
    for run in runs.values():  # warm-up: caches, imports
        run()
    rates: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(args.rounds):
        for name, run in runs.items():
            start = time.process_time()
            run()
            rates[name].append(args.matches / (time.process_time() - start))
    base = statistics.median(rates["bare loop"])
    print(f"Engine ratios: {args.matches} matches per variant, median of {args.rounds} interleaved rounds, "
          "CPU time of one process")
    print(f"  {'variant':30} {'matches/s':>10} {'ratio to bare loop':>20} {'target':>8}")
    for name, values in rates.items():
        rate = statistics.median(values)
        target = f"{TARGETS[name]:.2f}x" if name in TARGETS else ""
        print(f"  {name:30} {rate:10.0f} {rate / base:19.3f}x {target:>8}")
    for game in ("realms", "legends teams", "legends duel"):
        slow = statistics.median(rates[f"{game} greedy, no log"]) / statistics.median(rates[f"{game} greedy, log"])
        print(f"  {game}: the log costs {slow:.2f}x the unlogged match")
    a, b = random_army(REALMS, random.Random(1)), random_army(REALMS, random.Random(2))
    realms_peak = peak_memory(lambda: play_match("realms", setup={"armies": {"a": a, "b": b}},
                                                 agents=["greedy", "greedy"], seed=1, keep_log=True))
    legends_peak = peak_memory(lambda: play_match("legends", setup=legends_setup("teams"), agents=["greedy"] * 4,
                                                  seed=1, keep_log=True))
    print(f"  peak memory of one running match with its log: realms {realms_peak / 1024:.0f} KiB, "
          f"legends teams {legends_peak / 1024:.0f} KiB")


if __name__ == "__main__":
    main()
