"""An army search's throughput from the bare engine loop to two Celery workers, and its share of time outside the engine.

    .venv/bin/python bench/army_search.py [--rounds 3] [--games 20000] [--seed 2026] [--redis-db 8] [--pure]
                                          [--postgres] [--profile]

The study: an Echo Realms army search (`search` kind) of the official sets as loaded (no pool given), its
default descriptors, greedy against greedy, --games games, which the kind shares among islands (at most
20,000 games each, two at least), one island a chunk (several when islands are small). Every variant plays the very same games:

  bare loop          `simulate.engine.runner.play_match` on the arguments (setup, agents, options, seed) that
                     every game of the search was played with, recorded once before the rounds, nothing else
                     in the loop
  play_chunk         `studies.play_chunk` for every island in this process: the search itself (its planning
                     apart), its archive, mutations and field draws, without a database
  run_chunk          `batches.run_chunk` for every island of a stored batch, as a worker runs a task (the batch
                     read, its study planned once per process, cancel checks, the chunk stored and the archive
                     merged), without Celery
  1 / 2 workers      `celery -A cardsdb worker --pool solo` processes on Redis: a batch stored and dispatched as
                     the API does (`batches.create_batch`, then `background.queue_batch`), timed from the
                     request to `done`; with two islands, two workers share the search

The bare loop, play_chunk and run_chunk run in this process and are measured by its CPU time; the workers by
wall time (as bench/batch_workers.py, whose environment, workers and ratios this follows). The share of time
outside the engine (planning games, storing, archive updates, mutation, field draws) is
1 - (bare loop CPU time) / (play_chunk CPU time) over the very same games. One round runs every variant once,
in turn; the figures are medians over the rounds. With --profile (or when that share is above 10%) one island
is played again under cProfile and the functions outside the engine that cost most are printed. Everything
uses a SQLite database in a temporary folder (or --postgres), migrated and loaded with the official sets, and
Redis database --redis-db, flushed at the end; the engines run as installed, or as plain Python with --pure.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.batch_workers import PG_URL, Bench, Workers, children_cpu, engine_build, environment  # noqa: E402

GAME = "realms"
ENGINE_FOLDERS = tuple(str(ROOT / folder) for folder in ("realms/engine", "legends/engine", "simulate/engine"))
OUTSIDE_TARGET = 0.10  # the search's own share of its time, at most
Call = tuple[str, Any, Any, int, Any]  # (game, setup, agents, seed, options) of one game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (medians are reported)")
    parser.add_argument("--games", type=int, default=20000, help="games of the search (its count)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--redis-db", type=int, default=8, help=(
        "Redis database number, flushed at the end (not 10 to 13 nor 15: the tests' ones; 9 and 14: other benchmarks')"))
    parser.add_argument("--redis", default="127.0.0.1:6379", help="Redis host:port")
    parser.add_argument("--postgres", nargs="?", const=os.environ.get("CI_POSTGRES_URL", PG_URL), default="",
                        metavar="URL", help=f"a fresh PostgreSQL database made (and dropped) on this server "
                                            f"instead of SQLite (default URL {PG_URL})")
    parser.add_argument("--pure", action="store_true", help="plain Python engines, not the compiled ones")
    parser.add_argument("--profile", action="store_true",
                        help="profile one island whatever the share outside the engine")
    args = parser.parse_args()

    with environment(args, "search-bench-") as workers:
        import django

        django.setup()
        run(args, workers)


class SearchBench(Bench):
    """The search every variant plays, its recorded games, and the two workers (batch_workers' `Bench`, its
    workers' runs and remote control kept, the matchup replaced by the search)."""

    def __init__(self, args: argparse.Namespace, workers: Workers) -> None:  # not Bench.__init__: it plans a matchup
        """Plan the search as a stored batch once; record its games; start both workers."""
        from simulate import batches, studies

        self.games, self.seed = args.games, args.seed
        planned = self.new_batch()
        self.study = studies.study_of(planned)
        self.chunks_of_batch = planned.chunks
        batches.cancel_batch(planned)  # kept for its plan alone: no worker may take its chunks
        self.islands = self.study.units
        self.calls, self.tally = record(self.study, self.seed)
        self.count = len(self.calls)  # games every variant plays (an island may leave a few of its share unplayed)
        self.workers = workers
        self.first, self.second = workers.start("search-a"), workers.start("search-b")
        self.per_worker: list[tuple[int, int]] = []

    def variants(self) -> dict[str, Callable[[], None]]:
        return {"bare loop": self.bare, "play_chunk": self.chunks, "run_chunk": self.run_chunks,
                "1 worker": self.celery(1), "2 workers": self.celery(2)}

    def bare(self) -> None:
        """`play_match` on the recorded arguments, nothing else in the loop."""
        from simulate.engine.runner import play_match

        for game, setup, agents, seed, options in self.calls:
            play_match(game, setup=setup, agents=agents, seed=seed, options=options, keep_log=False)

    def chunks(self) -> None:
        """`studies.play_chunk` for every island in this process."""
        from simulate import studies

        for island in range(self.islands):
            studies.play_chunk(self.study, self.seed, island, island + 1)

    def new_batch(self, batch_count: int | None = None):
        """A stored search of the official sets, as the API creates one."""
        from simulate import batches

        return batches.create_batch(game=GAME, kind="search", inputs={}, seed=self.seed,
                                    count=self.games if batch_count is None else batch_count)

    def on_workers(self, batch_count: int | None = None):
        """A new search queued for the workers, waited for until it is done."""
        from simulate import background
        from simulate.models import Batch

        batch = self.new_batch(batch_count)
        background.queue_batch(batch.pk)
        deadline = time.monotonic() + 3600
        while Batch.objects.filter(pk=batch.pk).values_list("status", flat=True)[0] in ("queued", "running"):
            if time.monotonic() > deadline:
                raise SystemExit(f"batch {batch.pk} did not end in an hour")
            time.sleep(0.01)
        batch.refresh_from_db()
        assert batch.status == Batch.Status.DONE, (batch.status, batch.error)
        if batch_count is None:
            assert batch.played == self.count, "the workers played other games"
        return batch

    def warm_up(self) -> None:
        """Imports, caches, both workers' first tasks; and a check that the bare loop plays the recorded games."""
        from simulate.engine.runner import play_match
        from simulate.models import BatchChunk
        from simulate.studies import CHUNK_MATCHES

        for (game, setup, agents, seed, options), outcome in zip(self.calls[:500], self.tally["outcomes"], strict=False):
            result = play_match(game, setup=setup, agents=agents, seed=seed, options=options, keep_log=False)
            assert (result.winner, result.rounds) == outcome, "not the same games"
        self.consume(self.second, True)
        for _ in range(5):
            # Two islands of just over half a chunk's matches: one island a chunk, one chunk a worker.
            warm = self.on_workers(batch_count=2 * (CHUNK_MATCHES // 2 + 1))
            if len(set(BatchChunk.objects.filter(batch=warm).values_list("runner", flat=True))) == 2:
                break


def record(study: Any, seed: int) -> tuple[list[Call], dict[str, Any]]:
    """Every island played once with `runner.play_match` wrapped to record its arguments: the games in the order
    played, and what the search found (its islands' figures, each game's winner and rounds)."""
    from simulate import studies
    from simulate.elites import merged_cells
    from simulate.engine import runner

    calls: list[Call] = []
    outcomes: list[tuple[Any, int]] = []
    original = runner.play_match

    def recording(game: str, *, setup: Any, agents: Any, seed: int, options: Any, keep_log: bool = True) -> Any:
        calls.append((game, setup, agents, seed, options))
        result = original(game, setup=setup, agents=agents, seed=seed, options=options, keep_log=keep_log)
        outcomes.append((result.winner, result.rounds))
        return result

    runner.play_match = recording  # type: ignore[assignment]
    islands: list[dict[str, Any]] = []
    matches = 0
    try:
        for island in range(study.units):
            tally = studies.play_chunk(study, seed, island, island + 1)
            assert tally is not None
            islands.append(tally["islands"][str(island)])
            matches += tally["pairings"][0]["matches"]
    finally:
        runner.play_match = original  # type: ignore[assignment]
    assert matches == len(calls), "a game was played outside runner.play_match"
    found = {"islands": islands, "evaluations": sum(island["evaluations"] for island in islands),
             "niches": len(merged_cells(islands)), "elites": sum(len(island["elites"]) for island in islands),
             "outcomes": outcomes}
    return calls, found


def measure(bench: SearchBench, rounds: int) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Each variant's wall and CPU seconds (this process's; the workers' and ended children's too for the
    worker variants) in each round; every variant once per round, in turn."""
    runs = bench.variants()
    wall: dict[str, list[float]] = {name: [] for name in runs}
    cpu: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(rounds):
        for name, variant in runs.items():
            others = name.endswith(("worker", "workers"))

            def cpu_now(others: bool = others) -> float:
                return time.process_time() + (bench.workers.cpu_seconds() + children_cpu() if others else 0.0)

            cpu_start, start = cpu_now(), time.perf_counter()
            variant()
            wall[name].append(time.perf_counter() - start)
            cpu[name].append(cpu_now() - cpu_start)
    return wall, cpu


def run(args: argparse.Namespace, workers: Workers) -> None:
    """Record the search's games, run the interleaved rounds, print rates, ratios and the share outside the
    engine (and where it goes, when above its target or asked)."""
    bench = SearchBench(args, workers)
    bench.warm_up()
    wall, cpu = measure(bench, args.rounds)
    bench.consume(bench.second, True)
    outside = report(bench, args.rounds, wall, cpu)
    if args.profile or outside > OUTSIDE_TARGET:
        profile(bench)


def report(bench: SearchBench, rounds: int, wall: dict[str, list[float]], cpu: dict[str, list[float]]) -> float:
    """Print the figures; the share of play_chunk's CPU time spent outside the engine."""
    from django.db import connection

    from simulate.study_kinds.search import DEFAULT_DESCRIPTORS, SETTINGS

    count, found = bench.count, bench.tally
    pairing = bench.study.pairings[0]
    cards = len(getattr(pairing.pool, "cards", ()) or ())
    print(f"Army search throughput: Echo Realms, the official sets as loaded ({cards} cards in the pool), "
          f"descriptors {', '.join(DEFAULT_DESCRIPTORS)}, greedy vs greedy; count {bench.games:,}, seed {bench.seed}; "
          f"median of {rounds} interleaved rounds")
    print(f"  {bench.islands} islands in {bench.chunks_of_batch} chunks, islands of {bench.study.matches_per_unit:,} games, "
          f"{count:,} games played; {found['evaluations']:,} armies tried ({SETTINGS.per_evaluation} games each), "
          f"{found['elites']} elites over the islands, {found['niches']} niches filled once merged")
    print(f"  engines: {engine_build()}; database: {connection.vendor}; {os.cpu_count()} cores")
    median_wall = {name: statistics.median(values) for name, values in wall.items()}
    median_cpu = {name: statistics.median(values) for name, values in cpu.items()}
    print(f"  {'variant':10} {'games/s':>8} {'by':>5} {'min':>8} {'max':>8} {'vs bare loop':>13} {'wall s':>7} "
          f"{'CPU s':>7} {'cores used':>11}")
    rates: dict[str, float] = {}
    for name in wall:
        by_cpu = not name.endswith(("worker", "workers"))
        seconds = cpu[name] if by_cpu else wall[name]
        rates[name] = count / statistics.median(seconds)
        used = statistics.median(c / w for c, w in zip(cpu[name], wall[name], strict=True))
        print(f"  {name:10} {rates[name]:8.0f} {'CPU' if by_cpu else 'wall':>5} {count / max(seconds):8.0f} "
              f"{count / min(seconds):8.0f} {rates[name] / rates['bare loop']:12.3f}x {median_wall[name]:7.1f} "
              f"{median_cpu[name]:7.1f} {used:11.2f}")
    shares = [1 - bare / chunk for bare, chunk in zip(cpu["bare loop"], cpu["play_chunk"], strict=True)]
    outside = statistics.median(shares)
    print(f"  outside the engine: {outside:.1%} of play_chunk's CPU time (1 - bare loop / play_chunk, the same "
          f"games; rounds {', '.join(f'{share:.1%}' for share in shares)}; target under {OUTSIDE_TARGET:.0%})")
    task = 1 - median_cpu["play_chunk"] / median_cpu["run_chunk"]
    print(f"  run_chunk over play_chunk: {median_cpu['run_chunk'] - median_cpu['play_chunk']:+.2f} s CPU "
          f"({task:.1%} of run_chunk's: the batch read, its study thawed, the chunks stored, the archive merged)")
    scale = rates["2 workers"] / rates["1 worker"]
    print(f"  two workers / one worker: {scale:.2f}x by wall time ({bench.islands} islands; ideal "
          f"{min(2, bench.islands):.0f}x); islands per worker: {', '.join(f'{a}/{b}' for a, b in bench.per_worker)}")
    print(f"  one worker / bare loop: {median_wall['bare loop'] / median_wall['1 worker']:.2f}x by wall time")
    return outside


def profile(bench: SearchBench) -> None:
    """Island 0 played again under cProfile: the functions outside the engine that cost most, by their own time,
    then by their time with what they call (those that reach the engine marked)."""
    from simulate import studies

    profiler = cProfile.Profile()
    profiler.enable()
    studies.play_chunk(bench.study, bench.seed, 0, 1)
    profiler.disable()
    stats = pstats.Stats(profiler)
    table: dict[Any, tuple[int, int, float, float, dict[Any, Any]]] = stats.stats  # type: ignore[attr-defined]
    total = sum(row[2] for row in table.values())
    engine = {func for func in table if func[0].startswith(ENGINE_FOLDERS)}
    # play_match as a plain Python function, or as a compiled one (a built-in named by its module)
    play = [func for func in table if (func[2] == "play_match" and func[0].startswith(ENGINE_FOLDERS))
            or func[2].endswith("simulate.engine.runner.play_match>")]
    reaching = callers_of(table, play)
    in_engine = sum(table[func][3] for func in play)
    print(f"  profile of island 0 under cProfile ({total:.1f} s, inflated by the profiler): play_match "
          f"{in_engine / total:.1%}, the rest {1 - in_engine / total:.1%}")

    print_outside(table, [func for func in table if func not in engine], reaching, total)


def callers_of(table: dict[Any, Any], called: list[Any]) -> set[Any]:
    """Every function of a profile that calls one of `called`, however indirectly."""
    reaching, todo = set(), list(called)
    while todo:
        for caller in table[todo.pop()][4]:
            if caller not in reaching:
                reaching.add(caller)
                todo.append(caller)
    return reaching


def print_outside(table: dict[Any, Any], outside: list[Any], reaching: set[Any], total: float) -> None:
    """The functions outside the engine that cost most: by their own time, then with what they call."""

    def name(func: Any) -> str:
        path, line, function = func
        return f"{Path(path).relative_to(ROOT) if path.startswith(str(ROOT)) else Path(path).name}:{line} {function}"

    print("    outside the engine's files (built-ins too, which both call)")
    print(f"    {'by own time':70} {'calls':>9} {'own s':>7} {'share':>6}")
    for func in sorted(outside, key=lambda func: -table[func][2])[:15]:
        print(f"    {name(func)[:70]:70} {table[func][1]:9d} {table[func][2]:7.2f} {table[func][2] / total:6.1%}")
    print(f"    {'the same, with what they call (* reaches play_match)':70} {'calls':>9} {'cum s':>7} "
          f"{'share':>6}")
    for func in sorted(outside, key=lambda func: -table[func][3])[:25]:
        mark = "*" if func in reaching else " "
        print(f"   {mark}{name(func)[:70]:70} {table[func][1]:9d} {table[func][3]:7.2f} {table[func][3] / total:6.1%}")


if __name__ == "__main__":
    main()
