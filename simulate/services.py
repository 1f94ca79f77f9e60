"""Playing matches for the API and the command line: resolve inputs, check legality, run, store."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

from cardsdb.models import Collection
from realms import selectors as realms_selectors
from realms import services as realms_services
from realms.engine.army import ArmyCodeError, Slot
from simulate.adapters import character_snapshot
from simulate.engine.runner import MatchResult, play_match, validate_options
from simulate.models import Match

SEED_LIMIT = 2**63 - 1


class MatchRequestError(Exception):
    """Input that names something unknown or unreachable; `fields` says where."""

    def __init__(self, message: str, fields: dict[str, list[str]]):
        super().__init__(message)
        self.fields = fields


class IllegalArmies(Exception):
    """Armies that break the army rules; `violations` lists every one, with its side."""

    def __init__(self, violations: list[dict]):
        super().__init__("The armies break the army rules.")
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
            raise IllegalArmies(violations)
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
    match = Match(
        game="realms",
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

