"""Playing matches for the API and the command line: prepare a request, run it, store it; batches of them.

Nothing here knows a game. Each game app registers its `GameMatches` from its `ready()`: the
request it takes, how such a request becomes an engine match (setup, options, agents) and how a
played match reads. Refusals are an `InputError` (with the request paths at fault) or an
`IllegalMatchSetup` (with every rule violation); the API maps both in one place.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from django.conf import settings
from django.utils import timezone

from simulate.engine import runner
from simulate.engine.agents import agent_names
from simulate.engine.errors import InputError, UnknownAgentError, UnknownGameError
from simulate.engine.runner import MatchResult
from simulate.models import Batch, Match

if TYPE_CHECKING:
    from argparse import ArgumentParser

    from rest_framework.serializers import Serializer

SEED_LIMIT = 2**63 - 1
MAX_BATCH = 10_000

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
    """A game app's part in playing matches: its request, its preparation and how a played match reads."""

    game: str  # the game's name in `simulate.engine.games.GAMES`
    sides: tuple[str, str]  # the two sides as the engine names winners, first side first
    match_request: type[Serializer]  # the body of POST /api/simulate/<game>/matches/
    batch_request: type[Serializer]  # a match body plus `count` and `swap_sides`

    def prepare(self, *, inputs: Mapping[str, Any], agents: Any, user) -> PreparedMatch:
        """The engine match of a validated request (`agents` as given, None for the default), its
        catalogue read once; InputError naming the request paths at fault, IllegalMatchSetup."""

    def swapped(self, prepared: PreparedMatch) -> PreparedMatch:
        """The same match with the two sides exchanged (their setups and their agents)."""

    def shown_winner(self, winner: str | None) -> str | int | None:
        """A stored winner as the API answers it."""

    def result_fields(self, match: Match) -> dict[str, Any]:
        """Fields of this game's own that the API adds to a played match."""

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
    """The batch's match prepared once for all its matches (the catalogue read once)."""
    return prepare_match(game=batch.game, inputs=batch.inputs, agents=batch.inputs.get("agents"), user=batch.owner)


def create_batch(*, game: str, inputs: dict[str, Any], count: int, seed: int | None = None,
                 swap_sides: bool = False, user=None) -> Batch:
    """Store a batch once it is checked like a single match (its setup, agents and size); queue it after."""
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
    """Refuse, before anything is queued, what would make the batch fail: its setup, its agents, its size."""
    prepared = prepare_batch(batch)
    limit = batch_limit(searching="search" in seat_agent_names(prepared.agents))
    if batch.count > limit:
        where = "" if settings.CELERY_BROKER_URL else " when no broker is set"
        message = f"At most {limit} matches in a batch with these agents{where}."
        raise InputError(message, [("count", message)])


def batch_limit(*, searching: bool) -> int:
    """How many matches one batch may hold: look-ahead agents cost ~100x, and without a broker the
    batch runs inside the request."""
    limit = MAX_BATCH if settings.CELERY_BROKER_URL else MAX_BATCH // 5
    return limit // 20 if searching else limit


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


def run_batch(*, batch_id) -> Batch:
    """Play every match of a batch, saving progress as it goes; a failure is recorded, not raised."""
    batch = Batch.objects.select_related("owner").get(pk=batch_id)
    Batch.objects.filter(pk=batch.pk).update(status=Batch.Status.RUNNING, updated_at=timezone.now())
    summary = new_summary(batch.game)
    step = max(1, batch.count // 50)
    try:
        play_one = batch_player(batch)
        for index in range(batch.count):
            add_to_summary(summary, *play_one(index))
            if (index + 1) % step == 0 and index + 1 < batch.count:
                Batch.objects.filter(pk=batch.pk).update(played=index + 1, summary=summary,
                                                         updated_at=timezone.now())
    except Exception as exc:  # a batch must end in a state its owner can read, whatever went wrong
        logger.exception("Batch %s failed", batch.pk)
        Batch.objects.filter(pk=batch.pk).update(
            status=Batch.Status.FAILED, error=f"{type(exc).__name__}: {exc}", summary=summary,
            finished_at=timezone.now(), updated_at=timezone.now(),
        )
    else:
        summary["rounds"]["mean"] = round(summary["rounds"]["total"] / batch.count, 2)
        Batch.objects.filter(pk=batch.pk).update(
            status=Batch.Status.DONE, played=batch.count, summary=summary, finished_at=timezone.now(),
            updated_at=timezone.now(),
        )
    batch.refresh_from_db()
    return batch
