"""Filters of the shared catalogue (django-filter); every field a client may sort by is here.

Also the base of every FilterSet of the project: `FilterSet`, whose numbers are whole numbers from 0 to
2**63 - 1 (`IntegerFilter`). A float (`rarity_id=1.5`), a negative number or one past 64 bits answers 400
naming the parameter, before any query: the databases would round it, or fail on it.
"""

import datetime as dt
import re

import django_filters
from django import forms
from django.db import models
from django.utils.dateparse import parse_datetime
from drf_spectacular.utils import extend_schema_field
from rest_framework.exceptions import ValidationError

from cardsdb.api.filters import is_blank
from cardsdb.choices import Game
from cardsdb.models import Card, CardSet, Collection
from cardsdb.query import MAX_LENGTH, Language, QueryError

MAX_INTEGER = 2**63 - 1


class BoundedIntegerField(forms.IntegerField):
    """A whole number from 0 to 2**63 - 1 (ids, stats, counts)."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("min_value", 0)
        kwargs.setdefault("max_value", MAX_INTEGER)
        super().__init__(*args, **kwargs)


@extend_schema_field({"type": "integer", "minimum": 0, "maximum": MAX_INTEGER})
class IntegerFilter(django_filters.NumberFilter):
    """The number filter of every FilterSet: whole numbers from 0 to 2**63 - 1 (not DRF's decimals)."""

    field_class = BoundedIntegerField


class StrictBooleanField(forms.NullBooleanField):
    """true/false (or 1/0, yes/no); anything else is an error rather than silently ignored."""

    widget = forms.TextInput

    def to_python(self, value):
        if value in (None, ""):
            return None
        text = str(value).strip().lower()
        if text in ("true", "1", "yes"):
            return True
        if text in ("false", "0", "no"):
            return False
        raise forms.ValidationError("Use true or false.", code="invalid")

    def validate(self, value) -> None:
        pass


class StrictBooleanFilter(django_filters.BooleanFilter):
    """The boolean filter of every FilterSet: `null`, `maybe` and the like are errors, not "no filter"."""

    field_class = StrictBooleanField


# A date and a time (`T` or a space between), seconds and fractions optional, then `Z`, an offset or nothing.
ISO_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?$")


class StrictDateTimeField(forms.Field):
    """An ISO 8601 date and time; a bare date, other formats and impossible times are errors. A time
    without an offset is UTC (the project's time zone), whatever the server's clock says."""

    def to_python(self, value):
        if value in (None, ""):
            return None
        text = str(value).strip()
        try:
            parsed = parse_datetime(text) if ISO_DATETIME.match(text) else None
        except ValueError:  # the right shape, an impossible value (month 13, offset past 24 h)
            parsed = None
        if parsed is None:
            raise forms.ValidationError(
                "Give an ISO 8601 date and time, such as 2026-01-31T12:00:00Z.", code="invalid"
            )
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=dt.UTC)
        try:
            return parsed.astimezone(dt.UTC)
        except OverflowError:  # 0001-01-01T00:00+01:00 (or the last day with -01:00) is out of range
            bound = dt.datetime.min if parsed.year == dt.MINYEAR else dt.datetime.max
            return bound.replace(tzinfo=dt.UTC)


@extend_schema_field({"type": "string", "format": "date-time"})
class UpdatedSinceFilter(django_filters.Filter):
    """`updated_since=<ISO 8601 date and time>`: the rows changed at or after it (incremental sync). A row
    deleted since is not reported: a client that must see deletions compares ids with a full list or a
    bulk file."""

    field_class = StrictDateTimeField

    def __init__(self, **kwargs):
        kwargs.setdefault("field_name", "updated_at")
        kwargs.setdefault("lookup_expr", "gte")
        kwargs.setdefault(
            "help_text", "Only rows changed at or after this ISO 8601 date and time (UTC without an offset)."
        )
        super().__init__(**kwargs)


INTEGER_FIELDS = (
    models.AutoField, models.BigAutoField, models.SmallAutoField, models.IntegerField, models.BigIntegerField,
    models.SmallIntegerField, models.PositiveIntegerField, models.PositiveBigIntegerField,
    models.PositiveSmallIntegerField,
)


class FilterSet(django_filters.FilterSet):
    """The base of every FilterSet: numbers are IntegerFilters, booleans StrictBooleanFilters (for the
    filters Meta.fields generates too), and a parameter given empty or blank (`atk__gte=`) is no filter,
    whatever its type: the API's lists name it in their `warnings` (cardsdb.api.filters)."""

    FILTER_DEFAULTS = {
        **django_filters.FilterSet.FILTER_DEFAULTS,
        **{field: {"filter_class": IntegerFilter} for field in INTEGER_FIELDS},
        models.BooleanField: {"filter_class": StrictBooleanFilter},
    }

    def __init__(self, data=None, *args, **kwargs):
        if data is not None:
            data = data.copy()
            for name in [name for name, value in data.items() if isinstance(value, str) and is_blank(value)]:
                del data[name]
        super().__init__(data, *args, **kwargs)


@extend_schema_field({"type": "string", "maxLength": MAX_LENGTH})
class QueryFilter(django_filters.CharFilter):
    """`q`: a query in a game's search language (docs/realms-query.md). A query that cannot be run answers 400
    with the position of the problem; the terms it ignored are kept on the request as `query_warnings`, for the
    list answer's `warnings` (cardsdb.api.pagination)."""

    def __init__(self, *, language: Language, **kwargs):
        kwargs.setdefault("help_text", "A query in the search language (docs/realms-query.md); "
                          "ignored terms are named in the answer's `warnings`.")
        super().__init__(**kwargs)
        self.language = language

    def filter(self, qs, value):
        if not value:
            return qs
        try:
            condition, warnings = self.language.search(value)
        except QueryError as exc:
            error = ValidationError({self.field_name: [str(exc)]})
            # Read by the API's error handler (cardsdb.api.errors); not an attribute DRF declares.
            error.extra = {"position": exc.position}  # type: ignore[attr-defined]
            raise error from exc
        request = getattr(self.parent, "request", None)
        if request is not None:
            request.query_warnings = [{"message": w.message, "parameter": self.field_name, "position": w.position}
                                      for w in warnings]
        return qs.filter(condition)


class CardFilter(FilterSet):
    game = django_filters.ChoiceFilter(choices=Game.choices)
    rarity = django_filters.CharFilter(field_name="rarity__slug", help_text="Rarity slug.")
    rarity_id = IntegerFilter(field_name="rarity_id", help_text="Rarity id.")
    code = django_filters.CharFilter(lookup_expr="iexact", help_text="Card code, e.g. ER-CORE-017 (any case).")
    set = django_filters.CharFilter(field_name="card_set__code", help_text="Set code.")
    set_id = IntegerFilter(field_name="card_set_id", help_text="Set id.")
    name = django_filters.CharFilter(lookup_expr="icontains")
    has_image = StrictBooleanFilter(field_name="image", method="filter_has_image")
    updated_since = UpdatedSinceFilter()

    class Meta:
        model = Card
        fields = ["game", "rarity", "rarity_id", "set", "set_id", "name", "has_image", "updated_since"]

    def filter_has_image(self, queryset, name, value):
        return queryset.exclude(image="") if value else queryset.filter(image="")


class CardSetFilter(FilterSet):
    game = django_filters.ChoiceFilter(choices=Game.choices)
    released_after = django_filters.DateFilter(field_name="release_date", lookup_expr="gte")
    released_before = django_filters.DateFilter(field_name="release_date", lookup_expr="lte")

    class Meta:
        model = CardSet
        fields = ["game", "released_after", "released_before"]


class CollectionFilter(FilterSet):
    name = django_filters.CharFilter(lookup_expr="icontains")
    card = django_filters.CharFilter(field_name="entries__card__slug", distinct=True)

    class Meta:
        model = Collection
        fields = ["name", "card"]
