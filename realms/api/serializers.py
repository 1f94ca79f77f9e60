"""Serializers of the Echo Realms API."""


from typing import Any, cast

from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from cardsdb.api.fields import SlugTextRelatedField, TextChoiceField, TextField
from cardsdb.api.serializers import (
    RenamedFieldsMixin,
    StrictSerializer,
    ValidatedModelSerializer,
    WholeListSerializer,
    card_code_field,
    id_field,
    share_url,
)
from cardsdb.models import CardSet, Faction, Rarity
from realms import selectors, services
from realms.choices import ArmyExportFormat, Line, Player
from realms.decklists import MAX_LINES, MAX_TEXT_CHARS
from realms.engine.army import ArmyCodeError
from realms.models import GENERATED_TEXT_HELP, MAX_SLOTS, Army, Character, Race
from simulate.api.serializers import SimulatedSerializer, simulated_block

ARMY_ORDER_HELP = ("The army's characters and lines, in army order: the order settles the player's own SPD ties "
                   "(R9), and codes, decklists and saved armies keep it.")


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

    race = SlugTextRelatedField(slug_field="slug", queryset=Race.objects.all())
    faction = SlugTextRelatedField(slug_field="slug", queryset=Faction.objects.all())
    rarity = SlugTextRelatedField(slug_field="slug", queryset=Rarity.objects.all())
    card_set = SlugTextRelatedField(slug_field="code", queryset=CardSet.objects.all())
    code = card_code_field()
    card_face = serializers.SerializerMethodField(help_text="URL of the rendered card face (PNG).")
    simulated = serializers.SerializerMethodField(
        help_text="Its figures in the latest field study of the official sets (null until one ran).")

    field_schemas = {"faction_ability": {"type": "object"}, "main_ability": {"type": "object"}}

    class Meta:
        model = Character
        fields = [
            "id", "slug", "code", "name", "race", "character_class", "faction", "rarity", "card_set", "position",
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
    card = TextField(max_length=140, help_text="Character slug.")
    line = TextChoiceField(choices=Line.choices)

    class Meta:
        # Slots given in a PATCH replace the stored ones: each is checked whole, as when the army is created.
        list_serializer_class = WholeListSerializer


class ArmyInputSerializer(StrictSerializer):
    """`{"slots": [...], "collection": id}` or `{"code": "..."}`: exactly one of `slots` and `code`."""

    slots = SlotSerializer(many=True, required=False, max_length=MAX_SLOTS, help_text=ARMY_ORDER_HELP)
    code = TextField(required=False, help_text="An army code (at most 200 characters).")
    collection = id_field(required=False, allow_null=True, help_text="One of your collections, to check R4.")

    def validate(self, attrs):
        if ("slots" in attrs) == ("code" in attrs):
            raise serializers.ValidationError("Give either `slots` or `code`.")
        return attrs


class StatCountsSerializer(serializers.Serializer):
    faction = serializers.DictField(child=serializers.IntegerField(min_value=0), help_text="Known cards per faction slug.")
    # "class" is a Python keyword: the field is declared under another name and renamed below.
    class_ = serializers.DictField(child=serializers.IntegerField(min_value=0), help_text="Known cards per class.")
    line = serializers.DictField(child=serializers.IntegerField(min_value=0), help_text="Slots per line.")

    def get_fields(self):
        fields = super().get_fields()
        fields["class"] = fields.pop("class_")
        return fields


class StatValuesSerializer(serializers.Serializer):
    atk = serializers.IntegerField()
    # "def" is a Python keyword: declared as def_ and renamed.
    def_ = serializers.IntegerField()
    spd = serializers.IntegerField()
    hp = serializers.IntegerField()

    def get_fields(self):
        fields = super().get_fields()
        fields["def"] = fields.pop("def_")
        return fields


class StatMeansSerializer(serializers.Serializer):
    atk = serializers.FloatField(allow_null=True)
    def_ = serializers.FloatField(allow_null=True)
    spd = serializers.FloatField(allow_null=True)
    hp = serializers.FloatField(allow_null=True)

    def get_fields(self):
        fields = super().get_fields()
        fields["def"] = fields.pop("def_")
        return fields


class OrderUnitSerializer(serializers.Serializer):
    slot = serializers.IntegerField(min_value=0, help_text="Index of the slot in the army.")
    card = serializers.CharField()
    line = serializers.ChoiceField(choices=Line.choices)


class OrderGroupSerializer(serializers.Serializer):
    spd = serializers.IntegerField(help_text="Printed SPD of the group.")
    tie = serializers.BooleanField(help_text="Several cards at this SPD: they act in army order (R9).")
    units = OrderUnitSerializer(many=True)


class ArmyStatsSerializer(serializers.Serializer):
    """An army's statistics from printed values (documentation only); unknown cards count only in `line`."""

    cards = serializers.IntegerField(min_value=0, help_text="Known cards counted.")
    counts = StatCountsSerializer()
    sums = StatValuesSerializer(help_text="Sums of printed ATK, DEF, SPD, HP.")
    means = StatMeansSerializer(help_text="Means over the known cards (2 decimals; null with none).")
    attack_order = OrderGroupSerializer(
        many=True, help_text="The attack order by printed SPD, fastest first (R9); ties with the other army "
                             "are settled in a match.")


class ArmyValidationSerializer(serializers.Serializer):
    """The answer of army validation (documentation only)."""

    valid = serializers.BooleanField()
    violations = serializers.ListField(child=serializers.DictField())
    counts = serializers.DictField()
    code = serializers.CharField(allow_null=True, help_text="The army code (version 3: card codes in army order); "
                                 "null while a card is unknown.")
    share_url = serializers.URLField(allow_null=True, help_text="Absolute URL of the decode endpoint with the code.")
    stats = ArmyStatsSerializer()


class ArmyImportInputSerializer(StrictSerializer):
    text = TextField(
        max_length=MAX_TEXT_CHARS, allow_blank=True, trim_whitespace=False,
        help_text=f"A plain-text decklist (docs/realms.md), at most {MAX_TEXT_CHARS:,} characters and "
                  f"{MAX_LINES} lines.")

    def validate_text(self, value: str) -> str:
        lines = value.count("\n") + 1
        if lines > MAX_LINES:
            raise serializers.ValidationError(f"A decklist has at most {MAX_LINES} lines; this one has {lines:,}.")
        return value


class DecklistProblemSerializer(serializers.Serializer):
    line = serializers.IntegerField(min_value=1, help_text="1-based line number in the text.")
    message = serializers.CharField()
    suggestion = serializers.CharField(allow_null=True, help_text="The nearest card's name, or a line.")


class ArmyImportSerializer(serializers.Serializer):
    """The answer of a decklist import (documentation only)."""

    slots = SlotSerializer(many=True)
    code = serializers.CharField(allow_null=True, help_text="The army code; null unless 7 cards were read.")
    problems = DecklistProblemSerializer(many=True)
    report = ArmyValidationSerializer(help_text="The slots read, validated as by POST .../validate/.")


class ArmyExportInputSerializer(StrictSerializer):
    """`{"slots": [...]}` or `{"code": "..."}`, and the format."""

    slots = SlotSerializer(many=True, required=False, max_length=MAX_SLOTS, help_text=ARMY_ORDER_HELP)
    code = TextField(required=False, help_text="An army code (at most 200 characters).")
    format = TextChoiceField(choices=ArmyExportFormat.choices, default=ArmyExportFormat.TEXT,
                             help_text="`text`: the decklist; `json`: every card's full data.")

    def validate(self, attrs):
        if ("slots" in attrs) == ("code" in attrs):
            raise serializers.ValidationError("Give either `slots` or `code`.")
        return attrs


class ArmyExportSerializer(serializers.Serializer):
    """The answer of an army export (documentation only): `text` for format text, `characters` for json."""

    format = serializers.ChoiceField(choices=ArmyExportFormat.choices)
    slots = SlotSerializer(many=True)
    code = serializers.CharField(allow_null=True)
    share_url = serializers.URLField(allow_null=True, help_text="Absolute URL of the decode endpoint with the code.")
    text = serializers.CharField(required=False, help_text="The decklist (format text).")
    characters = CharacterSerializer(many=True, required=False,
                                     help_text="Every slot's character as the character API shows it (format json).")


class ArmyCodeQuerySerializer(serializers.Serializer):
    code = TextField(max_length=200, help_text="An army code (URL-safe base64, at most 200 characters).")


class SheetQuerySerializer(serializers.Serializer):
    size = serializers.ChoiceField(choices=["a4", "letter"], default="a4", help_text="The paper: A4 or US Letter.")


class SheetCodeQuerySerializer(SheetQuerySerializer):
    code = TextField(max_length=200, help_text="An army code (URL-safe base64, at most 200 characters).")


class ArmyDecodeSerializer(serializers.Serializer):
    """The answer of army code decoding (documentation only)."""

    version = serializers.IntegerField(help_text="The version of the code given: 1 (database keys, in the order "
                                       "written), 2 (card codes, canonical order) or 3 (card codes, army order).")
    slots = SlotSerializer(many=True, help_text="The slots in the code's order: the army order it keeps (version 1 "
                                                 "and 3) or its canonical order (version 2).")
    code = serializers.CharField(help_text="The same army, in the same order, as a version-3 code.")
    share_url = serializers.URLField(help_text="Absolute URL of this endpoint with the version-3 code.")
    sheet_url = serializers.URLField(allow_null=True, help_text="Absolute URL of the army's printable Army Sheet (a PDF, "
                                                                "A4; `size=letter` for US Letter).")


def army_sheet_url(request, code: str | None) -> str | None:
    """The absolute URL of the Army Sheet of an army code (None without a code)."""
    return share_url(request, "army-code-sheet", code)


def army_builder_url(request, code: str | None) -> str | None:
    """The absolute URL of the army builder holding an army code: the page people share (None without a code)."""
    return share_url(request, "army-builder", code)


def army_share_url(request, code: str | None) -> str | None:
    """The absolute URL that decodes an army code, to share it (None without a code)."""
    return share_url(request, "army-decode", code)


class ArmyListSerializer(serializers.ListSerializer):
    """Looks up the cards of every army on a page at once, so a page costs the same queries as one army."""

    def to_representation(self, data):
        armies = data.all() if hasattr(data, "all") else data
        context = cast(dict[str, Any], self.context)  # the dict the view gave
        context["army_cards"] = selectors.army_cards(slugs={s["card"] for a in armies for s in a.slots})
        context["stat_cards"] = selectors.stat_cards(slugs={s["card"] for a in armies for s in a.slots})
        return super().to_representation(armies)


class TableRecordSerializer(serializers.Serializer):
    played = serializers.IntegerField()
    won = serializers.IntegerField()
    lost = serializers.IntegerField()
    drawn = serializers.IntegerField()


class ArmySerializer(ValidatedModelSerializer):
    """A saved army (possibly a draft), with its current validity."""

    slots = SlotSerializer(many=True, max_length=MAX_SLOTS, help_text=ARMY_ORDER_HELP)
    valid = serializers.SerializerMethodField()
    violations = serializers.SerializerMethodField()
    counts = serializers.SerializerMethodField()
    code = serializers.SerializerMethodField()
    share_url = serializers.SerializerMethodField()
    sheet_url = serializers.SerializerMethodField()
    stats = serializers.SerializerMethodField()
    table_record = serializers.SerializerMethodField()

    class Meta:
        model = Army
        fields = ["id", "name", "slots", "collection", "valid", "violations", "counts", "code", "share_url",
                  "sheet_url", "stats", "table_record", "created_at", "updated_at"]
        list_serializer_class = ArmyListSerializer

    def get_fields(self):
        fields = super().get_fields()
        request = self.context.get("request")
        if request is not None and request.user.is_authenticated:
            # Only the user's own collections can be linked; others answer "does not exist".
            collection = cast(serializers.PrimaryKeyRelatedField, fields["collection"])
            # The stubs declare `queryset` as a manager, whose descriptor refuses the assignment.
            collection.queryset = request.user.collections.all()  # type: ignore[arg-type]
        return fields

    def _report(self, army) -> dict:
        """The army checked against today's catalogue and collection (computed once per army)."""
        reports = cast(dict[str, Any], self.context).setdefault("army_reports", {})  # the dict the view gave
        if army.pk not in reports:
            cards = self.context.get("army_cards")
            if cards is None:
                cards = selectors.army_cards(slugs={slot["card"] for slot in army.slots})
            reports[army.pk] = services.army_report(
                slots=services.slots_from_data(army.slots), cards=cards,
                owned=selectors.owned_quantities(army.collection), stat_cards=self.context.get("stat_cards"),
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

    @extend_schema_field(serializers.URLField(allow_null=True))
    def get_share_url(self, army) -> str | None:
        return army_share_url(self.context.get("request"), self._report(army)["code"])

    @extend_schema_field(serializers.URLField(help_text="Absolute URL of this army's printable Army Sheet (a PDF, "
                                                        "with its name; A4, or `size=letter`)."))
    def get_sheet_url(self, army) -> str:
        path = reverse("army-sheet", kwargs={"pk": army.pk})
        request = self.context.get("request")
        return request.build_absolute_uri(path) if request is not None else path

    @extend_schema_field(ArmyStatsSerializer)
    def get_stats(self, army) -> dict:
        return self._report(army)["stats"]

    @extend_schema_field(TableRecordSerializer(help_text="Your finished table games with this army (as Army A, the "
                                                         "side of whoever starts the game): played, won, lost, drawn."))
    def get_table_record(self, army) -> dict:
        context = cast(dict[str, Any], self.context)  # the dict the view gave
        if "table_records" not in context:
            context["table_records"] = selectors.table_records(army.owner)
        slots = tuple((slot["card"], slot["line"]) for slot in army.slots)
        return dict(context["table_records"].get(slots) or selectors.empty_record())

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
    player = TextChoiceField(choices=Player.choices)
    card = TextField(max_length=140)
    line = TextChoiceField(choices=Line.choices)


class PlayerCollectionsSerializer(StrictSerializer):
    a = id_field(required=False, allow_null=True, help_text="Player a's collection.")
    b = id_field(required=False, allow_null=True, help_text="Player b's collection.")


class FormationInputSerializer(StrictSerializer):
    first = TextChoiceField(choices=Player.choices)
    deployments = DeploymentSerializer(many=True, max_length=40)
    collections = PlayerCollectionsSerializer(required=False)


def army_code_error(exc: ArmyCodeError) -> dict:
    return {"message": f"Bad army code: {exc}", "code": "bad_army_code", "fields": {"code": [str(exc)]}}
