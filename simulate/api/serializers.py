"""The simulate API's serializers that every game shares: JSON-typed request fields, what a batch request
adds to a match request, and the common part of a played match and of a batch as the API answers them.

Each game's own requests and answers (`GameMatches.match_request`, `.batch_request`, `.match_result`,
`.batch_result`) subclass these, so that the schema says exactly what each game takes and answers.
Requests refuse unknown keys (StrictSerializer) and take JSON types only: `"5"` is not a number, `1` not a
string (cardsdb.api.fields), `"true"` not a boolean.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, cast

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from cardsdb.api.serializers import MAX_ID
from simulate.batches import MAX_BATCH, MAX_PER_PAIRING, MIN_CI_WIDTH
from simulate.models import Batch, Match
from simulate.models import Batch as BatchModel
from simulate.services import SEED_LIMIT, game_matches
from simulate.studies import LADDER_LEVELS, MAX_ENTRANTS

# ---------------------------------------------------------------------------------- JSON fields


class WholeNumberField(serializers.IntegerField):
    """A JSON integer (3, or 3.0): never a string, a boolean or a fraction."""

    def to_internal_value(self, data):
        if isinstance(data, float) and data.is_integer() and abs(data) <= 2**64:
            data = int(data)
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


class TrueFalseField(serializers.BooleanField):
    """A JSON boolean: never `"true"`, `1` or `"yes"`."""

    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("invalid")
        return data


class NumberField(serializers.FloatField):
    """A JSON number (0.05, or 1): never a string or a boolean."""

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, (int, float)):
            self.fail("invalid")
        return super().to_internal_value(data)


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
    """What a batch request adds to its game's match request: the kind of study and its size. Each game
    adds the inputs of every kind (`subject`, `opponents`, `entrants`, `pool`, `patch`) in its own shapes."""

    kind = one_of(BatchModel.Kind.values, required=False, help_text="The study (default matchup): see docs/simulate.md.")
    count = WholeNumberField(
        min_value=1, max_value=MAX_PER_PAIRING,
        help_text="Matches of each pairing (each opponent, matrix cell, agent level; a what-if plays each seed "
                  "twice), match i with seed + i (so seed + count - 1 is at most 2^63 - 1). A batch plays at most "
                  f"{MAX_BATCH:,} matches in all with a broker and 20,000 without; 1,000 and 200 when an agent is "
                  "`search`.",
    )
    swap_sides = TrueFalseField(
        default=False, help_text="Swap the two sides every second match (seats and setups), to cancel first-move "
                                 "bias (a matrix always does).",
    )
    until_ci_width = NumberField(
        required=False, min_value=MIN_CI_WIDTH, max_value=1.0,
        help_text="matchup: stop once the 95% interval of the win rate is at most this wide (count is the cap).",
    )
    base = one_of(["matchup", "field"], required=False, help_text="whatif: the study played with and without the patch.")
    levels = serializers.ListField(
        child=one_of(LADDER_LEVELS), min_length=1, max_length=len(LADDER_LEVELS), required=False,
        help_text="ladder: the agents that play both sides in turn (default random, greedy, search).",
    )
    factions = TrueFalseField(required=False, help_text="matrix: every faction's strongest legal army as the entrants.")

    # The request keys that give one matchup (each game's own), and what every kind needs or refuses.
    matchup_keys: tuple[str, ...] = ()
    matchup_optional = False  # a game whose matchup may give none of them (then a random setup of its own)
    kind_keys = {
        "matchup": set(), "ladder": {"levels"}, "gauntlet": {"subject", "opponents"},
        "matrix": {"entrants", "factions"}, "field": {"pool"}, "whatif": {"patch", "base", "pool"},
    }

    def validate(self, attrs):
        attrs = super().validate(attrs)
        kind = attrs.setdefault("kind", "matchup")
        base = attrs.get("base", "matchup")
        allowed = set(self.kind_keys[kind])
        needs_matchup = kind in ("matchup", "ladder") or (kind == "whatif" and base == "matchup")
        if needs_matchup:
            allowed |= set(self.matchup_keys)
            given = [key for key in self.matchup_keys if key in attrs]
            if len(given) > 1 or (not given and not self.matchup_optional):
                raise serializers.ValidationError(f"A {kind} gives one of {', '.join(f'`{k}`' for k in self.matchup_keys)}.")
        study_keys = {"subject", "opponents", "entrants", "factions", "pool", "patch", "base", "levels",
                      "until_ci_width", *self.matchup_keys}
        if kind != "matchup":
            allowed.discard("until_ci_width")
        else:
            allowed.add("until_ci_width")
        if kind == "whatif" and base == "matchup":
            allowed.discard("pool")
        stray = sorted(key for key in study_keys - allowed if key in attrs)
        if stray:
            raise serializers.ValidationError({key: [f"Not an input of a {kind} study."] for key in stray})
        if kind == "gauntlet" and not ({"subject", "opponents"} <= set(attrs)):
            raise serializers.ValidationError("A gauntlet gives `subject` and `opponents`.")
        if kind == "matrix" and ("entrants" in attrs) == bool(attrs.get("factions")):
            raise serializers.ValidationError(f"A matrix gives `entrants` (2 to {MAX_ENTRANTS}) or `factions: true`.")
        if kind == "matrix" and "entrants" in attrs and len(attrs["entrants"]) < 2:
            raise serializers.ValidationError({"entrants": ["Give at least 2 entrants."]})
        if kind == "whatif" and not attrs.get("patch"):
            raise serializers.ValidationError({"patch": ["A whatif gives a patch: [{\"card\": ..., \"changes\": {...}}]."]})
        if kind == "ladder" and "agents" in attrs:
            raise serializers.ValidationError({"agents": ["A ladder's agents are its `levels`."]})
        if "levels" in attrs and len(set(attrs["levels"])) != len(attrs["levels"]):
            raise serializers.ValidationError({"levels": ["Each level once."]})
        return attrs


DRAWN = "drawn"  # what a batch request's validation drew (random armies), by request key, as it will be played


def study_inputs(validated: dict[str, Any], given: Mapping[str, Any]) -> dict[str, Any]:
    """What a batch keeps as its `inputs`: the request as given, but the batch's own fields, and the armies its
    validation drew as drawn (so that every chunk plays them); a matrix of factions keeps
    `entrants: "factions"` until they are chosen."""
    left_out = {"seed", "count", "swap_sides", "until_ci_width", "kind"}
    inputs = {key: value for key, value in given.items() if key in validated and key not in left_out}
    inputs.update(validated.get(DRAWN) or {})
    if validated.get("factions"):
        inputs.pop("factions", None)
        inputs["entrants"] = "factions"
    return inputs


# -------------------------------------------------------------------------------------- answers


class MatchResultSerializer(serializers.ModelSerializer):
    """A played match: the fields every game answers (each game's subclass types its own)."""

    url = serializers.HyperlinkedIdentityField(view_name="match-detail")
    log = serializers.HyperlinkedIdentityField(view_name="match-log", help_text="Its events, page by page.")
    seed = seed_field(help_text="Replaying the inputs with this seed gives the identical log.")
    reason: serializers.Field = serializers.CharField(help_text="Why the match ended.")  # each game's: one_of
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


class IntervalSerializer(serializers.Serializer):
    low = serializers.FloatField()
    high = serializers.FloatField()


class OutcomeFiguresSerializer(serializers.Serializer):
    """Side a's (team 0's) wins, draws and losses, and its win rate (draws are not wins) with a 95% Wilson
    interval."""

    played = serializers.IntegerField(min_value=0, required=False)
    wins = serializers.IntegerField(min_value=0)
    draws = serializers.IntegerField(min_value=0)
    losses = serializers.IntegerField(min_value=0)
    win_rate = serializers.FloatField(min_value=0, max_value=1, allow_null=True, help_text="null before a match.")
    win_rate_ci = IntervalSerializer()


class ByFirstSerializer(serializers.Serializer):
    a = OutcomeFiguresSerializer(help_text="The matches in which side a held the first seat.")
    b = OutcomeFiguresSerializer(help_text="The matches in which side b held it (sides swapped).")


class StudyRoundsSerializer(serializers.Serializer):
    mean = serializers.FloatField(min_value=0, allow_null=True)
    min = serializers.IntegerField(min_value=0, allow_null=True)
    max = serializers.IntegerField(min_value=0, allow_null=True)
    histogram = serializers.DictField(child=serializers.IntegerField(min_value=0), help_text="Matches by rounds played.")


class DecisivenessSerializer(serializers.Serializer):
    wins = serializers.FloatField(allow_null=True, help_text="Mean share of its starting strength (HP, or defense cards) side a kept in its wins.")
    losses = serializers.FloatField(allow_null=True, help_text="The same of side b in side a's losses.")


class FiguresSerializer(OutcomeFiguresSerializer):
    by_first = ByFirstSerializer()
    rounds = StudyRoundsSerializer()
    reasons = serializers.DictField(child=serializers.IntegerField(min_value=0), help_text="Matches by how they ended.")
    decisiveness = DecisivenessSerializer()


def group_row_serializer(key: str, what: str) -> type[serializers.Serializer]:
    """A row of a field study's group: one member (`key`) and how the armies or teams fielding it did."""
    fields = {
        key: serializers.CharField(help_text=f"The {what}."),
        "appearances": serializers.IntegerField(min_value=0, help_text="Armies (teams) that fielded it; a member of both sides of a match counts twice."),
        "wins": serializers.IntegerField(min_value=0, help_text="Wins of those armies."),
        "win_rate": serializers.FloatField(allow_null=True),
        "win_rate_ci": IntervalSerializer(),
        "without_win_rate": serializers.FloatField(allow_null=True, help_text="The win rate of the armies without it."),
        "delta": serializers.FloatField(allow_null=True, help_text="win_rate - without_win_rate."),
        "delta_ci": IntervalSerializer(help_text="Newcombe's 95% interval of the delta."),
        "flag": one_of(["over", "under"], allow_null=True, help_text="over / under where delta_ci excludes 0."),
    }
    name = "".join(part.title() for part in key.split("_"))
    return type(f"Field{name}RowSerializer", (serializers.Serializer,), fields)


FIELD_GROUPS = {  # every game's field groups: the results key, the row's key, what a row is
    "cards": ("card", "card (slug)"), "factions": ("faction", "faction (slug)"), "classes": ("class", "class"),
    "protectors": ("protector", "protector (slug)"), "defenses": ("defense", "defense card (slug)"),
    "summoning_cards": ("summoning_card", "summoning card (slug)"),
}
GROUP_ROWS = {group: group_row_serializer(key, what) for group, (key, what) in FIELD_GROUPS.items()}


def with_groups(name: str, base: type[serializers.Serializer]) -> type[serializers.Serializer]:
    fields = {group: row(many=True, required=False, help_text=f"Field study: per {FIELD_GROUPS[group][0]}, ranked by delta.")
              for group, row in GROUP_ROWS.items()}
    return type(name, (base,), fields)


VariantSerializer = with_groups("WhatifVariantSerializer", FiguresSerializer)


class OpponentRowSerializer(FiguresSerializer):
    opponent = serializers.IntegerField(min_value=0, help_text="Index in `opponents`.")


class AgentRowSerializer(FiguresSerializer):
    agent = serializers.CharField(help_text="The agent that played both sides.")


INTERVAL_SCHEMA = {"type": "object", "additionalProperties": False, "required": ["low", "high"],
                   "properties": {"low": {"type": "number"}, "high": {"type": "number"}}}


@extend_schema_field({
    "type": "array", "description": "cells[i][j]: entrant i against entrant j, from i's side; null on the diagonal.",
    "items": {"type": "array", "items": {
        "type": "object", "nullable": True, "additionalProperties": False,
        "required": ["played", "wins", "draws", "losses", "win_rate", "win_rate_ci"],
        "properties": {"played": {"type": "integer", "minimum": 0}, "wins": {"type": "integer", "minimum": 0},
                       "draws": {"type": "integer", "minimum": 0}, "losses": {"type": "integer", "minimum": 0},
                       "win_rate": {"type": "number", "nullable": True}, "win_rate_ci": INTERVAL_SCHEMA},
    }},
})
class MatrixCellsField(serializers.JSONField):
    """The matrix's cells, null on the diagonal (a list's child serializer cannot say null in the schema)."""


class MatrixSerializer(serializers.Serializer):
    rows = serializers.ListField(child=serializers.CharField())
    cols = serializers.ListField(child=serializers.CharField())
    cells = MatrixCellsField()


class StandingSerializer(serializers.Serializer):
    entrant = serializers.IntegerField(min_value=0)
    name = serializers.CharField()
    mean_win_rate = serializers.FloatField(allow_null=True, help_text="Its mean win rate against every other entrant.")


class DiscordantSerializer(serializers.Serializer):
    baseline_only = serializers.IntegerField(min_value=0)
    patched_only = serializers.IntegerField(min_value=0)


class DifferenceSerializer(serializers.Serializer):
    win_rate = serializers.FloatField(allow_null=True, help_text="Patched less baseline, paired by seed.")
    ci = IntervalSerializer(help_text="Newcombe's 95% interval for paired rates.")
    pairs = serializers.IntegerField(min_value=0)
    discordant = DiscordantSerializer()


class PatchedRowSerializer(serializers.Serializer):
    card = serializers.CharField()
    baseline = GROUP_ROWS["cards"](allow_null=True)
    patched = GROUP_ROWS["cards"](allow_null=True)


if TYPE_CHECKING:  # a class made at run time, which the type checker sees as its base
    _ResultsBase = serializers.Serializer
else:
    _ResultsBase = with_groups("ResultsGroupsSerializer", serializers.Serializer)


class ResultsSerializer(_ResultsBase):
    """Everything a batch measured so far; which keys appear depends on its kind (docs/simulate.md)."""

    played = serializers.IntegerField(min_value=0, required=False)
    wins = serializers.IntegerField(min_value=0, required=False)
    draws = serializers.IntegerField(min_value=0, required=False)
    losses = serializers.IntegerField(min_value=0, required=False)
    win_rate = serializers.FloatField(allow_null=True, required=False)
    win_rate_ci = IntervalSerializer(required=False)
    by_first = ByFirstSerializer(required=False)
    rounds = StudyRoundsSerializer(required=False)
    reasons = serializers.DictField(child=serializers.IntegerField(min_value=0), required=False)
    decisiveness = DecisivenessSerializer(required=False)
    opponents = OpponentRowSerializer(many=True, required=False, help_text="gauntlet: a row per opponent.")
    agents = AgentRowSerializer(many=True, required=False, help_text="ladder: a row per agent level.")
    matrix = MatrixSerializer(required=False)
    standings = StandingSerializer(many=True, required=False, help_text="matrix: entrants by mean win rate.")
    base = one_of(["matchup", "field"], required=False)
    baseline = VariantSerializer(required=False)
    patched = VariantSerializer(required=False)
    difference = DifferenceSerializer(required=False)
    p_value = serializers.FloatField(min_value=0, max_value=1, required=False, help_text="McNemar's exact test, paired by seed.")
    patched_rows = PatchedRowSerializer(many=True, required=False, help_text="field what-if: the patched cards' rows.")


class BatchResultSerializer(serializers.ModelSerializer):
    """A batch: the fields every game answers (each game's subclass types its summary and inputs)."""

    url = serializers.HyperlinkedIdentityField(view_name="batch-detail")
    kind = one_of(BatchModel.Kind.values)
    status = one_of(BatchModel.Status.values)
    count = serializers.IntegerField(min_value=1, max_value=MAX_BATCH, help_text="Matches to play in all.")
    played = serializers.IntegerField(min_value=0, max_value=MAX_BATCH, help_text="Matches played and stored.")
    per_pairing = serializers.IntegerField(min_value=0, max_value=MAX_PER_PAIRING, help_text="The count asked for each pairing.")
    seed = seed_field(help_text="Match i of each pairing was played with seed + i.")
    until_ci_width = NumberField(allow_null=True)
    chunks = serializers.IntegerField(min_value=0, help_text="The chunks the study is split into.")
    results = ResultsSerializer()
    error = serializers.CharField(allow_blank=True, help_text="Why a failed batch failed; empty otherwise.")

    class Meta:
        model = Batch
        fields = ["id", "url", "game", "kind", "status", "count", "played", "per_pairing", "seed", "swap_sides",
                  "until_ci_width", "chunks", "results", "summary", "error", "inputs", "created_at", "updated_at",
                  "finished_at"]
        read_only_fields = fields


class SimulatedSerializer(serializers.Serializer):
    """How the armies (teams) fielding this card did in the latest field study of the official sets."""

    batch = serializers.UUIDField(help_text="The field study (GET /api/simulate/batches/{id}/).")
    finished_at = serializers.DateTimeField()
    played = serializers.IntegerField(min_value=0, help_text="Matches of the study.")
    appearances = serializers.IntegerField(min_value=0)
    wins = serializers.IntegerField(min_value=0)
    win_rate = serializers.FloatField(allow_null=True)
    win_rate_ci = IntervalSerializer(help_text="95% Wilson interval.")
    without_win_rate = serializers.FloatField(allow_null=True)
    delta = serializers.FloatField(allow_null=True)
    delta_ci = IntervalSerializer(help_text="Newcombe's 95% interval.")
    flag = one_of(["over", "under"], allow_null=True, help_text="over / under where delta_ci excludes 0.")


def simulated_block(context: Mapping[str, Any], *, game: str, group: str, member: str) -> dict[str, Any] | None:
    """A card's row of the latest field study (read once per answer, whatever the number of cards)."""
    from simulate.selectors import latest_field_study

    cache = cast(dict[str, Any], context).setdefault("simulated_rows", {})  # a serializer's context: a dict
    if game not in cache:
        batch = latest_field_study(game=game)
        rows = {} if batch is None else {
            name: {row[key]: row for row in batch.results.get(name, [])} for name, (key, _) in FIELD_GROUPS.items()}
        cache[game] = (batch, rows)
    batch, rows = cache[game]
    row = rows.get(group, {}).get(member)
    if batch is None or row is None:
        return None
    key = FIELD_GROUPS[group][0]
    return {"batch": str(batch.pk), "finished_at": batch.finished_at, "played": batch.played,
            **{name: value for name, value in row.items() if name != key}}


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
