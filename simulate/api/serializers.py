"""Input and output of the simulate API."""

from rest_framework import serializers

from realms.api.serializers import MAX_SLOTS, SlotSerializer
from realms.choices import Player
from simulate.models import Match
from simulate.services import SEED_LIMIT


class RealmsArmySerializer(serializers.Serializer):
    """One side's army: `{"slots": [...]}`, `{"code": "..."}` or `{"army": <saved army id>}`."""

    slots = SlotSerializer(many=True, required=False, max_length=MAX_SLOTS)
    code = serializers.CharField(required=False)
    army = serializers.IntegerField(required=False, min_value=1)

    def validate(self, attrs):
        given = [key for key in ("slots", "code", "army") if key in attrs]
        if len(given) != 1:
            raise serializers.ValidationError("Give exactly one of `slots`, `code` or `army`.")
        return attrs


class RealmsArmiesSerializer(serializers.Serializer):
    a = RealmsArmySerializer()
    b = RealmsArmySerializer()


class FormationCollectionsSerializer(serializers.Serializer):
    a = serializers.IntegerField(required=False, allow_null=True, min_value=1)
    b = serializers.IntegerField(required=False, allow_null=True, min_value=1)


class RealmsFormationSerializer(serializers.Serializer):
    """Armies built in a Formation Round from two collections (absent: the whole catalogue)."""

    collections = FormationCollectionsSerializer(required=False)
    first = serializers.ChoiceField(choices=Player.choices, required=False)


class RealmsAgentsSerializer(serializers.Serializer):
    a = serializers.CharField(max_length=40)
    b = serializers.CharField(max_length=40)


class RealmsMatchInputSerializer(serializers.Serializer):
    armies = RealmsArmiesSerializer(required=False)
    formation = RealmsFormationSerializer(required=False)
    agents = RealmsAgentsSerializer(required=False)
    seed = serializers.IntegerField(required=False, min_value=0, max_value=SEED_LIMIT)
    options = serializers.DictField(required=False)

    def validate(self, attrs):
        if ("armies" in attrs) == ("formation" in attrs):
            raise serializers.ValidationError("Give either `armies` or `formation`.")
        return attrs


class MatchSerializer(serializers.ModelSerializer):
    log = serializers.HyperlinkedIdentityField(view_name="match-log")
    url = serializers.HyperlinkedIdentityField(view_name="match-detail")

    class Meta:
        model = Match
        fields = [
            "id", "url", "game", "seed", "winner", "reason", "rounds", "actions", "survivors", "agents",
            "options", "setup", "inputs", "schema_version", "log", "created_at",
        ]
        read_only_fields = fields
