"""The official Echo Realms starter set (fixtures/realms_starter.json), as a player finds it."""

import json
import re
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.core.management import call_command
from django.utils.text import slugify

from realms.engine.effects import EFFECT_KINDS
from realms.engine.spec import SELECTORS, TRIGGERS, parse_faction_ability, parse_main_ability
from realms.models import Character, Race
from tests.conftest import FIXTURES_DIR, official_fixture_files
from tests.factories import ARMY_RARITIES, LINE_CAPACITY, find_army

pytestmark = pytest.mark.django_db

STARTER = FIXTURES_DIR / "realms_starter.json"
DOCS = Path(__file__).resolve().parents[2] / "docs" / "realms-starter-set.md"

RACES = ["Human", "Orc", "Elf", "Dwarf", "Goblin", "Vampire", "Demon", "Aasimar", "Troll", "Undead"]
FACTIONS = ["iron-kingdom", "arcane", "tribal", "demonic", "celestial", "undead", "abyssal", "shadow"]
CLASS_COUNTS = {"tank": 9, "warrior": 16, "mage": 12, "archer": 8, "assassin": 7, "support": 12}
RACE_COUNTS = {
    "Human": 15, "Orc": 4, "Elf": 9, "Dwarf": 6, "Goblin": 3,
    "Vampire": 4, "Demon": 6, "Aasimar": 5, "Troll": 4, "Undead": 8,
}
# Rule R3, spelled out here rather than read from realms.choices so a drift there is caught too.
CLASS_POSITIONS = {
    "tank": {"vanguard"},
    "warrior": {"vanguard", "rearguard"},
    "mage": {"rearguard"},
    "archer": {"rearguard"},
    "assassin": {"flex"},
    "support": {"vanguard", "rearguard"},
}
# Class profiles (docs/realms-starter-set.md): (low, high) for ATK, DEF, SPD, HP.
PROFILES = {
    "tank": ((3, 6), (7, 10), (1, 4), (28, 40)),
    "warrior": ((6, 9), (4, 7), (4, 6), (20, 30)),
    "mage": ((9, 12), (1, 3), (5, 7), (12, 18)),
    "archer": ((7, 10), (1, 3), (7, 9), (12, 18)),
    "assassin": ((8, 11), (1, 3), (8, 10), (12, 18)),
    "support": ((2, 5), (3, 6), (4, 7), (16, 24)),
}
RARITY_COOLDOWNS = {"common": {1, 2}, "uncommon": {2, 3}, "rare": {2, 3}, "legendary": {3}}
# Effect kinds no official card uses (yet): the engine, its tests and the reference know them.
UNPRINTED_KINDS = {"taunt"}
AREA_SELECTORS = {"all_enemies", "target_line", "enemy_vanguard", "enemy_rearguard"}
ENEMY_PICKS = {"random_enemy", "lowest_hp_enemy", "highest_atk_enemy"}


@pytest.fixture(autouse=True)
def starter_set():
    call_command("loaddata", FIXTURES_DIR / "catalogue.json", STARTER, verbosity=0)


def characters() -> list[Character]:
    return list(Character.objects.select_related("race", "faction", "rarity", "card_set").order_by("pk"))


def by_name() -> dict[str, Character]:
    return {card.name: card for card in characters()}


def stats(card: Character) -> tuple[int, int, int, int]:
    return card.attack, card.defense, card.speed, card.health


def abilities(card: Character) -> list[dict]:
    return [card.faction_ability, card.main_ability]


def all_effects() -> list[tuple[Character, dict, dict]]:
    return [(card, spec, effect) for card in characters() for spec in abilities(card) for effect in spec["effects"]]


# --- the catalogue ------------------------------------------------------------------------


def test_the_ten_races_of_the_rulebook():
    races = list(Race.objects.order_by("pk"))
    assert [(race.pk, race.name) for race in races] == list(enumerate(RACES, start=1))
    for race in races:
        assert race.slug == race.name.lower()
        assert race.description.strip()


def test_sixty_four_characters_in_the_core_set():
    cards = characters()
    assert len(cards) == 64
    assert [card.pk for card in cards] == list(range(1001, 1065))
    assert {card.game for card in cards} == {"realms"}
    assert {card.card_set.code for card in cards} == {"er-core"}
    assert len({card.name for card in cards}) == 64
    for card in cards:
        assert card.slug == slugify(card.name), card.name
        assert not card.image and not card.thumbnail, card.name
        flavor = card.flavor_text
        assert flavor.strip() and "\n" not in flavor and len(flavor) <= 100, card.name


def test_each_faction_has_eight_cards_three_common_two_uncommon_two_rare_one_legendary():
    per_faction = Counter((card.faction.slug, card.rarity.slug) for card in characters())
    for faction in FACTIONS:
        counts = {rarity: per_faction[(faction, rarity)] for rarity in ARMY_RARITIES}
        assert counts == {"common": 3, "uncommon": 2, "rare": 2, "legendary": 1}, faction
    assert sum(per_faction.values()) == 64


def test_counts_per_class_and_race_use_every_class_and_race():
    cards = characters()
    assert Counter(card.character_class for card in cards) == CLASS_COUNTS
    assert Counter(card.race.name for card in cards) == RACE_COUNTS
    assert Counter(card.rarity.slug for card in cards) == {"common": 24, "uncommon": 16, "rare": 16, "legendary": 8}


def test_every_card_passes_model_validation():
    for card in characters():
        card.full_clean()


def test_printed_positions_follow_the_class_rule_r3():
    wrong = [
        (card.name, card.character_class, card.position)
        for card in characters()
        if card.position not in CLASS_POSITIONS[card.character_class]
    ]
    assert wrong == []
    flex = {card.name for card in characters() if card.position == "flex"}
    assassins = {card.name for card in characters() if card.character_class == "assassin"}
    assert flex == assassins
    # Warriors and Supports may be printed either way; this set prints them as they "primarily" stand.
    for card in characters():
        if card.character_class in ("warrior", "support"):
            expected = "vanguard" if card.character_class == "warrior" else "rearguard"
            assert card.position == expected, card.name


def test_every_card_lies_inside_its_class_profile():
    outside = []
    for card in characters():
        for label, value, (low, high) in zip(
            ("ATK", "DEF", "SPD", "HP"), stats(card), PROFILES[card.character_class], strict=True
        ):
            if not low <= value <= high:
                outside.append(f"{card.name}: {label} {value} not in {low}-{high}")
    assert outside == []


def profile_position(card: Character) -> float:
    """0 = bottom of every range of its class, 4 = top of every range."""
    return sum(
        (value - low) / (high - low)
        for value, (low, high) in zip(stats(card), PROFILES[card.character_class], strict=True)
    )


def test_higher_rarity_sits_higher_in_the_class_ranges():
    order = ["common", "uncommon", "rare", "legendary"]
    for klass in PROFILES:
        means = []
        for rarity in order:
            cards = [c for c in characters() if c.character_class == klass and c.rarity.slug == rarity]
            if cards:
                means.append((rarity, sum(map(profile_position, cards)) / len(cards)))
        assert len(means) >= 2, klass
        assert [mean for _, mean in means] == sorted(mean for _, mean in means), (klass, means)


def test_rules_text_is_composed_from_the_two_abilities():
    for card in characters():
        assert card.rules_text == card.compose_rules_text(), card.name
        assert card.rules_text.startswith(f"Faction — {card.faction_ability['name']}: "), card.name


def test_every_ability_parses_with_the_spec():
    for card in characters():
        parse_faction_ability(card.faction_ability)
        parse_main_ability(card.main_ability)


# --- the rulebook's characters and examples -----------------------------------------------


def test_named_characters_of_the_rulebook():
    cards = by_name()
    merlin = cards["Merlin, Archmage of Runes"]
    assert (merlin.faction.slug, merlin.character_class, merlin.attack, merlin.speed) == ("arcane", "mage", 11, 7)
    jofrey = cards["Jofrey, Hammer of Justice"]
    assert (jofrey.character_class, jofrey.attack, jofrey.speed) == ("warrior", 8, 5)
    assert jofrey.faction.slug in {"celestial", "iron-kingdom"}
    assert cards["Azrakor, Lord of the Abyss"].rarity.slug == "legendary"

    generic = {
        "Shadow Assassin": ("assassin", {"speed": 9}),
        "Elven Archer": ("archer", {"speed": 8}),
        "Orc Warrior": ("warrior", {"attack": 6, "speed": 6}),
        "Troll Tank": ("tank", {"speed": 3, "defense": 8}),
        "Iron Guardian": ("tank", {"speed": 3}),
    }
    for name, (klass, numbers) in generic.items():
        card = cards[name]
        assert card.character_class == klass, name
        assert {field: getattr(card, field) for field in numbers} == numbers, name
    assert cards["Elven Archer"].race.name == "Elf"
    assert cards["Orc Warrior"].race.name == "Orc"
    assert cards["Troll Tank"].race.name == "Troll"


def test_the_rulebook_attack_order_example():
    cards = by_name()
    names = ["Shadow Assassin", "Elven Archer", "Merlin, Archmage of Runes", "Orc Warrior",
             "Jofrey, Hammer of Justice", "Troll Tank"]
    speeds = [cards[name].speed for name in names]
    assert speeds == [9, 8, 7, 6, 5, 3]
    assert sorted(names, key=lambda name: -cards[name].speed) == names


def test_the_rulebook_damage_examples():
    cards = by_name()
    orc, troll = cards["Orc Warrior"], cards["Troll Tank"]
    assert max(1, orc.attack - troll.defense) == 1  # 6 − 8 = −2, minimum damage 1
    # Merlin (ATK 11) hitting a Warrior with DEF 6 deals 5: such Warriors exist in the set.
    assert any(c.character_class == "warrior" and c.defense == 6 for c in characters())
    assert cards["Merlin, Archmage of Runes"].attack - 6 == 5
    # Jofrey's +2 ATK before attacking, as in the complete example (8 + 2 − 5 = 5).
    zeal = cards["Jofrey, Hammer of Justice"].faction_ability
    assert zeal["trigger"] == "before_action"
    assert {"kind": "buff", "target": "self", "stat": "atk", "amount": 2, "duration": 1} in zeal["effects"]


# --- abilities --------------------------------------------------------------------------------


def test_the_set_uses_every_effect_kind_trigger_selector_and_condition():
    effects = all_effects()
    assert {effect["kind"] for _, _, effect in effects} == set(EFFECT_KINDS) - UNPRINTED_KINDS
    assert {card.faction_ability["trigger"] for card in characters()} == set(TRIGGERS)
    assert {effect["target"] for _, _, effect in effects if "target" in effect} == set(SELECTORS)
    conditions = set().union(*(card.faction_ability.get("condition", {}) for card in characters()))
    assert conditions == {"allies_same_faction_gte", "line", "hp_below"}
    assert {card.faction_ability.get("limit", "none") for card in characters()} == {"none", "round", "battle"}
    assert {card.main_ability["choose"] for card in characters()} == {"enemy", "ally", "none"}
    assert any(card.main_ability.get("ignore_lines") for card in characters())
    check_damage_and_heal_variants(effects)
    check_cooldown_and_move_variants(effects)


def check_damage_and_heal_variants(effects: list[tuple[Character, dict, dict]]) -> None:
    """Damage scaled and flat ignoring DEF; heals by flat, scale and max HP fraction."""
    damage = [effect for _, _, effect in effects if effect["kind"] == "damage"]
    assert any(effect.get("scale") for effect in damage)
    assert any(effect.get("flat") and effect.get("ignore_def") for effect in damage)
    heals = [effect for _, _, effect in effects if effect["kind"] == "heal"]
    assert all(any(effect.get(key) for effect in heals) for key in ("flat", "scale", "max_hp_fraction"))


def check_cooldown_and_move_variants(effects: list[tuple[Character, dict, dict]]) -> None:
    """Cooldowns shortened for itself and allies, lengthened for enemies; moves to every line."""
    cooldowns = {(effect["target"], effect["amount"] < 0) for _, _, effect in effects if effect["kind"] == "cooldown"}
    assert ("self", True) in cooldowns  # its own
    assert {"all_allies", "other_allies"} & {target for target, shorter in cooldowns if shorter}  # allies
    assert {"all_enemies", "attacker"} & {target for target, shorter in cooldowns if not shorter}  # enemies
    assert {effect["to"] for _, _, effect in effects if effect["kind"] == "move"} == {"vanguard", "rearguard", "other"}


TRIGGER_WORDS = {
    "battle_start": "at the start of the battle",
    "round_start": "at the start of each round",
    "before_action": "before it acts",
    "after_action": "after it acts",
    "on_hit": "when it survives a hit from an enemy unit's basic attack or main ability",
    "ally_defeated": "when an ally is defeated",
    "enemy_defeated": "when an enemy is defeated",
    "defeats_enemy": "when it defeats an enemy",
    "round_end": "at the end of each round",
}
FACTION_NAMES = {
    "iron-kingdom": "iron kingdom", "arcane": "arcane", "tribal": "tribal", "demonic": "demonic",
    "celestial": "celestial", "undead": "undead", "abyssal": "abyssal", "shadow": "shadow",
}


def pct(value: float) -> str:
    return f"{round(value * 100)}%"


def effect_phrases(effect: dict) -> list[str]:
    """Words a faithful text must contain for one effect (lower case)."""
    kind = effect["kind"]
    words: list[str] = []
    if "duration" in effect:
        words.append(f"{effect['duration']} round")
    if kind in ("damage", "heal") and (effect.get("scale") or effect.get("max_hp_fraction")):
        words.append("rounded down")
    if kind == "damage":
        words += damage_phrases(effect)
    elif kind == "heal":
        words += heal_phrases(effect)
    elif kind == "summon":
        words += summon_phrases(effect)
    else:
        words += other_phrases(kind, effect)
    return words


def other_phrases(kind: str, effect: dict) -> list[str]:
    """The words of an effect that is neither damage, nor a heal, nor a summon."""
    words: list[str] = []
    if kind == "shield":
        words.append(f"{effect['flat']}-point shield")
    elif kind in ("buff", "debuff"):
        sign = "+" if kind == "buff" else "-"
        words.append(f"{sign}{effect['amount']}")
        words.append(effect["stat"])
    elif kind in ("poison", "burn"):
        words += [kind, f"{effect['amount']} per round"]
    elif kind == "regen":
        words += ["regenerates", f"{effect['amount']} hp per round"]
    elif kind == "silence":
        words.append("silence")
    elif kind == "cooldown":
        words += ["cooldown", "reduces" if effect["amount"] < 0 else "increases", f"by {abs(effect['amount'])}"]
    elif kind == "move":
        words += ["moves", {"vanguard": "vanguard", "rearguard": "rearguard", "other": "other line"}[effect["to"]]]
    elif kind == "cleanse":
        words.append("debuffs")
    elif kind == "dispel":
        words.append(" buffs")
    return words


def damage_phrases(effect: dict) -> list[str]:
    """The words of a damage effect: its scale, its flat part, and whether DEF counts."""
    words = ["damage"]
    if effect.get("scale"):
        words.append(f"{pct(effect['scale'])} atk damage")
    if effect.get("flat"):
        words.append(f"{effect['flat']} ")
    words.append("ignores def" if effect.get("ignore_def") else "def, at least 1")
    return words


def heal_phrases(effect: dict) -> list[str]:
    """The words of a heal: its flat part, its scale, and the share of whose max HP."""
    words = ["heal"]
    if effect.get("flat"):
        words.append(f"{effect['flat']} hp")
    if effect.get("scale"):
        words.append(f"{pct(effect['scale'])} of its atk")
    if effect.get("max_hp_fraction"):
        groups = AREA_SELECTORS | {"all_allies", "other_allies", "ally_vanguard", "ally_rearguard"}
        whose = "their" if effect["target"] in groups else "its"
        words.append(f"{pct(effect['max_hp_fraction'])} of {whose} max hp")
    return words


def summon_phrases(effect: dict) -> list[str]:
    """The words of a summon: the unit, its values, how many and on which line."""
    unit = effect["unit"]
    words = ["summons", unit["name"].lower(),
             f"atk {unit['atk']}, def {unit['def']}, spd {unit['spd']}, hp {unit['hp']}"]
    if effect.get("count", 1) > 1:
        words.append(f"{effect['count']} ")
    words.append({"same": "its line"}.get(effect.get("line", "same"), effect.get("line", "same")))
    return words


def test_ability_texts_describe_what_the_specs_do():
    missing = []
    for card in characters():
        faction, main = card.faction_ability, card.main_ability
        wanted = {id(faction): faction_phrases(card), id(main): main_phrases(main)}
        for spec in (faction, main):
            missing += phrases_missing(card, spec, wanted[id(spec)], is_main=spec is main)
    assert missing == []


def faction_phrases(card: Character) -> list[str]:
    """Words the faction ability's text must contain: its trigger, its limit, its condition."""
    faction = card.faction_ability
    words = [TRIGGER_WORDS[faction["trigger"]]]
    limit = faction.get("limit", "none")
    if limit != "none":
        words.append(f"once per {limit}")
    condition = faction.get("condition", {})
    if "line" in condition:
        words.append(f"in the {condition['line']}")
    if "hp_below" in condition:
        words.append(f"below {pct(condition['hp_below'])} hp")
    if "allies_same_faction_gte" in condition:
        n = condition["allies_same_faction_gte"]
        words.append(f"at least {n} other {FACTION_NAMES[card.faction.slug]} allies")
    return words


def main_phrases(main: dict) -> list[str]:
    """Words the main ability's text must contain: whom it is used on, and whether it ignores lines."""
    words = []
    if main["choose"] != "none":
        words.append(f"chosen {main['choose']}")
    if main.get("ignore_lines"):
        words.append("in any line, ignoring the vanguard")
    return words


def phrases_missing(card: Character, spec: dict, wanted: list[str], *, is_main: bool) -> list[str]:
    """The phrases one ability's text lacks (and a faction ability that speaks of a chosen unit)."""
    missing = []
    text = spec["text"].lower()
    phrases = wanted + [p for effect in spec["effects"] for p in effect_phrases(effect)]
    if not spec.get("ignore_lines"):  # R12: a single enemy pick is one it can attack
        phrases += ["enemy it can attack" for effect in spec["effects"] if effect.get("target") in ENEMY_PICKS]
    missing += [f"{card.name} / {spec['name']}: {phrase!r}" for phrase in phrases if phrase not in text]
    if not is_main and "chosen" in text:
        missing.append(f"{card.name} / {spec['name']}: a faction ability has no chosen unit")
    return missing


def single_target_scale(ability: dict) -> float:
    return round(sum(
        effect.get("scale", 0)
        for effect in ability["effects"]
        if effect["kind"] == "damage" and effect["target"] not in AREA_SELECTORS | {"self"}
    ), 2)


def test_abilities_keep_to_the_power_budget():
    problems = []
    for card in characters():
        problems += single_target_budget_problems(card)
        problems += main_effect_budget_problems(card)
        if card.cooldown not in RARITY_COOLDOWNS[card.rarity.slug]:
            problems.append(f"{card.name}: {card.rarity.slug} with cooldown {card.cooldown}")
        problems += faction_budget_problems(card)
    assert problems == []


def single_target_budget_problems(card: Character) -> list[str]:
    """The main ability's single-target damage: 80-160% ATK, 140% on cooldown 2 or more, 160% Legendary only."""
    problems = []
    total = single_target_scale(card.main_ability)
    if total and not 0.8 <= total <= 1.6:
        problems.append(f"{card.name}: single-target damage {total}")
    if total >= 1.4 and card.cooldown < 2:
        problems.append(f"{card.name}: {total} damage on cooldown {card.cooldown}")
    if total >= 1.6 and card.rarity.slug != "legendary":
        problems.append(f"{card.name}: 160% damage below Legendary")
    return problems


def main_effect_budget_problems(card: Character) -> list[str]:
    """The main ability's effects: area damage at most 80% ATK; a summon or a long silence on cooldown 3."""
    problems = []
    for effect in card.main_ability["effects"]:
        if effect["kind"] == "damage" and effect["target"] in AREA_SELECTORS and effect.get("scale", 0) > 0.8:
            problems.append(f"{card.name}: area damage {effect['scale']}")
        strong = effect["kind"] == "summon" or (effect["kind"] == "silence" and effect["duration"] >= 2)
        if strong and card.cooldown != 3:
            problems.append(f"{card.name}: {effect['kind']} on cooldown {card.cooldown}")
    return problems


def faction_budget_problems(card: Character) -> list[str]:
    """A faction ability firing every round, unconditioned and unlimited, stays small."""
    problems = []
    faction = card.faction_ability
    repeating = faction["trigger"] in {"round_start", "round_end", "before_action", "after_action"}
    if repeating and not faction.get("condition") and faction.get("limit", "none") == "none":
        for effect in faction["effects"]:
            size = max(effect.get("amount", 0), effect.get("flat", 0))
            if size > 3 or effect.get("duration", 0) > 2 or effect.get("scale"):
                problems.append(f"{card.name}: every-round faction effect {effect}")
    return problems


# --- armies ------------------------------------------------------------------------------------


def army_violations(slots) -> list[str]:
    cards = [card for card, _ in slots]
    problems = []
    if len(cards) != 7 or len({card.pk for card in cards}) != 7:
        problems.append("not 7 distinct cards")
    if Counter(card.rarity.slug for card in cards) != ARMY_RARITIES:
        problems.append("wrong rarities")
    for line in ("vanguard", "rearguard"):
        if sum(1 for _, chosen in slots if chosen == line) > LINE_CAPACITY:
            problems.append(f"more than 5 in the {line}")
    problems += [f"{card.name} in the {line}" for card, line in slots if card.position not in (line, "flex")]
    return problems


def test_every_faction_fields_a_legal_army_on_its_own():
    for faction in FACTIONS:
        cards = [card for card in characters() if card.faction.slug == faction]
        army = find_army(cards)
        assert army is not None, faction
        assert army_violations(army) == [], faction
        assert {card.faction.slug for card, _ in army} == {faction}


def fake(pk: int, rarity: str, position: str) -> SimpleNamespace:
    return SimpleNamespace(pk=pk, name=f"card {pk}", rarity=SimpleNamespace(slug=rarity), position=position)


def test_the_army_search_finds_none_when_there_is_none():
    # Six cards that can only stand in the Vanguard: no army fits.
    rarities = ["common"] * 3 + ["uncommon"] * 2 + ["rare", "legendary"]
    crowded = [fake(i, rarity, "vanguard" if i < 6 else "rearguard") for i, rarity in enumerate(rarities)]
    assert find_army(crowded) is None
    # A flex card rescues it by taking the Rearguard.
    crowded[0] = fake(0, "common", "flex")
    assert army_violations(find_army(crowded)) == []
    # No Legendary, no army.
    assert find_army([fake(i, r, "rearguard") for i, r in enumerate(rarities[:-1] + ["rare"])]) is None


# --- the fixture in the official catalogue, and its documentation -------------------------------


def test_the_starter_set_survives_loading_every_official_set():
    # Another fixture reusing a pk of ours would silently overwrite a card.
    call_command("loaddata", *official_fixture_files(), verbosity=0)
    call_command("loaddata", *official_fixture_files(), verbosity=0)
    raw = json.loads(STARTER.read_text())
    expected = {row["pk"]: row["fields"]["name"] for row in raw if row["model"] == "cardsdb.card"}
    assert {card.pk: card.name for card in Character.objects.all()} == expected


def docs_rows(header: str) -> list[list[str]]:
    """The rows of every markdown table in the docs whose header starts with `header`."""
    rows, inside = [], False
    for line in DOCS.read_text().splitlines():
        if line.startswith(header):
            inside = True
            continue
        if inside and line.startswith("|"):
            if not line.startswith("|---"):
                rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
        else:
            inside = False
    return rows


def test_docs_class_profile_table_matches_the_profiles():
    documented = {}
    for row in docs_rows("| Class | ATK |"):
        ranges = [tuple(int(n) for n in re.fullmatch(r"(\d+)–(\d+)", cell).groups()) for cell in row[1:5]]
        documented[row[0].lower()] = tuple(ranges)
    assert documented == PROFILES


def test_docs_list_every_card_with_its_numbers():
    documented = {row[0]: row[1:] for row in docs_rows("| Card | Race |")}
    expected = {
        card.name: [card.race.name, card.get_character_class_display(), card.rarity.name,
                    card.get_position_display(), *map(str, stats(card)), str(card.cooldown)]
        for card in characters()
    }
    assert documented == expected
