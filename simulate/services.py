"""Playing matches for the API and the command line: prepare a request, run it, store it; batches of them.

Nothing here knows a game. Each game app registers its `GameMatches` from its `ready()`: the
request it takes, how such a request becomes an engine match (setup, options, agents) and how a
played match reads. Refusals are an `InputError` (with the request paths at fault) or an
`IllegalMatchSetup` (with every rule violation); each says how the API answers it (cardsdb.errors).
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Protocol

from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.utils import timezone

from cardsdb.errors import DomainError
from simulate.conf import setting
from simulate.engine import runner
from simulate.engine.agents import agent_names, looks_ahead
from simulate.engine.errors import UnknownAgentError, UnknownGameError
from simulate.engine.runner import MatchResult, render_log
from simulate.models import Batch, FrozenPlan, Match, SeatedGame

if TYPE_CHECKING:
    from argparse import ArgumentParser

    from rest_framework.serializers import Serializer

    from cardsdb.models import Card, Release
    from simulate.pinning import Interned, Thawing

SEED_LIMIT = 2**63 - 1  # seeds are 0 to 2^63 - 1, so that every seed fits a database's 64-bit integer

logger = logging.getLogger(__name__)


class IllegalMatchSetup(DomainError):
    """Armies or team setups that break the rules; `violations` lists every one (answered 400)."""

    status = 400
    code = "rule_violations"

    def __init__(self, violations: list[dict], message: str):
        """Every violation, and a message saying what breaks the rules."""
        super().__init__(message or "The request breaks the rules.")
        self.violations = violations

    def details(self) -> dict[str, Any]:
        """The answer's `violations`."""
        return {"violations": self.violations}


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

    # (Read-only here, so that a game names its own serializer subclasses.)
    @property
    def match_request(self) -> type[Serializer]:
        """Validates the body of POST /api/simulate/<game>/matches/."""

    @property
    def batch_request(self) -> type[Serializer]:
        """A study: its kind, its inputs, `count`, `swap_sides`..."""

    # The same bodies as the schema shows them (a serializer, or a oneOf of the shapes they take).
    @property
    def match_request_schema(self) -> Serializer | type[Serializer]: ...
    @property
    def batch_request_schema(self) -> Serializer | type[Serializer]: ...

    @property
    def match_result(self) -> type[Serializer]:
        """A played match as the API answers it, the game's fields typed."""

    @property
    def batch_result(self) -> type[Serializer]:
        """A batch as the API answers it."""

    def prepare(self, *, inputs: Mapping[str, Any], agents: Any, user) -> PreparedMatch:
        """The engine match of a validated request (`agents` as given, None for the default), its
        catalogue read once; InputError naming the request paths at fault, IllegalMatchSetup."""

    def swapped(self, prepared: PreparedMatch) -> PreparedMatch:
        """The same match with the two sides exchanged (their setups and their agents)."""

    def add_command_arguments(self, parser: ArgumentParser) -> None:
        """This game's own flags of `manage.py simulate` (in a group of its own)."""

    def command_request(self, arguments: Mapping[str, Any], seed: int) -> tuple[dict[str, Any], Any]:
        """The inputs and agents of a match from the command's arguments; InputError if they do not make one."""


@dataclass(frozen=True)
class Tuning:
    """A number of a card that a suggestion may change: its bounds, which way weakens the card, and the step a
    screen tries first."""

    low: int
    high: int
    weakens: int  # -1: lowering it weakens the card (ATK); +1: raising it does (a cooldown)
    screen_step: int


class GameStudies(Protocol):
    """A game app's part in the balance lab (simulate.study_kinds): what its studies' pairings, draws, patches
    and flags are made of. Registered apart from its matches, from its app's `ready()`."""

    game: str
    field_groups: dict[str, str]  # a field study's groups (results key) and the key of their rows
    card_groups: dict[str, str]  # the field groups whose members are cards, and the cards' model label
    pair_paths: dict[str, str]  # where pair_inputs puts each entrant (a request path), and its side
    side_names: tuple[str, str]  # the two sides as the command's tables name them, first side first
    study_agent: str  # the agent of every seat of a study whose request names none (a match's default differs)
    field_draw: str  # how a field study draws its sides, in one sentence for its report and results
    # Optional capability: what each side did in a match adds to what it fielded (PlaysFeatures).
    plays_features: bool
    patch_request: Any  # the serializer of one patch entry as the API takes it ({"card": ..., "changes": {...}})
    tuning: dict[str, Tuning]  # the patch fields a suggestion may change, as numbers
    tuning_group: str  # the field group whose members a suggestion tunes (its cards)
    army_descriptors: dict[str, str]  # an army search's behaviour descriptors and their titles (none: no search)

    def pair_inputs(self, inputs: Mapping[str, Any], first: Any, second: Any) -> dict[str, Any]:
        """The match request of entrant `first` (first side) against `second`, with the study's options."""

    def level_agents(self, prepared: PreparedMatch, agent: str) -> Any:
        """The agents of the prepared match with `agent` in every seat (a ladder's level)."""

    def entrant_name(self, entrant: Mapping[str, Any], index: int) -> str:
        """How a matrix names an entrant given in the request."""

    def strongest_entrants(self, inputs: Mapping[str, Any]) -> tuple[list[Any], list[str]]:
        """Every faction's strongest legal entrant and its name (a matrix of `factions`); InputError if none."""

    def army_space(self, pool: Any, descriptors: Sequence[str]) -> Any:
        """What an army search explores (simulate.elites.Space, with `fielding`, `describe`, `titles`, `label`,
        `encode`, `decode`): the legal armies of the pool; InputError at `kind` for a game without army search."""

    def searched_army(self, space: Any, genome: Any) -> dict[str, Any]:
        """An army a search kept: as a study's `entrant`, its `code` and `builder_url` (read from the catalogue once
        the search is done)."""

    def faction_names(self) -> dict[str, str]:
        """Every faction's slug and name (none for a game without factions)."""

    def faction_pool(self, inputs: Mapping[str, Any], first: str, second: str, *, user,
                     path: str) -> tuple[Any, PreparedMatch]:
        """A field of faction `first`'s sides against faction `second`'s, each drawn from its faction's cards of
        the study's pool; InputError at `path` when a faction cannot field a side (or the game has none)."""

    def setup_cards(self, setup: Any) -> list[str]:
        """The cards a prepared match's engine setup plays (both sides'), by slug: what a patch of it may touch."""

    def pool_cards_of(self, pool: Any) -> list[str]:
        """The cards a field pool draws from (either side's), by slug."""

    def field_pool(self, inputs: Mapping[str, Any], *, user, release: Release | None = None) -> tuple[Any, PreparedMatch]:
        """What a field study draws from, and the match each draw plays as (its agents and options): the cards
        as they are, or with `release` as that release froze them (its versions: every field as it was)."""

    def field_setup(self, pool: Any, rng: Any) -> Any:
        """Two random legal sides drawn with `rng`: the engine setup."""

    def fielded(self, setup: Any) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
        """What each side of a drawn setup (`field_setup`) fields, by group."""

    def validated_patch(self, patch: Sequence[Mapping[str, Any]], *, user) -> Any:
        """The patched cards, each checked as an admin edit is, never saved; InputError at `patch.<i>...`."""

    def patch_values(self, card: str) -> dict[str, Any] | None:
        """A card's values of the fields a patch may change, as a patch gives them (an element by its slug, an
        ability as its spec); None for no card of the catalogue with this slug."""

    def patched_pool(self, pool: Any, patch: Any) -> Any:
        """The field pool with the patched cards in place."""

    def patched_match(self, prepared: PreparedMatch, patch: Any) -> PreparedMatch:
        """The prepared match with the patched cards in place."""

    def kept_share(self, setup: Any, result: MatchResult, seat: str) -> float:
        """The share of its starting strength the winner in `seat` kept (0 to 1)."""

    def drawn_setup(self, setup: Any) -> dict[str, Any]:
        """A field match's drawn engine setup as a match row keeps its setup (plain JSON)."""

    def patch_edits(self, patch: Sequence[Mapping[str, Any]]) -> list[tuple[type[Card], str, dict[str, Any]]]:
        """A what-if's patch as catalogue edits: each card's model, slug and changes by model field."""

    def freeze_setup(self, setup: Any, table: Interned) -> Any:
        """A prepared match's engine setup as plain JSON, each card or catalogue it holds in `table`."""

    def thaw_setup(self, data: Any, table: Thawing) -> Any:
        """The engine setup `freeze_setup` froze."""

    def freeze_pool(self, pool: Any, table: Interned) -> Any:
        """A field pool as plain JSON, each card or catalogue it holds in `table`."""

    def thaw_pool(self, data: Any, table: Thawing) -> Any:
        """The field pool `freeze_pool` froze."""

    def frozen_cards(self, value: Any) -> dict[str, list[str]]:
        """The catalogue cards a value of a frozen plan holds (a card, a catalogue), by card model label."""

    def add_study_arguments(self, parser: ArgumentParser) -> None:
        """This game's own flags of `manage.py simulate_batch` (in a group of its own): each optional with
        default None, and named unlike every other game's, since every game's are parsed."""

    def study_command_inputs(self, body: dict[str, Any], roles: Sequence[str], arguments: Mapping[str, Any],
                             seed: int) -> dict[str, dict[int, str]]:
        """The study inputs its flags give for the `roles` the study's kind reads (subject, opponents,
        entrants, pool), set on the request `body`; the labels of the entrants they give (by inputs key, then
        index). InputError naming the flag at fault."""


class PlaysFeatures(Protocol):
    """The capability a game's studies declare with `plays_features = True`."""

    def played_features(self, features: Any, result: MatchResult) -> Any:
        """What each side fielded (`fielded`) plus what it did in the match."""


GAME_MATCHES: dict[str, GameMatches] = {}
GAME_STUDIES: dict[str, GameStudies] = {}


def register_game_matches(matches: GameMatches) -> None:
    """Make a game playable through these services (called from the game app's `ready()`)."""
    GAME_MATCHES[matches.game] = matches


def register_game_studies(studies: GameStudies) -> None:
    """Give a game its part in the balance lab (called from the game app's `ready()`)."""
    GAME_STUDIES[studies.game] = studies


def game_studies(game: str) -> GameStudies:
    """The registered study part of `game`; UnknownGameError for a game that has none."""
    studies = GAME_STUDIES.get(game)
    if studies is None:
        raise UnknownGameError(f"No studies can be played for game {game!r}; known games: {', '.join(sorted(GAME_STUDIES))}.",
                               [("game", "unknown")])
    return studies


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


def plays_lookahead(game: str, matches: Iterable[Mapping[str, str] | Sequence[str]]) -> bool:
    """Whether a look-ahead agent (`search`, `ismcts`, ...) plays a seat of any of these matches' agents: such a
    match costs far more, so a study of them takes smaller chunks and lower batch limits."""
    return any(looks_ahead(name, game) for agents in matches for name in seat_agent_names(agents))


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
    match = match_row(result, inputs=inputs, setup=prepared.stored_setup, owner=account_of(user))
    if save:
        match.save()
    return match, result


def event_texts(game: str, events: list[dict]) -> list[str]:
    """Each event's play-by-play, in the engine's own words: the whole log rendered once (so that names
    learned from earlier events appear), split back by the lines each event renders alone."""
    alone = [render_log(game, [event]) for event in events]
    counts = [len(text.split("\n")) if text else 0 for text in alone]
    whole = render_log(game, events).split("\n") if events else []
    if sum(counts) != len(whole):
        # A name spanning lines would shift the split: each event in its own words then, by unit ids only.
        return [textwrap.dedent(text) for text in alone]
    texts, start = [], 0
    for count in counts:
        texts.append(textwrap.dedent("\n".join(whole[start:start + count])))
        start += count
    return texts


def account_of(user) -> Any:
    """The account a row is stored for: the user signed in, else None (anonymous)."""
    return user if user is not None and user.is_authenticated else None


def match_row(result: MatchResult, *, inputs: dict[str, Any], setup: dict[str, Any], **fields: Any) -> Match:
    """A played match as the row that keeps it (unsaved), its log included; `fields` adds the owner or the
    study it comes from."""
    match = Match(game=result.game, inputs=inputs, setup=setup, agents=result.agents, options=result.options,
                  seed=result.seed, winner=result.winner, reason=result.reason, rounds=result.rounds,
                  actions=result.actions, survivors=result.survivors, schema_version=result.schema_version, **fields)
    match.events = result.events or []
    return match


def new_runner_name() -> str:
    """A name no other runner has: host, process and a random part."""
    return f"{socket.gethostname()[:60]}:{os.getpid()}:{secrets.token_hex(4)}"


# ------------------------------------------------------------------------------------- expiry

DELETE_CHUNK = 1_000  # rows per delete, so that no transaction holds many locks for long


def expiry_cutoff(*, now: datetime | None = None, days: int | None = None) -> datetime:
    """Anonymous matches and batches created before this moment have expired."""
    days = setting("SIMULATE_ANONYMOUS_EXPIRY_DAYS") if days is None else days
    return (now or timezone.now()) - timedelta(days=days)


def delete_expired_simulations(*, now: datetime | None = None, days: int | None = None,
                               dry_run: bool = False) -> dict[str, int]:
    """Delete the anonymous matches, games with people and batches past their expiry (those of users, and
    published studies, are kept), then the frozen plans no study plays any more; how many of each (would be)
    deleted."""
    cutoff = expiry_cutoff(now=now, days=days)
    counts = {}
    counts["games"] = delete_in_chunks(SeatedGame.objects.filter(owner__isnull=True, last_move_at__lt=cutoff),
                                       dry_run=dry_run)
    counts["matches"] = delete_in_chunks(Match.objects.filter(owner__isnull=True, created_at__lt=cutoff),
                                         dry_run=dry_run)
    counts["batches"] = delete_in_chunks(Batch.objects.filter(owner__isnull=True, created_at__lt=cutoff,
                                                              published_at__isnull=True), dry_run=dry_run)
    counts["plans"] = delete_unused_plans(cutoff, dry_run=dry_run)
    return counts


def delete_in_chunks(expired: QuerySet, *, dry_run: bool) -> int:
    """Delete these rows DELETE_CHUNK at a time (each delete a short transaction); how many (would be)."""
    if dry_run:
        return expired.count()
    deleted = 0
    while ids := list(expired.order_by().values_list("pk", flat=True)[:DELETE_CHUNK]):
        deleted += expired.model.objects.filter(pk__in=ids).delete()[0]
    return deleted


def delete_unused_plans(cutoff: datetime, *, dry_run: bool = False) -> int:
    """Delete the frozen plans made before `cutoff` that no study plays; how many. A study being stored may
    take up such a plan meanwhile: the database then refuses the delete, and it is tried again next time."""
    unused = FrozenPlan.objects.filter(batches__isnull=True, created_at__lt=cutoff)
    if dry_run:
        return unused.count()
    try:
        with transaction.atomic():
            return unused.delete()[0]
    except IntegrityError:
        return 0
