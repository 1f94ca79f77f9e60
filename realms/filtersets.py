"""Filters of the Echo Realms catalogue; a guard test checks every model field has one."""

import django_filters

from cardsdb.filtersets import FilterSet, IntegerFilter, QueryFilter, StrictBooleanFilter, UpdatedSinceFilter
from realms.choices import CharacterClass, Position
from realms.models import Army, Character, Race
from realms.query import CHARACTERS

# API name -> model field, for every stat that takes exact and range filters.
STAT_FIELDS = {"atk": "attack", "def": "defense", "spd": "speed", "hp": "health", "cooldown": "cooldown"}


def _stat_filters() -> dict[str, django_filters.Filter]:
    filters = {}
    for api_name, field in STAT_FIELDS.items():
        filters[api_name] = IntegerFilter(field_name=field)
        filters[f"{api_name}__gte"] = IntegerFilter(field_name=field, lookup_expr="gte")
        filters[f"{api_name}__lte"] = IntegerFilter(field_name=field, lookup_expr="lte")
    return filters


class CharacterFilter(FilterSet):
    faction = django_filters.CharFilter(field_name="faction__slug", help_text="Faction slug.")
    faction_id = IntegerFilter(field_name="faction_id", help_text="Faction id.")
    race = django_filters.CharFilter(field_name="race__slug", help_text="Race slug.")
    race_id = IntegerFilter(field_name="race_id", help_text="Race id.")
    rarity = django_filters.CharFilter(field_name="rarity__slug", help_text="Rarity slug.")
    rarity_id = IntegerFilter(field_name="rarity_id", help_text="Rarity id.")
    code = django_filters.CharFilter(lookup_expr="iexact", help_text="Card code, e.g. ER-CORE-017 (any case).")
    set = django_filters.CharFilter(field_name="card_set__code", help_text="Set code.")
    position = django_filters.ChoiceFilter(choices=Position.choices)
    name = django_filters.CharFilter(lookup_expr="icontains")
    has_image = StrictBooleanFilter(method="filter_has_image")
    updated_since = UpdatedSinceFilter()
    q = QueryFilter(language=CHARACTERS)
    ordering = django_filters.OrderingFilter(
        fields=(
            ("name", "name"), ("attack", "atk"), ("defense", "def"), ("speed", "spd"), ("health", "hp"),
            ("cooldown", "cooldown"), ("rarity__order", "rarity"), ("faction__name", "faction"),
            ("character_class", "class"), ("race__name", "race"), ("position", "position"),
            ("created_at", "created_at"), ("updated_at", "updated_at"),
        )
    )

    class Meta:
        model = Character
        fields: list[str] = []

    def filter_has_image(self, queryset, name, value):
        return queryset.exclude(image="") if value else queryset.filter(image="")


# Names that are not Python identifiers (`class`, `atk__gte`, ...) are added after the class body.
CharacterFilter.base_filters["class"] = django_filters.ChoiceFilter(
    field_name="character_class", choices=CharacterClass.choices
)
CharacterFilter.base_filters.update(_stat_filters())


class RaceFilter(FilterSet):
    name = django_filters.CharFilter(lookup_expr="icontains")

    class Meta:
        model = Race
        fields = ["name"]


class ArmyFilter(FilterSet):
    name = django_filters.CharFilter(lookup_expr="icontains")
    collection = IntegerFilter(field_name="collection_id", help_text="Collection id.")

    class Meta:
        model = Army
        fields = ["name", "collection"]
