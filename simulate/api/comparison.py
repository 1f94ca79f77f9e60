"""Two studies side by side as the API answers them (`GET /api/simulate/batches/compare/?a=&b=`)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from rest_framework import serializers

from simulate.api.fields import one_of
from simulate.api.figures import IntervalSerializer
from simulate.comparison import Comparison
from simulate.models import Batch
from simulate.study_kinds import kind_label, kind_names, study_kind


class StudyFactsSerializer(serializers.ModelSerializer):
    """Which study, in short."""

    url = serializers.HyperlinkedIdentityField(view_name="batch-detail")
    kind_label = serializers.SerializerMethodField()
    about = serializers.SerializerMethodField(help_text="What the study is of, in a few words.")

    class Meta:
        model = Batch
        fields = ["id", "url", "game", "kind", "kind_label", "about", "count", "played", "per_pairing", "seed",
                  "created_at", "finished_at"]
        read_only_fields = fields

    def get_kind_label(self, batch: Batch) -> str:
        return kind_label(batch.kind)

    def get_about(self, batch: Batch) -> str:
        return study_kind(batch.kind).about(batch)


class OutcomesSerializer(serializers.Serializer):
    whose = serializers.CharField(help_text="Whose outcomes: a side, a half of a what-if, every match.")
    played = serializers.IntegerField(min_value=0)
    wins = serializers.IntegerField(min_value=0)
    draws = serializers.IntegerField(min_value=0)
    losses = serializers.IntegerField(min_value=0)
    sided = serializers.BooleanField(help_text="false where no side is the one studied: only the draws say "
                                               "something (a field, a matrix).")


class RankedSerializer(serializers.Serializer):
    name = serializers.CharField()
    value = serializers.FloatField(allow_null=True)
    interval = IntervalSerializer(allow_null=True)
    url = serializers.CharField(allow_null=True, help_text="The member's page on this site, if it has one.")


class HeadlineSerializer(serializers.Serializer):
    """What a study measures, as its report leads with it."""

    measures = serializers.CharField()
    value = serializers.FloatField(allow_null=True, help_text="A rate, or a difference of rates when `difference`.")
    interval = IntervalSerializer(allow_null=True, help_text="Its 95% interval.")
    difference = serializers.BooleanField()
    outcomes = OutcomesSerializer(many=True)
    ranked_title = serializers.CharField(allow_blank=True)
    ranked_figure = serializers.CharField(allow_blank=True)
    ranked = RankedSerializer(many=True)
    ranked_difference = serializers.BooleanField()
    note = serializers.CharField(allow_blank=True)


class HeadlinesSerializer(serializers.Serializer):
    a = HeadlineSerializer()
    b = HeadlineSerializer()


class MemberDeltaSerializer(serializers.Serializer):
    appearances = serializers.IntegerField(min_value=0)
    win_rate = serializers.FloatField(allow_null=True)
    delta = serializers.FloatField(allow_null=True)
    delta_ci = IntervalSerializer()
    flag = one_of(["over", "under"], allow_null=True)


class MemberComparisonSerializer(serializers.Serializer):
    group = serializers.CharField(help_text="The field group: cards, factions, classes, protectors...")
    member = serializers.CharField()
    a = MemberDeltaSerializer(allow_null=True, help_text="Its row in study a; null when a never fielded it.")
    b = MemberDeltaSerializer(allow_null=True)
    difference = serializers.FloatField(allow_null=True, help_text="Its delta in a less its delta in b.")
    difference_ci = IntervalSerializer(allow_null=True, help_text="95% interval: the two studies are independent, "
                                                                  "so their standard errors are combined.")


class VariantRowSerializer(serializers.Serializer):
    appearances = serializers.IntegerField(min_value=0)
    win_rate = serializers.FloatField(allow_null=True)
    delta = serializers.FloatField(allow_null=True)
    delta_ci = IntervalSerializer()


class PatchedPairSerializer(serializers.Serializer):
    baseline = VariantRowSerializer(allow_null=True)
    patched = VariantRowSerializer(allow_null=True)


class PatchedCardComparisonSerializer(serializers.Serializer):
    card = serializers.CharField()
    a = PatchedPairSerializer(allow_null=True, help_text="Its rows in study a; null when a did not patch it.")
    b = PatchedPairSerializer(allow_null=True)


class ComparisonSerializer(serializers.Serializer):
    """Two finished studies of one kind and one game side by side."""

    game = serializers.CharField()
    kind = one_of(kind_names())
    a = StudyFactsSerializer()
    b = StudyFactsSerializer()
    headlines = HeadlinesSerializer(help_text="What each study measures, as its report leads with it.")
    members = MemberComparisonSerializer(many=True, required=False,
                                         help_text="field: every member of either study, the largest differences "
                                                   "of delta first.")
    patched_cards = PatchedCardComparisonSerializer(many=True, required=False,
                                                    help_text="whatif of a field: each patched card's rows.")


def comparison_data(comparison: Comparison) -> dict[str, Any]:
    """What ComparisonSerializer reads of a comparison."""
    return {"game": comparison.a.game, "kind": comparison.a.kind, "a": comparison.a, "b": comparison.b,
            "headlines": {name: asdict(headline) for name, headline in comparison.headlines.items()},
            **comparison.compared}
