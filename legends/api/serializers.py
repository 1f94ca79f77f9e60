"""Serializers of the Akin Legends catalogue and team setups; model rules run through full_clean."""

from __future__ import annotations

from typing import Any, cast

from django.core.exceptions import NON_FIELD_ERRORS
from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.settings import api_settings

from cardsdb.api.fields import SlugTextRelatedField, TextChoiceField, TextField
from cardsdb.api.serializers import StrictSerializer, ValidatedModelSerializer, card_code_field, share_url
from cardsdb.models import CardSet
from legends import selectors, services, setup_codes
from legends.choices import EffectKind, Mode
from legends.engine.setup import (
    MAX_DEFENSES,
    MAX_NAME,
    MAX_PLAYERS,
    MAX_SLUG,
    MAX_TEAMS,
    SetupFormatError,
    parse_teams,
)
from legends.models import DefenseCard, Element, Protector, Spirit, SummoningCard, TeamSetup
from simulate.api.serializers import SimulatedSerializer, simulated_block


def _elements_by_slug(slugs: list[str]) -> dict[str, Element]:
    return {element.slug: element for element in Element.objects.filter(slug__in=set(slugs))}


@extend_schema_field({
    "type": "array", "items": {"type": "string", "description": "Element slug."}, "minItems": 2, "maxItems": 2,
})
class ElementPairField(serializers.Field):
    """Two element slugs, stored in two foreign keys (`first`, `second`)."""

    default_error_messages = {
        "shape": "Give exactly two element slugs, e.g. [\"fire\", \"water\"].",
        "unknown": "Unknown element {slugs}.",
    }

    def __init__(self, first: str, second: str, **kwargs):
        self.first, self.second = first, second
        super().__init__(source="*", **kwargs)

    def to_representation(self, instance) -> list[str]:
        return [getattr(instance, self.first).slug, getattr(instance, self.second).slug]

    def to_internal_value(self, data: Any) -> dict[str, Element]:
        if not isinstance(data, list) or len(data) != 2 or not all(isinstance(s, str) for s in data):
            self.fail("shape")
        found = _elements_by_slug(data)
        missing = sorted({slug for slug in data if slug not in found})
        if missing:
            self.fail("unknown", slugs=", ".join(repr(slug) for slug in missing))
        return {self.first: found[data[0]], self.second: found[data[1]]}


@extend_schema_field({
    "type": "object",
    "properties": {
        "kind": {"type": "string", "enum": list(EffectKind.values)},
        "element": {"type": "string", "description": "Element slug."},
    },
    "required": ["kind", "element"],
})
class SummoningEffectField(serializers.Field):
    """A summoning card's special effect: `{"kind": "defense"|"healing"|"boost", "element": "<slug>"}`."""

    default_error_messages = {
        "shape": 'Give an object {{"kind": ..., "element": ...}}.',
        "kind": "`kind` must be one of {kinds}.",
        "element": "Unknown element {slug!r}.",
    }

    def __init__(self, **kwargs):
        super().__init__(source="*", **kwargs)

    def to_representation(self, instance) -> dict[str, str]:
        return {"kind": instance.effect_kind, "element": instance.effect_element.slug}

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        if not isinstance(data, dict) or set(data) != {"kind", "element"}:
            self.fail("shape")
        if data["kind"] not in EffectKind.values:
            self.fail("kind", kinds=", ".join(EffectKind.values))
        slug = data["element"]
        element = _elements_by_slug([slug]).get(slug) if isinstance(slug, str) else None
        if element is None:
            self.fail("element", slug=slug)
        return {"effect_kind": data["kind"], "effect_element": element}


class ElementSerializer(ValidatedModelSerializer):
    class Meta:
        model = Element
        fields = ["id", "slug", "name", "color", "icon", "order"]


CARD_FIELDS = [
    "id", "slug", "code", "name", "game", "set", "rules_text", "flavor_text", "image", "thumbnail", "card_face",
    "created_at", "updated_at",
]
CARD_READ_ONLY = ["game", "image", "thumbnail", "created_at", "updated_at"]


class LegendsCardSerializer(ValidatedModelSerializer):
    """Fields every Akin Legends card shows; model errors are reported under the API's field names."""

    set = SlugTextRelatedField(source="card_set", slug_field="code", queryset=CardSet.objects.all())
    card_face = serializers.SerializerMethodField(help_text="URL of the rendered card face (PNG).")

    code = card_code_field()

    face_route = ""
    # Model field -> API field, for errors raised by Model.clean().
    error_names = {"card_set": "set"}

    def get_card_face(self, card) -> str:
        url = reverse(self.face_route, kwargs={"slug": card.slug})
        request = self.context.get("request")
        return request.build_absolute_uri(url) if request else url

    def validate(self, attrs):
        try:
            return super().validate(attrs)
        except serializers.ValidationError as exc:
            detail = exc.detail if isinstance(exc.detail, dict) else {"non_field_errors": exc.detail}
            renamed: dict[str, Any] = {}
            for key, value in detail.items():
                name = api_settings.NON_FIELD_ERRORS_KEY if key == NON_FIELD_ERRORS else self.error_names.get(key, key)
                renamed.setdefault(name, []).extend(value)
            raise serializers.ValidationError(renamed) from exc


class SimulatedCardMixin(serializers.Serializer):
    """A card with its row of the latest field study of the official sets (`simulated_group` of its results)."""

    simulated = serializers.SerializerMethodField(
        help_text="Its figures in the latest field study of the official sets (null until one ran).")
    simulated_group = ""

    @extend_schema_field(SimulatedSerializer(allow_null=True))
    def get_simulated(self, card) -> dict | None:
        return simulated_block(self.context, game="legends", group=self.simulated_group, member=card.slug)


class SpiritSerializer(LegendsCardSerializer):
    face_route = "legends-spirit-card-face"

    class Meta:
        model = Spirit
        fields = [*CARD_FIELDS, "color"]
        read_only_fields = CARD_READ_ONLY


class ProtectorSerializer(SimulatedCardMixin, LegendsCardSerializer):
    face_route = "legends-protector-card-face"
    simulated_group = "protectors"
    field_schemas = {"effect": {"type": "object", "description": "Effect spec (docs/legends-catalogue.md)."}}

    class Meta:
        model = Protector
        fields = [*CARD_FIELDS, "effect", "duel_legal", "simulated"]
        read_only_fields = [*CARD_READ_ONLY, "rules_text"]


class DefenseCardSerializer(SimulatedCardMixin, LegendsCardSerializer):
    simulated_group = "defenses"
    elements = ElementPairField("element_1", "element_2", help_text="The two (different) element slugs required.")

    face_route = "legends-defense-card-face"
    error_names = {"card_set": "set", "element_1": "elements", "element_2": "elements"}

    class Meta:
        model = DefenseCard
        fields = [*CARD_FIELDS, "elements", "simulated"]
        read_only_fields = [*CARD_READ_ONLY, "rules_text"]


class SummoningCardSerializer(SimulatedCardMixin, LegendsCardSerializer):
    simulated_group = "summoning_cards"
    attacks = ElementPairField("attack_1", "attack_2", help_text="The two attack element slugs (may be equal).")
    effect = SummoningEffectField(help_text='{"kind": "defense"|"healing"|"boost", "element": "<slug>"}')

    face_route = "legends-summoning-card-card-face"
    error_names = {
        "card_set": "set", "attack_1": "attacks", "attack_2": "attacks",
        "effect_kind": "effect", "effect_element": "effect",
    }

    class Meta:
        model = SummoningCard
        fields = [*CARD_FIELDS, "attacks", "effect", "copies", "simulated"]
        read_only_fields = [*CARD_READ_ONLY, "rules_text"]


def _sentence(reason: str) -> str:
    """The engine's reason (`must be an integer`) as the API's field messages read: `This field must be ...`."""
    reason = reason.strip().rstrip(".")
    return f"This field {reason}."


def _teams_or_error(value: Any):
    """The parsed teams, or a ValidationError naming each problem by its dotted path under `teams`
    (`teams[0].players[1].counter` reads `teams.0.players.1.counter`)."""
    try:
        return parse_teams(value)
    except SetupFormatError as exc:
        errors: dict[str, list[str]] = {}
        for path, reason in exc.errors:
            dotted = path.replace("[", ".").replace("]", "")
            # Paths are the request's, from `teams`; the field's own errors are named by the field itself.
            inner = dotted.removeprefix("teams").removeprefix(".") or api_settings.NON_FIELD_ERRORS_KEY
            errors.setdefault(inner, []).append(_sentence(reason))
        raise serializers.ValidationError(errors) from exc


_SLUG = {"type": "string", "minLength": 1, "maxLength": MAX_SLUG}


@extend_schema_field({
    "type": "array",
    "maxItems": MAX_TEAMS,
    "items": {
        "type": "object",
        "additionalProperties": False,
        "required": ["players"],
        "properties": {
            "spirit": {**_SLUG, "nullable": True, "description": "Spirit slug."},
            "protector": {**_SLUG, "nullable": True, "description": "Protector slug; null or left out to draw one."},
            "defenses": {
                "type": "array", "items": _SLUG, "maxItems": MAX_DEFENSES, "nullable": True,
                "description": "Defense slugs; null or left out to draw them.",
            },
            "players": {
                "type": "array",
                "maxItems": MAX_PLAYERS,
                "items": {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["name", "counter"],
                    "properties": {
                        "name": {"type": "string", "minLength": 1, "maxLength": MAX_NAME},
                        "counter": {"type": "integer", "description": "Turn counter."},
                    },
                },
            },
        },
    },
})
class TeamsField(serializers.JSONField):
    """The teams of a setup (docs/legends-catalogue.md), checked by the engine's parser."""


class SetupInputSerializer(StrictSerializer):
    """Input of `POST /api/legends/setups/validate/`."""

    mode = TextChoiceField(choices=Mode.choices)
    teams = TeamsField(help_text="The teams (docs/legends-catalogue.md).")

    def validate_teams(self, value):
        return _teams_or_error(value)


class ViolationSerializer(serializers.Serializer):
    code = serializers.CharField()
    message = serializers.CharField()
    team = serializers.IntegerField(allow_null=True)
    player = serializers.IntegerField(allow_null=True)
    card = serializers.CharField(allow_null=True)


class ToDrawSerializer(serializers.Serializer):
    team = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=["protector", "defense"])
    count = serializers.IntegerField()


class SetupValidationSerializer(serializers.Serializer):
    """Output of the setup validator (schema only)."""

    valid = serializers.BooleanField()
    violations = ViolationSerializer(many=True)
    to_draw = ToDrawSerializer(many=True)
    code = serializers.CharField(allow_null=True, help_text="The setup code (from card codes); null while a card "
                                 "is unknown.")
    share_url = serializers.URLField(allow_null=True, help_text="Absolute URL of the decode endpoint with the code.")


class SetupCodeQuerySerializer(serializers.Serializer):
    code = TextField(max_length=4000, help_text="A setup code (URL-safe base64, at most 4000 characters).")


class SetupDecodeSerializer(serializers.Serializer):
    """The answer of setup code decoding (schema only)."""

    version = serializers.IntegerField()
    mode = serializers.ChoiceField(choices=Mode.choices)
    teams = TeamsField(help_text="The teams, as for the validate action.")
    code = serializers.CharField(help_text="The setup's canonical code.")
    share_url = serializers.URLField(help_text="Absolute URL of this endpoint with the code.")


def setup_share_url(request, code: str | None) -> str | None:
    """The absolute URL that decodes a setup code, to share it (None without a code)."""
    return share_url(request, "legends-setup-decode", code)


class SetupExportInputSerializer(StrictSerializer):
    """Input of `POST /api/legends/setups/export/`: a setup as for validate (`mode` and `teams`) or its `code`."""

    mode = TextChoiceField(choices=Mode.choices, required=False)
    teams = TeamsField(required=False, help_text="The teams (docs/legends-catalogue.md), as for validate.")
    code = TextField(required=False, max_length=setup_codes.MAX_SETUP_CODE_LENGTH,
                     help_text="A setup code (URL-safe base64, at most 4000 characters).")

    def validate_teams(self, value):
        return _teams_or_error(value)

    def validate(self, attrs):
        if "code" in attrs:
            if "mode" in attrs or "teams" in attrs:
                raise serializers.ValidationError("Give either `mode` and `teams` or `code`.")
            return attrs
        missing = {name: ["This field is required."] for name in ("mode", "teams") if name not in attrs}
        if missing:
            raise serializers.ValidationError(missing)
        return attrs


class ExportPlayerSerializer(serializers.Serializer):
    name = serializers.CharField()
    counter = serializers.IntegerField(help_text="Turn counter.")


class SetupExportTeamSerializer(serializers.Serializer):
    """One team of an export: its cards as the card APIs show them; null where the setup leaves a card to draw."""

    spirit = SpiritSerializer(allow_null=True, help_text="The spirit, as the spirit API shows it.")
    players = ExportPlayerSerializer(many=True)
    protector = ProtectorSerializer(allow_null=True, help_text="The protector; null when it is drawn.")
    defenses = DefenseCardSerializer(many=True, allow_null=True,
                                     help_text="The defenses in the setup's order; null when they are drawn.")


class SetupExportSerializer(serializers.Serializer):
    """The answer of a setup export: the setup with every card's full data, its code and its validation."""

    mode = serializers.ChoiceField(choices=Mode.choices)
    teams = SetupExportTeamSerializer(many=True)
    code = serializers.CharField(help_text="The setup's canonical code.")
    share_url = serializers.URLField(help_text="Absolute URL of the decode endpoint with the code.")
    valid = serializers.BooleanField()
    violations = ViolationSerializer(many=True)
    to_draw = ToDrawSerializer(many=True)


class TeamSetupSerializer(ValidatedModelSerializer):
    """A saved setup, shown with its current legality (recomputed against today's catalogue)."""

    owner = serializers.CharField(source="owner.username", read_only=True)
    teams = TeamsField(help_text="The teams, as for the validate action.")
    valid = serializers.SerializerMethodField()
    violations = serializers.SerializerMethodField()
    to_draw = serializers.SerializerMethodField()
    code = serializers.SerializerMethodField()
    share_url = serializers.SerializerMethodField()

    class Meta:
        model = TeamSetup
        fields = [
            "id", "name", "owner", "mode", "teams", "valid", "violations", "to_draw", "code", "share_url",
            "created_at", "updated_at",
        ]

    def validate_teams(self, value):
        _teams_or_error(value)
        return value

    def validate(self, attrs):
        # full_clean needs the owner, which comes from the request, not the body.
        if self.instance is None:
            attrs["owner"] = self.context["request"].user
        return super().validate(attrs)

    def _report(self, setup: TeamSetup) -> dict:
        # One catalogue snapshot per response, however many setups it shows.
        context = cast(dict[str, Any], self.context)  # the dict the view gave
        if "setup_catalogue" not in context:
            context["setup_catalogue"] = selectors.setup_catalogue()
            context["setup_card_codes"] = setup_codes.all_card_codes()
        reports = context.setdefault("setup_reports", {})
        key = (setup.pk, setup.updated_at)
        if key not in reports:
            reports[key] = services.setup_validate(
                mode=setup.mode, teams=parse_teams(setup.teams), catalogue=self.context["setup_catalogue"],
                card_codes=self.context["setup_card_codes"],
            )
        return reports[key]

    def get_valid(self, setup: TeamSetup) -> bool:
        return self._report(setup)["valid"]

    def get_violations(self, setup: TeamSetup) -> list[dict]:
        return self._report(setup)["violations"]

    def get_to_draw(self, setup: TeamSetup) -> list[dict]:
        return self._report(setup)["to_draw"]

    def get_code(self, setup: TeamSetup) -> str | None:
        return self._report(setup)["code"]

    @extend_schema_field(serializers.URLField(allow_null=True))
    def get_share_url(self, setup: TeamSetup) -> str | None:
        return setup_share_url(self.context.get("request"), self._report(setup)["code"])
