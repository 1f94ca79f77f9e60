"""Input and output of the simulate API."""

from rest_framework import serializers

from legends.choices import Mode
from realms.api.serializers import MAX_SLOTS, SlotSerializer
from realms.choices import Player
from simulate.models import Batch, Match
from simulate.services import MAX_BATCH, SEED_LIMIT


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


class LegendsMatchInputSerializer(serializers.Serializer):
    """`setup` is a setup as in `POST /api/legends/setups/validate/`, or `{"setup": <saved id>}`."""

    mode = serializers.ChoiceField(choices=Mode.choices, required=False)
    setup = serializers.DictField()
    agents = serializers.JSONField(
        required=False, help_text="One agent name per player (team 0 first), or one name for every seat."
    )
    seed = serializers.IntegerField(required=False, min_value=0, max_value=SEED_LIMIT)
    options = serializers.DictField(required=False)

    def validate_setup(self, value):
        if "setup" in value:
            if set(value) != {"setup"} or isinstance(value["setup"], bool) or not isinstance(value["setup"], int):
                raise serializers.ValidationError("A saved setup is given as {\"setup\": <id>} alone.")
        elif not isinstance(value.get("teams"), list):
            raise serializers.ValidationError("`teams` must be a list of two teams.")
        return value

    def validate_agents(self, value):
        names = [value] if isinstance(value, str) else value
        if not isinstance(names, list) or not names or not all(isinstance(n, str) and n for n in names):
            raise serializers.ValidationError("Give an agent name, or a list of agent names (one per player).")
        return value


class MatchSerializer(serializers.ModelSerializer):
    log = serializers.HyperlinkedIdentityField(view_name="match-log")
    url = serializers.HyperlinkedIdentityField(view_name="match-detail")
    winner = serializers.SerializerMethodField(
        help_text="Echo Realms: 'a', 'b'; Akin Legends: team index 0 or 1; null for a draw."
    )

    class Meta:
        model = Match
        fields = [
            "id", "url", "game", "seed", "winner", "reason", "rounds", "actions", "survivors", "agents",
            "options", "setup", "inputs", "schema_version", "log", "created_at",
        ]
        read_only_fields = fields

    def get_winner(self, match) -> str | int | None:
        if match.winner is None or match.game != "legends":
            return match.winner
        return int(match.winner)

    def to_representation(self, match):
        data = super().to_representation(match)
        if match.game == "legends":
            # What is left of each team's defenses, team 0 first.
            data["remaining_defenses"] = [match.survivors.get(str(team), []) for team in (0, 1)]
        return data


class BatchOptionsMixin(serializers.Serializer):
    count = serializers.IntegerField(min_value=1, max_value=MAX_BATCH, help_text="Matches to play.")
    swap_sides = serializers.BooleanField(
        default=False, help_text="Swap the two sides every second match (seats and setups), to cancel first-move bias."
    )


class RealmsBatchInputSerializer(BatchOptionsMixin, RealmsMatchInputSerializer):
    """A realms match request, plus how many matches to play; match i uses seed + i."""


class LegendsBatchInputSerializer(BatchOptionsMixin, LegendsMatchInputSerializer):
    """A legends match request, plus how many matches to play; match i uses seed + i."""


class BatchSerializer(serializers.ModelSerializer):
    url = serializers.HyperlinkedIdentityField(view_name="batch-detail")

    class Meta:
        model = Batch
        fields = ["id", "url", "game", "status", "count", "played", "seed", "swap_sides", "summary", "error",
                  "inputs", "created_at", "updated_at", "finished_at"]
        read_only_fields = fields
