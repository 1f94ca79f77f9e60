"""Small model factories for tests."""

import itertools
from typing import Any

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


STRIKE = {
    "name": "Strike", "text": "Deals 120% ATK to the chosen enemy.", "choose": "enemy",
    "effects": [{"kind": "damage", "target": "target", "scale": 1.2}],
}
DRILL = {
    "name": "Drill", "text": "At battle start, gain +1 DEF for 1 round.", "trigger": "battle_start",
    "effects": [{"kind": "buff", "target": "self", "stat": "def", "amount": 1, "duration": 1}],
}
CLASS_FOR_POSITION = {"vanguard": "tank", "rearguard": "mage", "flex": "assassin"}


def make_faction(slug: str = "arcane"):
    from cardsdb.models import Faction

    faction, _ = Faction.objects.get_or_create(
        slug=slug, defaults={"name": slug.replace("-", " ").title(), "icon": "*", "identity": "x", "description": "x"}
    )
    return faction


def make_race(slug: str = "human"):
    from realms.models import Race

    race, _ = Race.objects.get_or_create(slug=slug, defaults={"name": slug.title()})
    return race


def _realms_test_set() -> CardSet:
    card_set, _ = CardSet.objects.get_or_create(
        code="er-test", defaults={"name": "Echo Realms test set", "game": "realms", "release_date": "2026-02-01"}
    )
    return card_set


def make_character(name: str | None = None, *, rarity: str = "common", position: str = "vanguard", **overrides):
    """A valid Echo Realms character; the class follows the position unless given."""
    from realms.models import Character

    n = next(_counter)
    name = name or f"Character {n}"
    fields = {
        "name": name,
        "slug": overrides.pop("slug", f"{name.lower().replace(' ', '-').replace(',', '')}-{n}"),
        "card_set": overrides.pop("card_set", None) or _realms_test_set(),
        "rarity": make_rarity(rarity),
        "race": make_race(),
        "faction": make_faction(),
        "character_class": CLASS_FOR_POSITION[position],
        "position": position,
        "attack": 8, "defense": 4, "speed": 5, "health": 20, "cooldown": 2,
        "main_ability": STRIKE, "faction_ability": DRILL,
    }
    fields.update(overrides)
    character = Character(**fields)
    character.full_clean()
    character.save()
    return character


def make_roster():
    """Enough characters for a legal army and for every kind of mistake, keyed by role."""
    return {
        "c1": make_character("Common One", rarity="common", position="vanguard"),
        "c2": make_character("Common Two", rarity="common", position="vanguard"),
        "c3": make_character("Common Three", rarity="common", position="rearguard"),
        "c4": make_character("Common Four", rarity="common", position="rearguard"),
        "u1": make_character("Uncommon One", rarity="uncommon", position="flex"),
        "u2": make_character("Uncommon Two", rarity="uncommon", position="rearguard"),
        "r1": make_character("Rare One", rarity="rare", position="vanguard"),
        "l1": make_character("Legendary One", rarity="legendary", position="rearguard"),
        "l2": make_character("Legendary Two", rarity="legendary", position="vanguard"),
    }


def legal_slots(roster) -> list[dict]:
    """A legal 3/2/1/1 army from make_roster()."""
    return [
        {"card": roster["c1"].slug, "line": "vanguard"},
        {"card": roster["c2"].slug, "line": "vanguard"},
        {"card": roster["c3"].slug, "line": "rearguard"},
        {"card": roster["u1"].slug, "line": "vanguard"},
        {"card": roster["u2"].slug, "line": "rearguard"},
        {"card": roster["r1"].slug, "line": "vanguard"},
        {"card": roster["l1"].slug, "line": "rearguard"},
    ]


ARMY_RARITIES = {"common": 3, "uncommon": 2, "rare": 1, "legendary": 1}
LINE_CAPACITY = 5


def find_army(cards) -> list[tuple[Any, str]] | None:
    """A legal army (R1–R3) from these cards, as (card, line) pairs, or None if there is none."""
    by_rarity = {rarity: [c for c in cards if c.rarity.slug == rarity] for rarity in ARMY_RARITIES}
    pools = [itertools.combinations(by_rarity[rarity], n) for rarity, n in ARMY_RARITIES.items()]
    for groups in itertools.product(*pools):
        army = [card for group in groups for card in group]
        lines: dict[str, list[Any]] = {"vanguard": [], "rearguard": []}
        for card in sorted(army, key=lambda c: c.position == "flex"):
            # Flex cards go last, each to the emptier line, which fills both lines as evenly as allowed.
            line = min(lines, key=lambda name: len(lines[name])) if card.position == "flex" else card.position
            lines[line].append(card)
        if all(len(units) <= LINE_CAPACITY for units in lines.values()):
            return [(card, line) for line, units in lines.items() for card in units]
    return None


def faction_army(faction: str) -> list[dict]:
    """Slots of a legal army made of one faction's starter cards (the catalogue must be loaded)."""
    from realms.models import Character

    cards = Character.objects.filter(faction__slug=faction).select_related("rarity").order_by("pk")
    army = find_army(list(cards))
    assert army is not None, faction
    return [{"card": card.slug, "line": line} for card, line in army]


def two_armies() -> dict[str, dict[str, list[dict]]]:
    """Arcane's against Tribal's: a legal matchup of the official sets."""
    return {"a": {"slots": faction_army("arcane")}, "b": {"slots": faction_army("tribal")}}


def finished_study(kind: str, inputs: dict, *, user=None, game: str = "realms", count: int = 4, seed: int = 5):
    """A study of `kind` played to the end in this process."""
    from simulate import batches
    from simulate.models import Batch

    batch = batches.play_here(batches.create_batch(game=game, kind=kind, inputs=inputs, count=count, seed=seed,
                                                   user=user).id)
    assert batch is not None and batch.status == Batch.Status.DONE, batch and batch.error
    return batch
