"""The character search language: parsing, error positions and the characters each query finds."""

import os
import subprocess
import sys
from pathlib import Path
from typing import cast

import pytest
from django.db.models import Q

from cardsdb.models import CardSet, Faction, Rarity
from realms.models import Character, Race
from realms.query import (
    MAX_DEPTH,
    MAX_LENGTH,
    And,
    Not,
    Or,
    QueryError,
    Term,
    character_q,
    parse_query,
    query_to_q,
)

PROJECT_DIR = Path(__file__).resolve().parents[2]

MAIN_ABILITY = {
    "name": "Strike",
    "text": "Deals 120% ATK.",
    "choose": "enemy",
    "effects": [{"kind": "damage", "target": "target", "scale": 1.2}],
}
FACTION_ABILITY = {
    "name": "Drill",
    "text": "+1 DEF at battle start.",
    "trigger": "battle_start",
    "effects": [{"kind": "buff", "target": "self", "stat": "def", "amount": 1, "duration": 1}],
}


def term(key: str, op: str, value: str | int, position: int = 0) -> Term:
    return Term(key, op, value, position)


# --- Parsing -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("class:mage", term("class", "=", "mage")),
        ("c:Mage", term("class", "=", "mage")),
        ("CLASS=TANK", term("class", "=", "tank")),
        ("faction:Arcane", term("faction", "=", "Arcane")),
        ("f:iron-kingdom", term("faction", "=", "iron-kingdom")),
        ("race:elf", term("race", "=", "elf")),
        ("r:half-elf", term("race", "=", "half-elf")),
        ("rarity:Rare", term("rarity", "=", "rare")),
        ("rar:legendary", term("rarity", "=", "legendary")),
        ("position:flex", term("position", "=", "flex")),
        ("pos:vanguard", term("position", "=", "vanguard")),
        ("name:merl", term("name", ":", "merl")),
        ("n:merl", term("name", ":", "merl")),
        ("text:nova", term("text", ":", "nova")),
        ("t:nova", term("text", ":", "nova")),
        ("set:core", term("set", "=", "core")),
        ("atk:9", term("atk", "=", 9)),
        ("def:3", term("def", "=", 3)),
        ("spd:4", term("spd", "=", 4)),
        ("hp:20", term("hp", "=", 20)),
        ("cd:2", term("cd", "=", 2)),
        ("cooldown:2", term("cd", "=", 2)),
    ],
)
def test_keys_and_aliases_parse_to_canonical_terms(query, expected):
    assert parse_query(query) == expected


@pytest.mark.parametrize(
    ("query", "op"),
    [
        ("atk:5", "="),
        ("atk=5", "="),
        ("atk!=5", "!="),
        ("atk>5", ">"),
        ("atk>=5", ">="),
        ("atk<5", "<"),
        ("atk<=5", "<="),
    ],
)
def test_every_numeric_operator(query, op):
    assert parse_query(query) == term("atk", op, 5)


@pytest.mark.parametrize("op", [">", ">=", "<", "<=", "!="])
def test_rarity_takes_every_operator(op):
    assert parse_query(f"rarity{op}rare") == term("rarity", op, "rare")


@pytest.mark.parametrize(
    ("query", "op"), [("name:Merlin", ":"), ("name=Merlin", "="), ("name!=Merlin", "!=")]
)
def test_text_keys_keep_contains_apart_from_exact(query, op):
    assert parse_query(query) == term("name", op, "Merlin")


@pytest.mark.parametrize(("query", "op"), [("class!=mage", "!="), ("f!=arcane", "!=")])
def test_not_equal_on_choice_keys(query, op):
    assert cast(Term, parse_query(query)).op == op


def test_bare_words_search_the_name():
    assert parse_query("Merlin") == term("name", ":", "Merlin")
    assert parse_query("half-elf") == term("name", ":", "half-elf")


def test_the_documented_example_parses_with_positions():
    query = "class:mage faction:arcane atk>=9 -rarity:common (spd>6 or hp>=20)"
    assert parse_query(query) == And(
        (
            term("class", "=", "mage", 0),
            term("faction", "=", "arcane", 11),
            term("atk", ">=", 9, 26),
            Not(term("rarity", "=", "common", 34)),
            Or((term("spd", ">", 6, 49), term("hp", ">=", 20, 58))),
        )
    )


def test_and_binds_tighter_than_or():
    a, b = term("name", ":", "a", 0), term("name", ":", "b", 2)
    assert parse_query("a b or c") == Or((And((a, b)), term("name", ":", "c", 7)))
    b, c = term("name", ":", "b", 5), term("name", ":", "c", 7)
    assert parse_query("a or b c") == Or((a, And((b, c))))


def test_or_chains_are_flat_and_case_insensitive():
    assert parse_query("a OR b Or c") == Or(
        (term("name", ":", "a", 0), term("name", ":", "b", 5), term("name", ":", "c", 10))
    )


def test_negation_binds_tighter_than_and():
    assert parse_query("-a b") == And((Not(term("name", ":", "a", 1)), term("name", ":", "b", 3)))


def test_negated_group_and_double_negation():
    assert parse_query("-(a or b) c") == And(
        (Not(Or((term("name", ":", "a", 2), term("name", ":", "b", 7)))), term("name", ":", "c", 10))
    )
    assert parse_query("--atk>3") == Not(Not(term("atk", ">", 3, 2)))


def test_parentheses_override_precedence():
    assert parse_query("(a or b) c") == And(
        (Or((term("name", ":", "a", 1), term("name", ":", "b", 6))), term("name", ":", "c", 9))
    )


def test_values_stop_at_parentheses():
    assert parse_query("(hp>=20)") == term("hp", ">=", 20, 1)
    assert parse_query("(a)b") == And((term("name", ":", "a", 1), term("name", ":", "b", 3)))


def test_quoted_values():
    assert parse_query('name:"Merlin, Archmage"') == term("name", ":", "Merlin, Archmage")
    assert parse_query('f:"Iron Kingdom"') == term("faction", "=", "Iron Kingdom")
    assert parse_query('"two words"') == term("name", ":", "two words")
    assert parse_query(r'n:"say \"hi\" \\ bye"') == term("name", ":", 'say "hi" \\ bye')
    assert parse_query('atk:"9"') == term("atk", "=", 9)


def test_quoted_or_is_a_name_not_an_operator():
    assert parse_query('a "or" b') == And(
        (term("name", ":", "a", 0), term("name", ":", "or", 2), term("name", ":", "b", 7))
    )


def test_negated_quoted_term():
    assert parse_query('-"dark one"') == Not(term("name", ":", "dark one", 1))


@pytest.mark.parametrize(
    ("query", "message", "position"),
    [
        ("colour:red", "Unknown key 'colour'", 0),
        ("-colour:blue", "Unknown key 'colour'", 1),
        ("colour:blue or rar:mythic", "Unknown key 'colour'", 0),
        ("atk>=x", "'atk' needs a whole number from 0 to 999, got 'x'", 5),
        ("class:mage faction:arcane atk>=x", "'atk' needs a whole number from 0 to 999, got 'x'", 31),
        ("hp:-3", "'hp' needs a whole number from 0 to 999, got '-3'", 3),
        ("spd>1000", "'spd' needs a whole number from 0 to 999, got '1000'", 4),
        ("cd:1.5", "'cd' needs a whole number from 0 to 999, got '1.5'", 3),
        (
            "class:wizard",
            "Unknown class 'wizard'; use one of: tank, warrior, mage, archer, assassin, support",
            6,
        ),
        ("pos:middle", "Unknown position 'middle'; use one of: vanguard, rearguard, flex", 4),
        ("rarity>=mythic", "Unknown rarity 'mythic'; use one of: common, uncommon, rare, legendary", 8),
        ("class>mage", "Operator '>' does not work with 'class'; use ':', '=' or '!='", 5),
        ("n<=abc", "Operator '<=' does not work with 'n'; use ':', '=' or '!='", 1),
        ("f>=arcane", "Operator '>=' does not work with 'f'; use ':', '=' or '!='", 1),
        ("atk>=", "Missing value after 'atk>='", 5),
        ("class: mage", "Missing value after 'class:'", 6),
        ("(atk>)", "Missing value after 'atk>'", 5),
        ("(a b", "Unclosed parenthesis", 0),
        ("((a) b", "Unclosed parenthesis", 0),
        ("a (b (c)", "Unclosed parenthesis", 2),
        ("(", "Unclosed parenthesis", 0),
        ("a b)", "Unexpected ')'", 3),
        (")", "Unexpected ')'", 0),
        ("a ()", "Empty parentheses", 2),
        ("a (  ) b", "Empty parentheses", 2),
        ("a or", "'or' needs a term on both sides", 2),
        ("or a", "'or' needs a term on both sides", 0),
        ("a or or b", "'or' needs a term on both sides", 2),
        ("(a or) b", "'or' needs a term on both sides", 3),
        ("a OR", "'or' needs a term on both sides", 2),
        ("-", "'-' needs a term or group right after it", 0),
        ("a - b", "'-' needs a term or group right after it", 2),
        ("(a -)", "'-' needs a term or group right after it", 3),
        ("-or a", "'-' needs a term or group right after it", 0),
        ('name:"Merlin', "Unterminated quote", 5),
        ('"', "Unterminated quote", 0),
        ('""', "Empty quoted value", 0),
        ('name:""', "Empty quoted value", 5),
        ('name:"a"b', "Expected a space after the closing quote", 8),
        ('ab"c"', "Unexpected quote inside a word; quote the whole value", 2),
        ('name:ab"c', "Unexpected quote inside a word; quote the whole value", 7),
        ("", "The query is empty", 0),
        ("   ", "The query is empty", 0),
    ],
)
def test_errors_name_the_message_and_position(query, message, position):
    with pytest.raises(QueryError) as caught:
        parse_query(query)
    assert caught.value.message == message
    assert caught.value.position == position


def test_query_error_is_a_value_error_with_a_readable_str():
    with pytest.raises(ValueError, match=r"^Unknown key 'colour' at position 2$"):
        parse_query("  colour:blue")


def test_length_limit():
    longest = "a" * MAX_LENGTH
    assert parse_query(longest) == term("name", ":", longest)
    with pytest.raises(QueryError) as caught:
        parse_query("a" * (MAX_LENGTH + 1))
    assert caught.value.message == "The query is longer than 500 characters"
    assert caught.value.position == 500


def test_depth_limit_for_parentheses():
    node = parse_query("(" * MAX_DEPTH + "a" + ")" * MAX_DEPTH)
    assert node == term("name", ":", "a", MAX_DEPTH)
    with pytest.raises(QueryError) as caught:
        parse_query("(" * (MAX_DEPTH + 1) + "a" + ")" * (MAX_DEPTH + 1))
    assert caught.value.message == "The query nests deeper than 20 levels"
    assert caught.value.position == 20


def test_depth_limit_for_negation():
    node = parse_query("-" * MAX_DEPTH + "a")
    for _ in range(MAX_DEPTH):
        assert isinstance(node, Not)
        node = node.item
    assert node == term("name", ":", "a", MAX_DEPTH)
    with pytest.raises(QueryError) as caught:
        parse_query("-" * (MAX_DEPTH + 1) + "a")
    assert caught.value.position == 20


def test_depth_counts_negations_and_groups_together():
    parse_query("-(" * (MAX_DEPTH // 2) + "a" + ")" * (MAX_DEPTH // 2))
    with pytest.raises(QueryError) as caught:
        parse_query("-(" * (MAX_DEPTH // 2) + "-a" + ")" * (MAX_DEPTH // 2))
    assert caught.value.message == "The query nests deeper than 20 levels"
    assert caught.value.position == 20


def test_deep_and_long_queries_stay_within_the_limits():
    # A wide query at the length limit must still parse (no recursion per term).
    query = "(a or b) " * 55
    assert len(query) > MAX_LENGTH - 10
    node = parse_query(query)
    assert isinstance(node, And) and len(node.items) == 55


def test_parsing_needs_no_django_settings():
    env = {key: value for key, value in os.environ.items() if key != "DJANGO_SETTINGS_MODULE"}
    script = (
        "from django.conf import settings\n"
        "from realms.query import parse_query\n"
        "node = parse_query('c:mage (atk>=9 or -rar:common)')\n"
        "assert type(node).__name__ == 'And', node\n"
        "assert not settings.configured\n"
        "print('ok')\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=PROJECT_DIR, env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_query_to_q_rejects_foreign_objects():
    with pytest.raises(TypeError):
        query_to_q("class:mage")  # type: ignore[arg-type]


def test_blank_query_is_no_filter():
    assert character_q("") == Q()
    assert character_q("  \t") == Q()


# --- Database ----------------------------------------------------------------------------


@pytest.fixture
def roster(db) -> dict[str, Character]:
    """Eight characters whose stats sit on both sides of the boundaries tested below."""
    rarities = {
        slug: Rarity.objects.get_or_create(slug=slug, defaults={"name": slug.title(), "order": order})[0]
        for slug, order in (("common", 1), ("uncommon", 2), ("rare", 3), ("legendary", 4))
    }
    sets = {
        code: CardSet.objects.create(code=code, name=name, game="realms", release_date=released)
        for code, name, released in (
            ("core", "Core Set", "2026-01-01"),
            ("ember", "Embers of War", "2026-06-01"),
        )
    }
    factions = {
        slug: Faction.objects.create(slug=slug, name=name, icon="*", identity=name, description=name)
        for slug, name in (("arcane", "Arcane"), ("iron-kingdom", "Iron Kingdom"), ("tribal", "Tribal"))
    }
    races = {
        slug: Race.objects.create(slug=slug, name=slug.title()) for slug in ("human", "elf", "orc")
    }
    rows = [
        # name, "class faction race position rarity set", "atk def spd hp cd", main ability name
        ("Merlin, Archmage", "mage arcane elf rearguard legendary core", "10 3 7 18 3", "Arcane Nova"),
        ("Rune Scholar", "mage arcane human rearguard common core", "9 2 5 14 2", "Rune Bolt"),
        ("Ember Witch", "mage arcane human rearguard rare ember", "9 3 6 19 2", "Cinder"),
        ("Battle Mage", "mage arcane human rearguard rare ember", "12 4 4 22 3", "Spell Blade"),
        ("Apprentice", "mage arcane elf rearguard uncommon core", "8 2 8 12 1", "Spark"),
        ("Iron Sentinel", "tank iron-kingdom human vanguard rare core", "4 12 2 30 2", "Shield Wall"),
        ("Shadow Blade", "assassin tribal elf flex uncommon ember", "11 2 9 15 1", "Backstab"),
        ("Wolf Rider", "warrior tribal orc vanguard common ember", "7 6 6 20 2", "Maul"),
    ]
    characters = {}
    for name, traits, stats, ability in rows:
        klass, faction, race, position, rarity, card_set = traits.split()
        atk, dfn, spd, hp, cd = (int(stat) for stat in stats.split())
        faction_ability = FACTION_ABILITY
        if name == "Wolf Rider":
            # The ability texts are generated from the specs: Pack Hunt's reads "When an ally is defeated, ...".
            faction_ability = {
                **FACTION_ABILITY, "name": "Pack Hunt", "text": "+2 ATK when an ally falls.", "trigger": "ally_defeated",
                "effects": [{"kind": "buff", "target": "self", "stat": "atk", "amount": 2, "duration": 2}],
            }
        characters[name] = Character.objects.create(
            name=name,
            slug=name.lower().replace(",", "").replace(" ", "-"),
            card_set=sets[card_set],
            rarity=rarities[rarity],
            race=races[race],
            character_class=klass,
            faction=factions[faction],
            position=position,
            attack=atk,
            defense=dfn,
            speed=spd,
            health=hp,
            cooldown=cd,
            main_ability={**MAIN_ABILITY, "name": ability},
            faction_ability=faction_ability,
        )
    return characters


def found(query: str) -> list[str]:
    return sorted(Character.objects.filter(character_q(query)).values_list("name", flat=True))


EVERYONE = [
    "Apprentice",
    "Battle Mage",
    "Ember Witch",
    "Iron Sentinel",
    "Merlin, Archmage",
    "Rune Scholar",
    "Shadow Blade",
    "Wolf Rider",
]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "expected"),
    [
        # The documented example: Ember Witch fails only the (spd>6 or hp>=20) group,
        # Rune Scholar only the rarity, Apprentice only the attack.
        (
            "class:mage faction:arcane atk>=9 -rarity:common (spd>6 or hp>=20)",
            ["Battle Mage", "Merlin, Archmage"],
        ),
        ("atk:9", ["Ember Witch", "Rune Scholar"]),
        ("atk=9", ["Ember Witch", "Rune Scholar"]),
        (
            "atk!=9",
            ["Apprentice", "Battle Mage", "Iron Sentinel", "Merlin, Archmage", "Shadow Blade", "Wolf Rider"],
        ),
        ("atk>9", ["Battle Mage", "Merlin, Archmage", "Shadow Blade"]),
        ("atk>=9", ["Battle Mage", "Ember Witch", "Merlin, Archmage", "Rune Scholar", "Shadow Blade"]),
        ("atk<8", ["Iron Sentinel", "Wolf Rider"]),
        ("atk<=8", ["Apprentice", "Iron Sentinel", "Wolf Rider"]),
        ("def>=12", ["Iron Sentinel"]),
        ("spd>8", ["Shadow Blade"]),
        ("hp>=20", ["Battle Mage", "Iron Sentinel", "Wolf Rider"]),
        ("cd:3", ["Battle Mage", "Merlin, Archmage"]),
        ("cooldown<2", ["Apprentice", "Shadow Blade"]),
        ("c:tank", ["Iron Sentinel"]),
        ("class!=mage", ["Iron Sentinel", "Shadow Blade", "Wolf Rider"]),
        ("pos:flex", ["Shadow Blade"]),
        ("position=vanguard", ["Iron Sentinel", "Wolf Rider"]),
        ("rarity:rare", ["Battle Mage", "Ember Witch", "Iron Sentinel"]),
        ("rarity=LEGENDARY", ["Merlin, Archmage"]),
        ("rar>=rare", ["Battle Mage", "Ember Witch", "Iron Sentinel", "Merlin, Archmage"]),
        ("rarity>uncommon", ["Battle Mage", "Ember Witch", "Iron Sentinel", "Merlin, Archmage"]),
        ("rarity<uncommon", ["Rune Scholar", "Wolf Rider"]),
        ("rarity<=uncommon", ["Apprentice", "Rune Scholar", "Shadow Blade", "Wolf Rider"]),
        (
            "rarity!=common",
            ["Apprentice", "Battle Mage", "Ember Witch", "Iron Sentinel", "Merlin, Archmage", "Shadow Blade"],
        ),
        ("f:iron-kingdom", ["Iron Sentinel"]),
        ('faction:"iron kingdom"', ["Iron Sentinel"]),
        ("faction:IRON-KINGDOM", ["Iron Sentinel"]),
        ("faction:nowhere", []),
        ("faction!=arcane", ["Iron Sentinel", "Shadow Blade", "Wolf Rider"]),
        ("r:elf", ["Apprentice", "Merlin, Archmage", "Shadow Blade"]),
        ("race:Orc", ["Wolf Rider"]),
        ("race:dwarf", []),
        ("set:ember", ["Battle Mage", "Ember Witch", "Shadow Blade", "Wolf Rider"]),
        ('set:"core set"', ["Apprentice", "Iron Sentinel", "Merlin, Archmage", "Rune Scholar"]),
        ("set:CORE", ["Apprentice", "Iron Sentinel", "Merlin, Archmage", "Rune Scholar"]),
        ("mage", ["Battle Mage", "Merlin, Archmage"]),
        ('"merlin, arch"', ["Merlin, Archmage"]),
        ("n:RUNE", ["Rune Scholar"]),
        ('name:"Merlin, Archmage"', ["Merlin, Archmage"]),
        ("name=battle", []),
        ('name="BATTLE MAGE"', ["Battle Mage"]),
        ('name!="battle mage" c:mage', ["Apprentice", "Ember Witch", "Merlin, Archmage", "Rune Scholar"]),
        ("text:nova", ["Merlin, Archmage"]),
        ('t:"shield wall"', ["Iron Sentinel"]),
        ('-text:"start of the battle"', ["Wolf Rider"]),
        ("t:pack t:hunt", ["Wolf Rider"]),
        ("c:tank or c:mage atk>=10", ["Battle Mage", "Iron Sentinel", "Merlin, Archmage"]),
        ("(c:tank or c:mage) atk>=10", ["Battle Mage", "Merlin, Archmage"]),
        ("-(c:mage or c:tank)", ["Shadow Blade", "Wolf Rider"]),
        ("--c:tank", ["Iron Sentinel"]),
        ("-c:mage -set:ember", ["Iron Sentinel"]),
        ("c:tank OR pos:flex or r:orc", ["Iron Sentinel", "Shadow Blade", "Wolf Rider"]),
        ("  ", EVERYONE),
    ],
)
def test_queries_find_the_right_characters(roster, query, expected):
    assert found(query) == expected


@pytest.mark.django_db
def test_limits_run_against_the_database(roster):
    assert found("hp>1 " * 100) == EVERYONE  # exactly 500 characters
    assert found("-f:x " * 100) == EVERYONE
    assert found("(" * MAX_DEPTH + "c:tank" + ")" * MAX_DEPTH) == ["Iron Sentinel"]
    assert found("-" * MAX_DEPTH + "c:tank") == ["Iron Sentinel"]
    assert found("-" * (MAX_DEPTH - 1) + "c:tank") == [name for name in EVERYONE if name != "Iron Sentinel"]
    assert found(" or ".join(["f:arcane"] * 40)) == [
        "Apprentice", "Battle Mage", "Ember Witch", "Merlin, Archmage", "Rune Scholar",
    ]


@pytest.mark.django_db
def test_rules_text_holds_both_abilities(roster):
    # The `text` key relies on rules_text carrying the ability names and texts.
    text = roster["Wolf Rider"].rules_text
    assert "Pack Hunt" in text and "Maul" in text
