"""Factories of Akin Legends rows for tests; every card goes through full_clean like the admin and API."""

import itertools

from cardsdb.models import CardSet
from legends.models import DefenseCard, Element, Protector, Spirit, SummoningCard

_counter = itertools.count(1)

OFFICIAL_ELEMENTS = {
    "fire": ("Fire", "#e53935", 1),
    "water": ("Water", "#1e88e5", 2),
    "earth": ("Earth", "#6d4c41", 3),
    "air": ("Air", "#b0bec5", 4),
}
REVEAL = {"kind": "reveal_facedown", "when": "before_second_turns"}
HEAL = {"kind": "heal_marker", "when": "round_start", "count": 1, "element": "any"}


def legends_set(code: str = "al-test") -> CardSet:
    card_set, _ = CardSet.objects.get_or_create(
        code=code, defaults={"name": f"Akin Legends {code}", "game": "legends", "release_date": "2026-02-01"}
    )
    return card_set


def element(slug: str, **overrides) -> Element:
    name, color, order = OFFICIAL_ELEMENTS.get(slug, (slug.title(), "#888888", 10 + next(_counter)))
    fields = {"name": name, "color": color, "icon": "*", "order": order, **overrides}
    found, _ = Element.objects.get_or_create(slug=slug, defaults=fields)
    return found


def elements() -> dict[str, Element]:
    return {slug: element(slug) for slug in OFFICIAL_ELEMENTS}


def _card(model, name: str | None, **fields):
    n = next(_counter)
    name = name or f"{model.__name__} {n}"
    card = model(
        name=name,
        slug=fields.pop("slug", f"{name.lower().replace(' ', '-')}-{n}"),
        card_set=fields.pop("card_set", None) or legends_set(),
        **fields,
    )
    card.full_clean()
    card.save()
    return card


def make_spirit(name: str | None = None, **fields) -> Spirit:
    return _card(Spirit, name, **fields)


def make_protector(name: str | None = None, effect: dict | None = None, duel_legal: bool = True,
                   **fields) -> Protector:
    return _card(Protector, name, effect=effect or HEAL, duel_legal=duel_legal, **fields)


def make_defense(name: str | None = None, first: str = "fire", second: str = "water", **fields) -> DefenseCard:
    return _card(DefenseCard, name, element_1=element(first), element_2=element(second), **fields)


def make_summoning(name: str | None = None, attacks: tuple[str, str] = ("fire", "water"),
                   effect: tuple[str, str] = ("defense", "earth"), copies: int = 1, **fields) -> SummoningCard:
    return _card(
        SummoningCard, name, attack_1=element(attacks[0]), attack_2=element(attacks[1]),
        effect_kind=effect[0], effect_element=element(effect[1]), copies=copies, **fields,
    )
