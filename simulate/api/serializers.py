"""The simulate API's serializers that every game shares: JSON-typed request fields, what a batch request
adds to a match request, and the common part of a played match and of a batch as the API answers them.

Each game's own requests and answers (`GameMatches.match_request`, `.batch_request`, `.match_result`,
`.batch_result`) subclass these, so that the schema says exactly what each game takes and answers.
Requests refuse unknown keys (StrictSerializer) and take JSON types only: `"5"` is not a number, `1` not a
string, `"true"` not a boolean.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from cardsdb.api.serializers import MAX_ID
from simulate.models import Batch, Match
from simulate.services import MAX_BATCH, SEED_LIMIT, game_matches

# ---------------------------------------------------------------------------------- JSON fields


class WholeNumberField(serializers.IntegerField):
    """A JSON integer (3, or 3.0): never a string, a boolean or a fraction."""

    def to_internal_value(self, data):
        if isinstance(data, float) and data.is_integer() and abs(data) <= 2**64:
            data = int(data)
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


class TextField(serializers.CharField):
    """A JSON string: never a number or a boolean."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class TrueFalseField(serializers.BooleanField):
    """A JSON boolean: never `"true"`, `1` or `"yes"`."""

    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("invalid")
        return data


class OneOfField(serializers.ChoiceField):
    """One of a few JSON strings or integers, given as such (`"1"` is not 1)."""

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, (str, int)) or data not in self.choices:
            self.fail("invalid_choice", input=data)
        return data

    def to_representation(self, value):
        return value


def one_of(values: Iterable[Any], **kwargs) -> OneOfField:
    """A field taking one of `values`, its enum documented inline (inside `anyOf`, so that the schema's
    enum hook does not make a shared component of it, named after the field and colliding with others)."""
    values = list(values)
    kinds = {type(value) for value in values}
    schema: dict[str, Any] = {"anyOf": [{"type": "integer" if kinds == {int} else "string", "enum": values}]}
    if kwargs.get("allow_null"):
        schema["nullable"] = True
    field_class = extend_schema_field(schema)(type("OneOf", (OneOfField,), {}))
    return field_class(choices=[(value, str(value)) for value in values], **kwargs)


def seed_field(**kwargs) -> WholeNumberField:
    return WholeNumberField(min_value=0, max_value=SEED_LIMIT, **kwargs)


def id_field(**kwargs) -> WholeNumberField:
    """A row id: 1 to 2^63 - 1."""
    return WholeNumberField(min_value=1, max_value=MAX_ID, **kwargs)


# ------------------------------------------------------------------------------------- requests


class BatchOptionsMixin(serializers.Serializer):
    """What a batch request adds to its game's match request."""

    count = WholeNumberField(
        min_value=1, max_value=MAX_BATCH,
        help_text="Matches to play, match i with seed + i (so seed + count - 1 is at most 2^63 - 1). At most "
                  "10,000 with a broker and 2,000 without; when an agent is `search`, 500 and 100.",
    )
    swap_sides = TrueFalseField(
        default=False, help_text="Swap the two sides every second match (seats and setups), to cancel first-move bias."
    )


# -------------------------------------------------------------------------------------- answers


class MatchResultSerializer(serializers.ModelSerializer):
    """A played match: the fields every game answers (each game's subclass types its own)."""

    url = serializers.HyperlinkedIdentityField(view_name="match-detail")
    log = serializers.HyperlinkedIdentityField(view_name="match-log", help_text="Its events, page by page.")
    seed = seed_field(help_text="Replaying the inputs with this seed gives the identical log.")
    reason = serializers.CharField(help_text="Why the match ended.")
    rounds = serializers.IntegerField(min_value=0)
    actions = serializers.IntegerField(min_value=0, help_text="Decisions taken.")
    schema_version = serializers.IntegerField(min_value=1, help_text="Version of the event schema of its log.")

    class Meta:
        model = Match
        fields = [
            "id", "url", "game", "seed", "winner", "reason", "rounds", "actions", "survivors", "agents",
            "options", "setup", "inputs", "schema_version", "log", "created_at",
        ]
        read_only_fields = fields


class RoundsSerializer(serializers.Serializer):
    total = serializers.IntegerField(min_value=0, help_text="Rounds of every match played so far.")
    min = serializers.IntegerField(min_value=0, allow_null=True, help_text="null before the first match.")
    max = serializers.IntegerField(min_value=0, allow_null=True, help_text="null before the first match.")
    mean = serializers.FloatField(min_value=0, allow_null=True, help_text="null before the first match.")


class BatchSummarySerializer(serializers.Serializer):
    """Figures of the matches played so far; each game's subclass types `wins`."""

    draws = serializers.IntegerField(min_value=0)
    reasons = serializers.DictField(child=serializers.IntegerField(min_value=0),
                                    help_text="Matches by the reason they ended.")
    rounds = RoundsSerializer()


class BatchResultSerializer(serializers.ModelSerializer):
    """A batch: the fields every game answers (each game's subclass types its summary and inputs)."""

    url = serializers.HyperlinkedIdentityField(view_name="batch-detail")
    count = serializers.IntegerField(min_value=1, max_value=MAX_BATCH)
    played = serializers.IntegerField(min_value=0, max_value=MAX_BATCH)
    seed = seed_field(help_text="Match i was played with seed + i.")
    error = serializers.CharField(allow_blank=True, help_text="Why a failed batch failed; empty otherwise.")

    class Meta:
        model = Batch
        fields = ["id", "url", "game", "status", "count", "played", "seed", "swap_sides", "summary", "error",
                  "inputs", "created_at", "updated_at", "finished_at"]
        read_only_fields = fields


def batch_figures(batch: Batch, sides: Iterable[str]) -> dict[str, Any]:
    """A batch's summary with every figure present (zeros before the first match, a mean along the way)."""
    summary: Mapping[str, Any] = batch.summary or {}
    wins = dict.fromkeys(sides, 0)
    wins.update(summary.get("wins", {}))
    rounds = dict(summary.get("rounds", {}))
    total = rounds.get("total", 0)
    return {
        "wins": wins,
        "draws": summary.get("draws", 0),
        "reasons": dict(summary.get("reasons", {})),
        "rounds": {"total": total, "min": rounds.get("min"), "max": rounds.get("max"),
                   "mean": round(total / batch.played, 2) if batch.played else None},
    }


class MatchSerializer(serializers.BaseSerializer):
    """A match of any game, as its game answers it (the views that read matches of every game)."""

    def to_representation(self, match: Match):
        return game_matches(match.game).match_result(match, context=self.context).data


class BatchSerializer(serializers.BaseSerializer):
    """A batch of any game, as its game answers it."""

    def to_representation(self, batch: Batch):
        return game_matches(batch.game).batch_result(batch, context=self.context).data
