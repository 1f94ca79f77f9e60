"""Playing matches for the API and the command line: prepare a request, run it, store it; batches of them.

Nothing here knows a game. Each game app registers its `GameMatches` from its `ready()`: the
request it takes, how such a request becomes an engine match (setup, options, agents) and how a
played match reads. Refusals are an `InputError` (with the request paths at fault) or an
`IllegalMatchSetup` (with every rule violation); the API maps both in one place.
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Protocol

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.db.models import Q
from django.utils import timezone

from simulate.conf import setting
from simulate.engine import runner
from simulate.engine.agents import agent_names
from simulate.engine.errors import InputError, UnknownAgentError, UnknownGameError
from simulate.engine.runner import MatchResult
from simulate.models import Batch, Match

if TYPE_CHECKING:
    from argparse import ArgumentParser

    from rest_framework.serializers import Serializer

SEED_LIMIT = 2**63 - 1  # seeds are 0 to 2^63 - 1, so that every seed fits a database's 64-bit integer

# Bounds on one batch, by where it runs and whether a look-ahead (search) agent plays in it.
MAX_BATCH = 10_000  # on Celery workers
MAX_SEARCH_BATCH = 500
MAX_LOCAL_BATCH = 2_000  # on the service's own background thread (no broker set)
MAX_LOCAL_SEARCH_BATCH = 100
HEARTBEAT_SECONDS = 10  # a running batch saves its progress at least this often
# With a broker a queued batch waits in the broker's queue, which keeps it: it is handed out again
# only when it has waited this long (a broker that lost its queue), not after the stale time.
BROKER_QUEUED_FOR = timedelta(minutes=15)

logger = logging.getLogger(__name__)


class IllegalMatchSetup(Exception):
    """Armies or team setups that break the rules; `violations` lists every one."""

    def __init__(self, violations: list[dict], message: str):
        super().__init__(message)
        self.violations = violations


@dataclass(frozen=True)
class PreparedMatch:
    """A match request made ready for the runner."""

    setup: Any  # the engine setup, catalogue snapshot included
    agents: Mapping[str, str] | Sequence[str]  # an agent name per seat, as the runner takes them
    options: dict[str, Any]  # validated, defaults filled in
    stored_setup: dict[str, Any]  # the setup as a Match row keeps it (plain JSON)


class GameMatches(Protocol):
    """A game app's part in playing matches: its requests, its preparation and its answers."""

    game: str  # the game's name in `simulate.engine.games.GAMES`
    sides: tuple[str, str]  # the two sides as the engine names winners, first side first
    match_request: type[Serializer]  # validates the body of POST /api/simulate/<game>/matches/
    batch_request: type[Serializer]  # a match body plus `count` and `swap_sides`
    # The same bodies as the schema shows them (a serializer, or a oneOf of the shapes they take).
    match_request_schema: Serializer | type[Serializer]
    batch_request_schema: Serializer | type[Serializer]
    match_result: type[Serializer]  # a played match as the API answers it, the game's fields typed
    batch_result: type[Serializer]  # a batch as the API answers it

    def prepare(self, *, inputs: Mapping[str, Any], agents: Any, user) -> PreparedMatch:
        """The engine match of a validated request (`agents` as given, None for the default), its
        catalogue read once; InputError naming the request paths at fault, IllegalMatchSetup."""

    def swapped(self, prepared: PreparedMatch) -> PreparedMatch:
        """The same match with the two sides exchanged (their setups and their agents)."""

    def add_command_arguments(self, parser: ArgumentParser) -> None:
        """This game's own flags of `manage.py simulate` (in a group of its own)."""

    def command_request(self, arguments: Mapping[str, Any], seed: int) -> tuple[dict[str, Any], Any]:
        """The inputs and agents of a match from the command's arguments; InputError if they do not make one."""


GAME_MATCHES: dict[str, GameMatches] = {}


def register_game_matches(matches: GameMatches) -> None:
    """Make a game playable through these services (called from the game app's `ready()`)."""
    GAME_MATCHES[matches.game] = matches


def game_matches(game: str) -> GameMatches:
    """The registered part of `game`; UnknownGameError for a game that has none."""
    matches = GAME_MATCHES.get(game)
    if matches is None:
        known = ", ".join(sorted(GAME_MATCHES))
        raise UnknownGameError(f"No matches can be played for game {game!r}; known games: {known}.",
                               [("game", "unknown")])
    return matches


def new_seed() -> int:
    """A seed for a request that gives none (returned with the match, so it can be replayed)."""
    return secrets.randbelow(2**31)


def seat_agent_names(agents: Mapping[str, str] | Sequence[str]) -> list[str]:
    """The agent names of a prepared match, seat by seat."""
    return list(agents.values()) if isinstance(agents, Mapping) else list(agents)


def prepare_match(*, game: str, inputs: Mapping[str, Any], agents: Any = None, user=None) -> PreparedMatch:
    """A request made ready to play: the game prepares it, then every agent name is checked."""
    prepared = game_matches(game).prepare(inputs=inputs, agents=agents, user=user)
    known = agent_names(game)
    unknown = sorted({name for name in seat_agent_names(prepared.agents) if name not in known})
    if unknown:
        message = f"Unknown agent(s) {', '.join(unknown)}; known: {', '.join(known)}."
        raise UnknownAgentError(message, [("", message)])
    return prepared


def play_match(
    *, game: str, inputs: dict[str, Any], agents: Any = None, seed: int | None = None, user=None, save: bool = True
) -> tuple[Match, MatchResult]:
    """Play one match synchronously and store it with its log (unless `save` is False)."""
    prepared = prepare_match(game=game, inputs=inputs, agents=agents, user=user)
    seed = new_seed() if seed is None else seed
    result = runner.play_match(game, setup=prepared.setup, agents=prepared.agents, seed=seed,
                               options=prepared.options)
    match = Match(
        game=game,
        owner=user if user is not None and user.is_authenticated else None,
        inputs=inputs,
        setup=prepared.stored_setup,
        agents=result.agents,
        options=result.options,
        seed=seed,
        winner=result.winner,
        reason=result.reason,
        rounds=result.rounds,
        actions=result.actions,
        survivors=result.survivors,
        schema_version=result.schema_version,
    )
    match.events = result.events or []
    if save:
        match.save()
    return match, result


# ---------------------------------------------------------------------------------------- batches
#
# A request stores a batch and hands it to the background (simulate.background): it never plays one.
# A runner claims the batch (one runner at a time), plays match i with seed + i, and saves `played`
# with the summary so far in one update, at least every HEARTBEAT_SECONDS: that update is its
# heartbeat. A batch whose runner went quiet for SIMULATE_BATCH_STALE_SECONDS (its process was
# restarted or killed) is queued again and resumes from the progress it saved, with the same figures.


def batch_player(batch: Batch):
    """A function playing match i of the batch (no log), its match prepared once for all."""
    prepared = prepare_batch(batch)
    versions = [prepared, game_matches(batch.game).swapped(prepared)] if batch.swap_sides else [prepared]
    first, second = game_matches(batch.game).sides

    def play_one(index: int) -> tuple[str | None, MatchResult]:
        """Match `index`: its winner as given in the request (sides swapped back) and its result."""
        swapped = batch.swap_sides and index % 2 == 1
        match = versions[1 if swapped else 0]
        result = runner.play_match(batch.game, setup=match.setup, agents=match.agents, seed=batch.seed + index,
                                   options=match.options, keep_log=False)
        winner = result.winner
        if swapped and winner is not None:
            winner = second if winner == first else first
        return winner, result

    return play_one


def prepare_batch(batch: Batch) -> PreparedMatch:
    """The batch's match prepared once for all its matches (the catalogue read once), for its owner: an
    anonymous batch is prepared for an anonymous user (whose saved rows are none)."""
    return prepare_match(game=batch.game, inputs=batch.inputs, agents=batch.inputs.get("agents"),
                         user=batch.owner or AnonymousUser())


def create_batch(*, game: str, inputs: dict[str, Any], count: int, seed: int | None = None,
                 swap_sides: bool = False, user=None) -> Batch:
    """Store a batch once it is checked like a single match (its setup, agents, size and seeds); the caller
    hands it to the background after."""
    batch = Batch(
        game=game,
        owner=user if user is not None and user.is_authenticated else None,
        inputs=inputs,
        count=count,
        seed=new_seed() if seed is None else seed,
        swap_sides=swap_sides,
    )
    check_batch(batch)
    batch.save()
    return batch


def check_batch(batch: Batch) -> None:
    """Refuse, before anything is stored, what would make the batch fail: its setup, its agents, its size,
    and seeds past the seed range (match i is played with seed + i)."""
    prepared = prepare_batch(batch)
    limit = batch_limit(searching="search" in seat_agent_names(prepared.agents))
    if batch.count > limit:
        where = "" if settings.CELERY_BROKER_URL else " when no broker is set"
        message = f"At most {limit} matches in a batch with these agents{where}."
        raise InputError(message, [("count", message)])
    if batch.seed + batch.count - 1 > SEED_LIMIT:
        message = (f"Match i of a batch is played with seed + i, so seed + count - 1 must be at most {SEED_LIMIT}: "
                   f"give a seed of at most {SEED_LIMIT - batch.count + 1} for {batch.count} matches.")
        raise InputError(message, [("seed", message)])


def batch_limit(*, searching: bool) -> int:
    """How many matches one batch may hold: fewer on the service's own thread (no broker) than on workers,
    and fewer again when a look-ahead agent plays (a search match costs up to a second of CPU)."""
    if settings.CELERY_BROKER_URL:
        return MAX_SEARCH_BATCH if searching else MAX_BATCH
    return MAX_LOCAL_SEARCH_BATCH if searching else MAX_LOCAL_BATCH


def new_summary(game: str) -> dict:
    return {"wins": dict.fromkeys(game_matches(game).sides, 0), "draws": 0, "reasons": {}, "rounds": {"total": 0}}


def add_to_summary(summary: dict, winner: str | None, result: MatchResult) -> None:
    """Count one match: wins per side as given, draws, reasons and rounds."""
    if winner is None:
        summary["draws"] += 1
    else:
        summary["wins"][winner] += 1
    summary["reasons"][result.reason] = summary["reasons"].get(result.reason, 0) + 1
    rounds = summary["rounds"]
    rounds["total"] += result.rounds
    rounds["min"] = min(rounds.get("min", result.rounds), result.rounds)
    rounds["max"] = max(rounds.get("max", result.rounds), result.rounds)


def new_runner_name() -> str:
    """A name no other runner has: host, process and a random part."""
    return f"{socket.gethostname()[:60]}:{os.getpid()}:{secrets.token_hex(4)}"


def stale_before(now: datetime) -> datetime:
    """A runner that saved nothing since this moment is taken for dead."""
    return now - timedelta(seconds=setting("SIMULATE_BATCH_STALE_SECONDS"))


def claimable(now: datetime) -> Q:
    """Batches a runner may take: queued ones, and running ones whose runner went quiet."""
    stale = stale_before(now)
    quiet = Q(heartbeat_at__lt=stale) | Q(heartbeat_at__isnull=True, updated_at__lt=stale)
    return Q(status=Batch.Status.QUEUED) | (Q(status=Batch.Status.RUNNING) & quiet)


def claim_batch(batch_id, runner_name: str) -> bool:
    """Take the batch for `runner_name` in one conditional update; False when another runner holds it or it
    is over (or gone)."""
    now = timezone.now()
    taken = Batch.objects.filter(claimable(now), pk=batch_id).update(
        status=Batch.Status.RUNNING, runner=runner_name, heartbeat_at=now, updated_at=now
    )
    return taken == 1


def requeue_stale_batches(*, queued_for: timedelta | None = None, limit: int = 100) -> list:
    """Batches no live runner holds, set back to queued with their progress kept: running ones whose runner
    went quiet, and queued ones left waiting `queued_for` (default: the stale time) since they were last
    handed out. Their ids, to hand out again."""
    now = timezone.now()
    waited = now - queued_for if queued_for is not None else stale_before(now)
    left = claimable(now) & ~Q(status=Batch.Status.QUEUED, updated_at__gte=waited)
    requeued = []
    for pk in Batch.objects.filter(left).order_by("updated_at").values_list("pk", flat=True)[:limit]:
        # The same condition again: a runner may have claimed it since the read.
        if Batch.objects.filter(left, pk=pk).update(status=Batch.Status.QUEUED, runner="", updated_at=now):
            requeued.append(pk)
    return requeued


def run_batch(*, batch_id, runner_name: str | None = None) -> Batch | None:
    """Claim the batch and play it to the end from its saved progress, saving progress as it goes; a failure
    is recorded, not raised. Returns the batch as it stands (None if it is gone), having played nothing when
    another runner holds it, it is over, or it was taken over meanwhile."""
    runner_name = runner_name or new_runner_name()
    if not claim_batch(batch_id, runner_name):
        return Batch.objects.filter(pk=batch_id).first()
    batch = Batch.objects.select_related("owner").get(pk=batch_id)
    held = Batch.objects.filter(pk=batch.pk, runner=runner_name)  # every write checks the batch is still ours
    start = batch.played if batch.summary.get("wins") else 0
    summary = batch.summary if start else new_summary(batch.game)
    step = max(1, batch.count // 50)
    saved_at = time.monotonic()
    try:
        play_one = batch_player(batch)
        for index in range(start, batch.count):
            add_to_summary(summary, *play_one(index))
            played = index + 1
            if played < batch.count and (played % step == 0 or time.monotonic() - saved_at >= HEARTBEAT_SECONDS):
                now = timezone.now()
                if not held.update(played=played, summary=summary, heartbeat_at=now, updated_at=now):
                    logger.warning("Batch %s was taken over or deleted; runner %s stops.", batch.pk, runner_name)
                    return Batch.objects.filter(pk=batch.pk).first()
                saved_at = time.monotonic()
    except Exception as exc:  # a batch must end in a state its owner can read, whatever went wrong
        logger.exception("Batch %s failed", batch.pk)
        now = timezone.now()
        held.update(status=Batch.Status.FAILED, error=f"{type(exc).__name__}: {exc}", summary=summary,
                    finished_at=now, updated_at=now, heartbeat_at=now)
    else:
        summary["rounds"]["mean"] = round(summary["rounds"]["total"] / batch.count, 2)
        now = timezone.now()
        held.update(status=Batch.Status.DONE, played=batch.count, summary=summary, finished_at=now,
                    updated_at=now, heartbeat_at=now)
    return Batch.objects.filter(pk=batch.pk).first()


# ------------------------------------------------------------------------------------- expiry

DELETE_CHUNK = 1_000  # rows per delete, so that no transaction holds many locks for long


def expiry_cutoff(*, now: datetime | None = None, days: int | None = None) -> datetime:
    """Anonymous matches and batches created before this moment have expired."""
    days = setting("SIMULATE_ANONYMOUS_EXPIRY_DAYS") if days is None else days
    return (now or timezone.now()) - timedelta(days=days)


def delete_expired_simulations(*, now: datetime | None = None, days: int | None = None,
                               dry_run: bool = False) -> dict[str, int]:
    """Delete the anonymous matches and batches past their expiry (those of users are kept); how many of
    each (would be) deleted."""
    cutoff = expiry_cutoff(now=now, days=days)
    counts = {}
    for name, model in (("matches", Match), ("batches", Batch)):
        expired = model.objects.filter(owner__isnull=True, created_at__lt=cutoff)
        if dry_run:
            counts[name] = expired.count()
            continue
        deleted = 0
        while ids := list(expired.order_by().values_list("pk", flat=True)[:DELETE_CHUNK]):
            deleted += model.objects.filter(pk__in=ids).delete()[0]
        counts[name] = deleted
    return counts
