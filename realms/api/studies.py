"""The Echo Realms inputs of the balance lab's studies as the API takes them: a field's pool of cards and a
what-if's patch (validated as an admin edit is by `realms.studies.RealmsStudies.validated_patch`)."""

from __future__ import annotations

from rest_framework import serializers

from cardsdb.api.fields import TextField
from cardsdb.api.serializers import StrictSerializer
from simulate.api.serializers import WholeNumberField, id_field

MAX_PATCH = 16
MAX_POOL_CARDS = 1_000
# What a patch may change, by its name in the request and the field of the card it sets (absolute values).
PATCHABLE = {"atk": "attack", "def": "defense", "spd": "speed", "hp": "health", "cooldown": "cooldown",
             "position": "position", "main_ability": "main_ability", "faction_ability": "faction_ability"}


class RealmsPoolSerializer(StrictSerializer):
    """The cards a field study draws its armies from: official sets (default), sets, cards or a collection."""

    sets = serializers.ListField(child=TextField(max_length=20), min_length=1, max_length=50, required=False,
                                 help_text="Card set codes.")
    cards = serializers.ListField(child=TextField(max_length=140), min_length=1, max_length=MAX_POOL_CARDS,
                                  required=False, help_text="Character slugs.")
    collection = id_field(required=False, help_text="One of your collections (the cards it holds).")

    def validate(self, attrs):
        if len(attrs) != 1:
            raise serializers.ValidationError("Give one of `sets`, `cards` or `collection`.")
        return attrs


class RealmsChangesSerializer(StrictSerializer):
    """New values of a card (absolute), validated as an edit in the admin is."""

    atk = WholeNumberField(required=False, min_value=0, max_value=10_000)
    def_ = WholeNumberField(required=False, min_value=0, max_value=10_000)
    spd = WholeNumberField(required=False, min_value=0, max_value=10_000)
    hp = WholeNumberField(required=False, min_value=1, max_value=100_000)
    cooldown = WholeNumberField(required=False, min_value=0, max_value=100)
    position = TextField(required=False, max_length=10)
    main_ability = serializers.DictField(required=False, help_text="An ability spec (docs/abilities.md).")
    faction_ability = serializers.DictField(required=False, help_text="An ability spec (docs/abilities.md).")

    def get_fields(self):
        fields = super().get_fields()
        fields["def"] = fields.pop("def_")  # `def` is a keyword
        return fields

    def validate(self, attrs):
        if not attrs:
            raise serializers.ValidationError("Change at least one of " + ", ".join(PATCHABLE) + ".")
        return attrs


class RealmsPatchSerializer(StrictSerializer):
    card = TextField(max_length=140, help_text="Character slug.")
    changes = RealmsChangesSerializer()
