"""Filters of the Akin Legends catalogue (by id and by slug); a guard test checks every model field has one."""

from __future__ import annotations

import django_filters
from django.db.models import F, Q, QuerySet

from cardsdb.filtersets import FilterSet, IntegerFilter, QueryFilter, StrictBooleanFilter, UpdatedSinceFilter
from legends.choices import EffectKind, Mode
from legends.engine.protectors import HOOKS, KINDS
from legends.models import DefenseCard, Element, Protector, Spirit, SummoningCard, TeamSetup
from legends.query import DEFENSES, PROTECTORS, SPIRITS, SUMMONING_CARDS


class AnyFieldSlugFilter(django_filters.CharFilter):
    """Element slugs, comma-separated; a row matches when every slug is on one of `field_names`.

    `element=fire` on defenses: defenses requiring Fire; `element=fire,water`: requiring both.
    """

    def __init__(self, *, field_names: tuple[str, ...], **kwargs):
        super().__init__(field_name=field_names[0], **kwargs)
        self.field_names = field_names

    def filter(self, qs: QuerySet, value: str) -> QuerySet:
        for slug in {part.strip() for part in (value or "").split(",") if part.strip()}:
            condition = Q()
            for name in self.field_names:
                condition |= Q(**{f"{name}__slug": slug})
            qs = qs.filter(condition)
        return qs


class AnyFieldIdFilter(IntegerFilter):
    """An element id; a row matches when it is on one of `field_names`."""

    def __init__(self, *, field_names: tuple[str, ...], **kwargs):
        super().__init__(field_name=field_names[0], **kwargs)
        self.field_names = field_names

    def filter(self, qs: QuerySet, value) -> QuerySet:
        if value is None:
            return qs
        condition = Q()
        for name in self.field_names:
            condition |= Q(**{f"{name}_id": value})
        return qs.filter(condition)


class ElementFilter(FilterSet):
    slug = django_filters.CharFilter()
    name = django_filters.CharFilter(lookup_expr="icontains")

    class Meta:
        model = Element
        fields = ["slug", "name"]


class LegendsCardFilter(FilterSet):
    """Filters every Akin Legends card has."""

    code = django_filters.CharFilter(lookup_expr="iexact", help_text="Card code, e.g. ER-CORE-017 (any case).")
    set = django_filters.CharFilter(field_name="card_set__code", help_text="Set code.")
    set_id = IntegerFilter(field_name="card_set_id", help_text="Set id.")
    name = django_filters.CharFilter(lookup_expr="icontains")
    has_image = StrictBooleanFilter(field_name="image", method="filter_has_image")
    updated_since = UpdatedSinceFilter()

    def filter_has_image(self, queryset, name, value):
        return queryset.exclude(image="") if value else queryset.filter(image="")


class SpiritFilter(LegendsCardFilter):
    q = QueryFilter(language=SPIRITS)

    class Meta:
        model = Spirit
        fields = ["set", "set_id", "name", "has_image", "updated_since"]


class ProtectorFilter(LegendsCardFilter):
    duel_legal = StrictBooleanFilter()
    effect_kind = django_filters.ChoiceFilter(
        field_name="effect__kind", choices=[(kind, kind) for kind in KINDS], help_text="Effect kind."
    )
    hook = django_filters.ChoiceFilter(
        field_name="effect__when", choices=[(hook, hook) for hook in HOOKS], help_text="When the effect runs."
    )
    element = django_filters.CharFilter(field_name="effect__element", help_text="Element slug or `any`.")

    q = QueryFilter(language=PROTECTORS)

    class Meta:
        model = Protector
        fields = [
            "set", "set_id", "name", "has_image", "updated_since", "duel_legal", "effect_kind", "hook", "element",
        ]


class DefenseCardFilter(LegendsCardFilter):
    element = AnyFieldSlugFilter(
        field_names=("element_1", "element_2"), help_text="Element slug(s), comma-separated: requires all."
    )
    element_id = AnyFieldIdFilter(field_names=("element_1", "element_2"), help_text="Element id.")

    q = QueryFilter(language=DEFENSES)

    class Meta:
        model = DefenseCard
        fields = ["set", "set_id", "name", "has_image", "updated_since", "element", "element_id"]


class SummoningCardFilter(LegendsCardFilter):
    attack = AnyFieldSlugFilter(
        field_names=("attack_1", "attack_2"), help_text="Attack element slug(s), comma-separated: has all."
    )
    attack_id = AnyFieldIdFilter(field_names=("attack_1", "attack_2"), help_text="Attack element id.")
    effect_kind = django_filters.ChoiceFilter(choices=EffectKind.choices)
    effect_element = django_filters.CharFilter(field_name="effect_element__slug", help_text="Element slug.")
    effect_element_id = IntegerFilter(field_name="effect_element_id", help_text="Effect element id.")
    element = AnyFieldSlugFilter(
        field_names=("attack_1", "attack_2", "effect_element"),
        help_text="Element slug(s) on any face (attack or effect), comma-separated: has all.",
    )
    double = StrictBooleanFilter(
        field_name="attack_2", method="filter_double", help_text="Both attacks of one element."
    )
    copies = IntegerFilter()
    copies__gte = IntegerFilter(field_name="copies", lookup_expr="gte")

    q = QueryFilter(language=SUMMONING_CARDS)

    class Meta:
        model = SummoningCard
        fields = [
            "set", "set_id", "name", "has_image", "updated_since", "attack", "attack_id", "effect_kind",
            "effect_element", "effect_element_id", "element", "double", "copies", "copies__gte",
        ]

    def filter_double(self, queryset, name, value):
        same = Q(attack_1=F("attack_2"))
        return queryset.filter(same) if value else queryset.exclude(same)


class TeamSetupFilter(FilterSet):
    name = django_filters.CharFilter(lookup_expr="icontains")
    mode = django_filters.ChoiceFilter(choices=Mode.choices)

    class Meta:
        model = TeamSetup
        fields = ["name", "mode"]
