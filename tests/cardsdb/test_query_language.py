"""The search language both games share (cardsdb/query.py): OR of values, phrases, negation and warnings,
checked on the official cards of each game; the expected rows are computed from the rows themselves."""

from urllib.parse import quote

import pytest

from cardsdb.query import QueryError, QueryWarning
from legends.models import SummoningCard
from legends.query import PROTECTORS, SUMMONING_CARDS
from realms.models import Character
from realms.query import CHARACTERS, And, Not, Or, Term, parse_query
from tests.conftest import assert_error_shape

CHARACTERS_URL = "/api/realms/characters/"


def test_or_of_values_is_an_or_of_terms():
    assert parse_query("faction:arcane|shadow") == Or(
        (Term("faction", "=", "arcane", 0), Term("faction", "=", "shadow", 15))
    )
    assert parse_query("f!=arcane|shadow") == And((Term("faction", "!=", "arcane", 0), Term("faction", "!=", "shadow", 10)))
    assert parse_query('-n:"of runes"|merlin') == Not(Or((Term("name", ":", "of runes", 1), Term("name", ":", "merlin", 14))))
    assert parse_query("merlin|jofrey") == Or((Term("name", ":", "merlin", 0), Term("name", ":", "jofrey", 7)))


@pytest.mark.parametrize(
    ("query", "message", "position"),
    [
        ("f:arcane|", "'|' needs a value on both sides", 8),
        ("f:|arcane", "'|' needs a value on both sides", 2),
        ("|a", "'|' needs a value on both sides", 0),
        ("atk:1|x", "'atk' needs a whole number from 0 to 999, got 'x'", 6),
        ('n:"a"|', "'|' needs a value on both sides", 5),
    ],
)
def test_value_list_errors(query, message, position):
    with pytest.raises(QueryError) as caught:
        parse_query(query)
    assert (caught.value.message, caught.value.position) == (message, position)


def test_unknown_keys_and_values_are_warnings_and_the_rest_still_runs():
    parsed = CHARACTERS.parse("class:mage|wizard colour:red (atk>3 or rar:mythic)")
    assert parsed.node == And((Term("class", "=", "mage", 0), Term("atk", ">", 3, 30)))
    assert parsed.warnings == (
        QueryWarning("Unknown class 'wizard'; use one of: tank, warrior, mage, archer, assassin, support", 11),
        QueryWarning("Unknown key 'colour'", 18),
        QueryWarning("Unknown rarity 'mythic'; use one of: common, uncommon, rare, legendary", 43),
    )
    # A negated ignored term is ignored as a whole (not "everything but nothing").
    assert CHARACTERS.parse("-colour:red c:tank").node == Term("class", "=", "tank", 12)


def test_a_query_with_every_term_ignored_is_an_error_naming_the_first():
    with pytest.raises(QueryError) as caught:
        CHARACTERS.parse("colour:red -(class:wizard)")
    assert (caught.value.message, caught.value.position) == ("Unknown key 'colour'", 0)


def test_each_game_declares_its_own_keys():
    assert PROTECTORS.parse("duel:no").node == Term("duel", "=", "no", 0)
    with pytest.raises(QueryError):
        SUMMONING_CARDS.parse("duel:no")
    assert SUMMONING_CARDS.parse("effect:fireball e:fire").warnings[0].message.startswith("Unknown effect 'fireball'")


# --- Echo Realms, on the official cards ----------------------------------------------------------


def names(client, query: str) -> tuple[set[str], list[dict]]:
    response = client.get(f"{CHARACTERS_URL}?q={quote(query)}&page_size=200")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["count"] == len(body["results"])
    return {row["name"] for row in body["results"]}, body["warnings"]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("faction:arcane|shadow", lambda c: c.faction.slug in {"arcane", "shadow"}),
        ("-faction:arcane", lambda c: c.faction.slug != "arcane"),
        ("-faction:arcane|shadow c:mage", lambda c: c.faction.slug not in {"arcane", "shadow"} and c.character_class == "mage"),
        ('name:"of runes"', lambda c: "of runes" in c.name.lower()),
        ('"of runes"', lambda c: "of runes" in c.name.lower()),
        ('-"e" rar:rare|legendary', lambda c: "e" not in c.name.lower() and c.rarity.slug in {"rare", "legendary"}),
        ('t:"battle start" or t:silence', lambda c: "battle start" in c.rules_text.lower() or "silence" in c.rules_text.lower()),
        ("c:tank|support atk>=5", lambda c: c.character_class in {"tank", "support"} and c.attack >= 5),
    ],
)
def test_realms_queries_on_the_official_cards(catalogue, anon_client, query, expected):
    got, warnings = names(anon_client, query)
    want = {c.name for c in Character.objects.select_related("faction", "rarity") if expected(c)}
    assert got == want and 0 < len(want) < Character.objects.count(), query
    assert warnings == []


def test_realms_warnings_in_the_list_answer(catalogue, anon_client):
    got, warnings = names(anon_client, "c:mage|wizard colour:red")
    assert got == set(Character.objects.filter(character_class="mage").values_list("name", flat=True))
    assert warnings == [
        {"message": "Unknown class 'wizard'; use one of: tank, warrior, mage, archer, assassin, support",
         "parameter": "q", "position": 7},
        {"message": "Unknown key 'colour'", "parameter": "q", "position": 14},
    ]


def test_realms_syntax_error_is_a_400_with_its_position(catalogue, anon_client):
    body = assert_error_shape(anon_client.get(f"{CHARACTERS_URL}?q={quote('c:mage (atk>3')}"), 400, "invalid")
    assert body["position"] == 7 and body["fields"]["q"] == ["Unclosed parenthesis at position 7"]
    body = assert_error_shape(anon_client.get(f"{CHARACTERS_URL}?q=colour:red"), 400, "invalid")
    assert body["position"] == 0


# --- Akin Legends ---------------------------------------------------------------------------------


def test_legends_warnings_and_errors(catalogue, anon_client):
    response = anon_client.get(f"/api/legends/summoning-cards/?q={quote('element:fire effect:boost|zap')}&page_size=200")
    assert response.status_code == 200, response.content
    want = {
        c.slug for c in SummoningCard.objects.select_related("attack_1", "attack_2", "effect_element")
        if c.effect_kind == "boost" and "fire" in {c.attack_1.slug, c.attack_2.slug, c.effect_element.slug}
    }
    assert {row["slug"] for row in response.json()["results"]} == want
    assert response.json()["warnings"] == [
        {"message": "Unknown effect 'zap'; use one of: defense, healing, boost", "parameter": "q", "position": 26}
    ]
    body = assert_error_shape(anon_client.get("/api/legends/protectors/?q=element:fire)"), 400, "invalid")
    assert body["position"] == 12
    assert anon_client.get("/api/legends/defenses/").json()["warnings"] == []
