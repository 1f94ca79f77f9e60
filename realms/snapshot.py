"""Echo Realms catalogue rows as the engine's frozen cards, read once per match or study, and what an
Echo Realms match or study plays with when its request names no agents."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

from cardsdb.models import Rarity, Release
from realms import selectors
from realms.engine.cards import CharacterCard, card_from_dict
from realms.engine.spec import faction_spec, main_spec
from realms.models import Character

DEFAULT_AGENTS = {"a": "greedy", "b": "greedy"}
# A study's matches vary with their seed, so that a pairing is a spread of plausible games, not one game replayed.
STUDY_AGENT = "softmax"


def character_card(row: Character) -> CharacterCard:
    """The engine's view of one character row."""
    return card_from_dict({
        "slug": row.slug, "name": row.name, "faction": row.faction.slug, "class": row.character_class,
        "position": row.position, "rarity": cast(Rarity, row.rarity).slug, "atk": row.attack, "def": row.defense,
        "spd": row.speed, "hp": row.health, "cooldown": row.cooldown,
        "main_ability": row.main_ability, "faction_ability": row.faction_ability,
    })


def card_raw(card: CharacterCard) -> dict[str, Any]:
    """A card as the plain dict `card_from_dict` takes (its abilities as their canonical specs): what a frozen
    study plan keeps of each card it plays."""
    return {
        "slug": card.slug, "name": card.name, "faction": card.faction, "class": card.character_class,
        "position": card.position, "rarity": card.rarity, "atk": card.atk, "def": card.def_, "spd": card.spd,
        "hp": card.hp, "cooldown": card.cooldown,
        "main_ability": main_spec(card.main), "faction_ability": faction_spec(card.faction_ability),
    }


def character_snapshot(slugs: Iterable[str] | None = None, *, release: Release | None = None) -> dict[str, CharacterCard]:
    """Engine cards by slug for the given slugs (or the whole catalogue), in one query; with `release`, as that
    release froze them."""
    rows = selectors.character_list() if release is None else \
        selectors.characters_as_of(release).select_related("rarity", "faction")
    if slugs is not None:
        rows = rows.filter(slug__in=set(slugs))
    return {row.slug: character_card(row) for row in rows}
