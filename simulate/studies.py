"""The balance lab: a batch is a study of one `kind`, planned into pairings and played in chunks.

A study is a list of pairings (two armies or team setups, their agents and options), each played
`per_pairing` times: match i of a pairing with seed + i, the sides swapped in every odd match when asked.
A pairing with a pool draws its two sides from it with a generator of its own, seeded from the match. What a
study plans, how a unit of play is played and counted and how results are read off the tally is its kind's
(simulate.study_kinds): by default a unit is one match, unit u being match u % per_pairing of pairing
u // per_pairing; a paired study plays every pairing with the unit's seed.

Units are split into chunks. A chunk is played anywhere (a Celery worker, the service's thread, the
command line) into a tally of integer counts (simulate.engine.tally); storing it adds it to the batch's
tally once, in one transaction, so that results never depend on how, where or in which order chunks ran.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.db import IntegrityError, transaction
from django.utils import timezone

from simulate import pinning, services
from simulate.engine.tally import Tally, ci_width, merge
from simulate.models import Batch, BatchChunk, ChunkClaim
from simulate.services import game_matches, game_studies
from simulate.study_kinds import study_kind
from simulate.study_kinds.base import PlanRequest, Study, UnitCancelled, merge_all

logger = logging.getLogger(__name__)

CHUNK_MATCHES = 500  # matches per chunk: a fraction of a second to a few seconds of one core (greedy)
SEARCH_CHUNK_MATCHES = 10  # a search match costs up to a second
CANCEL_CHECK_SECONDS = 1.0  # a chunk looks at most this often whether its batch was cancelled


def plan(*, game: str, kind: str, inputs: Mapping[str, Any], per_pairing: int, swap_sides: bool,
         user=None) -> Study:
    """The pairings of a study from its request, as its kind plans them; InputError or IllegalMatchSetup
    naming what is wrong."""
    request = PlanRequest(game, inputs, per_pairing, swap_sides, user or AnonymousUser(), game_studies(game))
    return study_kind(kind).plan(request)


def chunk_units(study: Study) -> int:
    """Units per chunk: about CHUNK_MATCHES matches (SEARCH_CHUNK_MATCHES when a look-ahead agent plays)."""
    searching = services.plays_lookahead(study.game, (p.prepared.agents for p in study.pairings))
    matches = SEARCH_CHUNK_MATCHES if searching else CHUNK_MATCHES
    return max(1, matches // study.matches_per_unit)


def study_of(batch: Batch) -> Study:
    """The study of a stored batch: its frozen plan, or (stored before plans were frozen) planned again from
    its request, for its owner."""
    if batch.frozen is not None:
        return pinning.thaw(batch.frozen.data, batch.per_pairing)
    return plan(game=batch.game, kind=batch.kind, inputs=batch.inputs, per_pairing=batch.per_pairing,
                swap_sides=batch.swap_sides, user=batch.owner or AnonymousUser())


# ------------------------------------------------------------------------------------- playing


def play_chunk(study: Study, seed: int, start: int, stop: int,
               cancelled: Callable[[], bool] | None = None) -> Tally | None:
    """Play units start..stop-1 into a tally; None if `cancelled` says so on the way (looked at between units,
    and within a long unit, at most every CANCEL_CHECK_SECONDS)."""
    kind = study_kind(study.kind)
    tally = kind.new_tally(study)
    looked_at = time.monotonic()

    def stop_now() -> bool:
        nonlocal looked_at
        if cancelled is None or time.monotonic() - looked_at < CANCEL_CHECK_SECONDS:
            return False
        looked_at = time.monotonic()
        return cancelled()

    try:
        for unit in range(start, stop):
            if stop_now():
                return None
            kind.play_long_unit(study, unit, seed, tally, stop_now)
    except UnitCancelled:
        return None
    return tally


def chunk_bounds(batch: Batch, index: int) -> tuple[int, int]:
    """The units of chunk `index` of a batch."""
    start = index * batch.chunk_size
    return start, min(batch.plan["units"], start + batch.chunk_size)


# ------------------------------------------------------------------------------------- storing


def store_chunk(batch_id, index: int, tally: Tally, *, runner_name: str = "") -> bool:
    """Add one chunk's counts to its batch, once: False (and nothing added) when that chunk was stored
    already or the batch is over. Finishes the batch when it is complete (or its interval narrow enough)."""
    with transaction.atomic():
        batch = Batch.objects.select_for_update().filter(pk=batch_id).first()
        if batch is None or batch.status in (Batch.Status.DONE, Batch.Status.CANCELLED, Batch.Status.FAILED):
            return False
        start, stop = chunk_bounds(batch, index)
        played = sum(leg["matches"] for leg in tally["pairings"])
        try:
            with transaction.atomic():
                BatchChunk.objects.create(batch=batch, index=index, start=start, stop=stop, played=played,
                                          tally=tally, runner=runner_name[:100])
        except IntegrityError:
            return False
        ChunkClaim.objects.filter(batch=batch, index=index).delete()
        merged = merge(batch.tally["sum"], tally) if batch.tally.get("sum") else tally
        batch.tally = {**batch.tally, "sum": merged, "stored": batch.tally.get("stored", 0) + 1}
        batch.played += played
        now = timezone.now()
        batch.heartbeat_at = batch.updated_at = now
        if batch.status == Batch.Status.QUEUED:
            batch.status = Batch.Status.RUNNING
        rule = stop_rule(batch)
        prefix = _stopping_prefix(batch, rule) if rule is not None else None
        if prefix is not None or batch.tally["stored"] >= batch.chunks:
            finish(batch, prefix)
            ChunkClaim.objects.filter(batch=batch).delete()  # chunks still out when its interval was narrow
        else:
            batch.results = results_of(batch, merged)
            batch.summary = legacy_summary(batch, merged)
        batch.save()
    return True


def stop_rule(batch: Batch) -> Callable[[Tally], bool] | None:
    """What stops a batch before its count: its interval narrow enough (`until_ci_width`), or its kind's own
    rule (a sequential test decided); None: it plays its count."""
    limit = batch.until_ci_width
    if limit is not None:
        return lambda total: ci_width(total["pairings"][0]) <= limit
    return study_kind(batch.kind).stop_rule(batch)


def _stopping_prefix(batch: Batch, rule: Callable[[Tally], bool]) -> tuple[Tally, int] | None:
    """The sum of chunks 0..k-1 and k, for the first k at which `rule` says the batch is answered, every one
    of those chunks stored (so the stop is the same however chunks were spread). The sum of the chunks
    stored in a row from 0 is kept with the batch (`prefix`), so each chunk is read once."""
    kept = batch.tally.get("prefix") or {"chunks": 0, "sum": None}
    total, expected = kept["sum"], kept["chunks"]
    rows = BatchChunk.objects.filter(batch=batch, index__gte=expected).order_by("index").only("index", "tally")
    for row in rows:
        if row.index != expected:  # a chunk before it is still to come
            break
        total = row.tally if total is None else merge(total, row.tally)
        expected += 1
        if rule(total):
            return total, expected
    batch.tally = {**batch.tally, "prefix": {"chunks": expected, "sum": total}}
    return None


def finish(batch: Batch, prefix: tuple[Tally, int] | None = None) -> None:
    """Mark a complete batch done, its results read off every chunk it needs: all of them, or the `prefix`
    of chunks at which its interval became narrow enough (its sum, and how many chunks)."""
    total = batch.tally["sum"]
    batch.tally = {key: value for key, value in batch.tally.items() if key != "prefix"}  # needed no more
    if prefix is not None:
        total, used = prefix
        batch.tally = {**batch.tally, "sum": total, "stopped_at_chunk": used}
        batch.played = sum(leg["matches"] for leg in total["pairings"])
    batch.results = results_of(batch, total)
    batch.summary = legacy_summary(batch, total)
    batch.status = Batch.Status.DONE
    batch.finished_at = timezone.now()
    study_kind(batch.kind).finished(batch)


def pending_chunks(batch: Batch) -> list[int]:
    stored = set(BatchChunk.objects.filter(batch=batch).values_list("index", flat=True))
    return [index for index in range(batch.chunks) if index not in stored]


# ------------------------------------------------------------------------------------- results


def results_of(batch: Batch, total: Tally) -> dict[str, Any]:
    """Everything measured of a batch, from its summed tally, as its kind reads it (docs/simulate.md)."""
    return study_kind(batch.kind).results(batch, total, game_studies(batch.game))


def legacy_summary(batch: Batch, total: Tally) -> dict[str, Any]:
    """The batch's `summary` as it always read: wins per side as given, draws, reasons, rounds."""
    matches = game_matches(batch.game)
    all_legs = merge_all(total["pairings"])
    rounds = {int(r): n for r, n in all_legs["rounds"].items()}
    first, second = matches.sides
    summary = {"wins": {first: all_legs["wins"], second: all_legs["losses"]}, "draws": all_legs["draws"],
               "reasons": all_legs["reasons"], "rounds": {"total": sum(r * n for r, n in rounds.items())}}
    if rounds:
        summary["rounds"].update(min=min(rounds), max=max(rounds))
    return summary
