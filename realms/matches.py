"""Echo Realms matches for the simulate services: the request, its armies or Formation Round turned
into engine cards (the catalogue read once), and the `manage.py simulate realms` flags.

Registered with `simulate.services.register_game_matches` by `RealmsConfig.ready()`.
"""

from __future__ import annotations

import random
from argparse import ArgumentParser
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, cast

from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema_field
from rest_framework import serializers

from cardsdb.api.fields import TextChoiceField, TextField
from cardsdb.api.serializers import StrictSerializer
from cardsdb.models import Collection, Faction
from realms import selectors, services
from realms.api.serializers import MAX_SLOTS, SlotSerializer
from realms.choices import Line, Player
from realms.engine.army import ArmyCodeError, Slot
from realms.engine.cards import CharacterCard
from realms.engine.options import DEFAULTS as OPTION_DEFAULTS
from realms.engine.options import FIRST_PLAYERS, MAX_ACTIONS_LIMIT, MAX_ROUNDS_LIMIT, TIE_BREAKS
from realms.snapshot import DEFAULT_AGENTS, character_snapshot
from realms.studies import MAX_PATCH, RealmsPatchSerializer, RealmsPoolSerializer, RealmsStudies, command_army
from simulate.api.serializers import (
    DRAWN,
    BatchOptionsMixin,
    BatchResultSerializer,
    BatchSummarySerializer,
    MatchResultSerializer,
    TrueFalseField,
    WholeNumberField,
    batch_figures,
    id_field,
    one_of,
    seed_field,
)
from simulate.engine.agents import agent_names
from simulate.engine.errors import InputError
from simulate.engine.runner import validate_options
from simulate.services import IllegalMatchSetup, PreparedMatch, new_seed
from simulate.studies import MAX_ENTRANTS, MAX_OPPONENTS

SIDES = ("a", "b")

# ------------------------------------------------------------------------------------ request
#
# Each body has one validating serializer; the schema shows the shapes it takes as a oneOf of
# serializers that each admit one of them (armies or a formation; an army as slots, a code or a saved id).

AGENT_NAMES = agent_names("realms")
MAX_FACTION_SLUG = Faction._meta.get_field("slug").max_length
REASONS = ("elimination", "mutual_elimination", "max_rounds", "max_actions")


class RealmsMatchSlotSerializer(SlotSerializer):
    card = TextField(max_length=140, help_text="Character slug.")
    line = TextChoiceField(choices=Line.choices)


class RealmsArmyBySlotsSerializer(StrictSerializer):
    slots = RealmsMatchSlotSerializer(many=True, max_length=MAX_SLOTS, help_text="The army's characters and lines.")


class RealmsArmyByCodeSerializer(StrictSerializer):
    code = TextField(max_length=200, help_text="An army code (URL-safe base64).")


class RealmsArmyBySavedSerializer(StrictSerializer):
    army = id_field(help_text="One of your saved armies (its collection, if any, then applies: R4).")


ARMY_SHAPES = [RealmsArmyBySlotsSerializer, RealmsArmyByCodeSerializer, RealmsArmyBySavedSerializer]


class RealmsArmyByRandomSerializer(StrictSerializer):
    random = TrueFalseField(help_text="true: a random legal army of the whole catalogue, drawn from the study's seed.")


class RealmsArmyByFactionSerializer(StrictSerializer):
    faction = TextField(max_length=MAX_FACTION_SLUG, help_text="A faction's slug: a random legal army of its cards, drawn from "
                                                       "the study's seed.")


# A study may also draw an army: random, or of one faction (as `manage.py simulate_batch` and the pages do).
STUDY_ARMY_SHAPES = [*ARMY_SHAPES, RealmsArmyByRandomSerializer, RealmsArmyByFactionSerializer]


@extend_schema_field(PolymorphicProxySerializer(component_name="RealmsArmy", resource_type_field_name=None,
                                                serializers=ARMY_SHAPES))
class RealmsArmySerializer(StrictSerializer):
    """One side's army: `{"slots": [...]}`, `{"code": "..."}` or `{"army": <saved army id>}`."""

    shapes: tuple[str, ...] = ("slots", "code", "army")

    slots = RealmsMatchSlotSerializer(many=True, required=False, max_length=MAX_SLOTS)
    code = TextField(required=False, max_length=200)
    army = id_field(required=False)

    def validate(self, attrs):
        given = [key for key in self.shapes if key in attrs]
        if len(given) != 1:
            named = [f"`{key}`" for key in self.shapes]
            raise serializers.ValidationError(f"Give exactly one of {', '.join(named[:-1])} or {named[-1]}.")
        if attrs.get("random") is False:
            raise serializers.ValidationError({"random": ["Give true for a random army (or another way to give one)."]})
        return attrs


@extend_schema_field(PolymorphicProxySerializer(component_name="RealmsStudyArmy", resource_type_field_name=None,
                                                serializers=STUDY_ARMY_SHAPES))
class RealmsStudyArmySerializer(RealmsArmySerializer):
    """An army of a study: as a match takes one, or `{"random": true}`, or `{"faction": "<slug>"}` (a random legal
    army of the catalogue or of one faction, drawn from the study's seed when the study is created)."""

    shapes = ("slots", "code", "army", "random", "faction")

    random = TrueFalseField(required=False)
    faction = TextField(required=False, max_length=MAX_FACTION_SLUG)


@extend_schema_field(PolymorphicProxySerializer(component_name="RealmsStudyArmy", resource_type_field_name=None,
                                                serializers=STUDY_ARMY_SHAPES, many=True))
class RealmsArmyListField(serializers.ListField):
    """A list of a study's armies, each as RealmsStudyArmySerializer takes one."""

    def __init__(self, **kwargs):
        super().__init__(child=RealmsStudyArmySerializer(), **kwargs)


class RealmsArmiesSerializer(StrictSerializer):
    a = RealmsArmySerializer()
    b = RealmsArmySerializer()


class RealmsStudyArmiesSerializer(StrictSerializer):
    a = RealmsStudyArmySerializer()
    b = RealmsStudyArmySerializer()


class RealmsFormationCollectionsSerializer(StrictSerializer):
    a = id_field(required=False, allow_null=True, help_text="One of your collections; absent or null: the catalogue.")
    b = id_field(required=False, allow_null=True, help_text="One of your collections; absent or null: the catalogue.")


class RealmsFormationSerializer(StrictSerializer):
    """Armies built in a Formation Round from two collections (absent: the whole catalogue)."""

    collections = RealmsFormationCollectionsSerializer(required=False)
    first = TextChoiceField(choices=Player.choices, required=False, help_text="Who deploys first (default: a seeded coin flip).")


class RealmsAgentsSerializer(StrictSerializer):
    a = one_of(AGENT_NAMES)
    b = one_of(AGENT_NAMES)


class RealmsOptionsSerializer(StrictSerializer):
    tie_break = one_of(TIE_BREAKS, required=False, help_text="R9 (default random).")
    max_rounds = WholeNumberField(min_value=1, max_value=MAX_ROUNDS_LIMIT, required=False,
                                  help_text=f"R16 (default {OPTION_DEFAULTS['max_rounds']}).")
    max_actions = WholeNumberField(min_value=1, max_value=MAX_ACTIONS_LIMIT, required=False,
                                   help_text=f"Hard cap on decisions (default {OPTION_DEFAULTS['max_actions']:,}).")
    first_player = one_of(FIRST_PLAYERS, required=False, help_text="R6 / R9 (default random).")


class RealmsRequestSerializer(StrictSerializer):
    """What every Echo Realms match body may hold besides its armies or formation."""

    agents = RealmsAgentsSerializer(required=False, help_text="An agent per player (default greedy for both).")
    seed = seed_field(required=False, help_text="0 to 2^63 - 1; generated and returned when absent.")
    options = RealmsOptionsSerializer(required=False)


class RealmsArmiesMatchSerializer(RealmsRequestSerializer):
    armies = RealmsArmiesSerializer()


class RealmsFormationMatchSerializer(RealmsRequestSerializer):
    formation = RealmsFormationSerializer()


class RealmsMatchInputSerializer(RealmsRequestSerializer):
    armies = RealmsArmiesSerializer(required=False)
    formation = RealmsFormationSerializer(required=False)

    def validate(self, attrs):
        if ("armies" in attrs) == ("formation" in attrs):
            raise serializers.ValidationError("Give either `armies` or `formation`.")
        return attrs


class RealmsBatchInputSerializer(BatchOptionsMixin, RealmsRequestSerializer):
    """A study (`kind`, default matchup) of Echo Realms matches; match i of each pairing uses seed + i."""

    matchup_keys = ("armies", "formation")

    armies = RealmsStudyArmiesSerializer(required=False, help_text="matchup, ladder, whatif: the two armies.")
    formation = RealmsFormationSerializer(required=False, help_text="matchup, ladder, whatif: a Formation Round instead.")
    subject = RealmsStudyArmySerializer(required=False,
                                        help_text="gauntlet: the army (side a) that meets every opponent.")
    opponents = RealmsArmyListField(required=False, min_length=1,
                                      max_length=MAX_OPPONENTS, help_text="gauntlet: the armies it meets, one pairing each.")
    entrants = RealmsArmyListField(required=False, max_length=MAX_ENTRANTS,
                                     help_text="matrix: the armies that each meet each other, sides swapped.")
    pool = RealmsPoolSerializer(required=False, help_text="field (and a field what-if): where its random armies come from.")
    patch = RealmsPatchSerializer(many=True, required=False, max_length=MAX_PATCH,
                                  help_text="whatif: new values of cards, played in a sandbox copy of the catalogue.")

    def validate(self, attrs):
        """The kind's inputs checked, then the armies to draw drawn from the seed (one is chosen when none is
        given, so that the study can be played again from what it records)."""
        attrs = super().validate(attrs)
        draw_armies(attrs)
        return attrs


def drawn_spec(army: Mapping[str, Any]) -> str | None:
    """`random` or `faction:<slug>` for an army to draw, as `manage.py simulate_batch` names it; None otherwise."""
    if army.get("random"):
        return "random"
    if "faction" in army:
        return f"faction:{army['faction']}"
    return None


def draw_armies(attrs: dict[str, Any]) -> None:
    """Draw a study's random armies, as `manage.py simulate_batch` draws them: one generator seeded with the
    study's seed, side a then side b, then a gauntlet's subject and its opponents, then a matrix's entrants, each
    in order. Each drawn army becomes its slots, and what was drawn is kept under `drawn` (the study records the
    armies it plays); a seed is chosen when none was given. ValidationError at the army no legal army fits."""
    places: list[tuple[str, str | int | None]] = []
    if "armies" in attrs:
        places += [("armies", side) for side in SIDES]
    if "subject" in attrs:
        places.append(("subject", None))
    for key in ("opponents", "entrants"):
        places += [(key, index) for index in range(len(attrs.get(key) or []))]

    def army_at(key: str, at: str | int | None) -> dict[str, Any]:
        return attrs[key] if at is None else attrs[key][at]

    wanted = [(key, at) for key, at in places if drawn_spec(army_at(key, at))]
    if not wanted:
        return
    if attrs.get("seed") is None:
        attrs["seed"] = new_seed()
    rng = random.Random(attrs["seed"])
    errors: dict[str, list[str]] = {}
    for key, at in wanted:
        army = army_at(key, at)
        shape = "random" if army.get("random") else "faction"
        path = ".".join(str(part) for part in (key, at, shape) if part is not None)
        try:
            slots = command_army(drawn_spec(army) or "", rng)
        except InputError as exc:
            errors[path] = [str(exc)]
            continue
        if at is None:
            attrs[key] = {"slots": slots}
        else:
            attrs[key][at] = {"slots": slots}
    if errors:
        raise serializers.ValidationError(errors)
    attrs[DRAWN] = {key: attrs[key] for key in dict.fromkeys(key for key, _ in wanted)}


MATCH_REQUEST_SCHEMA = PolymorphicProxySerializer(
    component_name="RealmsMatchBody", resource_type_field_name=None,
    serializers=[RealmsArmiesMatchSerializer, RealmsFormationMatchSerializer],
)
BATCH_REQUEST_SCHEMA = RealmsBatchInputSerializer


# ------------------------------------------------------------------------------------ answers


class RealmsSurvivorSerializer(serializers.Serializer):
    id = serializers.CharField(help_text="The unit's id in the log (a1 to a7, b1 to b7; summons after).")
    card = serializers.CharField(allow_null=True, help_text="Character slug; null for a summon.")
    name = serializers.CharField()
    hp = serializers.IntegerField(min_value=1)
    max_hp = serializers.IntegerField(min_value=1)
    summon = serializers.BooleanField()


class RealmsSurvivorsSerializer(serializers.Serializer):
    a = RealmsSurvivorSerializer(many=True)
    b = RealmsSurvivorSerializer(many=True)


class RealmsStoredSlotSerializer(serializers.Serializer):
    card = serializers.CharField(help_text="Character slug ('#<id>' for a card no longer in the catalogue).")
    line = serializers.ChoiceField(choices=Line.choices)


class RealmsStoredArmiesSerializer(serializers.Serializer):
    a = RealmsStoredSlotSerializer(many=True)
    b = RealmsStoredSlotSerializer(many=True)


class RealmsStoredCollectionsSerializer(serializers.Serializer):
    a = serializers.ListField(child=serializers.CharField(), help_text="Slugs of the cards player a could deploy.")
    b = serializers.ListField(child=serializers.CharField(), help_text="Slugs of the cards player b could deploy.")


class RealmsSetupSerializer(serializers.Serializer):
    """The armies the match started from, or the pools of a Formation Round (one of the two)."""

    armies = RealmsStoredArmiesSerializer(required=False)
    collections = RealmsStoredCollectionsSerializer(required=False)


class RealmsPlayedOptionsSerializer(serializers.Serializer):
    tie_break = one_of(TIE_BREAKS)
    max_rounds = serializers.IntegerField(min_value=1, max_value=MAX_ROUNDS_LIMIT)
    max_actions = serializers.IntegerField(min_value=1, max_value=MAX_ACTIONS_LIMIT)
    first_player = one_of(FIRST_PLAYERS)


class RealmsInputsSerializer(serializers.Serializer):
    """The request as given, but its seed (and a batch's count and swap_sides)."""

    armies = RealmsArmiesSerializer(required=False)
    formation = RealmsFormationSerializer(required=False)
    agents = RealmsAgentsSerializer(required=False)
    options = RealmsOptionsSerializer(required=False)
    subject = RealmsArmySerializer(required=False)
    opponents = RealmsArmyListField(required=False)
    entrants = serializers.JSONField(required=False, help_text='The matrix\'s armies, or "factions" until chosen.')
    pool = RealmsPoolSerializer(required=False)
    patch = RealmsPatchSerializer(many=True, required=False)
    base = serializers.CharField(required=False)
    levels = serializers.ListField(child=serializers.CharField(), required=False)


class RealmsMatchSerializer(MatchResultSerializer):
    """An Echo Realms match as the API answers it."""

    game = one_of(["realms"])
    winner = one_of(SIDES, allow_null=True, help_text="The winning player; null for a draw.")
    reason = one_of(REASONS, help_text="Why the match ended (R16: max_rounds is a draw).")
    survivors = RealmsSurvivorsSerializer(help_text="Each side's units still standing.")
    agents = RealmsAgentsSerializer()
    options = RealmsPlayedOptionsSerializer(help_text="The options played, defaults filled in.")
    setup = RealmsSetupSerializer()
    inputs = RealmsInputsSerializer()


class RealmsWinsSerializer(serializers.Serializer):
    a = serializers.IntegerField(min_value=0)
    b = serializers.IntegerField(min_value=0)


class RealmsSummarySerializer(BatchSummarySerializer):
    wins = RealmsWinsSerializer(help_text="Wins per player as given in the request (swapped matches counted back).")


class RealmsBatchSerializer(BatchResultSerializer):
    """An Echo Realms batch as the API answers it."""

    game = one_of(["realms"])
    summary = serializers.SerializerMethodField()
    inputs = RealmsInputsSerializer()

    @extend_schema_field(RealmsSummarySerializer)
    def get_summary(self, batch) -> dict:
        return RealmsSummarySerializer(batch_figures(batch, SIDES)).data


# ------------------------------------------------------------------------------- preparation


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
    """An engine or stored setup with players a and b exchanged."""
    key = "armies" if "armies" in setup else "collections"
    return {key: {"a": setup[key]["b"], "b": setup[key]["a"]}}


class RealmsMatches(RealmsStudies):
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
