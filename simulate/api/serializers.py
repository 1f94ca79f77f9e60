"""Output of the simulate API, and what every batch request adds to its game's match request.

Each game's match and batch requests are its own (`GameMatches.match_request`, `.batch_request`).
"""

from rest_framework import serializers

from simulate.models import Batch, Match
from simulate.services import MAX_BATCH, game_matches


class MatchSerializer(serializers.ModelSerializer):
    log = serializers.HyperlinkedIdentityField(view_name="match-log")
    url = serializers.HyperlinkedIdentityField(view_name="match-detail")
    winner = serializers.SerializerMethodField(
        help_text="The winning side as its game names it (a player, or a team index); null for a draw."
    )

    class Meta:
        model = Match
        fields = [
            "id", "url", "game", "seed", "winner", "reason", "rounds", "actions", "survivors", "agents",
            "options", "setup", "inputs", "schema_version", "log", "created_at",
        ]
        read_only_fields = fields

    def get_winner(self, match) -> str | int | None:
        return game_matches(match.game).shown_winner(match.winner)

    def to_representation(self, match):
        # The common fields, then the fields of the match's own game.
        return {**super().to_representation(match), **game_matches(match.game).result_fields(match)}


class BatchOptionsMixin(serializers.Serializer):
    count = serializers.IntegerField(min_value=1, max_value=MAX_BATCH, help_text="Matches to play.")
    swap_sides = serializers.BooleanField(
        default=False, help_text="Swap the two sides every second match (seats and setups), to cancel first-move bias."
    )


class BatchSerializer(serializers.ModelSerializer):
    url = serializers.HyperlinkedIdentityField(view_name="batch-detail")

    class Meta:
        model = Batch
        fields = ["id", "url", "game", "status", "count", "played", "seed", "swap_sides", "summary", "error",
                  "inputs", "created_at", "updated_at", "finished_at"]
        read_only_fields = fields
