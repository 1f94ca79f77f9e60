"""Card text and spec agree: every ability's printed text is generated from its spec
(realms/engine/text.py), the official cards carry exactly the generated texts, and every write
(model, API, admin) stores the generated text whatever text it was given."""

import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from realms.engine.effects import EFFECT_KINDS
from realms.engine.spec import (
    SELECTORS,
    TRIGGERS,
    parse_faction_ability,
    parse_main_ability,
)
from realms.engine.text import faction_text, main_text
from realms.models import Character
from tests.conftest import FIXTURES_DIR, official_fixture_files
from tests.factories import DRILL, STRIKE, make_character, make_faction

STARTER = FIXTURES_DIR / "realms_starter.json"
URL = "/api/realms/characters/"
ORC_WARRIOR, TROLL_BERSERKER = 1017, 1022
SAVAGE_CLEAVE = "Deals 130% ATK damage to the chosen enemy (rounded down, minus its DEF, at least 1)."
RAGE = ("When it survives a hit from an enemy unit's Basic Attack or Main Ability and is left below 50% HP, "
        "gains +2 ATK for 2 rounds (once per round).")


def faction_names() -> dict[int, str]:
    catalogue = json.loads((FIXTURES_DIR / "catalogue.json").read_text())
    return {row["pk"]: row["fields"]["name"] for row in catalogue if row["model"] == "cardsdb.faction"}


def starter_rows() -> list[dict]:
    return [row for row in json.loads(STARTER.read_text()) if row["model"] == "realms.character"]


# --- the official set ------------------------------------------------------------------------------


def test_every_official_text_in_the_fixture_is_the_generated_one():
    names = faction_names()
    wrong = []
    for row in starter_rows():
        fields = row["fields"]
        main, fab = fields["main_ability"], fields["faction_ability"]
        expected_main = main_text(parse_main_ability(main))
        expected_fab = faction_text(parse_faction_ability(fab), names[fields["faction"]])
        if main["text"] != expected_main:
            wrong.append((row["pk"], main["name"], main["text"], expected_main))
        if fab["text"] != expected_fab:
            wrong.append((row["pk"], fab["name"], fab["text"], expected_fab))
    assert len(starter_rows()) == 64
    assert wrong == []


@pytest.mark.django_db
def test_every_stored_official_card_keeps_its_text_when_saved_again():
    call_command("loaddata", FIXTURES_DIR / "catalogue.json", STARTER, verbosity=0)
    cards = list(Character.objects.select_related("faction").order_by("pk"))
    assert len(cards) == 64
    for card in cards:
        stored = (json.dumps(card.main_ability), json.dumps(card.faction_ability), card.rules_text)
        assert card.main_ability["text"] == main_text(parse_main_ability(card.main_ability)), card.name
        assert card.faction_ability["text"] == faction_text(
            parse_faction_ability(card.faction_ability), card.faction.name
        ), card.name
        card.full_clean()
        card.save()
        card.refresh_from_db()
        assert (json.dumps(card.main_ability), json.dumps(card.faction_ability), card.rules_text) == stored, card.name


# --- hand-written expectations ----------------------------------------------------------------------


def main(choose: str, *effects: dict, ignore_lines: bool = False) -> str:
    spec: dict[str, Any] = {"name": "M", "text": "whatever", "choose": choose, "effects": list(effects)}
    if ignore_lines:
        spec["ignore_lines"] = True
    return main_text(parse_main_ability(spec))


def faction(trigger: str, *effects: dict, faction_name: str = "Arcane", **extra) -> str:
    spec = {"name": "F", "text": "whatever", "trigger": trigger, "effects": list(effects), **extra}
    return faction_text(parse_faction_ability(spec), faction_name)


def hit(target: str = "target", **params) -> dict:
    return {"kind": "damage", "target": target, **params}


MAIN_CASES = [
    # damage: scale, flat with ignore_def, a repeated strike, a chain with "then"
    (("enemy", hit(scale=1.3)), "Deals 130% ATK damage to the chosen enemy (rounded down, minus its DEF, at least 1)."),
    (("enemy", hit(flat=5, ignore_def=True)), "Deals 5 damage that ignores DEF to the chosen enemy."),
    (("enemy", hit(scale=0.7), hit(scale=0.7)),
     "Strikes the chosen enemy twice, each for 70% ATK damage (rounded down, minus its DEF, at least 1)."),
    (
        ("enemy", hit(scale=1.1), hit("random_enemy", scale=0.4)),
        "Deals 110% ATK damage to the chosen enemy, then 40% ATK damage to a random enemy it can attack "
        "(each rounded down, minus the target's DEF, at least 1).",
    ),
    (("none", hit("all_enemies", scale=1.0, flat=2)),
     "Deals 100% ATK damage plus 2 to every enemy (rounded down, minus each one's DEF, at least 1)."),
    # heal with all three parts, and on itself from its ATK
    (
        ("ally", {"kind": "heal", "target": "target", "flat": 4, "max_hp_fraction": 0.1}),
        "Heals the chosen ally for 4 HP plus 10% of its max HP (rounded down).",
    ),
    (
        ("enemy", hit(scale=1.2), {"kind": "heal", "target": "self", "scale": 0.5}),
        "Deals 120% ATK damage to the chosen enemy (rounded down, minus its DEF, at least 1) and heals itself for 50% of its ATK "
        "(rounded down).",
    ),
    (
        ("none", {"kind": "heal", "target": "lowest_hp_ally", "scale": 0.5}),
        "Heals the ally with the lowest HP for 50% of this character's ATK (rounded down).",
    ),
    # shield ("an 8-point"), then a cleanse of the same unit: "its"
    (
        ("ally", {"kind": "shield", "target": "target", "flat": 8, "duration": 2}, {"kind": "cleanse", "target": "target"}),
        "Gives the chosen ally an 8-point shield for 2 rounds and removes its debuffs.",
    ),
    # buff and debuff: stat changes of one duration share it; "gains" on itself
    (
        ("ally", {"kind": "buff", "target": "target", "stat": "atk", "amount": 3, "duration": 2},
         {"kind": "buff", "target": "target", "stat": "spd", "amount": 2, "duration": 2}),
        "Gives the chosen ally +3 ATK and +2 SPD for 2 rounds.",
    ),
    (
        ("enemy", hit(scale=1.0), {"kind": "buff", "target": "self", "stat": "def", "amount": 1, "duration": 1}),
        "Deals 100% ATK damage to the chosen enemy (rounded down, minus its DEF, at least 1) and gains +1 DEF for 1 round.",
    ),
    (
        ("enemy", hit(scale=1.1), {"kind": "debuff", "target": "target", "stat": "spd", "amount": 2, "duration": 2}),
        "Deals 110% ATK damage to the chosen enemy (rounded down, minus its DEF, at least 1) and gives it -2 SPD for 2 rounds.",
    ),
    # poison and a group debuff: "them"; R17's persists in words
    (
        ("none", {"kind": "poison", "target": "all_enemies", "amount": 2, "duration": 3},
         {"kind": "debuff", "target": "all_enemies", "stat": "def", "amount": 1, "duration": 3}),
        "Poisons every enemy for 2 per round for 3 rounds and gives them -1 DEF for 3 rounds.",
    ),
    (
        ("enemy", {"kind": "burn", "target": "target", "amount": 2, "duration": 3, "persists": True}),
        "Burns the chosen enemy for 2 per round for 3 rounds, even after it falls.",
    ),
    (
        ("none", {"kind": "regen", "target": "all_allies", "amount": 2, "duration": 2, "persists": True},
         {"kind": "silence", "target": "highest_atk_enemy", "duration": 2}),
        "Gives every ally regeneration of 2 HP per round for 2 rounds, even after it falls, "
        "and silences the highest-ATK enemy it can attack for 2 rounds.",
    ),
    # taunt (no official card taunts): what it restricts, said with it
    (
        ("enemy", hit(scale=1.0), {"kind": "taunt", "target": "target", "duration": 2}),
        "Deals 100% ATK damage to the chosen enemy (rounded down, minus its DEF, at least 1) and taunts it for "
        "2 rounds (its Basic Attacks must aim at this character whenever they can reach it).",
    ),
    # R12: ignore_lines in words; a pick named again is "that enemy"
    (
        ("enemy", hit(scale=1.1), {"kind": "silence", "target": "target", "duration": 1}),
        "Deals 110% ATK damage to the chosen enemy (rounded down, minus its DEF, at least 1) and silences it for 1 round.",
    ),
    # cooldowns: of a group, of the chosen unit, its own
    (
        ("none", {"kind": "cooldown", "target": "all_allies", "amount": -1},
         {"kind": "buff", "target": "all_allies", "stat": "spd", "amount": 1, "duration": 2}),
        "Reduces the cooldowns of every ally by 1 and gives them +1 SPD for 2 rounds.",
    ),
    (
        ("enemy", hit(scale=1.2), {"kind": "cooldown", "target": "other_allies", "amount": -1}),
        "Deals 120% ATK damage to the chosen enemy (rounded down, minus its DEF, at least 1) and reduces the cooldowns of every "
        "other ally by 1.",
    ),
    (
        ("enemy", hit(scale=1.0), {"kind": "cooldown", "target": "target", "amount": 1}),
        "Deals 100% ATK damage to the chosen enemy (rounded down, minus its DEF, at least 1) and increases its cooldown by 1.",
    ),
    # moves, a dispel, a summon
    (
        ("enemy", {"kind": "move", "target": "target", "to": "rearguard"},
         {"kind": "debuff", "target": "target", "stat": "spd", "amount": 2, "duration": 2}),
        "Moves the chosen enemy to its Rearguard and gives it -2 SPD for 2 rounds.",
    ),
    (
        ("enemy", hit("target_line", scale=0.7), {"kind": "move", "target": "target", "to": "other"}),
        "Deals 70% ATK damage to every enemy in the chosen enemy's line (rounded down, minus each one's DEF, "
        "at least 1) and moves the chosen enemy to its other line.",
    ),
    (
        ("enemy", hit(scale=1.2), {"kind": "dispel", "target": "target"}),
        "Deals 120% ATK damage to the chosen enemy (rounded down, minus its DEF, at least 1) and removes its buffs.",
    ),
    (
        ("none", {"kind": "summon", "unit": {"name": "Skeleton", "atk": 4, "def": 2, "spd": 3, "hp": 8},
                  "line": "vanguard", "count": 2},
         {"kind": "debuff", "target": "all_enemies", "stat": "atk", "amount": 2, "duration": 2}),
        "Summons 2 Skeletons (ATK 4, DEF 2, SPD 3, HP 8) in its Vanguard and gives every enemy -2 ATK for 2 rounds.",
    ),
    (
        ("none", {"kind": "summon", "unit": {"name": "Abyssal Tentacle", "atk": 6, "def": 3, "spd": 4, "hp": 10}}),
        "Summons an Abyssal Tentacle (ATK 6, DEF 3, SPD 4, HP 10) in its line.",
    ),
    (
        ("none", hit("lowest_hp_enemy", scale=1.0), {"kind": "buff", "target": "self", "stat": "atk", "amount": 1,
                                                      "duration": 2},
         {"kind": "debuff", "target": "lowest_hp_enemy", "stat": "def", "amount": 1, "duration": 2}),
        "Deals 100% ATK damage to the lowest-HP enemy it can attack (rounded down, minus its DEF, at least 1), gains +1 ATK for 2 rounds "
        "and gives that enemy -1 DEF for 2 rounds.",
    ),
]

IGNORING_CASES = [
    ((hit(scale=1.2),), "Deals 120% ATK damage to the chosen enemy in any line, ignoring the Vanguard (rounded down, minus its DEF, at least 1)."),
    (
        (hit(scale=1.1), {"kind": "silence", "target": "target", "duration": 1}),
        "Deals 110% ATK damage to the chosen enemy in any line, ignoring the Vanguard (rounded down, minus its DEF, at least 1), "
        "and silences it for 1 round.",
    ),
    (
        (hit("target_line", scale=0.7),),
        "Deals 70% ATK damage to every enemy in the chosen enemy's line (chosen in any line, ignoring the Vanguard; "
        "rounded down, minus each one's DEF, at least 1).",
    ),
    (
        (hit(scale=1.0), hit("random_enemy", scale=0.4)),
        "Deals 100% ATK damage to the chosen enemy in any line, ignoring the Vanguard, "
        "then 40% ATK damage to a random enemy in any line, ignoring the Vanguard "
        "(each rounded down, minus the target's DEF, at least 1).",
    ),
]


@pytest.mark.parametrize(("args", "expected"), MAIN_CASES, ids=[text[:48] for _, text in MAIN_CASES])
def test_main_ability_texts(args, expected):
    assert main(*args) == expected


@pytest.mark.parametrize(("effects", "expected"), IGNORING_CASES, ids=[text[:60] for _, text in IGNORING_CASES])
def test_ignore_lines_is_said_in_words(effects, expected):
    assert main("enemy", *effects, ignore_lines=True) == expected
    assert "ignoring the Vanguard" not in main("enemy", *effects)


SHIELD_2 = {"kind": "shield", "target": "self", "flat": 2, "duration": 1}
FACTION_CASES: list[tuple[tuple, dict[str, Any], str]] = [
    # every trigger
    (("battle_start", {"kind": "buff", "target": "all_allies", "stat": "def", "amount": 1, "duration": 3}), {},
     "At the start of the battle, gives every ally +1 DEF for 3 rounds."),
    (("round_start", SHIELD_2), {"condition": {"line": "vanguard"}},
     "At the start of each round, if it stands in the Vanguard, gains a 2-point shield for 1 round."),
    (("before_action", {"kind": "buff", "target": "self", "stat": "atk", "amount": 1, "duration": 1}),
     {"condition": {"allies_same_faction_gte": 2}},
     "Before it acts, if at least 2 other Arcane allies stand with it, gains +1 ATK for 1 round."),
    (("after_action", {"kind": "shield", "target": "lowest_hp_ally", "flat": 2, "duration": 1}), {},
     "After it acts, gives the ally with the lowest HP a 2-point shield for 1 round."),
    (("on_hit", {"kind": "burn", "target": "attacker", "amount": 1, "duration": 2}), {},
     "When it survives a hit from an enemy unit's Basic Attack or Main Ability, burns the attacker for 1 per round "
     "for 2 rounds."),
    (("ally_defeated", {"kind": "shield", "target": "all_allies", "flat": 3, "duration": 2}), {"limit": "round"},
     "When an ally is defeated, gives every ally a 3-point shield for 2 rounds (once per round)."),
    (("enemy_defeated", {"kind": "cooldown", "target": "self", "amount": -1}), {},
     "When an enemy is defeated, reduces its own cooldown by 1."),
    (("defeats_enemy", {"kind": "heal", "target": "self", "max_hp_fraction": 0.25}), {},
     "When it defeats an enemy, heals itself for 25% of its max HP (rounded down)."),
    (("round_end", {"kind": "poison", "target": "random_enemy", "amount": 1, "duration": 2}), {},
     "At the end of each round, poisons a random enemy it can attack for 1 per round for 2 rounds."),
    # R18: "unit" when summons count
    (("ally_defeated", {"kind": "buff", "target": "all_allies", "stat": "atk", "amount": 2, "duration": 2}),
     {"include_summons": True, "limit": "round"},
     "When an allied unit is defeated, gives every ally +2 ATK for 2 rounds (once per round)."),
    (("enemy_defeated", {"kind": "heal", "target": "self", "flat": 3}), {"include_summons": True},
     "When an enemy unit is defeated, heals itself for 3 HP."),
    (("defeats_enemy", {"kind": "buff", "target": "self", "stat": "spd", "amount": 1, "duration": 2}),
     {"include_summons": True},
     "When it defeats an enemy unit, gains +1 SPD for 2 rounds."),
    # limits, the on_hit HP condition, several conditions at once
    (("on_hit", {"kind": "silence", "target": "attacker", "duration": 2}),
     {"condition": {"hp_below": 0.5}, "limit": "battle"},
     "Once per battle, when it survives a hit from an enemy unit's Basic Attack or Main Ability and is left below "
     "50% HP, silences the attacker for 2 rounds."),
    (("round_start", {"kind": "silence", "target": "random_enemy", "duration": 1}), {"limit": "battle"},
     "At the start of each round, silences a random enemy it can attack for 1 round (once per battle)."),
    (("round_start", {"kind": "heal", "target": "self", "flat": 3}), {"condition": {"hp_below": 0.5}},
     "At the start of each round, if below 50% HP, heals itself for 3 HP."),
    (("round_start", {"kind": "cleanse", "target": "self"}),
     {"condition": {"hp_below": 0.5, "line": "rearguard", "allies_same_faction_gte": 1}},
     "At the start of each round, if it stands in the Rearguard, is below 50% HP and at least 1 other Arcane ally "
     "stands with it, removes its own debuffs."),
    (("on_hit", {"kind": "regen", "target": "self", "amount": 4, "duration": 3}),
     {"condition": {"hp_below": 0.3, "line": "vanguard"}, "limit": "battle"},
     "Once per battle, when it survives a hit from an enemy unit's Basic Attack or Main Ability and is left below "
     "30% HP, if it stands in the Vanguard, regenerates 4 HP per round for 3 rounds."),
    (("before_action", hit("self", flat=3, ignore_def=True),
      {"kind": "buff", "target": "self", "stat": "atk", "amount": 3, "duration": 2}), {"limit": "battle"},
     "Once per battle, before it acts, deals 3 damage that ignores DEF to itself and gains +3 ATK for 2 rounds."),
    # a summon, a move, persists
    (("ally_defeated", {"kind": "summon", "unit": {"name": "Grasping Tentacle", "atk": 5, "def": 3, "spd": 4, "hp": 8},
                        "line": "vanguard"}), {"limit": "battle"},
     "Once per battle, when an ally is defeated, summons a Grasping Tentacle (ATK 5, DEF 3, SPD 4, HP 8) in its "
     "Vanguard."),
    (("on_hit", {"kind": "move", "target": "self", "to": "other"}), {"condition": {"hp_below": 0.5}},
     "When it survives a hit from an enemy unit's Basic Attack or Main Ability and is left below 50% HP, moves "
     "itself to its other line."),
    (("battle_start", {"kind": "debuff", "target": "enemy_rearguard", "stat": "spd", "amount": 1, "duration": 2,
                       "persists": True}), {},
     "At the start of the battle, gives every enemy in the Rearguard -1 SPD for 2 rounds, even after it falls."),
    (("after_action", hit("lowest_hp_enemy", flat=2, ignore_def=True)), {"condition": {"allies_same_faction_gte": 2}},
     "After it acts, if at least 2 other Arcane allies stand with it, deals 2 damage that ignores DEF to the "
     "lowest-HP enemy it can attack."),
]


@pytest.mark.parametrize(("args", "extra", "expected"), FACTION_CASES, ids=[t[:48] for _, _, t in FACTION_CASES])
def test_faction_ability_texts(args, extra, expected):
    assert faction(*args, **extra) == expected


def test_the_faction_name_is_the_printed_one():
    text = faction("round_start", SHIELD_2, faction_name="Iron Kingdom", condition={"allies_same_faction_gte": 3})
    assert text == ("At the start of each round, if at least 3 other Iron Kingdom allies stand with it, "
                    "gains a 2-point shield for 1 round.")


def test_the_hand_written_cases_cover_the_whole_spec():
    specs: list[Any] = [
        parse_main_ability({"name": "M", "text": "x", "choose": a[0], "effects": list(a[1:])}) for a, _ in MAIN_CASES
    ] + [
        parse_faction_ability({"name": "F", "text": "x", "trigger": a[0], "effects": list(a[1:]), **extra})
        for a, extra, _ in FACTION_CASES
    ]
    effects = [e for spec in specs for e in spec.effects]
    assert {e.kind for e in effects} == set(EFFECT_KINDS)
    assert {fab.trigger for fab in specs[len(MAIN_CASES):]} == set(TRIGGERS)
    used = {e.target for e in effects if e.kind != "summon"}
    assert used >= set(SELECTORS) - {"random_ally", "ally_rearguard", "ally_vanguard", "enemy_vanguard"}
    assert any(e.persists for e in effects)


def test_texts_of_every_selector_read_naturally():
    nouns = {
        "all_allies": "every ally", "other_allies": "every other ally", "random_ally": "a random ally",
        "ally_vanguard": "every ally in its Vanguard", "ally_rearguard": "every ally in its Rearguard",
        "enemy_vanguard": "every enemy in the Vanguard", "enemy_rearguard": "every enemy in the Rearguard",
    }
    for selector, noun in nouns.items():
        text = main("none", {"kind": "shield", "target": selector, "flat": 3, "duration": 2})
        assert text == f"Gives {noun} a 3-point shield for 2 rounds.", selector


# --- the words say how the engine counts, when it checks and whom it picks ------------------------


def official(name: str) -> tuple[str, str]:
    """A starter card's printed texts (faction, main) as the fixture stores them, checked against its specs."""
    rows = json.loads(STARTER.read_text())
    pk = next(r["pk"] for r in rows if r["model"] == "cardsdb.card" and r["fields"]["name"] == name)
    fields = next(r["fields"] for r in starter_rows() if r["pk"] == pk)
    fab, main_spec = fields["faction_ability"], fields["main_ability"]
    assert fab["text"] == faction_text(parse_faction_ability(fab), faction_names()[fields["faction"]])
    assert main_spec["text"] == main_text(parse_main_ability(main_spec))
    return fab["text"], main_spec["text"]


def test_a_percentage_says_it_is_rounded_down_and_what_def_takes_off():
    # Orc Warrior (ATK 6) deals ⌊6 × 1.3⌋ = 7 minus the target's DEF, at least 1: the Troll Tank (DEF 8) takes 1.
    assert official("Orc Warrior")[1] == SAVAGE_CLEAVE
    assert official("Countess Vesperine, the Crimson Thirst")[1] == (
        "Deals 120% ATK damage to the chosen enemy (rounded down, minus its DEF, at least 1) and heals itself "
        "for 50% of its ATK (rounded down).")
    assert official("Malgoroth, the Chaos Flame")[1] == (
        "Deals 60% ATK damage to every enemy (rounded down, minus each one's DEF, at least 1) and burns them "
        "for 2 per round for 2 rounds.")
    assert official("Troll Berserker")[1] == (
        "Deals 110% ATK damage to the chosen enemy, then 40% ATK damage to a random enemy it can attack "
        "(each rounded down, minus the target's DEF, at least 1).")
    assert official("Pitfiend Stalker")[0] == "When it defeats an enemy, heals itself for 25% of its max HP (rounded down)."
    assert official("Seraphine, Voice of the Dawn")[1].startswith(
        "Heals every ally for 20% of their max HP (rounded down), ")
    # A flat amount that ignores DEF is dealt as printed; a flat blow against DEF is not.
    assert official("Apprentice Runecaster")[1] == "Deals 5 damage that ignores DEF to the chosen enemy."
    assert main("enemy", hit(flat=5)) == "Deals 5 damage to the chosen enemy (minus its DEF, at least 1)."
    assert main("enemy", hit(scale=0.5, ignore_def=True)) == (
        "Deals 50% ATK damage that ignores DEF to the chosen enemy (rounded down, at least 1).")
    assert main("enemy", hit(scale=0.5, flat=2, ignore_def=True)) == (
        "Deals 50% ATK damage plus 2 that ignores DEF to the chosen enemy (rounded down).")
    assert main("none", {"kind": "heal", "target": "lowest_hp_ally", "flat": 2, "scale": 0.5, "max_hp_fraction": 0.1}) == (
        "Heals the ally with the lowest HP for 2 HP plus 50% of this character's ATK plus 10% of its max HP "
        "(each rounded down).")
    assert main("none", {"kind": "shield", "target": "all_allies", "scale": 0.5, "duration": 2}) == (
        "Gives every ally a shield worth 50% of this character's ATK (rounded down) for 2 rounds.")
    assert main("none", {"kind": "shield", "target": "self", "scale": 0.3, "flat": 2, "duration": 1}) == (
        "Gains a shield worth 2 points plus 30% of its ATK (rounded down) for 1 round.")


def test_a_hit_condition_is_checked_after_the_hit_it_survives():
    # on_hit fires after the damage, if the unit is still standing: the hit that takes it below the threshold
    # counts, the blow that defeats it does not, and neither do faction abilities, poison or burn.
    assert official("Troll Berserker")[0] == RAGE
    assert official("Mortheus, the Lich King")[0] == (
        "Once per battle, when it survives a hit from an enemy unit's Basic Attack or Main Ability and is left "
        "below 30% HP, heals itself for 50% of its max HP (rounded down).")
    assert official("Brimstone Colossus")[0] == (
        "When it survives a hit from an enemy unit's Basic Attack or Main Ability, burns the attacker for 1 per "
        "round for 2 rounds.")
    text = faction("on_hit", {"kind": "buff", "target": "self", "stat": "def", "amount": 2, "duration": 2},
                   condition={"hp_below": 0.5, "allies_same_faction_gte": 1})
    assert text == ("When it survives a hit from an enemy unit's Basic Attack or Main Ability and is left below "
                    "50% HP, if at least 1 other Arcane ally stands with it, gains +2 DEF for 2 rounds.")
    assert "while below" not in text and "when hit" not in text.lower()


def test_a_single_enemy_pick_keeps_to_the_enemies_it_can_attack_in_either_line():
    # R12: from the Vanguard only the enemy Vanguard while anyone stands there, from the Rearguard any enemy.
    # A Flex Assassin stands in either line, and a move can put any card in the other one.
    assert official("Dusk Cutthroat")[1] == (
        "Deals 100% ATK damage to the lowest-HP enemy it can attack (rounded down, minus its DEF, at least 1).")
    assert official("Veyra, Mistress of Whispers")[1] == (
        "Deals 100% ATK damage to the highest-ATK enemy it can attack (rounded down, minus its DEF, at least 1) "
        "and silences it for 2 rounds.")
    assert official("Goblin Hexscribe")[0] == "At the start of each round, gives a random enemy it can attack -1 SPD for 1 round."
    assert official("Merlin, Archmage of Runes")[0] == (
        "At the start of the battle, silences the highest-ATK enemy it can attack for 1 round.")
    # Abilities that ignore the lines say so instead, for the chosen enemy and for every pick.
    assert main("enemy", hit(scale=1.0), hit("lowest_hp_enemy", scale=0.3), ignore_lines=True) == (
        "Deals 100% ATK damage to the chosen enemy in any line, ignoring the Vanguard, then 30% ATK damage to the "
        "lowest-HP enemy in any line, ignoring the Vanguard (each rounded down, minus the target's DEF, at least 1).")
    for selector, noun in (("random_enemy", "a random enemy"), ("lowest_hp_enemy", "the lowest-HP enemy"),
                           ("highest_atk_enemy", "the highest-ATK enemy")):
        silence = {"kind": "silence", "target": selector, "duration": 2}
        assert main("none", silence) == f"Silences {noun} it can attack for 2 rounds."
        assert faction("round_start", silence, limit="battle") == (
            f"At the start of each round, silences {noun} it can attack for 2 rounds (once per battle).")


@pytest.mark.django_db
def test_an_older_database_gets_the_new_words_and_a_staff_edit_keeps_the_old_until_saved(tmp_path, staff_client):
    old_main = "Deals 130% ATK damage to the chosen enemy."
    old_rage = "When hit while below 50% HP, gains +2 ATK for 2 rounds (once per round)."
    folder = tmp_path / "previous"
    folder.mkdir()
    write_previous_release(folder, old_main, old_rage)
    call_command("load_official", *sorted(str(p) for p in folder.iterdir()), verbosity=0)
    # Staff edited the Troll Berserker's flavour since, with the code of that release (texts as they were).
    Character.objects.filter(pk=TROLL_BERSERKER).update(flavor_text="Edited by staff.")

    call_command("update_official", "--apply", *official_fixture_files(), stdout=io.StringIO())

    orc = Character.objects.get(pk=ORC_WARRIOR)
    assert orc.main_ability["text"] == SAVAGE_CLEAVE
    assert orc.rules_text.endswith(f"Main — Savage Cleave: {SAVAGE_CLEAVE}")
    # The edited card is kept as it is, old words included: it reads and edits as any other.
    troll = Character.objects.get(pk=TROLL_BERSERKER)
    assert (troll.flavor_text, troll.faction_ability["text"]) == ("Edited by staff.", old_rage)
    body = staff_client.get(f"{URL}{troll.slug}/").json()
    assert body["faction_ability"]["text"] == old_rage and body["flavor_text"] == "Edited by staff."
    # Saved again, it is printed in the words of its spec.
    response = staff_client.patch(f"{URL}{troll.slug}/", {"flavor_text": "Edited twice."}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["faction_ability"]["text"] == RAGE
    troll.refresh_from_db()
    assert troll.faction_ability["text"] == RAGE
    assert troll.rules_text.startswith(f"Faction — Rage: {RAGE}\n")


def write_previous_release(folder: Path, old_main: str, old_rage: str) -> None:
    """The official fixtures as the previous release had them, written to `folder`."""
    for path in map(Path, official_fixture_files()):
        rows = json.loads(path.read_text())
        for row in rows:  # the previous release printed the old words on the Orc Warrior and the Troll Berserker
            print_old_words(row, old_main, old_rage)
        (folder / path.name).write_text(json.dumps(rows, indent=1, ensure_ascii=False))


def print_old_words(row: dict, old_main: str, old_rage: str) -> None:
    """The Orc Warrior's main ability and the Troll Berserker's faction ability in their old words."""
    fields = row["fields"]
    if row["model"] == "realms.character" and row["pk"] in (ORC_WARRIOR, TROLL_BERSERKER):
        spec = fields["main_ability"] if row["pk"] == ORC_WARRIOR else fields["faction_ability"]
        spec["text"] = old_main if row["pk"] == ORC_WARRIOR else old_rage
    if row["model"] == "cardsdb.card" and row["pk"] == ORC_WARRIOR:
        fields["rules_text"] = fields["rules_text"].split("\nMain")[0] + f"\nMain — Savage Cleave: {old_main}"
    if row["model"] == "cardsdb.card" and row["pk"] == TROLL_BERSERKER:
        fields["rules_text"] = "Faction — Rage: " + old_rage + "\nMain" + fields["rules_text"].split("\nMain")[1]


# --- every write stores the generated text ----------------------------------------------------------


def payload(**overrides) -> dict:
    from tests.factories import _realms_test_set, make_race, make_rarity

    make_race("elf")
    make_faction("shadow")
    make_rarity("rare")
    _realms_test_set()
    data = {
        "slug": "night-blade", "name": "Night Blade", "race": "elf", "class": "assassin", "faction": "shadow",
        "rarity": "rare", "set": "er-test", "position": "flex", "atk": 10, "def": 2, "spd": 9, "hp": 15,
        "cooldown": 2, "main_ability": {**STRIKE, "text": "Wins the game at once."},
        "faction_ability": {**DRILL, "text": "Does nothing at all."}, "flavor_text": "Unseen.",
    }
    data.update(overrides)
    return data


STRIKE_TEXT = "Deals 120% ATK damage to the chosen enemy (rounded down, minus its DEF, at least 1)."
DRILL_TEXT = "At the start of the battle, gains +1 DEF for 1 round."


@pytest.mark.django_db
def test_the_api_stores_the_generated_text_instead_of_the_one_sent(staff_client, anon_client):
    response = staff_client.post(URL, payload(), format="json")
    assert response.status_code == 201, response.content
    assert response.json()["main_ability"]["text"] == STRIKE_TEXT
    card = Character.objects.get(slug="night-blade")
    assert card.main_ability == {**STRIKE, "text": STRIKE_TEXT}
    assert card.faction_ability == {**DRILL, "text": DRILL_TEXT}
    assert card.rules_text == f"Faction — Drill: {DRILL_TEXT}\nMain — Strike: {STRIKE_TEXT}"
    body = anon_client.get(f"{URL}night-blade/").json()
    assert (body["main_ability"]["text"], body["faction_ability"]["text"]) == (STRIKE_TEXT, DRILL_TEXT)

    # An update of the spec gets the new spec's text, whatever text comes with it.
    changed = {**DRILL, "text": "Still nothing.", "effects": [
        {"kind": "buff", "target": "self", "stat": "atk", "amount": 2, "duration": 2}]}
    response = staff_client.patch(f"{URL}night-blade/", {"faction_ability": changed}, format="json")
    assert response.status_code == 200, response.content
    card.refresh_from_db()
    assert card.faction_ability["text"] == "At the start of the battle, gains +2 ATK for 2 rounds."
    assert card.rules_text.startswith("Faction — Drill: At the start of the battle, gains +2 ATK for 2 rounds.\n")


@pytest.mark.django_db
def test_the_api_accepts_a_spec_without_text_and_still_refuses_a_bad_spec(staff_client):
    bare = {key: value for key, value in STRIKE.items() if key != "text"}
    response = staff_client.post(URL, payload(main_ability=bare), format="json")
    assert response.status_code == 201, response.content
    assert Character.objects.get(slug="night-blade").main_ability == {
        "name": "Strike", "text": STRIKE_TEXT, "choose": "enemy", "effects": STRIKE["effects"],
    }
    bad = {**STRIKE, "slug": "x", "effects": [{"kind": "damage", "target": "self", "scale": 9}]}
    response = staff_client.post(URL, payload(slug="other-blade", main_ability=bad), format="json")
    assert response.status_code == 400
    errors = response.json()["fields"]["main_ability"]
    assert any(e.startswith("main_ability.effects[0].scale:") for e in errors)
    assert any(e.startswith("main_ability.slug:") for e in errors)


@pytest.mark.django_db
def test_the_model_replaces_any_text_on_clean_and_on_save():
    card = make_character(main_ability={**STRIKE, "text": "Lies."}, faction_ability={**DRILL, "text": "More lies."})
    card.refresh_from_db()
    assert (card.main_ability["text"], card.faction_ability["text"]) == (STRIKE_TEXT, DRILL_TEXT)
    # save() alone (no full_clean) generates the text too.
    card.main_ability = {**STRIKE, "text": "Lies again."}
    card.save()
    card.refresh_from_db()
    assert card.main_ability["text"] == STRIKE_TEXT
    assert "Lies" not in card.rules_text


@pytest.mark.django_db
def test_the_admin_stores_the_generated_text(client, django_user_model, catalogue):
    client.force_login(django_user_model.objects.create_superuser("root", "root@example.com", "root-password-1"))
    card = Character.objects.get(slug="merlin-archmage-of-runes")
    form = client.get(f"/admin/realms/character/{card.pk}/change/")
    assert b"generated from its effects" in form.content
    data = {
        "name": card.name, "slug": card.slug, "card_set": card.card_set_id, "rarity": card.rarity_id,
        "race": card.race_id, "character_class": card.character_class, "faction": card.faction_id,
        "position": card.position, "attack": card.attack, "defense": card.defense, "speed": card.speed,
        "health": card.health, "cooldown": card.cooldown, "flavor_text": card.flavor_text,
        "faction_ability": json.dumps({**card.faction_ability, "text": "Wrong words."}),
        "main_ability": json.dumps({**card.main_ability, "text": "Other wrong words."}),
    }
    expected = (card.main_ability["text"], card.faction_ability["text"])
    response = client.post(f"/admin/realms/character/{card.pk}/change/", data)
    assert response.status_code == 302, response.content.decode()[:2000]
    card.refresh_from_db()
    assert (card.main_ability["text"], card.faction_ability["text"]) == expected
    assert "wrong words" not in card.rules_text.lower()


@pytest.mark.django_db
def test_a_spec_whose_generated_text_would_not_fit_is_refused(staff_client):
    wordy = {"kind": "shield", "target": "lowest_hp_ally", "flat": 5, "scale": 0.5, "duration": 2, "persists": True}
    heavy = {**STRIKE, "effects": [wordy, {**wordy, "target": "random_ally"}, {**wordy, "target": "all_allies"},
                                   {**wordy, "target": "ally_rearguard"}]}
    response = staff_client.post(URL, payload(main_ability=heavy), format="json")
    assert response.status_code == 400
    (error,) = response.json()["fields"]["main_ability"]
    assert error.startswith("main_ability.text: the text generated from the spec would be ") and "at most 400" in error
    assert not Character.objects.filter(slug="night-blade").exists()
