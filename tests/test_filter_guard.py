"""One guard over every django-filter FilterSet of the project: each model field has a filter or a reason.

The FilterSets are found, not listed: every app's `filtersets` module is imported and the subclasses of
FilterSet defined in the project are walked. A field counts as filtered when a filter's field path starts
with it (`rarity__slug`, `rarity_id` and `rarity` all filter `rarity`); ordering filters do not count.
"""

import importlib
import importlib.util
from typing import Any

import django_filters
import pytest
from django.db import models

PROJECT_APPS = ("cardsdb", "realms", "legends", "simulate")


def _subclasses(cls: Any) -> list[Any]:
    found: list[Any] = []
    for sub in cls.__subclasses__():
        found += [sub, *_subclasses(sub)]
    return found


def project_filtersets() -> list[type[django_filters.FilterSet]]:
    """Every FilterSet class defined in the project's apps, once each, by module and name."""
    for app in PROJECT_APPS:
        if importlib.util.find_spec(f"{app}.filtersets") is not None:
            importlib.import_module(f"{app}.filtersets")
    found = {sub for sub in _subclasses(django_filters.FilterSet) if sub.__module__.split(".")[0] in PROJECT_APPS}
    return sorted(found, key=lambda sub: (sub.__module__, sub.__name__))


FILTERSETS = project_filtersets()
WITH_MODEL = [filterset for filterset in FILTERSETS if filterset._meta.model is not None]


def label(model) -> str:
    return model._meta.label


# --- exemptions -------------------------------------------------------------------------------------


def kind_exemption(field: models.Field) -> str | None:
    """Kinds of field that no filter is expected for, and why (None: this field needs a filter)."""
    if field.primary_key:
        return "primary key (also a parent link): detail URLs look rows up"
    if isinstance(field, models.BinaryField):
        return "binary data: nothing a client could match"
    if isinstance(field, models.FileField):  # ImageField too
        return "file: a `has_image` filter covers the art where a client needs it"
    if isinstance(field, models.JSONField):
        return "structured JSON: filtered through its keys where a client needs it (e.g. effect__kind)"
    if getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False):
        return "time stamp the database keeps: sort with `ordering`"
    return None


LOOKUP = "detail URLs look rows up by it"
SEARCH = "free text: use `search`"
OWNER = "always the requesting user: lists hold only their own rows"
PRESENTATION = "presentation only"
CARD = {"slug": LOOKUP, "rules_text": SEARCH, "flavor_text": SEARCH}
GAME_CARD = {**CARD, "game": "a game's endpoint lists only that game's cards"}
LEGENDS_CARD = {**GAME_CARD, "rarity": "Akin Legends cards have no rarity"}

# FilterSet model -> field -> why it has no filter.
EXEMPT: dict[str, dict[str, str]] = {
    "cardsdb.Card": CARD,
    "cardsdb.CardSet": {"code": LOOKUP, "name": SEARCH, "description": SEARCH},
    "cardsdb.Collection": {"owner": OWNER},
    "realms.Character": GAME_CARD,
    "realms.Race": {"slug": LOOKUP, "description": SEARCH},
    "realms.Army": {"owner": OWNER},
    "legends.Element": {"color": PRESENTATION, "icon": PRESENTATION, "order": "sort with `ordering`"},
    "legends.Spirit": {**LEGENDS_CARD, "color": PRESENTATION},
    "legends.Protector": LEGENDS_CARD,
    "legends.DefenseCard": LEGENDS_CARD,
    "legends.SummoningCard": LEGENDS_CARD,
    "legends.TeamSetup": {"owner": OWNER},
    "simulate.Batch": {
        "owner": OWNER, "finished_at": "sort with `ordering`",
        **dict.fromkeys(("client", "queued_by", "runner", "heartbeat_at", "served_at", "chunk_size", "chunks", "error"),
                        "the runner's bookkeeping, not what a designer looks a study up by"),
        **dict.fromkeys(("count", "played", "per_pairing", "seed", "swap_sides", "until_ci_width"),
                        "a study's size and seeds: shown in each row of the list, which holds one account's studies"),
        **dict.fromkeys(("frozen", "rerun_of"), "what it plays and what it reruns: read on the study, not looked up"),
        "published_by": "staff publish: `published` filters by whether a study is published",
    },
}

# FilterSet model -> field -> the filter that reaches it by another path than its field_name.
REACHED_BY: dict[str, dict[str, str]] = {
    "realms.Character": {"image": "has_image"},  # a method filter, named for what it answers
    "cardsdb.Collection": {"cards": "card"},  # through the entries: entries__card__slug
}


# --- the guard ----------------------------------------------------------------------------------------


def model_fields(model) -> dict[str, models.Field]:
    """Concrete fields (inherited ones too) and forward many-to-many fields; no reverse relations."""
    return {field.name: field for field in [*model._meta.concrete_fields, *model._meta.many_to_many]}


def covered_fields(filterset) -> set[str]:
    model = filterset._meta.model
    attnames = {field.attname: field.name for field in model._meta.concrete_fields}
    covered = set(REACHED_BY.get(label(model), {}))
    for flt in filterset.base_filters.values():
        if isinstance(flt, django_filters.OrderingFilter):
            continue  # sorts, filters nothing
        for path in getattr(flt, "field_names", None) or (flt.field_name,):
            root = path.split("__")[0]
            covered.add(attnames.get(root, root))  # "rarity_id" is the rarity field
    return covered


def test_the_filtersets_are_found():
    names = {filterset.__name__ for filterset in FILTERSETS}
    assert {"CardFilter", "CharacterFilter", "ArmyFilter", "SummoningCardFilter", "TeamSetupFilter"} <= names
    assert len(WITH_MODEL) >= 12


def test_a_filterset_without_a_model_is_only_a_base_of_others():
    for filterset in FILTERSETS:
        if filterset._meta.model is None:
            assert any(sub._meta.model is not None for sub in _subclasses(filterset)), filterset.__name__


@pytest.mark.parametrize("filterset", WITH_MODEL, ids=lambda f: f"{f.__module__}.{f.__name__}")
def test_every_model_field_has_a_filter_or_a_reason(filterset):
    model = filterset._meta.model
    exempt = EXEMPT.get(label(model), {})
    covered = covered_fields(filterset)
    missing = sorted(
        name for name, field in model_fields(model).items()
        if name not in covered and name not in exempt and kind_exemption(field) is None
    )
    assert not missing, f"{filterset.__name__} ({label(model)}): add a filter, or an exemption with its reason, for {missing}"


@pytest.mark.parametrize("filterset", WITH_MODEL, ids=lambda f: f"{f.__module__}.{f.__name__}")
def test_no_exemption_is_stale(filterset):
    model = filterset._meta.model
    fields = model_fields(model)
    covered = covered_fields(filterset) - set(REACHED_BY.get(label(model), {}))
    for name in EXEMPT.get(label(model), {}):
        assert name in fields, f"{label(model)} has no field {name!r} any more: drop its exemption"
        assert name not in covered, f"{label(model)}.{name} has a filter now: drop its exemption"
    for name, filter_name in REACHED_BY.get(label(model), {}).items():
        assert name in fields, f"{label(model)} has no field {name!r} any more"
        assert filter_name in filterset.base_filters, f"{filterset.__name__} has no filter {filter_name!r}"


def test_exemptions_name_only_filtered_models():
    models_with_filters = {label(filterset._meta.model) for filterset in WITH_MODEL}
    assert set(EXEMPT) | set(REACHED_BY) <= models_with_filters
