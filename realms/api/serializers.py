"""Serializers of the Echo Realms API."""

from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from cardsdb.api.serializers import RenamedFieldsMixin, StrictSerializer, ValidatedModelSerializer, id_field
from cardsdb.models import CardSet, Faction, Rarity
from realms import selectors, services
from realms.choices import Line, Player
from realms.engine.army import ArmyCodeError
from realms.models import GENERATED_TEXT_HELP, Army, Character, Race
from simulate.api.serializers import SimulatedSerializer, simulated_block

MAX_SLOTS = 50


class RaceSerializer(ValidatedModelSerializer):
    class Meta:
        model = Race
        fields = ["id", "slug", "name", "description"]


class CharacterSerializer(RenamedFieldsMixin, ValidatedModelSerializer):
    """A character card. Each ability's `text` is generated from its spec when the card is validated
    and saved (`Character.generate_ability_texts`): a text sent by the client is replaced by the
    generated one, and may be left out; the answer shows the stored, generated text."""

    api_names = {
        "character_class": "class",
        "attack": "atk",
        "defense": "def",
        "speed": "spd",
        "health": "hp",
        "card_set": "set",
    }

    race = serializers.SlugRelatedField(slug_field="slug", queryset=Race.objects.all())
    faction = serializers.SlugRelatedField(slug_field="slug", queryset=Faction.objects.all())
    rarity = serializers.SlugRelatedField(slug_field="slug", queryset=Rarity.objects.all())
    card_set = serializers.SlugRelatedField(slug_field="code", queryset=CardSet.objects.all())
    card_face = serializers.SerializerMethodField(help_text="URL of the rendered card face (PNG).")
    simulated = serializers.SerializerMethodField(
        help_text="Its figures in the latest field study of the official sets (null until one ran).")

    field_schemas = {"faction_ability": {"type": "object"}, "main_ability": {"type": "object"}}

    class Meta:
        model = Character
        fields = [
            "id", "slug", "name", "race", "character_class", "faction", "rarity", "card_set", "position",
            "attack", "defense", "speed", "health", "cooldown", "faction_ability", "main_ability",
            "rules_text", "flavor_text", "image", "thumbnail", "card_face", "simulated", "created_at", "updated_at",
        ]
        read_only_fields = ["rules_text", "image", "thumbnail", "created_at", "updated_at"]
        extra_kwargs = {
            "faction_ability": {"help_text": f"Faction ability spec (docs/abilities.md). {GENERATED_TEXT_HELP}"},
            "main_ability": {"help_text": f"Main ability spec (docs/abilities.md). {GENERATED_TEXT_HELP}"},
        }

    @extend_schema_field(SimulatedSerializer(allow_null=True))
    def get_simulated(self, obj) -> dict | None:
        return simulated_block(self.context, game="realms", group="cards", member=obj.slug)

    def get_card_face(self, obj) -> str:
        path = reverse("character-card-face", kwargs={"slug": obj.slug})
        request = self.context.get("request")
        return request.build_absolute_uri(path) if request else path


class SlotSerializer(StrictSerializer):
    card = serializers.CharField(max_length=140, help_text="Character slug.")
    line = serializers.ChoiceField(choices=Line.choices)


class ArmyInputSerializer(StrictSerializer):
    """`{"slots": [...], "collection": id}` or `{"code": "..."}`: exactly one of `slots` and `code`."""

    slots = SlotSerializer(many=True, required=False, max_length=MAX_SLOTS)
    code = serializers.CharField(required=False, help_text="An army code (at most 200 characters).")
    collection = id_field(required=False, allow_null=True, help_text="One of your collections, to check R4.")

    def validate(self, attrs):
        if ("slots" in attrs) == ("code" in attrs):
            raise serializers.ValidationError("Give either `slots` or `code`.")
        return attrs


class ArmyValidationSerializer(serializers.Serializer):
    """The answer of army validation (documentation only)."""

    valid = serializers.BooleanField()
    violations = serializers.ListField(child=serializers.DictField())
    counts = serializers.DictField()
    code = serializers.CharField(allow_null=True)


class ArmyCodeQuerySerializer(serializers.Serializer):
    code = serializers.CharField(max_length=200, help_text="An army code (URL-safe base64, at most 200 characters).")


class ArmyDecodeSerializer(serializers.Serializer):
    """The answer of army code decoding (documentation only): ids no longer in the catalogue read `#<id>`."""

    slots = SlotSerializer(many=True)


class ArmyListSerializer(serializers.ListSerializer):
    """Looks up the cards of every army on a page at once, so a page costs the same queries as one army."""

    def to_representation(self, data):
        armies = data.all() if hasattr(data, "all") else data
        self.context["army_cards"] = selectors.army_cards(slugs={s["card"] for a in armies for s in a.slots})
        return super().to_representation(armies)


class ArmySerializer(ValidatedModelSerializer):
    """A saved army (possibly a draft), with its current validity."""

    slots = SlotSerializer(many=True, max_length=MAX_SLOTS)
    valid = serializers.SerializerMethodField()
    violations = serializers.SerializerMethodField()
    counts = serializers.SerializerMethodField()
    code = serializers.SerializerMethodField()

    class Meta:
        model = Army
        fields = ["id", "name", "slots", "collection", "valid", "violations", "counts", "code",
                  "created_at", "updated_at"]
        list_serializer_class = ArmyListSerializer

    def get_fields(self):
        fields = super().get_fields()
        request = self.context.get("request")
        if request is not None and request.user.is_authenticated:
            # Only the user's own collections can be linked; others answer "does not exist".
            fields["collection"].queryset = request.user.collections.all()
        return fields

    def _report(self, army) -> dict:
        """The army checked against today's catalogue and collection (computed once per army)."""
        reports = self.context.setdefault("army_reports", {})
        if army.pk not in reports:
            cards = self.context.get("army_cards")
            if cards is None:
                cards = selectors.army_cards(slugs={slot["card"] for slot in army.slots})
            reports[army.pk] = services.army_report(
                slots=services.slots_from_data(army.slots), cards=cards,
                owned=selectors.owned_quantities(army.collection),
            )
        return reports[army.pk]

    def get_valid(self, army) -> bool:
        return self._report(army)["valid"]

    def get_violations(self, army) -> list[dict]:
        return self._report(army)["violations"]

    def get_counts(self, army) -> dict:
        return self._report(army)["counts"]

    def get_code(self, army) -> str | None:
        return self._report(army)["code"]

    def validate(self, attrs):
        if self.instance is None:
            attrs["owner"] = self.context["request"].user
        if "slots" in attrs:
            attrs["slots"] = [dict(slot) for slot in attrs["slots"]]
        return super().validate(attrs)

    # Slots are stored as JSON, so the nested serializer's data is saved as it is.
    def create(self, validated_data):
        return Army.objects.create(**validated_data)

    def update(self, instance, validated_data):
        for key, value in validated_data.items():
            setattr(instance, key, value)
        instance.save()
        return instance


class DeploymentSerializer(StrictSerializer):
    player = serializers.ChoiceField(choices=Player.choices)
    card = serializers.CharField(max_length=140)
    line = serializers.ChoiceField(choices=Line.choices)


class PlayerCollectionsSerializer(StrictSerializer):
    a = id_field(required=False, allow_null=True, help_text="Player a's collection.")
    b = id_field(required=False, allow_null=True, help_text="Player b's collection.")


class FormationInputSerializer(StrictSerializer):
    first = serializers.ChoiceField(choices=Player.choices)
    deployments = DeploymentSerializer(many=True, max_length=40)
    collections = PlayerCollectionsSerializer(required=False)


def army_code_error(exc: ArmyCodeError) -> dict:
    return {"message": f"Bad army code: {exc}", "code": "bad_army_code", "fields": {"code": [str(exc)]}}
