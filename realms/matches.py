"""Echo Realms matches for the simulate services: a request (its serializers in `realms.api.matches`), its
armies or Formation Round turned into engine cards (the catalogue read once), and the `manage.py simulate realms`
flags.

Registered with `simulate.services.register_game_matches` by `RealmsConfig.ready()`.
"""

from __future__ import annotations

import random
from argparse import ArgumentParser
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, cast

from cardsdb.models import Collection
from realms import selectors, services
from realms.api.matches import (
    BATCH_REQUEST_SCHEMA,
    MATCH_REQUEST_SCHEMA,
    SIDES,
    RealmsBatchInputSerializer,
    RealmsBatchSerializer,
    RealmsMatchInputSerializer,
    RealmsMatchSerializer,
)
from realms.engine.army import ArmyCodeError, Slot
from realms.engine.cards import CharacterCard
from realms.snapshot import DEFAULT_AGENTS, character_snapshot
from realms.studies import command_army
from simulate.engine.errors import InputError
from simulate.engine.runner import validate_options
from simulate.services import IllegalMatchSetup, PreparedMatch


def army_slots(side: str, army: Mapping[str, Any], user) -> tuple[list[Slot], Collection | None]:
    """The slots of one side's army given as slots, a code or a saved army id (with its collection)."""
    if "slots" in army:
        return services.slots_from_data(army["slots"]), None
    if "code" in army:
        try:
            return services.army_from_code(army["code"]), None
        except ArmyCodeError as exc:
            raise InputError(f"armies.{side}.code: {exc}", [(f"armies.{side}.code", str(exc))]) from exc
    saved = selectors.army_list(user=user).filter(pk=army["army"]).first()
    if saved is None:
        message = f"You have no saved army {army['army']}."
        raise InputError(message, [(f"armies.{side}.army", message)])
    return services.slots_from_data(saved.slots), saved.collection


def formation_pool(
    side: str, collection_id: int | None, user, catalogue: dict[str, CharacterCard]
) -> list[CharacterCard]:
    """The cards one side may deploy: those of the user's collection, or the whole catalogue."""
    if collection_id is None:
        owned = None
    else:
        collection = selectors.collection_for(user=user, collection_id=collection_id)
        if collection is None:
            message = f"You have no collection {collection_id}."
            raise InputError(message, [(f"formation.collections.{side}", message)])
        owned = selectors.owned_quantities(collection)
    return [card for slug, card in sorted(catalogue.items()) if owned is None or owned.get(slug, 0) > 0]


def prepare_armies(armies: Mapping[str, Any], user) -> tuple[dict, dict]:
    """The engine setup and the stored setup of two given armies; IllegalMatchSetup with every violation."""
    resolved = {side: army_slots(side, armies[side], user) for side in SIDES}
    violations = []
    for side, (slots, collection) in resolved.items():
        report = services.army_validate(slots=slots, collection=collection)
        violations += [{"side": side, **v} for v in report["violations"]]
    if violations:
        raise IllegalMatchSetup(violations, "The armies break the army rules.")
    cards = character_snapshot(s.card for slots, _ in resolved.values() for s in slots)
    setup = {"armies": {side: [(cards[s.card], s.line) for s in slots] for side, (slots, _) in resolved.items()}}
    stored = {"armies": {side: [{"card": s.card, "line": s.line} for s in slots]
                         for side, (slots, _) in resolved.items()}}
    return setup, stored


def swap_sides(setup: dict) -> dict:
    """An engine or stored setup with players a and b exchanged (none stays none: a field's drawn sides)."""
    if not setup:
        return {}
    key = "armies" if "armies" in setup else "collections"
    return {key: {"a": setup[key]["b"], "b": setup[key]["a"]}}


class RealmsMatches:
    """Echo Realms as the simulate services play it: two armies, or a Formation Round from two collections."""

    game = "realms"
    sides = SIDES
    match_request = RealmsMatchInputSerializer
    batch_request = RealmsBatchInputSerializer
    match_request_schema = MATCH_REQUEST_SCHEMA
    batch_request_schema = BATCH_REQUEST_SCHEMA
    match_result = RealmsMatchSerializer
    batch_result = RealmsBatchSerializer

    def prepare(self, *, inputs: Mapping[str, Any], agents: Any, user) -> PreparedMatch:
        """Armies (or formation collections) resolved into engine cards; illegal armies refused with every
        violation."""
        options = dict(inputs.get("options") or {})
        if inputs.get("armies") is not None:
            setup, stored = prepare_armies(inputs["armies"], user)
        else:
            formation = inputs.get("formation") or {}
            catalogue = character_snapshot()
            collections = formation.get("collections") or {}
            pools = {side: formation_pool(side, collections.get(side), user, catalogue) for side in SIDES}
            if formation.get("first"):
                options["first_player"] = formation["first"]
            setup = {"collections": pools}
            stored = {"collections": {side: [card.slug for card in pool] for side, pool in pools.items()}}
        return PreparedMatch(setup=setup, agents=dict(agents or DEFAULT_AGENTS),
                             options=validate_options(self.game, options), stored_setup=stored)

    def swapped(self, prepared: PreparedMatch) -> PreparedMatch:
        """Armies (or collections) and agents of a and b exchanged."""
        agents = cast(Mapping[str, str], prepared.agents)  # an agent per side
        return replace(prepared, setup=swap_sides(prepared.setup), stored_setup=swap_sides(prepared.stored_setup),
                       agents={"a": agents["b"], "b": agents["a"]})

    def add_command_arguments(self, parser: ArgumentParser) -> None:
        """--a, --b and --tie-break."""
        group = parser.add_argument_group(
            "Echo Realms",
            "Armies are army codes, 'faction:<slug>' (a random legal army of that faction), 'random' (a random "
            "legal army of the catalogue) or 'formation' for a Formation Round from the whole catalogue.",
        )
        group.add_argument("--a", default="random", help="Player a's army (default: random).")
        group.add_argument("--b", default="random", help="Player b's army (default: random).")
        group.add_argument("--tie-break", choices=["random", "alternate"], default="random",
                           help="Echo Realms tie-break (R9).")

    def command_request(self, arguments: Mapping[str, Any], seed: int) -> tuple[dict[str, Any], Any]:
        """Armies drawn from the seed (or a Formation Round), the tie-break and round cap, two agents."""
        rng = random.Random(seed)
        sides = {side: arguments[side] for side in SIDES}
        if "formation" in sides.values():
            if set(sides.values()) != {"formation"}:
                raise InputError("Use 'formation' for both players or for neither.",
                                 [("formation", "is for both players or neither")])
            inputs: dict[str, Any] = {"formation": {}}
        else:
            inputs = {"armies": {side: {"slots": command_army(spec, rng)} for side, spec in sides.items()}}
        options = {} if arguments["max_rounds"] is None else {"max_rounds": arguments["max_rounds"]}
        inputs["options"] = {**options, "tie_break": arguments["tie_break"]}
        agents = arguments["agents"] or ["greedy", "greedy"]
        if len(agents) != 2:
            raise InputError("Give two agents for Echo Realms (players a and b).",
                             [("agents", f"expected 2 names, got {len(agents)}")])
        return inputs, dict(zip(SIDES, agents, strict=True))
