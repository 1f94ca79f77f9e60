"""Batch throughput from the bare engine loop to two Celery workers, as ratios measured in one run.

    .venv/bin/python bench/batch_workers.py [--rounds 3] [--matches 20000] [--redis-db 14] [--pure] [--postgres]

Every variant plays the same matches: one matchup of two official armies (the strongest legal armies of
the first two factions, greedy against greedy, the sides swapped in every odd match), match i with seed + i:

  bare loop          `simulate.engine.runner.play_match` over the prepared setups, nothing else in the loop
  play_chunk         `studies.play_chunk` chunk by chunk in this process: the task layer without a database
  run_chunk          `batches.run_chunk` for every chunk of a stored batch, as a worker runs a task (the
                     batch read, its study planned once per process, cancel checks, the chunk stored), without Celery
  1 / 2 workers      `celery -A cardsdb worker --pool solo` processes on Redis: a batch stored and
                     dispatched as the API does (`create_batch`, then `background.queue_batch`), timed
                     from the request to `done`
  command line 1 / all cores
                     `manage.py simulate_batch` run as a new process, as a user types it: Django's start-up,
                     the batch stored, played here on one process (`--processes 1`) or on one per core
                     (the default), its figures printed; timed from the command to its exit

One round runs every variant once, in turn, so that a change in the machine's load falls on all of them
alike; the figures are medians over the rounds. The second worker sits out the one-worker runs (its
consumer cancelled by remote control), so both stay warm. Everything uses a SQLite database in a temporary
folder (or with --postgres a PostgreSQL database made for the run and dropped after), migrated and loaded
with the official sets, and Redis database --redis-db, flushed at the end. The engines run as installed
(compiled by mypyc with `make install`), or as plain Python with --pure (in every process).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import runpy
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

LOCK_KEY = "cardsdb-bench-lock"
PG_URL = "postgres://postgres@127.0.0.1:5432/test"
ENGINES = ("realms.engine", "legends.engine", "simulate.engine")

# With --pure, every process loads this folder's sitecustomize first: the engine packages imported from their .py
# sources, never from the C extensions that `make install` builds next to them.
PURE_ENGINES = ROOT / ".ci" / "pure-engines"


class Workers:
    """Celery worker processes of this run, each logging to a file in the temporary folder."""

    def __init__(self, folder: Path, env: dict[str, str]) -> None:
        self.folder, self.env = folder, env
        self.processes: dict[str, subprocess.Popen] = {}

    def start(self, short: str) -> str:
        name = f"{short}-{uuid.uuid4().hex[:6]}@{socket.gethostname()}"
        log = self.folder / f"{short}.log"
        self.processes[name] = subprocess.Popen(
            [str(Path(sys.executable).parent / "celery"), "-A", "cardsdb", "worker", "--pool", "solo", "-c", "1",
             "-n", name, "-l", "info", "--without-gossip", "--without-mingle", "--logfile", str(log)],
            cwd=ROOT, env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 120
        while not (log.exists() and " ready." in log.read_text(errors="replace")):
            if self.processes[name].poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"worker {name} did not start:\n{log.read_text(errors='replace')[-5000:]}")
            time.sleep(0.2)
        return name

    def pid(self, name: str) -> int:
        return self.processes[name].pid

    def cpu_seconds(self) -> float:
        """CPU time the workers used so far (Linux /proc; 0 elsewhere)."""
        total = 0
        for process in self.processes.values():
            try:
                fields = Path(f"/proc/{process.pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            total += int(fields[11]) + int(fields[12])  # utime, stime
        return total / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in self.processes.values():
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


@contextlib.contextmanager
def postgres_database(url: str, name: str) -> Iterator[None]:
    """A PostgreSQL database `name` made on the server of `url` for the run, dropped after (nothing without
    a name)."""
    if not name:
        yield
        return
    import psycopg

    admin_url = url.replace("postgres://", "postgresql://", 1)
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield
    finally:
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def engine_build() -> str:
    """Which engine modules this process runs compiled."""
    modules = [m for name, m in sys.modules.items() if name.startswith(ENGINES) and getattr(m, "__file__", None)]
    compiled = sum((m.__file__ or "").endswith(".so") for m in modules)  # (each has a file: filtered above)
    if not compiled:
        return f"plain Python (0 of {len(modules)} engine modules compiled)"
    return f"compiled by mypyc ({compiled} of {len(modules)} engine modules are C extensions)"


def main() -> None:  # noqa: C901  (one run, start to end, like the other benchmarks)
    """Set up the database, the broker and the workers; run the interleaved rounds; print rates and ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (medians are reported)")
    parser.add_argument("--matches", type=int, default=20000, help="matches per variant per round")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--redis-db", type=int, default=14, help="Redis database number (flushed at the end)")
    parser.add_argument("--redis", default="127.0.0.1:6379", help="Redis host:port")
    parser.add_argument("--postgres", nargs="?", const=os.environ.get("CI_POSTGRES_URL", PG_URL), default="",
                        metavar="URL", help=f"a fresh PostgreSQL database made (and dropped) on this server "
                                            f"instead of SQLite (default URL {PG_URL})")
    parser.add_argument("--pure", action="store_true", help="plain Python engines, not the compiled ones")
    args = parser.parse_args()

    with environment(args, "batch-bench-") as workers:
        run(args, workers)


@contextlib.contextmanager
def environment(args: argparse.Namespace, prefix: str) -> Iterator[Workers]:
    """A temporary database (SQLite, or PostgreSQL with `args.postgres`) migrated and loaded with the official
    sets, Redis database `args.redis_db` locked for the run and flushed after, this process's environment set as
    the workers' (`args.pure`: plain Python engines everywhere); the workers started inside are stopped after."""
    import redis

    host, port = args.redis.rsplit(":", 1)
    broker = redis.Redis(host=host, port=int(port), db=args.redis_db)
    if not broker.set(LOCK_KEY, str(os.getpid()), nx=True, ex=3600):
        raise SystemExit(f"Redis database {args.redis_db} is held by another run ({LOCK_KEY}); use --redis-db.")
    database = f"cardsdb_bench_{uuid.uuid4().hex[:12]}" if args.postgres else ""
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp, postgres_database(args.postgres, database):
        folder = Path(tmp)
        env = {key: value for key, value in os.environ.items()
               if not key.startswith(("CELERY_", "DJANGO_", "DATABASE_"))}
        env.update(DJANGO_SETTINGS_MODULE="cardsdb.settings", DEBUG="1", MEDIA_ROOT=str(folder / "media"),
                   DATABASE_URL=args.postgres.rsplit("/", 1)[0] + f"/{database}" if database
                   else f"sqlite:///{folder / 'bench.sqlite3'}",
                   CELERY_BROKER_URL=f"redis://{args.redis}/{args.redis_db}")
        if args.pure:
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PURE_ENGINES), env.get("PYTHONPATH", "")]))
            runpy.run_path(str(PURE_ENGINES / "sitecustomize.py"))
        for command in (["migrate", "--no-input"], ["createcachetable"], ["load_official"]):
            subprocess.run([sys.executable, "manage.py", *command, "--verbosity", "0"], cwd=ROOT, env=env,
                           check=True)
        os.environ.update(env)
        workers = Workers(folder, env)
        try:
            yield workers
        except BaseException:
            for log in sorted(folder.glob("*.log")):
                print(f"----- {log.name}\n{log.read_text(errors='replace')[-5000:]}")
            raise
        finally:
            workers.stop()
            broker.flushdb()
            broker.close()


def run(args: argparse.Namespace, workers: Workers) -> None:
    """Every variant over the same matches, in interleaved rounds; print rates, ratios and where time goes."""
    import django

    django.setup()
    from simulate import batches, studies

    bench = Bench(args, workers)
    runs = bench.variants()
    bench.warm_up()
    rates, cpu = measure(runs, args.rounds, bench.count, workers)
    bench.consume(bench.second, True)
    parts = breakdown(bench.new_batch(), batches, studies)
    report(bench, args.rounds, rates, cpu, parts)


class Bench:
    """The matches every variant plays (one matchup, sides swapped in every odd match, match i with seed + i),
    the variants that play them, and the two workers."""

    def __init__(self, args: argparse.Namespace, workers: Workers) -> None:
        """Plan the study once and prepare its matches; start both workers."""
        from simulate import studies
        from simulate.services import game_matches, game_studies

        self.matches = game_matches("realms")
        entrants, self.names = game_studies("realms").strongest_entrants({})
        self.inputs = {"armies": {"a": entrants[0], "b": entrants[1]}}
        self.count, self.seed = args.matches, args.seed
        self.study = studies.plan(game="realms", kind="matchup", inputs=self.inputs, per_pairing=self.count,
                                  swap_sides=True)
        prepared = self.study.pairings[0].prepared
        self.plays = [(p.setup, p.agents, p.options) for p in
                      (prepared if i % 2 == 0 else self.matches.swapped(prepared) for i in range(self.count))]
        self.size = studies.chunk_units(self.study)
        self.bounds = [(start, min(self.count, start + self.size)) for start in range(0, self.count, self.size)]
        self.workers = workers
        self.first, self.second = workers.start("bench-a"), workers.start("bench-b")
        self.per_worker: list[tuple[int, int]] = []  # chunks each worker played, per two-worker run

    def variants(self) -> dict[str, Callable[[], None]]:
        """Each measured variant, by the name the figures give it."""
        return {"bare loop": self.bare, "play_chunk": self.chunks, "run_chunk": self.run_chunks,
                "1 worker": self.celery(1), "2 workers": self.celery(2),
                "command line 1": self.command_line(1), "command line all": self.command_line(os.cpu_count() or 1)}

    def command_line(self, processes: int) -> Callable[[], None]:
        """`manage.py simulate_batch` as a new process, playing the batch on `processes` processes."""
        body = {"kind": "matchup", **self.inputs, "count": self.count, "seed": self.seed, "swap_sides": True}

        def typed() -> None:
            subprocess.run([sys.executable, "manage.py", "simulate_batch", "realms", "--inputs", json.dumps(body),
                            "--processes", str(processes), "--json", "--verbosity", "0"], cwd=ROOT,
                           stdout=subprocess.DEVNULL, check=True)
        return typed

    def bare(self) -> None:
        """`play_match` over the prepared setups, nothing else in the loop."""
        from simulate.engine.runner import play_match

        seed = self.seed
        for i, (setup, agents, options) in enumerate(self.plays):
            play_match("realms", setup=setup, agents=agents, seed=seed + i, options=options, keep_log=False)

    def chunks(self) -> None:
        """`studies.play_chunk` chunk by chunk in this process."""
        from simulate import studies

        for start, stop in self.bounds:
            studies.play_chunk(self.study, self.seed, start, stop)

    def new_batch(self, batch_count: int | None = None):
        """A stored batch of the matchup, as the API creates one."""
        from simulate import batches

        return batches.create_batch(game="realms", kind="matchup", inputs=self.inputs,
                                    count=self.count if batch_count is None else batch_count, seed=self.seed,
                                    swap_sides=True)

    def run_chunks(self) -> None:
        """`batches.run_chunk` for every chunk of a new batch, as a worker runs its tasks, without Celery."""
        from simulate import batches
        from simulate.models import Batch

        batch = self.new_batch()
        for index in range(batch.chunks):
            batches.run_chunk(batch.pk, index)
        assert Batch.objects.get(pk=batch.pk).status == Batch.Status.DONE

    def on_workers(self, batch_count: int | None = None):
        """A new batch queued for the workers, waited for until it is done."""
        from simulate import background
        from simulate.models import Batch

        batch_count = self.count if batch_count is None else batch_count
        batch = self.new_batch(batch_count)
        background.queue_batch(batch.pk)
        deadline = time.monotonic() + 600
        while Batch.objects.filter(pk=batch.pk).values_list("status", flat=True)[0] in ("queued", "running"):
            if time.monotonic() > deadline:
                raise SystemExit(f"batch {batch.pk} did not end in 10 minutes")
            time.sleep(0.01)
        batch.refresh_from_db()
        assert batch.status == Batch.Status.DONE and batch.played == batch_count, (batch.status, batch.error)
        return batch

    def consume(self, name: str, on: bool) -> None:
        """Let a worker take chunks from the queue, or not (remote control; it answers between tasks)."""
        from cardsdb.celery import app

        call = app.control.add_consumer if on else app.control.cancel_consumer
        replies = call("celery", destination=[name], reply=True, timeout=10)
        if not replies:
            raise SystemExit(f"worker {name} did not answer {'add' if on else 'cancel'}_consumer")

    def celery(self, n: int) -> Callable[[], None]:
        """The batch on `n` workers (the second one sits out with one); with two, the chunks each played."""
        from simulate.models import BatchChunk

        def timed() -> None:
            self.consume(self.second, n == 2)
            batch = self.on_workers()
            if n == 2:
                runners = list(BatchChunk.objects.filter(batch=batch).values_list("runner", flat=True))
                pids = [int(r.split(":")[1]) for r in runners]
                self.per_worker.append((pids.count(self.workers.pid(self.first)),
                                        pids.count(self.workers.pid(self.second))))
        return timed

    def warm_up(self) -> None:
        """Imports, caches, both workers' first tasks; and a check that the bare loop and the chunks play the
        same matches."""
        from simulate import studies
        from simulate.engine.runner import play_match
        from simulate.models import BatchChunk

        seed = self.seed
        bare_draws = sum(play_match("realms", setup=s, agents=a, seed=seed + i, options=o, keep_log=False).winner
                         is None for i, (s, a, o) in enumerate(self.plays[:500]))
        tally = studies.play_chunk(self.study, seed, 0, 500)
        assert tally is not None and bare_draws == tally["pairings"][0]["draws"], "not the same matches"
        self.run_chunks()
        self.consume(self.second, True)
        for _ in range(5):
            warm = self.on_workers(batch_count=min(self.count, 10 * self.size))
            if len(set(BatchChunk.objects.filter(batch=warm).values_list("runner", flat=True))) == 2:
                break


def measure(runs: dict[str, Callable[[], None]], rounds: int, count: int,
            workers: Workers) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Matches per second of each variant in each round, and the CPU seconds of this process and the workers
    meanwhile; every variant once per round, in turn."""
    rates: dict[str, list[float]] = {name: [] for name in runs}
    cpu: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(rounds):
        for name, variant in runs.items():
            cpu_start = time.process_time() + workers.cpu_seconds() + children_cpu()
            start = time.perf_counter()
            variant()
            rates[name].append(count / (time.perf_counter() - start))
            cpu[name].append(time.process_time() + workers.cpu_seconds() + children_cpu() - cpu_start)
    return rates, cpu


def children_cpu() -> float:
    """CPU seconds of this process's children that have ended (the command lines and the processes they forked)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def report(bench: Bench, rounds: int, rates: dict[str, list[float]], cpu: dict[str, list[float]],
           parts: dict[str, tuple[float, float, float]]) -> None:
    """Print the figures: each variant's rate and cost per chunk, then the ratios the targets name."""
    from django.db import connection

    count, size, chunks = bench.count, bench.size, len(bench.bounds)
    median = {name: statistics.median(values) for name, values in rates.items()}
    print(f"Batch throughput: {count:,} matches per variant ({chunks} chunks of {size}), median of "
          f"{rounds} interleaved rounds; {bench.names[0]} vs {bench.names[1]}, greedy vs greedy, sides swapped")
    print(f"  engines: {engine_build()}; database: {connection.vendor}; {os.cpu_count()} cores")
    # Cores used: the CPU time of this process and the workers over the wall time; below what a variant can
    # use (1, or 2 for two workers), the machine gave the rest to other processes.
    print(f"  {'variant':12} {'matches/s':>10} {'min':>8} {'max':>8} {'vs bare loop':>13} {'ms per chunk':>13}"
          f" {'CPU ms per chunk':>17} {'cores used':>11}")
    for name, values in rates.items():
        rate = median[name]
        used = statistics.median(c * r / count for c, r in zip(cpu[name], values, strict=True))
        print(f"  {name:12} {rate:10.0f} {min(values):8.0f} {max(values):8.0f} {rate / median['bare loop']:12.3f}x"
              f" {1000 * size / rate:13.1f} {1000 * statistics.median(cpu[name]) / chunks:17.1f} {used:11.2f}")
    layer = median["bare loop"] / median["play_chunk"] - 1
    task = median["bare loop"] / median["run_chunk"] - 1
    scale = median["2 workers"] / median["1 worker"]
    wall = {name: 1000 * size / median[name] for name in median}
    cpu_ms = {name: 1000 * statistics.median(values) / chunks for name, values in cpu.items()}
    print(f"  task layer: play_chunk costs {layer:+.1%} over the bare loop (target at most +5%)")
    print(f"  run_chunk (a worker's task without Celery) {task:+.1%}: {wall['run_chunk'] - wall['play_chunk']:+.1f} ms "
          f"wall and {cpu_ms['run_chunk'] - cpu_ms['play_chunk']:+.1f} ms CPU per chunk over play_chunk; its steps "
          f"over one more batch, per chunk:")
    print(f"    {'step':58} {'wall ms':>8} {'CPU ms':>7} {'queries':>8}")
    for part, (part_wall, part_cpu, queries) in parts.items():
        print(f"    {part:58} {part_wall:8.1f} {part_cpu:7.1f} {queries:8.1f}")
    print(f"  one worker: {wall['1 worker'] - wall['run_chunk']:+.1f} ms per chunk over run_chunk in-process "
          f"(Celery, Redis, dispatch and polling)")
    print(f"  two workers / one worker: {scale:.2f}x (target at least 1.7x); CPU per chunk {cpu_ms['2 workers']:.1f} "
          f"ms with two, {cpu_ms['1 worker']:.1f} ms with one; chunks per worker: "
          f"{', '.join(f'{a}/{b}' for a, b in bench.per_worker)}")
    print(f"  one worker / bare loop: {median['1 worker'] / median['bare loop']:.2f}x (target at least 0.9x)")
    cores = os.cpu_count() or 1
    one, every = median["command line 1"], median["command line all"]
    print(f"  command line: {one / median['bare loop']:.2f}x the bare loop on one process, "
          f"{every / median['bare loop']:.2f}x on {cores} ({every / one:.2f}x one process), Django's start-up "
          "and the batch's storing included")


def breakdown(batch, batches, studies) -> dict[str, tuple[float, float, float]]:
    """Where the time of `batches.run_chunk` goes: every chunk of a stored batch played by it in this process,
    with its steps timed (wall and CPU) and its database queries counted; per chunk."""
    from django.db import connection

    totals: dict[str, list[float]] = {}
    inside = ["the rest"]

    def count_query(execute, sql, params, many, context):
        totals.setdefault(inside[-1], [0.0, 0.0, 0])[2] += 1
        return execute(sql, params, many, context)

    def timing(name: str, step: Callable[..., object]) -> Callable[..., object]:
        def timed(*args: object, **kwargs: object) -> object:
            inside.append(name)
            wall, cpu = time.perf_counter(), time.process_time()
            try:
                return step(*args, **kwargs)
            finally:
                row = totals.setdefault(name, [0.0, 0.0, 0])
                row[0] += time.perf_counter() - wall
                row[1] += time.process_time() - cpu
                inside.pop()
        return timed

    steps = [(studies, "study_of"), (studies, "play_chunk"), (batches, "is_cancelled"), (studies, "store_chunk")]
    originals = [getattr(module, name) for module, name in steps]
    for module, name in steps:
        setattr(module, name, timing(name, getattr(module, name)))
    try:
        with connection.execute_wrapper(count_query):
            wall, cpu = time.perf_counter(), time.process_time()
            for index in range(batch.chunks):
                batches.run_chunk(batch.pk, index)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    finally:
        for (module, name), original in zip(steps, originals, strict=True):
            setattr(module, name, original)
    zero = [0.0, 0.0, 0]
    play, checks = totals["play_chunk"], totals.get("is_cancelled", zero)
    parts = {
        "the play (studies.play_chunk, its cancel checks apart)": [play[0] - checks[0], play[1] - checks[1], play[2]],
        "checking for a cancel (batches.is_cancelled)": checks,
        "planning the study (studies.study_of, once per process)": totals["study_of"],
        "storing the chunk (studies.store_chunk)": totals["store_chunk"],
    }
    timed = [sum(row[i] for name, row in totals.items() if name not in ("is_cancelled", "the rest")) for i in (0, 1)]
    parts["the rest (the batch read, its chunk row, its status)"] = [
        wall - timed[0], cpu - timed[1], totals.get("the rest", zero)[2]]
    return {name: (1000 * w / batch.chunks, 1000 * c / batch.chunks, q / batch.chunks) for name, (w, c, q) in
            parts.items()}

if __name__ == "__main__":
    main()
