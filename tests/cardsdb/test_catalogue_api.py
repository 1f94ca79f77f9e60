"""The shared catalogue API: listing, filters, pagination, permissions and errors."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.conftest import assert_error_shape
from tests.factories import make_card, make_card_set, make_rarity

pytestmark = pytest.mark.django_db


def test_official_rarities_are_listed_in_order(catalogue, anon_client):
    response = anon_client.get("/api/rarities/")
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"count", "next", "previous", "warnings", "results"}
    assert [r["slug"] for r in body["results"]] == ["common", "uncommon", "rare", "legendary"]
    assert [r["order"] for r in body["results"]] == [1, 2, 3, 4]


def test_the_eight_factions_of_the_rulebook(catalogue, anon_client):
    body = anon_client.get("/api/factions/").json()
    assert body["count"] == 8
    by_slug = {f["slug"]: f for f in body["results"]}
    assert set(by_slug) == {
        "iron-kingdom", "arcane", "tribal", "demonic", "celestial", "undead", "abyssal", "shadow",
    }
    assert by_slug["arcane"]["identity"] == "Magic, knowledge, and runes"
    assert by_slug["shadow"]["icon"] == "🌑"
    assert all(f["description"] for f in by_slug.values())


def test_sets_detail_by_code(catalogue, anon_client):
    response = anon_client.get("/api/sets/er-core/")
    assert response.status_code == 200
    assert response.json()["game"] == "realms"


def test_cards_filter_by_game_rarity_set_and_search(db, anon_client):
    core = make_card_set(code="core")
    other = make_card_set(code="promo", game="legends")
    common, rare = make_rarity("common"), make_rarity("rare")
    make_card("Iron Guardian", card_set=core, rarity=common, rules_text="Holds the line.")
    make_card("Ember Shaman", card_set=core, rarity=rare)
    make_card("Tide Caller", game="legends", card_set=other)

    def names(query: str) -> list[str]:
        response = anon_client.get(f"/api/cards/?{query}")
        assert response.status_code == 200, response.content
        return sorted(c["name"] for c in response.json()["results"])

    assert names("game=legends") == ["Tide Caller"]
    assert names("rarity=rare") == ["Ember Shaman"]
    assert names("set=core") == ["Ember Shaman", "Iron Guardian"]
    assert names("search=line") == ["Iron Guardian"]
    assert names("name=tide") == ["Tide Caller"]
    assert names(f"set_id={other.pk}") == ["Tide Caller"]
    assert names(f"rarity_id={common.pk}") == ["Iron Guardian"]
    assert names("has_image=true") == []
    assert len(names("has_image=false")) == 3
    ordered = anon_client.get("/api/cards/?ordering=-name").json()["results"]
    assert [c["name"] for c in ordered] == ["Tide Caller", "Iron Guardian", "Ember Shaman"]


def test_card_detail_shape(db, anon_client):
    card = make_card("Iron Guardian", rarity=make_rarity("common"))
    body = anon_client.get(f"/api/cards/{card.slug}/").json()
    assert body["name"] == "Iron Guardian"
    assert body["rarity"] == "common"
    assert body["set"] == card.card_set.code
    assert body["image"] is None


def test_invalid_filter_value_is_a_clear_400(db, anon_client):
    body = assert_error_shape(anon_client.get("/api/cards/?game=chess"), 400, "invalid")
    assert "game" in body["fields"]


@pytest.mark.parametrize(
    "query, field",
    [("page_size=201", "page_size"), ("page_size=0", "page_size"), ("page_size=ten", "page_size")],
)
def test_page_size_out_of_bounds_is_400(db, anon_client, query, field):
    body = assert_error_shape(anon_client.get(f"/api/cards/?{query}"), 400, "invalid")
    assert field in body["fields"]


def test_pagination_bounds(db, anon_client):
    card_set = make_card_set()
    for i in range(5):
        make_card(f"Card {i}", card_set=card_set)
    first = anon_client.get("/api/cards/?page_size=2").json()
    assert first["count"] == 5 and len(first["results"]) == 2
    assert first["previous"] is None and "page=2" in first["next"]
    last = anon_client.get("/api/cards/?page_size=2&page=3").json()
    assert len(last["results"]) == 1 and last["next"] is None
    assert anon_client.get("/api/cards/?page_size=200").status_code == 200
    assert_error_shape(anon_client.get("/api/cards/?page_size=2&page=4"), 404, "not_found")
    assert assert_error_shape(anon_client.get("/api/cards/?page=abc"), 400, "invalid")["fields"] == {
        "page": ["A page number from 1 is required."]}


def test_card_list_runs_a_constant_number_of_queries(db, anon_client):
    card_set = make_card_set()
    rarity = make_rarity("rare")
    for i in range(30):
        make_card(f"Card {i}", card_set=card_set, rarity=rarity)

    def count_queries(page_size: int) -> int:
        with CaptureQueriesContext(connection) as ctx:
            response = anon_client.get(f"/api/cards/?page_size={page_size}")
        assert len(response.json()["results"]) == page_size
        return len(ctx.captured_queries)

    assert count_queries(3) == count_queries(30)


def test_set_list_runs_a_constant_number_of_queries(catalogue, anon_client):
    with CaptureQueriesContext(connection) as small:
        anon_client.get("/api/sets/?page_size=1")
    with CaptureQueriesContext(connection) as large:
        anon_client.get("/api/sets/?page_size=100")
    assert len(small.captured_queries) == len(large.captured_queries)


class TestCatalogueWritePermissions:
    payload = {"slug": "mythic", "name": "Mythic", "order": 5, "color": "#ff00ff"}

    def test_anonymous_cannot_write(self, catalogue, anon_client):
        assert_error_shape(anon_client.post("/api/rarities/", self.payload), 401, "not_authenticated")

    def test_user_cannot_write(self, catalogue, user_client):
        assert_error_shape(user_client.post("/api/rarities/", self.payload), 403, "permission_denied")

    def test_staff_can_write(self, catalogue, staff_client, anon_client):
        response = staff_client.post("/api/rarities/", self.payload)
        assert response.status_code == 201, response.content
        assert anon_client.get("/api/rarities/mythic/").json()["name"] == "Mythic"
        response = staff_client.patch("/api/factions/arcane/", {"identity": "Runes above all"})
        assert response.status_code == 200
        assert anon_client.get("/api/factions/arcane/").json()["identity"] == "Runes above all"

    def test_staff_write_is_validated_by_the_model(self, catalogue, staff_client):
        bad = dict(self.payload, color="purple")
        body = assert_error_shape(staff_client.post("/api/rarities/", bad), 400, "invalid")
        assert "color" in body["fields"]

    def test_duplicate_slug_is_a_field_error(self, catalogue, staff_client):
        bad = dict(self.payload, slug="common")
        body = assert_error_shape(staff_client.post("/api/rarities/", bad), 400, "invalid")
        assert "slug" in body["fields"]

    def test_cards_are_read_only_even_for_staff(self, db, staff_client):
        card = make_card()
        assert_error_shape(staff_client.delete(f"/api/cards/{card.slug}/"), 405, "method_not_allowed")

    def test_deleting_a_rarity_in_use_is_refused(self, db, staff_client):
        card = make_card(rarity=make_rarity("rare"))
        assert_error_shape(staff_client.delete("/api/rarities/rare/"), 409, "protected")
        assert card.rarity.__class__.objects.filter(slug="rare").exists()


def test_malformed_json_is_400(catalogue, staff_client):
    response = staff_client.generic(
        "POST", "/api/rarities/", '{"slug": "x", ', content_type="application/json"
    )
    assert_error_shape(response, 400, "parse_error")


def test_wrong_types_are_field_errors(catalogue, staff_client):
    response = staff_client.post("/api/rarities/", {"slug": "x y", "name": ["a"], "order": "first"})
    body = assert_error_shape(response, 400, "invalid")
    assert {"slug", "name", "order"} <= set(body["fields"])


def test_unknown_card_is_404_in_the_error_shape(db, anon_client):
    assert_error_shape(anon_client.get("/api/cards/no-such-card/"), 404, "not_found")


def test_unrouted_url_is_404_in_the_error_shape(db, anon_client):
    assert_error_shape(anon_client.get("/api/no-such-thing/"), 404, "not_found")


def test_token_is_obtained_with_username_and_password(user, anon_client):
    response = anon_client.post("/api/auth/token/", {"username": "alice", "password": "alice-password-1"})
    assert response.status_code == 200
    token = response.json()["token"]
    anon_client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert anon_client.get("/api/collections/").status_code == 200


def test_wrong_password_gives_no_token(user, anon_client):
    response = anon_client.post("/api/auth/token/", {"username": "alice", "password": "nope"})
    assert_error_shape(response, 400, "invalid")


def test_session_login_works_for_the_api(user, client):
    client.login(username="alice", password="alice-password-1")
    assert client.get("/api/collections/").status_code == 200


def test_schema_and_docs_are_served(db, anon_client):
    schema = anon_client.get("/api/schema/?format=json")
    assert schema.status_code == 200
    paths = schema.json()["paths"]
    assert "/api/cards/" in paths and "/api/collections/{id}/add/" in paths
    assert anon_client.get("/api/docs/").status_code == 200
    assert anon_client.get("/api/").status_code == 200


def test_openapi_schema_generates_without_warnings():
    from django.core.management import call_command

    # --fail-on-warn turns any ambiguity in the schema (unnamed enums, untyped fields) into an error.
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", "/dev/null")
