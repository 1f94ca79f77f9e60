"""Filters of the shared catalogue (django-filter); every field a client may sort by is here."""

import django_filters

from cardsdb.choices import Game
from cardsdb.models import Card, CardSet, Collection


class CardFilter(django_filters.FilterSet):
    game = django_filters.ChoiceFilter(choices=Game.choices)
    rarity = django_filters.CharFilter(field_name="rarity__slug", help_text="Rarity slug.")
    rarity_id = django_filters.NumberFilter(field_name="rarity_id")
    set = django_filters.CharFilter(field_name="card_set__code", help_text="Set code.")
    set_id = django_filters.NumberFilter(field_name="card_set_id")
    name = django_filters.CharFilter(lookup_expr="icontains")
    has_image = django_filters.BooleanFilter(field_name="image", method="filter_has_image")

    class Meta:
        model = Card
        fields = ["game", "rarity", "rarity_id", "set", "set_id", "name", "has_image"]

    def filter_has_image(self, queryset, name, value):
        return queryset.exclude(image="") if value else queryset.filter(image="")


class CardSetFilter(django_filters.FilterSet):
    game = django_filters.ChoiceFilter(choices=Game.choices)
    released_after = django_filters.DateFilter(field_name="release_date", lookup_expr="gte")
    released_before = django_filters.DateFilter(field_name="release_date", lookup_expr="lte")

    class Meta:
        model = CardSet
        fields = ["game", "released_after", "released_before"]


class CollectionFilter(django_filters.FilterSet):
    name = django_filters.CharFilter(lookup_expr="icontains")
    card = django_filters.CharFilter(field_name="entries__card__slug", distinct=True)

    class Meta:
        model = Collection
        fields = ["name", "card"]
