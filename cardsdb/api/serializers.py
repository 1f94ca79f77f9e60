"""Serializers of the shared catalogue and collections."""

from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import serializers

from cardsdb.models import Card, CardSet, Collection, CollectionEntry, Faction, Rarity


class ValidatedModelSerializer(serializers.ModelSerializer):
    """Run the model's full_clean() so that the API enforces the same rules as the admin."""

    def validate(self, attrs):
        attrs = super().validate(attrs)
        model = self.Meta.model
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


class RenamedFieldsMixin:
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
    class Meta:
        model = Faction
        fields = ["id", "slug", "name", "icon", "identity", "description", "characteristics", "color"]


class CardSetSerializer(ValidatedModelSerializer):
    card_count = serializers.IntegerField(read_only=True)

    class Meta:
        model = CardSet
        fields = ["id", "code", "name", "game", "release_date", "description", "card_count"]


class CardSerializer(serializers.ModelSerializer):
    """A card of either game, as the unified catalogue shows it."""

    set = serializers.SlugRelatedField(source="card_set", slug_field="code", read_only=True)
    rarity = serializers.SlugRelatedField(slug_field="slug", read_only=True)

    class Meta:
        model = Card
        fields = [
            "id", "slug", "name", "game", "set", "rarity", "rules_text", "flavor_text",
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
    card = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    name = serializers.CharField(source="card.name", read_only=True)
    game = serializers.CharField(source="card.game", read_only=True)

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


class EntryChangeSerializer(serializers.Serializer):
    """Input of the add/remove/set-quantity actions on a collection."""

    card = serializers.SlugRelatedField(slug_field="slug", queryset=Card.objects.all())
    quantity = serializers.IntegerField(min_value=0, max_value=1_000_000)


class EntryDeltaSerializer(EntryChangeSerializer):
    quantity = serializers.IntegerField(min_value=1, max_value=1_000_000, default=1)
