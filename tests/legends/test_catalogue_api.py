"""The Akin Legends catalogue API: shapes, writes (staff only, model-validated), bad input, query counts."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from legends.models import DefenseCard, Protector, SummoningCard
from tests.conftest import assert_error_shape
from tests.legends.factories import (
    element,
    elements,
    legends_set,
    make_defense,
    make_protector,
    make_spirit,
    make_summoning,
)

pytestmark = pytest.mark.django_db

API = "/api/legends"


def test_elements_are_listed_in_order(catalogue, anon_client):
    body = anon_client.get(f"{API}/elements/").json()
    assert set(body) == {"count", "next", "previous", "warnings", "results"}
    assert [e["slug"] for e in body["results"]] == ["fire", "water", "earth", "air"]
    assert body["results"][0] == {"id": 1, "slug": "fire", "name": "Fire", "color": "#e53935", "icon": "🔥", "order": 1}


def test_summoning_card_detail_shape(catalogue, anon_client):
    body = anon_client.get(f"{API}/summoning-cards/ember-ward-of-steam/").json()
    assert body["attacks"] == ["fire", "water"]
    assert body["effect"] == {"kind": "defense", "element": "fire"}
    assert body["copies"] == 1 and body["game"] == "legends" and body["set"] == "al-eotp"
    assert body["card_face"] == "http://testserver/api/legends/summoning-cards/ember-ward-of-steam/card.png"
    assert body["rules_text"].startswith("Attack: Fire or Water.")
    assert "rarity" not in body


def test_defense_and_protector_detail_shapes(catalogue, anon_client):
    defense = anon_client.get(f"{API}/defenses/steam-wall/").json()
    assert defense["elements"] == ["fire", "water"]
    assert defense["card_face"].endswith("/api/legends/defenses/steam-wall/card.png")
    spy = anon_client.get(f"{API}/protectors/spy/").json()
    assert spy["duel_legal"] is False
    assert spy["effect"] == {"kind": "reveal_facedown", "when": "before_second_turns"}
    assert "face-down" in spy["rules_text"]
    spirit = anon_client.get(f"{API}/spirits/akin/").json()
    assert spirit["color"] == "#ef6c00" and spirit["name"] == "Akin"


def test_legends_cards_appear_in_the_unified_catalogue(catalogue, anon_client):
    body = anon_client.get("/api/cards/?game=legends&page_size=200").json()
    assert body["count"] == 83
    assert anon_client.get("/api/cards/spy/").json()["game"] == "legends"


def test_unknown_slug_is_404(catalogue, anon_client):
    for resource in ("elements", "spirits", "protectors", "defenses", "summoning-cards"):
        assert_error_shape(anon_client.get(f"{API}/{resource}/no-such-thing/"), 404, "not_found")


def test_search_and_ordering(catalogue, anon_client):
    found = anon_client.get(f"{API}/protectors/?search=face-down").json()["results"]
    assert [p["slug"] for p in found] == ["spy"]
    found = anon_client.get(f"{API}/summoning-cards/?search=blaze&ordering=-name").json()["results"]
    assert [c["name"] for c in found] == ["Wind Surge of Blaze", "Tidal Ward of Blaze", "Stone Mending of Blaze"]
    ordered = anon_client.get(f"{API}/elements/?ordering=-order").json()["results"]
    assert [e["slug"] for e in ordered] == ["air", "earth", "water", "fire"]
    by_copies = anon_client.get(f"{API}/summoning-cards/?ordering=-copies,name&page_size=1").json()["results"]
    assert by_copies[0]["copies"] == 2
    by_element = anon_client.get(f"{API}/defenses/?ordering=-element_1__order,name&page_size=2").json()["results"]
    assert [d["elements"][0] for d in by_element] == ["air", "air"]


def test_unknown_ordering_field_is_ignored_not_an_error(catalogue, anon_client):
    assert anon_client.get(f"{API}/defenses/?ordering=password").status_code == 200


@pytest.mark.parametrize(
    "resource, make",
    [
        ("spirits", lambda i: make_spirit(f"Spirit {i}")),
        ("protectors", lambda i: make_protector(f"Protector {i}")),
        ("defenses", lambda i: make_defense(f"Defense {i}", "fire", "water")),
        ("summoning-cards", lambda i: make_summoning(
            f"Summon {i}", attacks=(["fire", "water", "earth", "air"][i % 4], "air"),
            effect=(["defense", "healing", "boost"][i % 3], ["fire", "water", "earth", "air"][i // 12]),
        )),
        ("elements", lambda i: element(f"element-{i}", order=100 + i)),
    ],
)
def test_lists_run_a_constant_number_of_queries(db, anon_client, resource, make):
    elements()
    for i in range(30):
        make(i)

    def count_queries(page_size: int) -> int:
        with CaptureQueriesContext(connection) as ctx:
            response = anon_client.get(f"{API}/{resource}/?page_size={page_size}")
        assert response.status_code == 200
        assert len(response.json()["results"]) == page_size
        return len(ctx.captured_queries)

    assert count_queries(3) == count_queries(30)


class TestWritePermissions:
    def test_anonymous_and_users_cannot_write(self, catalogue, anon_client, user_client):
        payload = {"slug": "metal", "name": "Metal", "color": "#9e9e9e", "icon": "⚙️", "order": 5}
        assert_error_shape(anon_client.post(f"{API}/elements/", payload), 401, "not_authenticated")
        assert_error_shape(user_client.post(f"{API}/elements/", payload), 403, "permission_denied")
        assert_error_shape(user_client.patch(f"{API}/protectors/spy/", {"duel_legal": True}), 403)
        assert_error_shape(user_client.delete(f"{API}/defenses/steam-wall/"), 403)
        assert_error_shape(anon_client.delete(f"{API}/summoning-cards/ember-ward-of-steam/"), 401)
        assert DefenseCard.objects.filter(slug="steam-wall").exists()

    def test_staff_creates_every_kind(self, catalogue, staff_client, anon_client):
        created = staff_client.post(
            f"{API}/elements/", {"slug": "metal", "name": "Metal", "color": "#9e9e9e", "icon": "⚙️", "order": 5}
        )
        assert created.status_code == 201, created.content
        spirit = staff_client.post(f"{API}/spirits/", {"slug": "ruan", "name": "Ruan", "set": "al-eotp",
                                                        "color": "#00897b"})
        assert spirit.status_code == 201, spirit.content
        assert spirit.json()["game"] == "legends"
        protector = staff_client.post(f"{API}/protectors/", {
            "slug": "smith", "name": "Smith", "set": "al-eotp", "duel_legal": True,
            "effect": {"kind": "boost_first_attack", "when": "showdown_boosts", "amount": 1, "element": "metal"},
        })
        assert protector.status_code == 201, protector.content
        assert protector.json()["rules_text"] == (
            "In each showdown, the team's first Metal attack (in turn order) gets +1 strength."
        )
        defense = staff_client.post(f"{API}/defenses/", {
            "slug": "iron-wall", "name": "Iron Wall", "set": "al-eotp", "elements": ["metal", "fire"],
        })
        assert defense.status_code == 201, defense.content
        assert defense.json()["elements"] == ["metal", "fire"]
        card = staff_client.post(f"{API}/summoning-cards/", {
            "slug": "forge", "name": "Forge", "set": "al-eotp", "attacks": ["metal", "metal"],
            "effect": {"kind": "healing", "element": "metal"}, "copies": 3,
        })
        assert card.status_code == 201, card.content
        shown = anon_client.get(f"{API}/summoning-cards/forge/").json()
        assert shown["attacks"] == ["metal", "metal"] and shown["effect"] == {"kind": "healing", "element": "metal"}
        assert shown["copies"] == 3

    def test_staff_updates_and_deletes(self, catalogue, staff_client):
        response = staff_client.patch(f"{API}/defenses/steam-wall/", {"elements": ["earth", "air"]})
        assert response.status_code == 200, response.content
        wall = DefenseCard.objects.get(slug="steam-wall")
        assert (wall.element_1.slug, wall.element_2.slug) == ("earth", "air")
        assert wall.rules_text == "Destroyed when markers of both Earth and Air lie on it."
        response = staff_client.patch(f"{API}/summoning-cards/ember-ward-of-steam/",
                                      {"effect": {"kind": "boost", "element": "air"}})
        assert response.status_code == 200, response.content
        assert SummoningCard.objects.get(slug="ember-ward-of-steam").effect_kind == "boost"
        assert staff_client.patch(f"{API}/summoning-cards/ember-ward-of-steam/", {"copies": 4}).status_code == 200
        assert staff_client.delete(f"{API}/protectors/wanderer/").status_code == 204
        assert not Protector.objects.filter(slug="wanderer").exists()

    def test_deleting_an_element_in_use_is_a_conflict(self, catalogue, staff_client):
        assert_error_shape(staff_client.delete(f"{API}/elements/fire/"), 409, "protected")
        staff_client.post(f"{API}/elements/", {"slug": "void", "name": "Void", "color": "#000000", "icon": "o",
                                               "order": 9})
        assert staff_client.delete(f"{API}/elements/void/").status_code == 204


class TestStaffWritesAreValidated:
    """The API refuses exactly what the admin refuses (Model.clean through full_clean)."""

    def post(self, client, resource, **fields):
        return client.post(f"{API}/{resource}/", {"slug": "new-card", "name": "New card", "set": "al-eotp", **fields})

    def test_defense_with_one_element_twice(self, catalogue, staff_client):
        body = assert_error_shape(self.post(staff_client, "defenses", elements=["fire", "fire"]), 400, "invalid")
        assert body["fields"] == {"elements": ["A defense requires two different elements (L2)."]}

    @pytest.mark.parametrize(
        "value, message",
        [
            (["fire"], 'Give exactly two element slugs, e.g. ["fire", "water"].'),
            ("fire,water", 'Give exactly two element slugs, e.g. ["fire", "water"].'),
            (["fire", 3], 'Give exactly two element slugs, e.g. ["fire", "water"].'),
            (["fire", "plasma"], "Unknown element 'plasma'."),
        ],
    )
    def test_bad_element_pairs(self, catalogue, staff_client, value, message):
        body = assert_error_shape(self.post(staff_client, "defenses", elements=value), 400, "invalid")
        assert body["fields"] == {"elements": [message]}

    def test_missing_pair_is_required(self, catalogue, staff_client):
        body = assert_error_shape(self.post(staff_client, "defenses"), 400, "invalid")
        assert body["fields"]["elements"] == ["This field is required."]

    @pytest.mark.parametrize(
        "effect, message",
        [
            ({"kind": "attack", "element": "fire"}, "`kind` must be one of defense, healing, boost."),
            ({"kind": "boost", "element": "plasma"}, "Unknown element 'plasma'."),
            ({"kind": "boost", "element": ["fire"]}, "Unknown element ['fire']."),
            ({"kind": "boost"}, 'Give an object {"kind": ..., "element": ...}.'),
            ("boost", 'Give an object {"kind": ..., "element": ...}.'),
        ],
    )
    def test_bad_summoning_effects(self, catalogue, staff_client, effect, message):
        response = self.post(staff_client, "summoning-cards", attacks=["fire", "air"], effect=effect)
        body = assert_error_shape(response, 400, "invalid")
        assert body["fields"] == {"effect": [message]}

    def test_duplicate_summoning_design(self, catalogue, staff_client):
        response = self.post(staff_client, "summoning-cards", attacks=["water", "fire"],
                             effect={"kind": "defense", "element": "fire"})
        body = assert_error_shape(response, 400, "invalid")
        assert "'ember-ward-of-steam' already has these attacks" in body["fields"]["non_field_errors"][0]

    def test_copies_bounds(self, catalogue, staff_client):
        response = self.post(staff_client, "summoning-cards", attacks=["air", "air"],
                             effect={"kind": "defense", "element": "air"}, copies=0)
        assert "copies" in assert_error_shape(response, 400, "invalid")["fields"]

    def test_bad_protector_effect(self, catalogue, staff_client):
        response = self.post(staff_client, "protectors", effect={"kind": "redraw_size", "when": "redraw"})
        body = assert_error_shape(response, 400, "invalid")
        assert body["fields"] == {"effect": ["effect.count: is required"]}

    def test_spy_cannot_become_duel_legal(self, catalogue, staff_client):
        body = assert_error_shape(staff_client.patch(f"{API}/protectors/spy/", {"duel_legal": True}), 400, "invalid")
        assert "L13" in body["fields"]["duel_legal"][0]
        assert Protector.objects.get(slug="spy").duel_legal is False

    def test_set_must_exist_and_be_an_akin_legends_set(self, catalogue, staff_client):
        body = assert_error_shape(staff_client.post(f"{API}/spirits/", {"slug": "x", "name": "X", "set": "er-core"}),
                                  400, "invalid")
        assert body["fields"] == {"set": ["Choose an Akin Legends card set."]}
        body = assert_error_shape(staff_client.post(f"{API}/spirits/", {"slug": "x", "name": "X", "set": "nope"}),
                                  400, "invalid")
        assert "set" in body["fields"]

    def test_slug_must_be_unique_across_all_cards(self, catalogue, staff_client):
        body = assert_error_shape(self.post(staff_client, "spirits", slug="spy"), 400, "invalid")
        assert "slug" in body["fields"]

    def test_read_only_fields_are_ignored(self, catalogue, staff_client):
        response = staff_client.patch(f"{API}/protectors/archivist/", {"rules_text": "Draw ten.", "game": "realms"})
        assert response.status_code == 200
        assert response.json()["rules_text"].startswith("At the end of each round")
        assert response.json()["game"] == "legends"

    def test_malformed_json_is_400(self, catalogue, staff_client):
        response = staff_client.generic("POST", f"{API}/defenses/", '{"elements": [', content_type="application/json")
        assert_error_shape(response, 400, "parse_error")

    def test_a_list_body_is_400(self, catalogue, staff_client):
        body = assert_error_shape(staff_client.post(f"{API}/elements/", [1, 2], format="json"), 400, "invalid")
        assert "non_field_errors" in body["fields"]


def test_element_colour_must_be_hex(db, staff_client):
    body = assert_error_shape(
        staff_client.post(f"{API}/elements/", {"slug": "x", "name": "X", "color": "red", "icon": "x", "order": 1}),
        400, "invalid",
    )
    assert "color" in body["fields"]


def test_the_legends_api_root_lists_every_resource(db, anon_client):
    body = anon_client.get(f"{API}/").json()
    assert {"elements", "spirits", "protectors", "defenses", "summoning-cards", "setups"} <= set(body)
    assert "legends" in anon_client.get("/api/").json()


def test_only_legends_sets_are_used_by_the_factories(db):
    assert legends_set().game == "legends"
