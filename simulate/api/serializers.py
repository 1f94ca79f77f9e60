"""The simulate API's serializers that every game shares: what a batch request adds to a match request, and
the common part of a played match and of a batch as the API answers them. The JSON-typed request fields are
in simulate.api.fields (the games' requests import them from here too), a study's figures in
simulate.api.figures, and what each kind of study adds in its module (simulate.study_kinds).

Each game's own requests and answers (`GameMatches.match_request`, `.batch_request`, `.match_result`,
`.batch_result`) subclass these, so that the schema says exactly what each game takes and answers.
Requests refuse unknown keys (StrictSerializer) and take JSON types only: `"5"` is not a number, `1` not a
string (cardsdb.api.fields), `"true"` not a boolean.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, cast

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from cardsdb.api.serializers import StrictSerializer
from cardsdb.card_history import card_versions
from simulate import pinning
from simulate.api.fields import (
    NumberField,
    TrueFalseField,
    WholeNumberField,
    one_of,
    seed_field,
)
from simulate.api.fields import (
    OneOfField as OneOfField,
)
from simulate.api.fields import (
    id_field as id_field,
)
from simulate.api.figures import (
    FIELD_GROUPS,
    FIRST_ACTOR_HELP,
    ByActedFirstSerializer,
    ByFirstSerializer,
    DecisivenessSerializer,
    IntervalSerializer,
    OutcomeFiguresSerializer,
    StudyRoundsSerializer,
    VarietySerializer,
)
from simulate.batches import MAX_BATCH, MAX_PER_PAIRING
from simulate.models import Batch, Match
from simulate.models import Batch as BatchModel
from simulate.services import game_matches, game_studies
from simulate.study_kinds import DEFAULT_KIND, KINDS, kind_label, kind_names, study_kind

# ------------------------------------------------------------------------------------- requests


class BatchOptionsMixin(serializers.Serializer):
    """What a batch request adds to its game's match request: the kind of study, its size, and the fields each
    kind declares (simulate.study_kinds). Each game adds the inputs kinds read in its own shapes (`subject`,
    `opponents`, `entrants`, `pool`, `patch`); each kind checks the keys it reads."""

    kind = one_of(kind_names(), required=False, help_text="The study (default matchup): see docs/simulate.md.")
    count = WholeNumberField(
        min_value=1, max_value=MAX_PER_PAIRING,
        help_text="Matches of each pairing (each opponent, matrix cell, agent level; a what-if plays each seed "
                  "twice, a sweep once without its patch and once at each value), match i with seed + i (so seed + count - 1 is at most 2^63 - 1). A batch plays at most "
                  f"{MAX_BATCH:,} matches in all with a broker and 20,000 without; 1,000 and 200 when an agent is "
                  "`search`. An army search (kind `search`): its games in all, up to five times those bounds.",
    )
    swap_sides = TrueFalseField(
        default=False, help_text="Swap the two sides every second match (seats and setups), to cancel first-move "
                                 "bias (a matrix always does).",
    )

    # The request keys that give one matchup (each game's own).
    matchup_keys: tuple[str, ...] = ()
    matchup_optional = False  # a game whose matchup may give none of them (then a random setup of its own)

    def get_fields(self):
        """The declared fields, then every kind's own, each game-shaped key noted with what kinds read in it."""
        fields = super().get_fields()
        for kind in KINDS.values():
            fields.update(kind.fields())
            for key, note in kind.notes.items():
                if key in fields:
                    fields[key].help_text = f"{fields[key].help_text or ''} {note}".strip()
        return fields

    def validate(self, attrs):
        """The keys of the kind's study only (and its matchup's), checked by the kind."""
        attrs = super().validate(attrs)
        kind = study_kind(attrs.setdefault("kind", DEFAULT_KIND))
        allowed = kind.allowed_keys(attrs)
        if kind.takes_matchup(attrs):
            allowed |= set(self.matchup_keys)
            self.check_matchup(attrs)
        study_keys = {key for other in KINDS.values() for key in other.keys} | {"until_ci_width", *self.matchup_keys}
        stray = sorted(key for key in study_keys - allowed if key in attrs)
        if stray:
            raise serializers.ValidationError({key: [f"Not an input of a {kind.name} study."] for key in stray})
        kind.validate(attrs)
        return attrs

    def check_matchup(self, attrs) -> None:
        """One of the keys that give a matchup (or none, for a game that draws one)."""
        given = [key for key in self.matchup_keys if key in attrs]
        if len(given) > 1 or (not given and not self.matchup_optional):
            raise serializers.ValidationError(
                f"A {attrs['kind']} gives one of {', '.join(f'`{k}`' for k in self.matchup_keys)}.")


DRAWN = "drawn"  # what a batch request's validation drew (random armies), by request key, as it will be played


def study_inputs(validated: dict[str, Any], given: Mapping[str, Any]) -> dict[str, Any]:
    """What a batch keeps as its `inputs`: the request as given, but the batch's own fields, and the armies its
    validation drew as drawn (so that every chunk plays them); its kind adjusts the rest (a matrix of factions
    keeps `entrants: "factions"` until they are chosen)."""
    left_out = {"seed", "count", "swap_sides", "until_ci_width", "kind"}
    inputs = {key: value for key, value in given.items() if key in validated and key not in left_out}
    inputs.update(validated.get(DRAWN) or {})
    study_kind(validated["kind"]).stored(inputs, validated)
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


class ResultsSerializer(VarietySerializer):
    """Everything a batch measured so far; which keys appear depends on its kind (docs/simulate.md)."""

    played = serializers.IntegerField(min_value=0, required=False)
    wins = serializers.IntegerField(min_value=0, required=False)
    draws = serializers.IntegerField(min_value=0, required=False)
    losses = serializers.IntegerField(min_value=0, required=False)
    win_rate = serializers.FloatField(allow_null=True, required=False)
    win_rate_ci = IntervalSerializer(required=False)
    by_first = ByFirstSerializer(required=False)
    by_acted_first = ByActedFirstSerializer(required=False, allow_null=True,
                                            help_text="Side a's outcomes by who acted first; null for figures "
                                                      "counted before it was.")
    first_actor = OutcomeFiguresSerializer(required=False, allow_null=True, help_text=FIRST_ACTOR_HELP)
    rounds = StudyRoundsSerializer(required=False)
    reasons = serializers.DictField(child=serializers.IntegerField(min_value=0), required=False)
    decisiveness = DecisivenessSerializer(required=False)

    def get_fields(self):
        """The figures every kind reads (declared here), then what each kind adds (`StudyKind.result_fields`)."""
        fields = super().get_fields()
        for kind in KINDS.values():
            fields.update(kind.result_fields())
        return fields


class EditedCardSerializer(serializers.Serializer):
    """A card a study played that was edited since (or deleted, or added to what it drew from)."""

    model = serializers.CharField(help_text="The card's kind, as a model label (`<app>.<model>`).")
    slug = serializers.CharField()
    name = serializers.CharField(allow_blank=True)
    status = serializers.ChoiceField(choices=["changed", "deleted", "added"],
                                     help_text="Edited, or deleted since; added: a new card under the slug of one "
                                               "it played, which was deleted since.")
    version = serializers.IntegerField(help_text="Its version now (its deletion, for a deleted card).")
    changed_at = serializers.DateTimeField(allow_null=True)
    changes = serializers.ListField(child=serializers.DictField(), help_text="{field, before, after} since.")


class CatalogueStatePlayedSerializer(serializers.Serializer):
    """One state of the catalogue a study played."""

    catalogue = serializers.CharField(help_text="A release's slug, or `working`.")
    release = serializers.CharField(allow_null=True, help_text="The release's name; null: the working catalogue.")
    versions = serializers.DictField(child=serializers.DictField(child=serializers.IntegerField()),
                                     help_text="Each card's version it played from this state, by model label and "
                                               "slug.")


class CatalogueStateSerializer(serializers.Serializer):
    """The catalogue a study played, frozen when it was created."""

    release = serializers.CharField(allow_null=True, help_text="The release its cards' versions are, if one is; "
                                                               "null: the working catalogue of that day.")
    frozen_at = serializers.DateTimeField(help_text="When its cards were frozen (its creation).")
    cards = serializers.DictField(child=serializers.ListField(child=serializers.CharField()),
                                  help_text="The cards it played, by model label.")
    versions = serializers.DictField(child=serializers.DictField(child=serializers.IntegerField()),
                                     help_text="Each card's version it played, by model label and slug.")
    edited_since = EditedCardSerializer(many=True, help_text="The cards it played that were edited since.")
    states = CatalogueStatePlayedSerializer(
        many=True, required=False,
        help_text="A study played on several states of the catalogue (a regression): each state's versions of the "
                  "cards it played; `versions` and `release` are then the working catalogue's part alone.")


class SampleSerializer(serializers.Serializer):
    """A sample match a study kept: replay it with POST .../replay/."""

    pairing = serializers.IntegerField(min_value=0, help_text="Its pairing, in the study's order.")
    pairing_label = serializers.DictField(help_text="The pairing as the study labels it (an opponent, a cell, a variant).")
    outcome = one_of(["win", "draw", "loss"], help_text="For side a (team 0).")
    match = serializers.IntegerField(min_value=0, help_text="Its index in the pairing: played with seed + match.")
    seed = seed_field()


class ReplayRequestSerializer(StrictSerializer):
    """Which match of the study to play again with its log."""

    pairing = WholeNumberField(min_value=0, max_value=MAX_PER_PAIRING, help_text="The pairing (0 for one pairing).")
    match = WholeNumberField(min_value=0, max_value=MAX_PER_PAIRING,
                             help_text="The match of the pairing: the one played with seed + match.")


class AppliedEditSerializer(serializers.Serializer):
    model = serializers.CharField(help_text="The card's kind, as a model label.")
    slug = serializers.CharField()
    version = serializers.IntegerField(help_text="Its new version (GET .../{slug}/history/).")


class AppliedPatchSerializer(serializers.Serializer):
    """A what-if's patch applied to the catalogue: each card's new version."""

    applied = AppliedEditSerializer(many=True)


class BatchResultSerializer(serializers.ModelSerializer):
    """A batch: the fields every game answers (each game's subclass types its summary and inputs)."""

    url = serializers.HyperlinkedIdentityField(view_name="batch-detail")
    kind = one_of(kind_names())
    status = one_of(BatchModel.Status.values)
    count = serializers.IntegerField(min_value=1, max_value=MAX_BATCH, help_text="Matches to play in all.")
    played = serializers.IntegerField(min_value=0, max_value=MAX_BATCH, help_text="Matches played and stored.")
    per_pairing = serializers.IntegerField(min_value=0, max_value=MAX_PER_PAIRING, help_text="The count asked for each pairing.")
    seed = seed_field(help_text="Match i of each pairing was played with seed + i.")
    until_ci_width = NumberField(allow_null=True)
    chunks = serializers.IntegerField(min_value=0, help_text="The chunks the study is split into.")
    results = ResultsSerializer()
    error = serializers.CharField(allow_blank=True, help_text="Why a failed batch failed; empty otherwise.")
    catalogue = serializers.SerializerMethodField(
        help_text="What it played (its cards as frozen when it was created, the release those versions are, if "
                  "one is) and the cards edited since. Null for a study stored before studies kept what they "
                  "played.")
    replayable = serializers.SerializerMethodField(
        help_text="Whether POST .../rerun/ plays it again exactly (it kept what it played).")
    published_at = serializers.DateTimeField(allow_null=True, help_text="When staff published it; null if private.")
    rerun_of: serializers.PrimaryKeyRelatedField = serializers.PrimaryKeyRelatedField(
        read_only=True, allow_null=True, help_text="The study it played again, if it is a rerun.")
    kind_label = serializers.SerializerMethodField(help_text="The kind of study as the pages name it.")
    about = serializers.SerializerMethodField(help_text="What the study is of, in a few words (a what-if's patch, "
                                                        "a gauntlet's opponents, a field's pool...).")

    class Meta:
        model = Batch
        fields = ["id", "url", "game", "kind", "kind_label", "about", "status", "count", "played", "per_pairing",
                  "seed", "swap_sides", "until_ci_width", "chunks", "results", "summary", "error", "inputs",
                  "catalogue", "replayable", "published_at", "rerun_of", "created_at", "updated_at", "finished_at"]
        read_only_fields = fields

    @extend_schema_field(CatalogueStateSerializer(allow_null=True))
    def get_catalogue(self, batch: Batch) -> dict[str, Any] | None:
        # The catalogue's versions are read once per answer, however many studies a list page holds.
        current = cast(dict[str, Any], self.context).setdefault("card_versions", {})
        if batch.game not in current:
            current[batch.game] = card_versions(batch.game)
        return pinning.catalogue_report(batch, current[batch.game])

    def get_replayable(self, batch: Batch) -> bool:
        return batch.frozen_id is not None

    def get_kind_label(self, batch: Batch) -> str:
        return kind_label(batch.kind)

    def get_about(self, batch: Batch) -> str:
        kind = KINDS.get(batch.kind)
        return kind.about(batch) if kind else ""


class MeasuredVersionSerializer(serializers.Serializer):
    """The version of a card a published field study measured."""

    release = serializers.CharField(allow_null=True, help_text="The release the study's cards were, if one.")
    frozen_at = serializers.DateTimeField(help_text="When the study froze the cards it played.")
    version = serializers.IntegerField(allow_null=True, help_text="The card's version it measured.")
    edited_since = serializers.DictField(allow_null=True, help_text="null, or the card's `status` (changed, "
                                                                    "deleted, or added: replaced by a new card with "
                                                                    "its slug), `version` and `changed_at` since.")


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
    catalogue = MeasuredVersionSerializer(allow_null=True, help_text="The card's version the figures are for; "
                                                                     "null for a study of before versions were kept.")


def simulated_block(context: Mapping[str, Any], *, game: str, group: str, member: str) -> dict[str, Any] | None:
    """A card's row of the published field study, and the version of the card it measured (read once per
    answer, whatever the number of cards)."""
    from simulate.selectors import published_field_study

    cache = cast(dict[str, Any], context).setdefault("simulated_rows", {})  # a serializer's context: a dict
    if game not in cache:
        batch = published_field_study(game=game)
        rows = {} if batch is None else {
            name: {row[key]: row for row in batch.results.get(name, [])} for name, (key, _) in FIELD_GROUPS.items()}
        report = None if batch is None else pinning.catalogue_report(batch)
        edited: dict[tuple[str, str], Mapping[str, Any]] = {}
        for card in (report or {}).get("edited_since", []):  # the measured card's own fate before a newcomer's
            if card["status"] != "added" or (card["model"], card["slug"]) not in edited:
                edited[(card["model"], card["slug"])] = card
        cache[game] = (batch, rows, report, edited)
    batch, rows, report, edited = cache[game]
    row = rows.get(group, {}).get(member)
    if batch is None or row is None:
        return None
    key = FIELD_GROUPS[group][0]
    return {"batch": str(batch.pk), "finished_at": batch.finished_at, "played": batch.played,
            "catalogue": card_state(report, edited, game_studies(game).card_groups.get(group, ""), member),
            **{name: value for name, value in row.items() if name != key}}


def card_state(report: Mapping[str, Any] | None, edited: Mapping[tuple[str, str], Mapping[str, Any]], model: str,
               slug: str) -> dict[str, Any] | None:
    """Which version of a card a published study measured, and whether it was edited since (None for a study
    stored before studies kept what they played)."""
    if report is None:
        return None
    since = edited.get((model, slug))
    return {"release": report["release"], "frozen_at": report["frozen_at"],
            "version": report["versions"].get(model, {}).get(slug),
            "edited_since": None if since is None else {key: since[key] for key in ("status", "version", "changed_at")}}


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
