"""Batches from request to results: stored and checked, split into chunks, handed out in turn, played,
resumed, cancelled.

Chunks are handed out one at a time, when a runner is free to play one (`take_chunk`), and by turns: the
next chunk is one of the client served least recently (its account, else its address), of its batch served
least recently, so that one client's large studies never hold the queue for everyone else. A chunk handed
out is claimed (ChunkClaim) until it is stored, so that no two runners take it.

With a broker every free chunk has a Celery task (`simulate.play_next_chunk`) that takes whatever chunk is
next in turn when a worker runs it, so chunks spread over every worker that runs, here or on other
machines; a task is acknowledged only after its chunk is stored, so a worker killed mid-chunk has its
message handed to another one, which plays the same chunk again (found by its task id). Without a broker
the service's own thread takes chunks in turn until none is free (`serve_queue`). A batch that took and
stored nothing for long has its claims dropped and its chunks handed out again (`requeue_stale_batches`).
Either way a chunk's counts are stored once (studies.store_chunk), so nothing is lost or counted twice.
"""

from __future__ import annotations

import logging
import multiprocessing
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import connections, transaction
from django.db.models import Count, F, OuterRef, Q, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from cardsdb.errors import DomainError
from simulate import pinning, studies
from simulate.conf import setting
from simulate.engine.errors import InputError
from simulate.models import Batch, BatchChunk, ChunkClaim, FrozenPlan, StudyClient
from simulate.services import (
    SEED_LIMIT,
    account_of,
    game_studies,
    new_runner_name,
    new_seed,
    plays_lookahead,
)
from simulate.study_kinds import DEFAULT_KIND, study_kind

logger = logging.getLogger(__name__)

# Matches one batch may play in all, by where it runs and whether a look-ahead (search) agent plays in it.
MAX_BATCH = 100_000  # on Celery workers
MAX_SEARCH_BATCH = 1_000
MAX_LOCAL_BATCH = 20_000  # on the service's own background thread (no broker set)
MAX_LOCAL_SEARCH_BATCH = 200
# A request's count: an army search's games in all may reach five times a batch's bound (its kind's
# limit_factor); every other kind is held to the batch bound by check_size.
MAX_PER_PAIRING = 500_000
MAX_UNFINISHED = 5  # queued or running batches per client
# With a broker a queued batch's chunks wait in the broker's queue, which keeps them: they are sent again
# only when nothing of the batch was taken or stored for this long (a broker that lost its queue), not after
# the stale time.
BROKER_QUEUED_FOR = timedelta(minutes=15)
# A runner that found a chunk another runner took first looks again; so many times at most (each time one
# more chunk was taken, so the free ones run out long before), and the first few times it also checks that
# the turn it found is still the first (another runner may have served that client meanwhile).
TAKE_ATTEMPTS, TURN_CHECKS = 1_000, 3


class TooManyBatches(DomainError):
    """A client with MAX_UNFINISHED batches not yet over asked for another (answered 429)."""

    status = 429
    code = "too_many_batches"


UNFINISHED = (Batch.Status.QUEUED, Batch.Status.RUNNING)


def studies_using_card(card) -> list[Batch]:
    """The queued or running studies of the card's game stored before plans were frozen. Such a study reads
    its game's catalogue again on every worker that plays a chunk of it, and may draw any card of it (a field
    study) or name it through a code or a saved army: while one is unfinished, deleting a card of its game
    could change or break what is left. A frozen study plays its own copy of every card."""
    return list(Batch.objects.filter(game=card.game, status__in=UNFINISHED, frozen__isnull=True)
                .select_related("owner").order_by("created_at"))


def uses_broker() -> bool:
    return bool(settings.CELERY_BROKER_URL)


def batch_limit(*, searching: bool) -> int:
    """How many matches one batch may play: fewer on the service's own thread (no broker) than on workers,
    and fewer again when a look-ahead agent plays (a search match costs up to a second of CPU)."""
    if uses_broker():
        return MAX_SEARCH_BATCH if searching else MAX_BATCH
    return MAX_LOCAL_SEARCH_BATCH if searching else MAX_LOCAL_BATCH


def _refuse(path: str, message: str) -> InputError:
    return InputError(message, [(path, message)])


def client_keys(client: str) -> list[str]:
    """What a client's studies count against: its account and its address signed in ("user:<id>@<address>"),
    its address alone anonymously ("address:<address>"); nothing for the service's own (the command line)."""
    account, at, address = client.rpartition("@")
    if not at:
        return [client] if client else []
    return [account, f"address:{address}"]


def unfinished_of(client: str) -> int:
    """The queued or running batches of `client`'s account or of its address (`client_keys`), whichever has
    more: an account's batches from any address, and an address's under any account."""
    unfinished = Batch.objects.filter(status__in=UNFINISHED)
    return max([0, *(unfinished.filter(rows_of(key)).count() for key in client_keys(client))])


def rows_of(key: str) -> Q:
    """The rows (of any model with a `client`) a key of `client_keys` counts: an account's from any address, an
    address's under any account."""
    if key.startswith("address:"):
        return Q(client=key) | Q(client__endswith="@" + key.removeprefix("address:"))
    return Q(client=key) | Q(client__startswith=f"{key}@")


def queue_key(client: str) -> str:
    """The client whose turn a study's chunks take: its account signed in, its address anonymously, "" for
    the service's own studies (the command line)."""
    keys = client_keys(client)
    return keys[0] if keys else ""


def hold_clients(keys: list[str]) -> dict[str, StudyClient]:
    """Lock the rows of these clients (made if new) until the transaction ends, in the order of their keys so
    that two requests never wait for each other. On SQLite the transaction itself holds the database's write
    lock (IMMEDIATE), which serializes it all the same."""
    keys = sorted(set(keys))
    while True:
        StudyClient.objects.bulk_create([StudyClient(key=key) for key in keys], ignore_conflicts=True)
        held = {row.key: row for row in StudyClient.objects.select_for_update().filter(key__in=keys).order_by("key")}
        if len(held) == len(keys):  # else a row was deleted in between (expired): made again
            return held


def create_batch(*, game: str, inputs: dict[str, Any], count: int, kind: str = DEFAULT_KIND, seed: int | None = None,
                 swap_sides: bool = False, until_ci_width: float | None = None, user=None,
                 client: str = "") -> Batch:
    """Store a study once it is planned like its matches would be (setups, agents, patch), its size and
    seeds checked; the caller hands it to the background after (`dispatch`)."""
    inputs = dict(inputs)
    names = study_kind(kind).prepared_inputs(inputs, game_studies(game))
    if until_ci_width is not None and not study_kind(kind).stops_early:
        raise _refuse("until_ci_width", "until_ci_width stops a matchup early; other kinds play their count.")
    study = studies.plan(game=game, kind=kind, inputs=inputs, per_pairing=count, swap_sides=swap_sides, user=user)
    check_size(study, count)
    seed = new_seed() if seed is None else seed
    if seed + count - 1 > SEED_LIMIT:
        raise _refuse("seed", f"Match i of a pairing is played with seed + i, so seed + count - 1 must be at most "
                              f"{SEED_LIMIT}: give a seed of at most {SEED_LIMIT - count + 1} for {count} matches.")
    size = studies.chunk_units(study)
    look = study_kind(kind).look_units(inputs)
    size = size if look is None else min(size, look)
    frozen = pinning.freeze(study)
    return store_batch(client, game=game, kind=kind, owner=account_of(user), inputs=inputs, count=study.count,
                       per_pairing=count, seed=seed, swap_sides=swap_sides, until_ci_width=until_ci_width, chunk_size=size, chunks=-(-study.units // size),
                       plan={"units": study.units, "matches_per_unit": study.matches_per_unit,
                             "pairings": len(study.pairings), "names": names},
                       frozen=frozen, catalogue=pinning.catalogue_state(frozen))


def store_batch(client: str, *, frozen: Mapping[str, Any], **fields: Any) -> Batch:
    """Store a planned study with its frozen plan (kept once however many studies play it), counted against
    its client's bound while the client's rows are locked: requests of one client arriving together are
    counted one after another, each seeing the studies the others stored."""
    with transaction.atomic():
        held = hold_clients([*client_keys(client), queue_key(client)])
        if client and unfinished_of(client) >= MAX_UNFINISHED:
            raise TooManyBatches(f"You have {MAX_UNFINISHED} batches queued or running (of your account or from "
                                 "your address); wait for one to end or cancel one.")
        plan_row, _ = FrozenPlan.objects.get_or_create(digest=pinning.digest(frozen),
                                                       defaults={"game": fields["game"], "data": frozen})
        return Batch.objects.create(client=client[:100], queued_by=held[queue_key(client)], frozen=plan_row, **fields)


class NotReplayable(DomainError):
    """A study stored before studies kept what they played cannot be played again exactly (answered 409)."""

    status = 409
    code = "not_replayable"


def rerun_batch(batch: Batch, *, user=None, client: str = "") -> Batch:
    """The same study again: its frozen plan, seed, count and chunks, so that its figures come out identical
    to the original's, whatever the catalogue says now."""
    if batch.frozen is None:
        raise NotReplayable("This study was stored before studies kept the cards they played: it cannot be "
                            "played again exactly. Queue a new study instead.")
    return store_batch(
        client, frozen=batch.frozen.data, game=batch.game, kind=batch.kind, rerun_of=batch,
        owner=account_of(user), inputs=batch.inputs, count=batch.count,
        per_pairing=batch.per_pairing, seed=batch.seed, swap_sides=batch.swap_sides,
        until_ci_width=batch.until_ci_width, chunk_size=batch.chunk_size, chunks=batch.chunks, plan=batch.plan,
        catalogue=batch.catalogue)


def check_size(study: studies.Study, count: int) -> None:
    """Refuse a study that plays nothing new (a patch that changes nothing) or more matches than allowed."""
    if study.patch_changes_nothing:  # every match played twice for a difference of zero
        raise _refuse("patch", "The patch changes nothing these matches use: no army of the study fields a "
                               "patched card, or each change keeps the card's value.")
    searching = plays_lookahead(study.game, (p.prepared.agents for p in study.pairings))
    limit = batch_limit(searching=searching) * study_kind(study.kind).limit_factor
    if study.count > limit:
        where = "" if uses_broker() else " when no broker is set"
        shape = (f"{study.units} x {study.matches_per_unit:,}" if study.units_fixed else
                 f"{len(study.pairings)} pairing(s) x {count:,}{' x 2' if study.paired else ''}")
        raise _refuse("count", f"This study would play {study.count:,} matches ({shape}); at most {limit:,} with "
                               f"these agents{where}.")


# ------------------------------------------------------------------------------------- taking turns


def with_free_chunks() -> QuerySet[Batch]:
    """Unfinished batches with a chunk that is neither stored nor claimed."""

    def count_of(model) -> Coalesce:
        rows = model.objects.filter(batch=OuterRef("pk")).order_by().values("batch").annotate(n=Count("pk"))
        return Coalesce(Subquery(rows.values("n")), Value(0))

    return (Batch.objects.filter(status__in=UNFINISHED)
            .annotate(taken=count_of(BatchChunk) + count_of(ChunkClaim)).filter(chunks__gt=F("taken")))


def in_turn() -> QuerySet[Batch]:
    """Batches with a free chunk, in the order of their turns: of the client served least recently (one never
    served first), then of that client's batches the one served least recently, then the oldest."""
    return with_free_chunks().order_by(F("queued_by__served_at").asc(nulls_first=True),
                                       F("served_at").asc(nulls_first=True), "created_at", "pk")


def free_chunks(batch: Batch) -> list[int]:
    """The chunks of the batch neither stored nor claimed, in order."""
    taken = set(BatchChunk.objects.filter(batch=batch).values_list("index", flat=True))
    taken.update(ChunkClaim.objects.filter(batch=batch).values_list("index", flat=True))
    return [index for index in range(batch.chunks) if index not in taken]


def take_chunk(*, runner_name: str, task: str = "", batch_id=None) -> tuple[Any, int] | None:
    """Hand a chunk to a runner to play: (batch id, index), claimed for it. The chunk this Celery `task` was
    handed before if it has one (the task is delivered again after its worker died), else the first free
    chunk of the batch whose turn it is (`in_turn`), or of batch `batch_id` only. None when none is free."""
    now = timezone.now()
    runner_name = runner_name[:100]
    if task:
        claim = ChunkClaim.objects.filter(task=task, batch__status__in=UNFINISHED).first()
        if claim is not None:
            ChunkClaim.objects.filter(pk=claim.pk).update(runner=runner_name, claimed_at=now)
            Batch.objects.filter(pk=claim.batch_id).update(runner=runner_name, heartbeat_at=now)
            return claim.batch_id, claim.index
    batches = in_turn() if batch_id is None else with_free_chunks().filter(pk=batch_id)
    for attempt in range(TAKE_ATTEMPTS):
        with transaction.atomic():
            first = batches.values_list("pk", flat=True).first()
            if first is None:
                return None
            # Locked, then read again: a runner that found the same batch waits here, then sees what the
            # other one took (SQLite's transaction holds the write lock from its start anyway).
            batch = Batch.objects.select_for_update().filter(pk=first, status__in=UNFINISHED).first()
            free = free_chunks(batch) if batch is not None else []
            if batch is None or not free or (attempt < TURN_CHECKS and batches.values_list("pk", flat=True).first() != first):
                continue
            ChunkClaim.objects.create(batch=batch, index=free[0], runner=runner_name, task=task[:64], claimed_at=now)
            Batch.objects.filter(pk=batch.pk).update(status=Batch.Status.RUNNING, runner=runner_name, served_at=now,
                                                     heartbeat_at=now, updated_at=now)
            if batch.queued_by_id is not None:
                StudyClient.objects.filter(pk=batch.queued_by_id).update(served_at=now)
            return batch.pk, free[0]
    return None


# ------------------------------------------------------------------------------------- playing


def run_chunk(batch_id, index: int, *, runner_name: str = "", study: studies.Study | None = None) -> bool:
    """Play chunk `index` of a batch and store it (once); False when there was nothing to do (the batch is
    over or gone, or the chunk was stored already). A failure marks the batch failed."""
    batch = Batch.objects.select_related("owner").filter(pk=batch_id).first()
    if batch is None or batch.status not in (Batch.Status.QUEUED, Batch.Status.RUNNING):
        return False
    if batch.chunk_rows.filter(index=index).exists():
        return False
    if batch.status == Batch.Status.QUEUED:
        Batch.objects.filter(pk=batch.pk, status=Batch.Status.QUEUED).update(status=Batch.Status.RUNNING,
                                                                             updated_at=timezone.now())
    try:
        study = study or planned(batch)
        start, stop = studies.chunk_bounds(batch, index)
        tally = studies.play_chunk(study, batch.seed, start, stop, cancelled=lambda: cancelled_or_alive(batch.pk))
    except Exception as exc:  # a batch must end in a state its owner can read, whatever went wrong
        logger.exception("Chunk %s of batch %s failed", index, batch.pk)
        fail(batch.pk, exc)
        return False
    if tally is None:
        return False
    return studies.store_chunk(batch.pk, index, tally, runner_name=runner_name)


_planned: OrderedDict[Any, studies.Study] = OrderedDict()
PLANNED_KEPT = 8  # studies a worker process keeps planned, the latest used


def planned(batch: Batch) -> studies.Study:
    """The batch's study, planned once per process for all the chunks this process plays (the catalogue is
    read once, not per chunk)."""
    study = _planned.pop(batch.pk, None) or studies.study_of(batch)
    _planned[batch.pk] = study
    while len(_planned) > PLANNED_KEPT:
        _planned.popitem(last=False)
    return study


def is_cancelled(batch_id) -> bool:
    return Batch.objects.filter(pk=batch_id, status=Batch.Status.CANCELLED).exists()


def cancelled_or_alive(batch_id) -> bool:
    """Whether the batch was cancelled (or deleted); else its heartbeat is renewed, so that a runner deep in a
    long chunk (an army search's island plays for minutes) is not taken for gone and its chunk played twice."""
    return not Batch.objects.filter(pk=batch_id).exclude(status=Batch.Status.CANCELLED).update(
        heartbeat_at=timezone.now())


def fail(batch_id, exc: Exception) -> None:
    now = timezone.now()
    with transaction.atomic():
        Batch.objects.filter(pk=batch_id, status__in=[Batch.Status.QUEUED, Batch.Status.RUNNING]).update(
            status=Batch.Status.FAILED, error=f"{type(exc).__name__}: {exc}"[:2000], finished_at=now, updated_at=now)
        ChunkClaim.objects.filter(batch_id=batch_id).delete()


def serve_queue(*, runner_name: str | None = None) -> int:
    """Take chunks in turn and play them in this process until none is free (the service's own thread when
    no broker is set); how many were taken."""
    runner_name = runner_name or new_runner_name()
    taken = 0
    while (chunk := take_chunk(runner_name=runner_name)) is not None:
        run_chunk(*chunk, runner_name=runner_name)
        taken += 1
    return taken


def play_here(batch_id, *, runner_name: str | None = None,
              progress: Callable[[Batch], None] | None = None) -> Batch | None:
    """Play the batch's free chunks in order in this process (the command line), each claimed as it is taken,
    so that chunks other runners hold are not played twice. Returns the batch as it stands."""
    runner_name = runner_name or new_runner_name()
    batch = Batch.objects.select_related("owner").filter(pk=batch_id).first()
    if batch is None or batch.status not in UNFINISHED:
        return batch
    try:
        study = studies.study_of(batch)
    except Exception as exc:
        logger.exception("Batch %s could not be planned", batch.pk)
        fail(batch.pk, exc)
        return Batch.objects.filter(pk=batch_id).first()
    while (chunk := take_chunk(runner_name=runner_name, batch_id=batch.pk)) is not None:
        run_chunk(batch.pk, chunk[1], runner_name=runner_name, study=study)
        if progress is not None:
            progress(Batch.objects.get(pk=batch.pk))
    return Batch.objects.filter(pk=batch_id).first()


def play_on_cores(batch_id, *, processes: int, progress: Callable[[Batch], None] | None = None) -> Batch | None:
    """Play the batch's free chunks on `processes` processes of this machine: this one and processes forked from
    it, each a runner taking chunks as `play_here` does (so no chunk is played twice, and the figures are the
    same however the chunks fell). A forked process that dies leaves its chunk claimed: the claim is dropped
    and the chunk played here. Inside a transaction it plays on this process alone: another process could not
    see the batch. Returns the batch as it stands."""
    if processes <= 1 or connections["default"].in_atomic_block:
        return play_here(batch_id, progress=progress)
    connections.close_all()  # each process opens its own: a connection must not cross a fork
    context = multiprocessing.get_context("fork")  # no second start-up of Django per process
    helpers = [context.Process(target=_play_forked, args=(batch_id,), daemon=True) for _ in range(processes - 1)]
    for helper in helpers:
        helper.start()
    try:
        play_here(batch_id, progress=progress)
    except BaseException:  # interrupted or failed here: the others stop too (the caller says what became of it)
        for helper in helpers:
            helper.terminate()
        raise
    finally:
        for helper in helpers:
            helper.join()
    gone = Q()
    for helper in helpers:  # a runner's name holds its process id (services.new_runner_name)
        gone |= Q(runner__contains=f":{helper.pid}:")
    dropped, _ = ChunkClaim.objects.filter(gone, batch_id=batch_id).delete()
    if dropped:
        logger.warning("Batch %s: %d chunks left by a process that ended; played here", batch_id, dropped)
    return play_here(batch_id, progress=progress)


def _play_forked(batch_id) -> None:
    """A forked process's part of `play_on_cores`, as a runner of its own name."""
    try:
        play_here(batch_id)
    finally:
        connections.close_all()


def cancel_batch(batch: Batch) -> Batch:
    """Stop a queued or running batch: no pending chunk is played any more, the figures stored so far stay
    readable. A batch that is over is answered as it is."""
    now = timezone.now()
    with transaction.atomic():
        Batch.objects.filter(pk=batch.pk, status__in=[Batch.Status.QUEUED, Batch.Status.RUNNING]).update(
            status=Batch.Status.CANCELLED, finished_at=now, updated_at=now)
        ChunkClaim.objects.filter(batch=batch).delete()
    batch.refresh_from_db()
    return batch


# ------------------------------------------------------------------------------ runners and restarts


def stale_before(now: datetime) -> datetime:
    """A batch that took and stored nothing since this moment is taken for left without a runner."""
    return now - timedelta(seconds=setting("SIMULATE_BATCH_STALE_SECONDS"))


def requeue_stale_batches(*, queued_for: timedelta | None = None, limit: int = 100) -> list:
    """Batches no live runner serves, set back to queued with their stored chunks kept and their claims
    dropped (every claim is older than the batch's last chunk taken): those that took and stored nothing for
    the stale time (with a broker, `queued_for`: its queue keeps the chunks, and a killed worker's chunk
    comes back by itself). Their ids, to hand out again."""
    now = timezone.now()
    quiet_since = now - queued_for if queued_for is not None else stale_before(now)
    quiet = Q(heartbeat_at__lt=quiet_since) | Q(heartbeat_at__isnull=True)
    left = Q(status__in=[Batch.Status.QUEUED, Batch.Status.RUNNING], updated_at__lt=quiet_since) & quiet
    requeued = []
    for pk in Batch.objects.filter(left).order_by("updated_at").values_list("pk", flat=True)[:limit]:
        with transaction.atomic():
            # The same condition again: a runner may have taken a chunk of it since the read.
            if Batch.objects.filter(left, pk=pk).update(status=Batch.Status.QUEUED, runner="", updated_at=now):
                ChunkClaim.objects.filter(batch_id=pk).delete()
                requeued.append(pk)
    return requeued


def progress_of(batch: Batch) -> Mapping[str, Any]:
    """`played` of `count`, as a share (for progress bars)."""
    return {"played": batch.played, "count": batch.count,
            "share": round(batch.played / batch.count, 4) if batch.count else 1.0}


def wait_for(batch_id, *, timeout: float, every: float = 0.5) -> Batch:
    """Poll a batch until it is over or `timeout` seconds pass (for the command line and tools)."""
    deadline = time.monotonic() + timeout
    batch = Batch.objects.get(pk=batch_id)
    while batch.status in (Batch.Status.QUEUED, Batch.Status.RUNNING) and time.monotonic() < deadline:
        time.sleep(every)
        batch.refresh_from_db()
    return batch
