"""Filters of the study list, shared by the API (`GET /api/simulate/batches/`) and the studies page."""

import django_filters
from django import forms

from cardsdb.choices import Game
from cardsdb.filtersets import FilterSet, StrictBooleanFilter
from simulate.models import Batch
from simulate.study_kinds import kind_choices


class BatchFilter(FilterSet):
    game = django_filters.ChoiceFilter(choices=Game.choices, help_text="The game.")
    kind = django_filters.ChoiceFilter(choices=kind_choices(), help_text="The kind of study.")
    status = django_filters.ChoiceFilter(choices=Batch.Status.choices, help_text="Where it is: queued to cancelled.")
    published = StrictBooleanFilter(field_name="published_at", lookup_expr="isnull", exclude=True,
                                    help_text="Published by staff (true) or private (false).",
                                    widget=forms.Select(choices=[("", "any"), ("true", "yes"), ("false", "no")]))

    class Meta:
        model = Batch
        fields = ["game", "kind", "status", "published"]
