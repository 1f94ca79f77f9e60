"""A test card set as plain dicts: 20 characters whose abilities use every effect kind, selector,
trigger, condition and limit of the ability spec. Also the fallback set of the benchmark."""

from __future__ import annotations

from typing import Any

from realms.engine.cards import CharacterCard, card_from_dict


def _card(
    slug: str, name: str, faction: str, cls: str, position: str, rarity: str,
    atk: int, df: int, spd: int, hp: int, cooldown: int, main: dict, faction_ability: dict,
) -> dict[str, Any]:
    return {
        "slug": slug, "name": name, "faction": faction, "class": cls, "position": position, "rarity": rarity,
        "atk": atk, "def": df, "spd": spd, "hp": hp, "cooldown": cooldown,
        "main_ability": main, "faction_ability": faction_ability,
    }


def _main(name: str, choose: str, effects: list[dict], ignore_lines: bool = False) -> dict:
    spec: dict[str, Any] = {"name": name, "text": f"{name}.", "choose": choose, "effects": effects}
    if ignore_lines:
        spec["ignore_lines"] = True
    return spec


def _fab(name: str, trigger: str, effects: list[dict], condition: dict | None = None, limit: str = "none") -> dict:
    spec: dict[str, Any] = {"name": name, "text": f"{name}.", "trigger": trigger, "limit": limit, "effects": effects}
    if condition:
        spec["condition"] = condition
    return spec


CARD_DICTS: list[dict[str, Any]] = [
    # ---- commons
    _card("iron-guardian", "Iron Guardian", "iron-kingdom", "tank", "vanguard", "common", 3, 8, 2, 30, 2,
          _main("Shield Bash", "enemy", [
              {"kind": "damage", "target": "target", "scale": 1.0},
              {"kind": "debuff", "target": "target", "stat": "atk", "amount": 2, "duration": 2}]),
          _fab("Shield Wall", "round_start", [{"kind": "shield", "target": "self", "flat": 3, "duration": 1}],
               condition={"allies_same_faction_gte": 1})),
    _card("stone-troll", "Stone Troll", "tribal", "tank", "vanguard", "common", 4, 7, 2, 32, 3,
          _main("Taunting Roar", "none", [
              {"kind": "debuff", "target": "enemy_vanguard", "stat": "atk", "amount": 1, "duration": 2},
              {"kind": "buff", "target": "self", "stat": "def", "amount": 2, "duration": 2}]),
          _fab("Regrowth", "round_end", [{"kind": "regen", "target": "self", "amount": 2, "duration": 2}],
               condition={"hp_below": 0.5})),
    _card("orc-warrior", "Orc Warrior", "tribal", "warrior", "vanguard", "common", 6, 6, 5, 24, 2,
          _main("Cleave", "enemy", [{"kind": "damage", "target": "target_line", "scale": 0.8}]),
          _fab("Blood Frenzy", "on_hit", [{"kind": "buff", "target": "self", "stat": "atk", "amount": 1, "duration": 2}],
               limit="round")),
    _card("city-watch", "City Watch", "iron-kingdom", "warrior", "vanguard", "common", 5, 6, 4, 24, 2,
          _main("Pin Down", "enemy", [
              {"kind": "damage", "target": "target", "scale": 1.0},
              {"kind": "debuff", "target": "target", "stat": "spd", "amount": 2, "duration": 2}]),
          _fab("Discipline", "before_action", [{"kind": "buff", "target": "self", "stat": "def", "amount": 1, "duration": 1}],
               condition={"line": "vanguard"})),
    _card("elven-archer", "Elven Archer", "celestial", "archer", "rearguard", "common", 8, 2, 8, 14, 2,
          _main("Twin Shot", "none", [
              {"kind": "damage", "target": "random_enemy", "scale": 0.7},
              {"kind": "damage", "target": "random_enemy", "scale": 0.7}]),
          _fab("Keen Eye", "battle_start", [{"kind": "buff", "target": "self", "stat": "spd", "amount": 1, "duration": 3}])),
    _card("goblin-hexer", "Goblin Hexer", "demonic", "mage", "rearguard", "common", 9, 2, 6, 14, 2,
          _main("Hex", "enemy", [{"kind": "poison", "target": "target", "amount": 2, "duration": 3}]),
          _fab("Blood Price", "after_action", [
              {"kind": "damage", "target": "self", "flat": 1, "ignore_def": True},
              {"kind": "buff", "target": "self", "stat": "atk", "amount": 1, "duration": 2}], limit="round")),
    _card("acolyte", "Acolyte", "celestial", "support", "rearguard", "common", 3, 4, 5, 20, 2,
          _main("Mend", "ally", [{"kind": "heal", "target": "target", "flat": 4, "max_hp_fraction": 0.1}]),
          _fab("Light's Grace", "ally_defeated", [{"kind": "heal", "target": "random_ally", "flat": 3}], limit="battle")),
    _card("cutpurse", "Cutpurse", "shadow", "assassin", "flex", "common", 7, 2, 9, 14, 2,
          _main("Backstab", "enemy", [{"kind": "damage", "target": "target", "scale": 1.2}], ignore_lines=True),
          _fab("Vanish", "on_hit", [{"kind": "move", "target": "self", "to": "rearguard"}],
               condition={"hp_below": 0.5}, limit="battle")),
    # ---- uncommons
    _card("shadow-assassin", "Shadow Assassin", "shadow", "assassin", "flex", "uncommon", 9, 2, 9, 16, 3,
          _main("Execute", "none", [{"kind": "damage", "target": "lowest_hp_enemy", "scale": 1.4}]),
          _fab("Ambush", "battle_start", [{"kind": "buff", "target": "self", "stat": "atk", "amount": 2, "duration": 1}])),
    _card("frost-weaver", "Frost Weaver", "abyssal", "mage", "rearguard", "uncommon", 10, 2, 6, 15, 3,
          _main("Tidal Grip", "enemy", [
              {"kind": "damage", "target": "target", "scale": 1.0},
              {"kind": "move", "target": "target", "to": "vanguard"},
              {"kind": "cooldown", "target": "target", "amount": 1}]),
          _fab("Undertow", "enemy_defeated", [{"kind": "cooldown", "target": "self", "amount": -1}])),
    _card("bone-knight", "Bone Knight", "undead", "warrior", "vanguard", "uncommon", 6, 7, 4, 26, 2,
          _main("Grave Call", "none", [
              {"kind": "summon", "unit": {"name": "Skeleton", "atk": 3, "def": 2, "spd": 3, "hp": 8},
               "line": "same", "count": 2}]),
          _fab("Undying", "ally_defeated", [{"kind": "heal", "target": "self", "flat": 3}], limit="round")),
    _card("cleric", "Cleric", "celestial", "support", "rearguard", "uncommon", 3, 4, 5, 22, 2,
          _main("Purify", "ally", [
              {"kind": "cleanse", "target": "target"},
              {"kind": "heal", "target": "target", "scale": 1.0, "flat": 3},
              {"kind": "shield", "target": "target", "flat": 3, "duration": 2}]),
          _fab("Blessing", "round_start", [{"kind": "heal", "target": "lowest_hp_ally", "flat": 2}])),
    _card("dwarf-bulwark", "Dwarf Bulwark", "iron-kingdom", "tank", "vanguard", "uncommon", 3, 9, 2, 34, 2,
          _main("Fortify", "none", [
              {"kind": "shield", "target": "ally_vanguard", "flat": 3, "duration": 2},
              {"kind": "buff", "target": "ally_rearguard", "stat": "def", "amount": 1, "duration": 2}]),
          _fab("Hold the Line", "on_hit", [{"kind": "debuff", "target": "attacker", "stat": "atk", "amount": 1, "duration": 1}],
               condition={"line": "vanguard"})),
    # ---- rares
    _card("arcane-sage", "Arcane Sage", "arcane", "mage", "rearguard", "rare", 10, 2, 6, 16, 2,
          _main("Silence Rune", "enemy", [
              {"kind": "damage", "target": "target", "scale": 0.8},
              {"kind": "silence", "target": "target", "duration": 2},
              {"kind": "dispel", "target": "target"}], ignore_lines=True),
          _fab("Mana Flow", "after_action", [{"kind": "cooldown", "target": "self", "amount": -1}], limit="round")),
    _card("war-chief", "War Chief", "tribal", "warrior", "vanguard", "rare", 8, 6, 5, 26, 2,
          _main("War Cry", "none", [
              {"kind": "buff", "target": "all_allies", "stat": "atk", "amount": 2, "duration": 2},
              {"kind": "buff", "target": "self", "stat": "spd", "amount": 1, "duration": 2}]),
          _fab("Pack Hunter", "round_start", [{"kind": "buff", "target": "other_allies", "stat": "atk", "amount": 1, "duration": 1}],
               condition={"allies_same_faction_gte": 1})),
    _card("plague-doctor", "Plague Doctor", "undead", "support", "rearguard", "rare", 4, 4, 5, 22, 3,
          _main("Miasma", "none", [
              {"kind": "poison", "target": "all_enemies", "amount": 2, "duration": 3},
              {"kind": "burn", "target": "random_enemy", "amount": 3, "duration": 2}]),
          _fab("Contagion", "round_end", [{"kind": "debuff", "target": "highest_atk_enemy", "stat": "def", "amount": 1, "duration": 2}])),
    _card("ranger", "Ranger", "tribal", "archer", "rearguard", "rare", 9, 3, 8, 16, 2,
          _main("Pinning Shot", "enemy", [
              {"kind": "damage", "target": "target", "scale": 1.1},
              {"kind": "debuff", "target": "target", "stat": "def", "amount": 2, "duration": 2}]),
          _fab("Focus", "before_action", [{"kind": "buff", "target": "self", "stat": "atk", "amount": 2, "duration": 1}],
               condition={"hp_below": 0.5})),
    # ---- legendaries
    _card("merlin-archmage-of-runes", "Merlin, Archmage of Runes", "arcane", "mage", "rearguard", "legendary",
          11, 2, 7, 16, 3,
          _main("Rune Storm", "enemy", [{"kind": "damage", "target": "target_line", "scale": 1.3}]),
          _fab("Runic Ward", "on_hit", [{"kind": "shield", "target": "self", "flat": 2, "duration": 1}], limit="round")),
    _card("jofrey-hammer-of-justice", "Jofrey, Hammer of Justice", "iron-kingdom", "warrior", "vanguard", "legendary",
          8, 6, 5, 28, 2,
          _main("Judgement", "enemy", [
              {"kind": "damage", "target": "target", "scale": 1.5},
              {"kind": "buff", "target": "ally_vanguard", "stat": "def", "amount": 1, "duration": 2}]),
          _fab("Inspire", "battle_start", [{"kind": "buff", "target": "all_allies", "stat": "atk", "amount": 1, "duration": 2}])),
    _card("azrakor-lord-of-the-abyss", "Azrakor, Lord of the Abyss", "abyssal", "tank", "vanguard", "legendary",
          5, 9, 3, 38, 3,
          _main("Abyssal Pull", "none", [
              {"kind": "move", "target": "enemy_rearguard", "to": "other"},
              {"kind": "damage", "target": "enemy_vanguard", "scale": 0.8},
              {"kind": "burn", "target": "enemy_vanguard", "amount": 1, "duration": 2}]),
          _fab("Depths", "round_start", [{"kind": "regen", "target": "self", "amount": 3, "duration": 3}],
               condition={"hp_below": 0.5}, limit="battle")),
]


def all_cards() -> list[CharacterCard]:
    """The test set as engine cards."""
    return [card_from_dict(d) for d in CARD_DICTS]


def by_slug() -> dict[str, CharacterCard]:
    """The test set keyed by slug."""
    return {c.slug: c for c in all_cards()}
