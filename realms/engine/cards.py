"""Character cards as the engine sees them: frozen values built from plain dicts or fixture JSON."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from sys import intern
from typing import Any

from realms.engine.effects.base import Effect
from realms.engine.spec import (
    FactionAbility,
    MainAbility,
    cooldown_never_matters,
    parse_faction_ability,
    parse_main_ability,
)
from realms.engine.vocabulary import CLASSES, POSITIONS, RARITIES, STAT_BOUNDS
from simulate.engine.errors import SetupError, SpecError

# Primary keys of the official catalogue (fixtures/catalogue.json), used when a fixture
# list does not carry its own faction and rarity rows.
FACTION_PKS = {
    1: "iron-kingdom",
    2: "arcane",
    3: "tribal",
    4: "demonic",
    5: "celestial",
    6: "undead",
    7: "abyssal",
    8: "shadow",
}
RARITY_PKS = {1: "common", 2: "uncommon", 3: "rare", 4: "legendary"}


@dataclass(frozen=True)
class CharacterCard:
    """An Echo Realms character card with its parsed abilities."""

    slug: str
    name: str
    faction: str
    character_class: str
    position: str
    rarity: str
    atk: int
    def_: int
    spd: int
    hp: int
    cooldown: int
    main: MainAbility
    faction_ability: FactionAbility

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CharacterCard:
        """Build a card from a plain dict (keys as in the API); SetupError or SpecError when invalid."""
        return card_from_dict(data)


def _need(data: Mapping[str, Any], key: str, errors: list[tuple[str, str]]) -> Any:
    """The value of a required key, or None with an error noted."""
    if key not in data:
        errors.append((key, "is required"))
        return None
    return data[key]


def _printed_values(data: Mapping[str, Any], errors: list[tuple[str, str]]) -> dict[str, Any]:
    """A card's printed values besides its abilities (problems noted in `errors`): names, class, position,
    rarity, stats and cooldown."""
    values: dict[str, Any] = {}
    for key in ("slug", "name", "faction"):
        value = _need(data, key, errors)
        if value is not None and (not isinstance(value, str) or not value):
            errors.append((key, "must be a non-empty string"))
        values[key] = value
    for key, options in (("class", CLASSES), ("position", POSITIONS), ("rarity", RARITIES)):
        value = _need(data, key, errors)
        if value is not None and value not in options:
            errors.append((key, f"must be one of {', '.join(options)} (got {value!r})"))
        values[key] = value
    for key, (low, high) in STAT_BOUNDS.items():
        value = _need(data, key, errors)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            errors.append((key, f"must be an integer from {low} to {high} (got {value!r})"))
        values[key] = value
    return values


def card_from_dict(data: Mapping[str, Any]) -> CharacterCard:
    """A CharacterCard from a dict with slug, name, faction, class, position, rarity, atk, def, spd, hp,
    cooldown, main_ability and faction_ability (raw specs, parsed here)."""
    if not isinstance(data, Mapping):
        raise SetupError("A card is a mapping of its fields.", [("card", "must be an object")])
    errors: list[tuple[str, str]] = []
    values = _printed_values(data, errors)
    if errors:
        slug = data.get("slug", "?")
        raise SetupError(
            f"Card {slug!r}: " + "; ".join(f"{k}: {r}" for k, r in errors), [(f"card.{k}", r) for k, r in errors]
        )
    main = _interned_main(parse_main_ability(data.get("main_ability")))
    faction_ability = _interned_faction(parse_faction_ability(data.get("faction_ability")))
    pointless = cooldown_never_matters(values["cooldown"], {"main_ability": main, "faction_ability": faction_ability})
    if pointless:
        raise SpecError(pointless)
    return CharacterCard(
        slug=values["slug"],
        name=values["name"],
        faction=intern(values["faction"]),
        character_class=intern(values["class"]),
        position=intern(values["position"]),
        rarity=intern(values["rarity"]),
        atk=values["atk"],
        def_=values["def"],
        spd=values["spd"],
        hp=values["hp"],
        cooldown=values["cooldown"],
        main=main,
        faction_ability=faction_ability,
    )


# The engine compares these words at every step: interned, equal words are the same object, so
# each comparison is an identity check (values and equality are unchanged).


def _interned_effect(e: Effect) -> Effect:
    """`e` with its words interned."""
    return replace(
        e, kind=intern(e.kind), target=intern(e.target), stat=intern(e.stat), to=intern(e.to), line=intern(e.line)
    )


def _interned_main(main: MainAbility) -> MainAbility:
    """`main` with its words interned."""
    return replace(main, choose=intern(main.choose), effects=tuple(_interned_effect(e) for e in main.effects))


def _interned_faction(fab: FactionAbility) -> FactionAbility:
    """`fab` with its words interned."""
    return replace(
        fab,
        trigger=intern(fab.trigger),
        limit=intern(fab.limit),
        condition=replace(fab.condition, line=intern(fab.condition.line)),
        effects=tuple(_interned_effect(e) for e in fab.effects),
    )


def cards_from_fixture(entries: Iterable[Mapping[str, Any]]) -> list[CharacterCard]:
    """Every character of a parsed Django fixture list (`cardsdb.card` + `realms.character` rows sharing a pk)."""
    entries = list(entries)
    factions = dict(FACTION_PKS)
    rarities = dict(RARITY_PKS)
    base: dict[Any, Mapping[str, Any]] = {}
    for entry in entries:
        model = entry.get("model")
        fields = entry.get("fields", {})
        if model == "cardsdb.faction":
            factions[entry["pk"]] = fields["slug"]
        elif model == "cardsdb.rarity":
            rarities[entry["pk"]] = fields["slug"]
        elif model == "cardsdb.card":
            base[entry["pk"]] = fields
    cards: list[CharacterCard] = []
    for entry in entries:
        if entry.get("model") != "realms.character":
            continue
        pk = entry["pk"]
        own = entry["fields"]
        shared = base.get(pk)
        if shared is None:
            raise SetupError(f"Character pk {pk} has no cardsdb.card row in the fixture.", [("fixture", "pk")])
        cards.append(
            card_from_dict(
                {
                    "slug": shared["slug"],
                    "name": shared["name"],
                    "faction": factions.get(own["faction"], str(own["faction"])),
                    "class": own["character_class"],
                    "position": own["position"],
                    "rarity": rarities.get(shared["rarity"], str(shared["rarity"])),
                    "atk": own["attack"],
                    "def": own["defense"],
                    "spd": own["speed"],
                    "hp": own["health"],
                    "cooldown": own["cooldown"],
                    "main_ability": own["main_ability"],
                    "faction_ability": own["faction_ability"],
                }
            )
        )
    return cards
