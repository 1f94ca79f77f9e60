"""Playing matches for the API and the command line: resolve inputs, check legality, run, store."""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.utils import timezone

from cardsdb.models import Collection
from legends import selectors as legends_selectors
from legends.engine import game as legends_game
from legends.engine.cards import parse_catalogue
from legends.engine.setup import SetupFormatError, parse_teams
from legends.services import setup_validate
from realms import selectors as realms_selectors
from realms import services as realms_services
from realms.engine.army import ArmyCodeError, Slot
from simulate.adapters import character_snapshot, legends_catalogue
from simulate.engine.agents import agent_names
from simulate.engine.runner import MatchResult, play_match, validate_options
from simulate.models import Batch, Match

SEED_LIMIT = 2**63 - 1
MAX_BATCH = 10_000

logger = logging.getLogger(__name__)


class MatchRequestError(Exception):
    """Input that names something unknown or unreachable; `fields` says where."""

    def __init__(self, message: str, fields: dict[str, list[str]]):
        super().__init__(message)
        self.fields = fields


class IllegalMatchSetup(Exception):
    """Armies or team setups that break the rules; `violations` lists every one."""

    def __init__(self, violations: list[dict], message: str):
        super().__init__(message)
        self.violations = violations


def new_seed() -> int:
    return secrets.randbelow(2**31)


def _army_slots(side: str, army: dict[str, Any], user) -> tuple[list[Slot], Collection | None]:
    """The slots of one side's army given as slots, a code or a saved army id."""
    if "slots" in army:
        return realms_services.slots_from_data(army["slots"]), None
    if "code" in army:
        try:
            return realms_services.army_from_code(army["code"]), None
        except ArmyCodeError as exc:
            raise MatchRequestError(f"armies.{side}.code: {exc}", {f"armies.{side}.code": [str(exc)]}) from exc
    saved = realms_selectors.army_list(user=user).filter(pk=army["army"]).first()
    if saved is None:
        message = f"You have no saved army {army['army']}."
        raise MatchRequestError(message, {f"armies.{side}.army": [message]})
    return realms_services.slots_from_data(saved.slots), saved.collection


def _collection(side: str, collection_id: int | None, user) -> Collection | None:
    if collection_id is None:
        return None
    collection = realms_selectors.collection_for(user=user, collection_id=collection_id)
    if collection is None:
        message = f"You have no collection {collection_id}."
        raise MatchRequestError(message, {f"formation.collections.{side}": [message]})
    return collection


@dataclass
class PreparedMatch:
    setup: dict[str, Any]
    stored_setup: dict[str, Any]
    options: dict[str, Any]


def prepare_realms_match(
    *, armies: dict | None = None, formation: dict | None = None, options: dict | None = None, user=None
) -> PreparedMatch:
    """Resolve armies (or formation collections) into engine cards; refuse illegal armies with every violation."""
    options = dict(options or {})
    if armies is not None:
        resolved = {side: _army_slots(side, armies[side], user) for side in ("a", "b")}
        violations = []
        for side, (slots, collection) in resolved.items():
            report = realms_services.army_validate(slots=slots, collection=collection)
            violations += [{"side": side, **v} for v in report["violations"]]
        if violations:
            raise IllegalMatchSetup(violations, "The armies break the army rules.")
        cards = character_snapshot(s.card for slots, _ in resolved.values() for s in slots)
        setup = {"armies": {side: [(cards[s.card], s.line) for s in slots] for side, (slots, _) in resolved.items()}}
        stored = {"armies": {side: [{"card": s.card, "line": s.line} for s in slots]
                             for side, (slots, _) in resolved.items()}}
    else:
        catalogue = character_snapshot()
        collections = (formation or {}).get("collections") or {}
        pools = {}
        for side in ("a", "b"):
            collection = _collection(side, collections.get(side), user)
            owned = realms_selectors.owned_quantities(collection)
            pools[side] = [card for slug, card in sorted(catalogue.items()) if owned is None or owned.get(slug, 0) > 0]
        if (formation or {}).get("first"):
            options["first_player"] = formation["first"]
        setup = {"collections": pools}
        stored = {"collections": {side: [card.slug for card in pool] for side, pool in pools.items()}}
    return PreparedMatch(setup=setup, stored_setup=stored, options=validate_options("realms", options))


def play_realms_match(
    *, inputs: dict[str, Any], agents: dict[str, str], seed: int | None = None, user=None, save: bool = True
) -> tuple[Match, MatchResult]:
    """Play one Echo Realms match synchronously and store it with its log."""
    prepared = prepare_realms_match(
        armies=inputs.get("armies"), formation=inputs.get("formation"), options=inputs.get("options"), user=user
    )
    seed = new_seed() if seed is None else seed
    result = play_match("realms", setup=prepared.setup, agents=agents, seed=seed, options=prepared.options)
    match = _store("realms", result, inputs=inputs, setup=prepared.stored_setup, seed=seed, user=user, save=save)
    return match, result


def _store(game: str, result: MatchResult, *, inputs: dict, setup: dict, seed: int, user, save: bool) -> Match:
    """A Match row for a played result (saved unless `save` is False)."""
    match = Match(
        game=game,
        owner=user if user is not None and user.is_authenticated else None,
        inputs=inputs,
        setup=setup,
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
    return match


def legends_setup_from_request(*, mode: str | None, setup: dict, user) -> tuple[str, list]:
    """The mode and raw teams of a setup given inline or as one of the user's saved setups."""
    if "setup" in setup:
        saved = legends_selectors.team_setup_list(user=user).filter(pk=setup["setup"]).first()
        if saved is None:
            message = f"You have no saved team setup {setup['setup']}."
            raise MatchRequestError(message, {"setup.setup": [message]})
        saved_mode, teams = saved.mode, saved.teams
    else:
        saved_mode, teams = setup.get("mode"), setup.get("teams")
    mode = mode or saved_mode
    if saved_mode and mode != saved_mode:
        message = f"The setup is for mode {saved_mode!r}, not {mode!r}."
        raise MatchRequestError(message, {"mode": [message]})
    if mode is None:
        raise MatchRequestError("Give the mode (teams or duel).", {"mode": ["This field is required."]})
    return mode, teams


@dataclass
class PreparedLegendsMatch:
    setup: dict[str, Any]
    seats: list[str]
    options: dict[str, Any]


def prepare_legends_match(*, mode: str, teams: list, agents, options: dict | None) -> PreparedLegendsMatch:
    """Check the setup (every violation) and options; the engine setup with the catalogue read once."""
    try:
        parsed = parse_teams(teams)
    except SetupFormatError as exc:
        raise MatchRequestError(
            "The setup is malformed.", {"setup.teams": [f"{path}: {reason}" for path, reason in exc.errors]}
        ) from exc
    report = setup_validate(mode=mode, teams=parsed)
    if not report["valid"]:
        raise IllegalMatchSetup(report["violations"], "The team setup breaks the rules.")
    players = sum(len(team.get("players", [])) for team in teams)
    seats = [agents] * players if isinstance(agents, str) else list(agents)
    setup = {"mode": mode, "teams": teams, "catalogue": legends_catalogue()}
    return PreparedLegendsMatch(setup=setup, seats=seats, options=validate_options("legends", options))


def play_legends_match(
    *, inputs: dict[str, Any], mode: str, teams: list, agents, seed: int | None = None, user=None,
    save: bool = True,
) -> tuple[Match, MatchResult]:
    """Check the setup (every violation), then play one Akin Legends match and store it."""
    prepared = prepare_legends_match(mode=mode, teams=teams, agents=agents, options=inputs.get("options"))
    seed = new_seed() if seed is None else seed
    result = legends_game.play_legends_match(
        setup=prepared.setup, agents=prepared.seats, seed=seed, options=prepared.options
    )
    stored = {"mode": mode, "teams": teams}
    return _store("legends", result, inputs=inputs, setup=stored, seed=seed, user=user, save=save), result


# ---------------------------------------------------------------------------------------- batches

SIDES = {"realms": ("a", "b"), "legends": ("0", "1")}


def _swapped_realms(setup: dict, agents: dict) -> tuple[dict, dict]:
    key = "armies" if "armies" in setup else "collections"
    return {key: {"a": setup[key]["b"], "b": setup[key]["a"]}}, {"a": agents["b"], "b": agents["a"]}


def _swapped_legends(setup: dict, seats: list[str]) -> tuple[dict, list[str]]:
    first = len(setup["teams"][0]["players"])
    return {**setup, "teams": setup["teams"][::-1]}, seats[first:] + seats[:first]


def batch_player(batch: Batch):
    """A function playing match i of the batch (no log), its setup prepared once for all matches."""
    inputs = batch.inputs
    if batch.game == "realms":
        prepared = prepare_realms_match(
            armies=inputs.get("armies"), formation=inputs.get("formation"), options=inputs.get("options"),
            user=batch.owner,
        )
        setups = [(prepared.setup, inputs.get("agents") or {"a": "greedy", "b": "greedy"})]
        options = prepared.options

        def play(setup, agents, seed):
            return play_match("realms", setup=setup, agents=agents, seed=seed, options=options, keep_log=False)

        swap = _swapped_realms
    else:
        mode, teams = legends_setup_from_request(mode=inputs.get("mode"), setup=inputs["setup"], user=batch.owner)
        prepared = prepare_legends_match(mode=mode, teams=teams, agents=inputs.get("agents", "greedy"),
                                         options=inputs.get("options"))
        # Parse the catalogue once, not once a match.
        setup = {**prepared.setup, "catalogue": parse_catalogue(prepared.setup["catalogue"])}
        setups = [(setup, prepared.seats)]

        def play(setup, agents, seed):
            return legends_game.play_legends_match(setup=setup, agents=agents, seed=seed,
                                                   options=prepared.options, keep_log=False)

        swap = _swapped_legends
    if batch.swap_sides:
        setups.append(swap(*setups[0]))
    first, second = SIDES[batch.game]

    def play_one(index: int) -> tuple[str | None, MatchResult]:
        """Match `index`: its winner as given in the request (sides swapped back) and its result."""
        swapped = batch.swap_sides and index % 2 == 1
        setup, agents = setups[1 if swapped else 0]
        result = play(setup, agents, batch.seed + index)
        winner = result.winner
        if swapped and winner is not None:
            winner = second if winner == first else first
        return winner, result

    return play_one


def check_batch(batch: Batch) -> None:
    """Refuse, before anything is queued, what would make the batch fail: its setup and its agents."""
    batch_player(batch)
    names = set(agent_names(batch.game))
    agents = batch.inputs.get("agents")
    if batch.game == "realms":
        given = list((agents or {}).values())
    else:
        given = [agents] if isinstance(agents, str) else list(agents or [])
        _, teams = legends_setup_from_request(mode=batch.inputs.get("mode"), setup=batch.inputs["setup"],
                                              user=batch.owner)
        players = sum(len(team.get("players", [])) for team in teams)
        if not isinstance(agents, str) and agents is not None and len(given) != players:
            raise MatchRequestError(f"Give {players} agents (one per player) or one name for every seat.",
                                    {"agents": [f"expected {players} names, got {len(given)}"]})
    unknown = sorted({name for name in given if name not in names})
    if unknown:
        message = f"Unknown agent(s) {', '.join(unknown)}; known: {', '.join(sorted(names))}."
        raise MatchRequestError(message, {"agents": [message]})
    limit = batch_limit(searching="search" in given)
    if batch.count > limit:
        where = "" if settings.CELERY_BROKER_URL else " when no broker is set"
        message = f"At most {limit} matches in a batch with these agents{where}."
        raise MatchRequestError(message, {"count": [message]})


def batch_limit(*, searching: bool) -> int:
    """How many matches one batch may hold: look-ahead agents cost ~100x, and without a broker the
    batch runs inside the request."""
    limit = MAX_BATCH if settings.CELERY_BROKER_URL else MAX_BATCH // 5
    return limit // 20 if searching else limit


def new_summary(game: str) -> dict:
    return {"wins": dict.fromkeys(SIDES[game], 0), "draws": 0, "reasons": {}, "rounds": {"total": 0}}


def add_to_summary(summary: dict, winner: str | None, result: MatchResult) -> None:
    """Count one match: wins per side as given (a/b, or team 0/1), draws, reasons and rounds."""
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
