"""Catalogue rows turned into the engines' frozen card values, once per request or batch."""

from __future__ import annotations

from collections.abc import Iterable

from legends import selectors as legends_selectors
from realms.engine.cards import CharacterCard, card_from_dict
from realms.models import Character
from realms.selectors import character_list


def character_card(row: Character) -> CharacterCard:
    """The engine's view of one character row."""
    return card_from_dict({
        "slug": row.slug, "name": row.name, "faction": row.faction.slug, "class": row.character_class,
        "position": row.position, "rarity": row.rarity.slug, "atk": row.attack, "def": row.defense,
        "spd": row.speed, "hp": row.health, "cooldown": row.cooldown,
        "main_ability": row.main_ability, "faction_ability": row.faction_ability,
    })


def character_snapshot(slugs: Iterable[str] | None = None) -> dict[str, CharacterCard]:
    """Engine cards by slug for the given slugs (or the whole catalogue), in one query."""
    rows = character_list()
    if slugs is not None:
        rows = rows.filter(slug__in=set(slugs))
    return {row.slug: character_card(row) for row in rows}


def legends_catalogue() -> dict:
    """The Akin Legends catalogue as the engine's plain data (five queries, whatever its size)."""
    return {
        "elements": [element.slug for element in legends_selectors.element_list()],
        "spirits": [{"slug": s.slug, "name": s.name} for s in legends_selectors.spirit_list()],
        "protectors": [
            {"slug": p.slug, "name": p.name, "effect": p.effect, "duel_legal": p.duel_legal}
            for p in legends_selectors.protector_list()
        ],
        "defenses": [
            {"slug": d.slug, "name": d.name, "elements": [d.element_1.slug, d.element_2.slug]}
            for d in legends_selectors.defense_list()
        ],
        "deck": [
            {"slug": c.slug, "name": c.name, "attacks": [c.attack_1.slug, c.attack_2.slug],
             "effect": {"kind": c.effect_kind, "element": c.effect_element.slug}, "copies": c.copies}
            for c in legends_selectors.summoning_card_list()
        ],
    }
