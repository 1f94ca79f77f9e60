"""Serializers of the shared catalogue and collections, and the base classes of every API serializer.

- StrictFieldsMixin: a JSON object with a key the serializer does not know is refused (400 naming it), and
  so is a number or a boolean where the field takes the other (strings: cardsdb.api.fields, at every depth).
- ValidatedModelSerializer: the model's full_clean() runs, as in the admin; ids are bounded to what the
  database stores; a save that loses a race on a unique value answers 400 like the check it raced.
- WholeListSerializer: a nested list of objects is validated whole in a partial update (PATCH) too.
"""

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.fields import empty
from rest_framework.settings import api_settings

from cardsdb import card_codes
from cardsdb.api.fields import MODEL_FIELD_MAPPING, SlugTextRelatedField, TextChoiceField, TextField
from cardsdb.api.parsers import NOT_FINITE_MESSAGE
from cardsdb.autocomplete import LIMIT as AUTOCOMPLETE_LIMIT
from cardsdb.autocomplete import MAX_QUERY_LENGTH as MAX_AUTOCOMPLETE_LENGTH
from cardsdb.choices import Game
from cardsdb.models import (
    MAX_CHARACTERISTIC,
    MAX_CHARACTERISTICS,
    MAX_QUANTITY,
    Card,
    CardSet,
    Collection,
    CollectionEntry,
    Faction,
    Rarity,
)

# Ids are 64-bit (BigAutoField): larger numbers name no row, and no database takes them.
MAX_ID = 2**63 - 1

UNKNOWN_FIELD = "Unknown field."
RACE_LOST = "Another request saved a conflicting row at the same time; try again."


def _json_type_error(field: serializers.Field, value) -> str | None:
    """Why a JSON value is not of the field's JSON type, or None. DRF would read "5" as the number 5 and
    "yes" as true; the schema says integer and boolean. (Strings are the string fields' own check.)"""
    if value is None or field.read_only:
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return NOT_FINITE_MESSAGE  # a body the JSON parser did not read (a page's, the command line's)
    if isinstance(field, serializers.BooleanField) and not isinstance(value, bool):
        return "Must be true or false."
    if isinstance(field, serializers.IntegerField) and (
        isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value)
    ):
        return "A whole number is required."
    return None


if TYPE_CHECKING:  # what the mixins below are mixed into, for the type checker
    _Serializer = serializers.Serializer
    _BaseSerializer = serializers.BaseSerializer
    _ModelSerializer = serializers.ModelSerializer
else:
    _Serializer = _BaseSerializer = _ModelSerializer = object


class StrictFieldsMixin(_Serializer):
    """Refuse keys the serializer has no field for (read-only fields are known, and ignored), and JSON
    values of another type than the field's (whole numbers, booleans; strings: cardsdb.api.fields)."""

    def to_internal_value(self, data):
        if not isinstance(data, Mapping):
            return super().to_internal_value(data)
        errors = {str(key): [UNKNOWN_FIELD] for key in data if key not in self.fields}
        for name, field in self.fields.items():
            if name in data and (problem := _json_type_error(field, data[name])):
                errors[name] = [problem]
        # The other fields are checked too, so that one answer names every problem.
        try:
            value = super().to_internal_value({key: item for key, item in data.items() if key not in errors})
        except serializers.ValidationError as exc:
            detail = exc.detail if isinstance(exc.detail, dict) else {api_settings.NON_FIELD_ERRORS_KEY: exc.detail}
            raise serializers.ValidationError(dict(sorted({**detail, **errors}.items()))) from exc
        if errors:
            raise serializers.ValidationError(dict(sorted(errors.items())))
        return value


class StrictSerializer(StrictFieldsMixin, serializers.Serializer):
    """An input serializer that refuses unknown keys."""

    if TYPE_CHECKING:  # with many=True, DRF hands these to the list serializer (the stubs leave them out)
        def __init__(self, *args: Any, max_length: int | None = None, min_length: int | None = None,
                     **kwargs: Any) -> None: ...


class WholeInPartialUpdates(_BaseSerializer):
    """A nested serializer validated whole, even inside a partial update (PATCH).

    DRF lets a PATCH leave out any field at every depth: `{"slots": [{"line": "rearguard"}]}` would pass with
    the slot's required `card` missing, and the half slot be stored. Partial means "the top-level fields not
    given are kept"; a nested value that is given replaces the stored one, so it is checked as when created.
    """

    def run_validation(self, data=empty):
        root = self.root
        if data is empty or root is self or not getattr(root, "partial", False):
            return super().run_validation(data)
        root.partial = False  # read by every field below this one through `self.root`
        try:
            return super().run_validation(data)
        finally:
            root.partial = True


class WholeListSerializer(WholeInPartialUpdates, serializers.ListSerializer):
    """The list serializer of `many=True` nested objects that a partial update still checks whole
    (`Meta.list_serializer_class` of the item serializer)."""


def id_field(**kwargs) -> serializers.IntegerField:
    """An integer id: 1 to 2**63 - 1."""
    return serializers.IntegerField(min_value=1, max_value=MAX_ID, **kwargs)


@extend_schema_field({"type": "integer", "minimum": 1, "maximum": MAX_ID})
class BoundedPrimaryKeyRelatedField(serializers.PrimaryKeyRelatedField):
    """A primary key that is an integer from 1 to 2**63 - 1 before any query (a float or a bigger number
    names no row, and would make SQLite raise)."""

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, (int, str)):
            self.fail("incorrect_type", data_type=type(data).__name__)
        if isinstance(data, str):
            if not (data.isascii() and data.isdigit()) or len(data) > 19:
                self.fail("incorrect_type", data_type="str")
            data = int(data)
        if not 1 <= data <= MAX_ID:
            self.fail("does_not_exist", pk_value=data)
        return super().to_internal_value(data)


class ValidatedModelSerializer(StrictFieldsMixin, serializers.ModelSerializer):
    """Run the model's full_clean() so that the API enforces the same rules as the admin."""

    serializer_related_field = BoundedPrimaryKeyRelatedField
    # The fields made from the model's text fields and choices take JSON strings only.
    serializer_field_mapping = MODEL_FIELD_MAPPING
    serializer_choice_field = TextChoiceField

    def save(self, **kwargs):
        """Save in a savepoint; a unique value another request saved meanwhile is validated again (400)."""
        try:
            with transaction.atomic():
                return super().save(**kwargs)
        except IntegrityError as exc:
            # The checks ran before the other request committed: run them again, now that it has.
            self.run_validation(getattr(self, "initial_data", empty))
            raise serializers.ValidationError({"non_field_errors": [RACE_LOST]}) from exc

    def validate(self, attrs):
        attrs = super().validate(attrs)
        model: Any = self.Meta.model  # a model class of the serializer's (its default manager is `objects`)
        concrete = {f.name for f in model._meta.concrete_fields}
        plain = {key: value for key, value in attrs.items() if key in concrete}
        if self.instance is None:
            instance = model(**plain)
        else:
            instance = model.objects.get(pk=self.instance.pk)
            for key, value in plain.items():
                setattr(instance, key, value)
        try:
            instance.full_clean(validate_unique=False)
        except DjangoValidationError as exc:
            # Report model errors under the API's field names (e.g. `atk` for `attack`).
            api_names = {field.source: name for name, field in self.fields.items()}
            errors = serializers.as_serializer_error(exc)
            raise serializers.ValidationError(
                {api_names.get(key, key): value for key, value in errors.items()}
            ) from exc
        return attrs


class RenamedFieldsMixin(_ModelSerializer):
    """Expose model fields under other API names: `api_names = {"model_field": "api_name"}`."""

    api_names: dict[str, str] = {}

    def get_fields(self):
        fields = super().get_fields()
        renamed = {}
        for name, field in fields.items():
            if name in self.api_names:
                field.source = name
                name = self.api_names[name]
            renamed[name] = field
        return renamed


class RaritySerializer(ValidatedModelSerializer):
    class Meta:
        model = Rarity
        fields = ["id", "slug", "name", "order", "color"]


class FactionSerializer(ValidatedModelSerializer):
    characteristics = serializers.ListField(
        child=TextField(max_length=MAX_CHARACTERISTIC), max_length=MAX_CHARACTERISTICS, required=False,
        help_text="Keywords of the faction.",
    )

    class Meta:
        model = Faction
        fields = ["id", "slug", "name", "icon", "identity", "description", "characteristics", "color"]


class CardSetSerializer(ValidatedModelSerializer):
    card_count = serializers.SerializerMethodField(help_text="Cards in the set.")

    def get_card_count(self, card_set) -> int:
        # Lists annotate it (selectors.card_set_list); a set just created or changed is counted.
        count = getattr(card_set, "card_count", None)
        return card_set.cards.count() if count is None else count

    class Meta:
        model = CardSet
        fields = ["id", "code", "name", "game", "release_date", "description", "card_count"]


def card_code_field() -> TextField:
    """A card's stable public code: optional when creating (the next free number of its set), never blank."""
    return TextField(
        required=False, allow_blank=False, max_length=card_codes.MAX_CODE_LENGTH,
        help_text="Stable public code, the same on every server: set prefix and collector number (ER-CORE-017). "
                  "Left out when creating, the next free number of the card's set; a code once used, even by a "
                  "deleted card, is never given to another.",
    )


class CardSerializer(serializers.ModelSerializer):
    """A card of either game, as the unified catalogue shows it."""

    set: "serializers.SlugRelatedField[CardSet]" = serializers.SlugRelatedField(source="card_set", slug_field="code", read_only=True)
    rarity: "serializers.SlugRelatedField[Rarity]" = serializers.SlugRelatedField(
        slug_field="slug", read_only=True, allow_null=True, help_text="Rarity slug; null for Akin Legends cards."
    )

    class Meta:
        model = Card
        fields = [
            "id", "slug", "code", "name", "game", "set", "rarity", "rules_text", "flavor_text",
            "image", "thumbnail", "created_at", "updated_at",
        ]
        read_only_fields = fields


class CardImageSerializer(serializers.ModelSerializer):
    """Upload (or replace) a card's art; the model validators check the image."""

    image = serializers.ImageField(required=True, allow_empty_file=False)

    class Meta:
        model = Card
        fields = ["image"]

    def validate_image(self, value):
        try:
            Card._meta.get_field("image").run_validators(value)
        except DjangoValidationError as exc:
            raise serializers.ValidationError(exc.messages) from exc
        return value


class CollectionEntrySerializer(serializers.ModelSerializer):
    card: "serializers.SlugRelatedField[Card]" = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    name = serializers.CharField(source="card.name", read_only=True)
    game = serializers.CharField(source="card.game", read_only=True)
    quantity = serializers.IntegerField(min_value=0, max_value=MAX_QUANTITY, read_only=True)

    class Meta:
        model = CollectionEntry
        fields = ["card", "name", "game", "quantity"]


class CollectionSerializer(ValidatedModelSerializer):
    owner = serializers.CharField(source="owner.username", read_only=True)
    entries = CollectionEntrySerializer(many=True, read_only=True)

    class Meta:
        model = Collection
        fields = ["id", "name", "owner", "entries", "created_at", "updated_at"]

    def validate_name(self, value: str) -> str:
        owner = self.context["request"].user
        clash = Collection.objects.filter(owner=owner, name=value)
        if self.instance is not None:
            clash = clash.exclude(pk=self.instance.pk)
        if clash.exists():
            raise serializers.ValidationError("You already have a collection with this name.")
        return value

    def validate(self, attrs):
        # full_clean needs the owner, which comes from the request, not the body.
        if self.instance is None:
            attrs["owner"] = self.context["request"].user
        return super().validate(attrs)


class EntryChangeSerializer(StrictSerializer):
    """Input of the set-quantity action on a collection."""

    card = SlugTextRelatedField(slug_field="slug", queryset=Card.objects.all(), help_text="Card slug.")
    quantity = serializers.IntegerField(
        min_value=0, max_value=MAX_QUANTITY, help_text=f"Copies held, 0 to {MAX_QUANTITY:,}."
    )


class EntryDeltaSerializer(EntryChangeSerializer):
    """Input of the add and remove actions on a collection."""

    quantity = serializers.IntegerField(
        min_value=1, max_value=MAX_QUANTITY, default=1,
        help_text=f"Copies to add or remove, 1 to {MAX_QUANTITY:,}; a collection holds at most {MAX_QUANTITY:,}.",
    )


class AutocompleteQuerySerializer(serializers.Serializer):
    """The query parameters of name autocomplete."""

    q = TextField(
        max_length=MAX_AUTOCOMPLETE_LENGTH,
        help_text=f"The start of a name, a word of it, or a close misspelling; 1 to {MAX_AUTOCOMPLETE_LENGTH} characters.",
    )
    game = TextChoiceField(choices=Game.choices, required=False, help_text="Only the cards of this game.")


class SuggestionSerializer(serializers.Serializer):
    """One card of an autocomplete answer."""

    slug = serializers.SlugField()
    name = serializers.CharField()
    game = serializers.ChoiceField(choices=Game.choices)
    url = serializers.URLField(help_text="The card in its game's API (a character, a protector, ...).")


class AutocompleteSerializer(serializers.Serializer):
    """The answer of name autocomplete: prefix matches by name, then the fuzzy ones best first."""

    results = SuggestionSerializer(many=True, help_text=f"At most {AUTOCOMPLETE_LIMIT} cards.")


def share_url(request, route: str, code: str | None) -> str | None:
    """The absolute URL of the decode endpoint `route` holding `code`, to share it (None without a code)."""
    if code is None:
        return None
    path = f"{reverse(route)}?{urlencode({'code': code})}"
    return request.build_absolute_uri(path) if request is not None else path
