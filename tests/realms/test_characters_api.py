"""The Echo Realms character catalogue: fields, staff writes with R3 and spec validation, filters."""

import pytest

from realms.models import Character
from tests.conftest import assert_error_shape
from tests.factories import DRILL, STRIKE, make_character, make_faction, make_race

pytestmark = pytest.mark.django_db

URL = "/api/realms/characters/"


def names(client, query: str) -> list[str]:
    response = client.get(f"{URL}?{query}")
    assert response.status_code == 200, response.content
    return sorted(c["name"] for c in response.json()["results"])


def test_character_json_uses_the_published_field_names(anon_client):
    card = make_character("Merlin, Archmage of Runes", position="rearguard", rarity="legendary", attack=11)
    body = anon_client.get(f"{URL}{card.slug}/").json()
    for key in ("slug", "name", "race", "class", "faction", "rarity", "position", "atk", "def", "spd", "hp",
                "cooldown", "faction_ability", "main_ability", "image"):
        assert key in body, key
    assert (body["class"], body["atk"], body["rarity"], body["faction"]) == ("mage", 11, "legendary", "arcane")
    assert body["card_face"].endswith(f"/api/realms/characters/{card.slug}/card.png")
    assert "Strike" in body["rules_text"] and "Drill" in body["rules_text"]


def new_character_payload(**overrides) -> dict:
    make_race("elf")
    make_faction("shadow")
    from tests.factories import _realms_test_set, make_rarity

    make_rarity("rare")
    _realms_test_set()
    payload = {
        "slug": "night-blade", "name": "Night Blade", "race": "elf", "class": "assassin", "faction": "shadow",
        "rarity": "rare", "set": "er-test", "position": "flex", "atk": 10, "def": 2, "spd": 9, "hp": 15,
        "cooldown": 2, "main_ability": STRIKE, "faction_ability": DRILL, "flavor_text": "Unseen.",
    }
    payload.update(overrides)
    return payload


def test_staff_creates_a_character(staff_client, anon_client):
    response = staff_client.post(URL, new_character_payload(), format="json")
    assert response.status_code == 201, response.content
    body = anon_client.get(f"{URL}night-blade/").json()
    assert (body["class"], body["position"], body["spd"]) == ("assassin", "flex", 9)
    assert anon_client.get("/api/cards/night-blade/").json()["game"] == "realms"


def test_rule_r3_class_and_position_is_a_field_error(staff_client):
    response = staff_client.post(URL, new_character_payload(position="vanguard"), format="json")
    body = assert_error_shape(response, 400, "invalid")
    assert "R3" in body["fields"]["position"][0]
    assert not Character.objects.filter(slug="night-blade").exists()


@pytest.mark.parametrize("klass, position, ok", [
    ("tank", "vanguard", True), ("tank", "rearguard", False), ("mage", "rearguard", True),
    ("mage", "vanguard", False), ("archer", "flex", False), ("warrior", "rearguard", True),
    ("support", "vanguard", True), ("support", "flex", False), ("assassin", "rearguard", False),
])
def test_r3_table(staff_client, klass, position, ok):
    response = staff_client.post(URL, new_character_payload(**{"class": klass, "position": position}), format="json")
    assert (response.status_code == 201) is ok, response.content


def test_invalid_ability_spec_lists_every_error_with_its_path(staff_client):
    bad = {"name": "Oops", "text": "x", "choose": "enemy",
           "effects": [{"kind": "buff", "target": "self", "stat": "hp", "amount": 0, "duration": 9}]}
    response = staff_client.post(URL, new_character_payload(main_ability=bad), format="json")
    errors = assert_error_shape(response, 400, "invalid")["fields"]["main_ability"]
    assert any(e.startswith("main_ability.effects[0].stat:") for e in errors)
    assert any(e.startswith("main_ability.effects[0].amount:") for e in errors)
    assert any(e.startswith("main_ability.effects[0].duration:") for e in errors)


def test_stats_out_of_range_and_wrong_types(staff_client):
    response = staff_client.post(URL, new_character_payload(atk=99, hp=0, cooldown=4, spd="fast"), format="json")
    fields = assert_error_shape(response, 400, "invalid")["fields"]
    assert {"atk", "hp", "cooldown", "spd"} <= set(fields)


def test_unknown_related_slugs_are_field_errors(staff_client):
    response = staff_client.post(URL, new_character_payload(race="martian", faction="nowhere"), format="json")
    assert {"race", "faction"} <= set(assert_error_shape(response, 400, "invalid")["fields"])


def test_writes_need_staff(user_client, anon_client):
    assert_error_shape(user_client.post(URL, new_character_payload(), format="json"), 403)
    assert_error_shape(anon_client.post(URL, new_character_payload(), format="json"), 401)
    card = make_character()
    assert_error_shape(user_client.patch(f"{URL}{card.slug}/", {"atk": 1}, format="json"), 403)


def test_staff_update_is_validated_too(staff_client):
    card = make_character(position="vanguard")
    response = staff_client.patch(f"{URL}{card.slug}/", {"position": "rearguard"}, format="json")
    assert "position" in assert_error_shape(response, 400, "invalid")["fields"]
    ok = staff_client.patch(f"{URL}{card.slug}/", {"atk": 12}, format="json")
    assert ok.status_code == 200 and ok.json()["atk"] == 12


class TestFilters:
    @pytest.fixture(autouse=True)
    def cards(self, db):
        make_character("Stone Wall", position="vanguard", rarity="common", attack=4, defense=9, speed=2,
                       health=35, cooldown=3, faction=make_faction("iron-kingdom"), race=make_race("dwarf"))
        make_character("Rune Mage", position="rearguard", rarity="rare", attack=11, defense=2, speed=7,
                       health=14, cooldown=2, faction=make_faction("arcane"), race=make_race("elf"))
        make_character("Quick Knife", position="flex", rarity="legendary", attack=10, defense=2, speed=10,
                       health=15, cooldown=1, faction=make_faction("shadow"), race=make_race("goblin"))

    def test_choice_and_slug_filters(self, anon_client):
        assert names(anon_client, "faction=arcane") == ["Rune Mage"]
        assert names(anon_client, "class=assassin") == ["Quick Knife"]
        assert names(anon_client, "race=dwarf") == ["Stone Wall"]
        assert names(anon_client, "rarity=legendary") == ["Quick Knife"]
        assert names(anon_client, "position=flex") == ["Quick Knife"]
        assert names(anon_client, "set=er-test") == ["Quick Knife", "Rune Mage", "Stone Wall"]
        assert names(anon_client, "name=knife") == ["Quick Knife"]
        assert names(anon_client, "has_image=true") == []
        from cardsdb.models import Faction, Rarity
        from realms.models import Race

        assert names(anon_client, f"faction_id={Faction.objects.get(slug='shadow').pk}") == ["Quick Knife"]
        assert names(anon_client, f"race_id={Race.objects.get(slug='elf').pk}") == ["Rune Mage"]
        assert names(anon_client, f"rarity_id={Rarity.objects.get(slug='common').pk}") == ["Stone Wall"]

    @pytest.mark.parametrize("stat, low, high, expected", [
        ("atk", 10, 11, ["Quick Knife", "Rune Mage"]),
        ("def", 3, 30, ["Stone Wall"]),
        ("spd", 7, 9, ["Rune Mage"]),
        ("hp", 15, 40, ["Quick Knife", "Stone Wall"]),
        ("cooldown", 1, 2, ["Quick Knife", "Rune Mage"]),
    ])
    def test_stat_ranges(self, anon_client, stat, low, high, expected):
        assert names(anon_client, f"{stat}__gte={low}&{stat}__lte={high}") == expected

    def test_exact_stats(self, anon_client):
        assert names(anon_client, "atk=4") == ["Stone Wall"]
        assert names(anon_client, "spd=10") == ["Quick Knife"]

    def test_search_covers_name_and_ability_text(self, anon_client):
        assert names(anon_client, "search=rune") == ["Rune Mage"]
        assert len(names(anon_client, "search=strike")) == 3

    @pytest.mark.parametrize("ordering, expected", [
        ("atk", ["Stone Wall", "Quick Knife", "Rune Mage"]),
        ("-spd", ["Quick Knife", "Rune Mage", "Stone Wall"]),
        ("-hp", ["Stone Wall", "Quick Knife", "Rune Mage"]),
        ("def,name", ["Quick Knife", "Rune Mage", "Stone Wall"]),
        ("-rarity", ["Quick Knife", "Rune Mage", "Stone Wall"]),
        ("cooldown", ["Quick Knife", "Rune Mage", "Stone Wall"]),
    ])
    def test_ordering_by_stats(self, anon_client, ordering, expected):
        response = anon_client.get(f"{URL}?ordering={ordering}")
        assert [c["name"] for c in response.json()["results"]] == expected

    def test_query_language(self, anon_client):
        assert names(anon_client, "q=class:mage atk>=9") == ["Rune Mage"]
        assert names(anon_client, "q=-rarity:common (spd>9 or hp>=30)") == ["Quick Knife"]

    def test_bad_query_is_400_with_its_position(self, anon_client):
        body = assert_error_shape(anon_client.get(f"{URL}?q=class:mage atk>=x"), 400, "invalid")
        assert "q" in body["fields"] and body["position"] == 16

    def test_ignored_terms_are_warnings_in_a_200(self, anon_client):
        response = anon_client.get(f"{URL}?q=class:mage colour:red")
        assert response.status_code == 200, response.content
        assert [c["name"] for c in response.json()["results"]] == ["Rune Mage"]
        assert response.json()["warnings"] == [{"message": "Unknown key 'colour'", "parameter": "q", "position": 11}]
        assert anon_client.get(URL).json()["warnings"] == []

    @pytest.mark.parametrize("query", ["class=wizard", "position=middle", "atk__gte=strong", "ordering=luck"])
    def test_bad_filter_values(self, anon_client, query):
        response = anon_client.get(f"{URL}?{query}")
        assert_error_shape(response, 400, "invalid")


def test_character_list_runs_a_constant_number_of_queries(anon_client):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    for i in range(12):
        make_character(f"Unit {i}")

    def count(page_size: int) -> int:
        with CaptureQueriesContext(connection) as ctx:
            assert len(anon_client.get(f"{URL}?page_size={page_size}").json()["results"]) == page_size
        return len(ctx.captured_queries)

    assert count(2) == count(12)


class TestCardFace:
    def test_card_png_is_served_and_cached_until_the_card_changes(self, anon_client, staff_client):
        import io

        from PIL import Image

        card = make_character("Face Test")
        url = f"{URL}{card.slug}/card.png"
        first = anon_client.get(url)
        assert first.status_code == 200 and first["Content-Type"] == "image/png"
        with Image.open(io.BytesIO(first.content)) as image:
            assert image.size == (500, 700)
        etag = first["ETag"]
        assert anon_client.get(url, HTTP_IF_NONE_MATCH=etag).status_code == 304
        staff_client.patch(f"{URL}{card.slug}/", {"atk": 13}, format="json")
        changed = anon_client.get(url, HTTP_IF_NONE_MATCH=etag)
        assert changed.status_code == 200 and changed["ETag"] != etag
        assert changed.content != first.content

    def test_png_accept_header_is_honoured(self, anon_client):
        card = make_character()
        response = anon_client.get(f"{URL}{card.slug}/card.png", HTTP_ACCEPT="image/png")
        assert response.status_code == 200 and response.content[:8] == b"\x89PNG\r\n\x1a\n"

    def test_unknown_card_face_is_404_in_the_error_shape(self, anon_client):
        assert_error_shape(anon_client.get(f"{URL}nobody/card.png"), 404, "not_found")
