"""The Echo Realms match API: the bodies of a match and of a study (the armies to play, or a Formation
Round) and the matches and batches as the API answers them.

`realms.matches.RealmsMatches` names them for the simulate services.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema_field
from rest_framework import serializers

from cardsdb.api.fields import TextChoiceField, TextField
from cardsdb.api.serializers import StrictSerializer
from cardsdb.models import Faction
from realms.api.serializers import MAX_SLOTS, SlotSerializer
from realms.api.studies import MAX_PATCH, RealmsPatchSerializer, RealmsPoolSerializer
from realms.choices import Line, Player
from realms.engine.options import DEFAULTS as OPTION_DEFAULTS
from realms.engine.options import FIRST_PLAYERS, TIE_BREAKS
from realms.engine.vocabulary import MAX_ACTIONS_LIMIT, MAX_ROUNDS_LIMIT
from realms.studies import command_army
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
from simulate.services import new_seed
from simulate.study_kinds.gauntlet import MAX_OPPONENTS
from simulate.study_kinds.matrix import MAX_ENTRANTS

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

    agents = RealmsAgentsSerializer(required=False, help_text="An agent per player (default greedy for both in a "
                                                              "match, softmax in a study).")
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
    wanted = [(key, at) for key, at in _army_places(attrs) if drawn_spec(_army_at(attrs, key, at))]
    if not wanted:
        return
    if attrs.get("seed") is None:
        attrs["seed"] = new_seed()
    rng = random.Random(attrs["seed"])
    errors: dict[str, list[str]] = {}
    for key, at in wanted:
        army = _army_at(attrs, key, at)
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


def _army_places(attrs: Mapping[str, Any]) -> list[tuple[str, str | int | None]]:
    """Where a study's armies stand, in the order they are drawn: (key, side or index; None for the subject)."""
    places: list[tuple[str, str | int | None]] = []
    if "armies" in attrs:
        places += [("armies", side) for side in SIDES]
    if "subject" in attrs:
        places.append(("subject", None))
    for key in ("opponents", "entrants"):
        places += [(key, index) for index in range(len(attrs.get(key) or []))]
    return places


def _army_at(attrs: Mapping[str, Any], key: str, at: str | int | None) -> dict[str, Any]:
    """The army at a place of `_army_places`."""
    return attrs[key] if at is None else attrs[key][at]


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
