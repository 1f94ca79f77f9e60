"""The Akin Legends inputs of the balance lab's studies as the API takes them: a field's pool of protectors
and defenses and a what-if's patch (validated as an admin edit is by
`legends.studies.LegendsStudies.validated_patch`)."""

from __future__ import annotations

from rest_framework import serializers

from cardsdb.api.fields import TextField
from cardsdb.api.serializers import StrictSerializer
from legends.engine.setup import MAX_SLUG
from simulate.api.serializers import TrueFalseField, WholeNumberField

MAX_PATCH = 16
MAX_POOL_CARDS = 200


class LegendsPoolSerializer(StrictSerializer):
    """What a field study draws its teams' protectors and defenses from (absent: the whole catalogue)."""

    protectors = serializers.ListField(child=TextField(max_length=MAX_SLUG), min_length=1, max_length=MAX_POOL_CARDS,
                                       required=False, help_text="Protector slugs (in a duel, the duel-legal ones "
                                                                 "are drawn).")
    defenses = serializers.ListField(child=TextField(max_length=MAX_SLUG), min_length=1, max_length=MAX_POOL_CARDS,
                                     required=False, help_text="Defense slugs.")


class LegendsChangesSerializer(StrictSerializer):
    """New values of a protector (`effect`, `duel_legal`) or of a summoning card (the rest), validated as an
    edit in the admin is."""

    effect = serializers.DictField(required=False, help_text="Protector: an effect spec (docs/legends-catalogue.md).")
    duel_legal = TrueFalseField(required=False, help_text="Protector: whether a duel may field it.")
    attack_1 = TextField(required=False, max_length=MAX_SLUG, help_text="Summoning card: an element slug.")
    attack_2 = TextField(required=False, max_length=MAX_SLUG, help_text="Summoning card: an element slug.")
    effect_kind = TextField(required=False, max_length=MAX_SLUG, help_text="Summoning card: defense, healing or boost.")
    effect_element = TextField(required=False, max_length=MAX_SLUG, help_text="Summoning card: an element slug.")
    copies = WholeNumberField(required=False, min_value=0, max_value=32_767,  # the admin form's bounds
                              help_text="Summoning card: its copies in the deck.")

    def validate(self, attrs):
        if not attrs:
            raise serializers.ValidationError("Change at least one field of the card.")
        return attrs


class LegendsPatchSerializer(StrictSerializer):
    card = TextField(max_length=MAX_SLUG, help_text="Protector or summoning card slug.")
    changes = LegendsChangesSerializer()
