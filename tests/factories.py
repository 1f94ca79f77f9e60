"""Small model factories for tests."""

import itertools

from cardsdb.models import Card, CardSet, Rarity

_counter = itertools.count(1)


def make_card_set(**overrides) -> CardSet:
    n = next(_counter)
    fields = {"code": f"t{n}", "name": f"Test set {n}", "game": "realms", "release_date": "2026-02-01"}
    fields.update(overrides)
    return CardSet.objects.create(**fields)


def make_rarity(slug: str = "common") -> Rarity:
    order = {"common": 1, "uncommon": 2, "rare": 3, "legendary": 4}[slug]
    rarity, _ = Rarity.objects.get_or_create(slug=slug, defaults={"name": slug.title(), "order": order})
    return rarity


def make_card(name: str | None = None, **overrides) -> Card:
    n = next(_counter)
    name = name or f"Test card {n}"
    fields = {
        "game": "realms",
        "name": name,
        "slug": f"{name.lower().replace(' ', '-')}-{n}",
        "card_set": overrides.pop("card_set", None) or make_card_set(),
    }
    fields.update(overrides)
    return Card.objects.create(**fields)
