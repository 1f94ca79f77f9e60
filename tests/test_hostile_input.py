"""Hostile input never answers 500: numbers past 64 bits, floats for ids, deep or huge bodies, text no
database stores, lost races on unique names, quantities past their bound, and errors with DEBUG on.

Each answers 4xx in the one error shape (cardsdb.api.errors), naming the field by its dotted path.
Run on SQLite and on PostgreSQL (DATABASE_URL), whose refusals differ.
"""

import base64
import bz2
import io
import json
import zlib
from unittest import mock

import pytest
from django.db import connection
from django.test import override_settings
from django.urls import reverse
from django_filters import NumberFilter
from rest_framework import serializers

from cardsdb.api.parsers import MAX_JSON_DEPTH
from cardsdb.api.serializers import MAX_QUANTITY, RACE_LOST, CollectionSerializer
from cardsdb.filtersets import IntegerFilter
from cardsdb.models import Collection, CollectionEntry, Faction
from realms.api.serializers import RaceSerializer
from realms.engine.army import LEGACY_CODE_VERSION, _write_varint, encode_army
from realms.models import Race
from simulate.models import Batch, Match
from tests.conftest import assert_error_shape
from tests.factories import make_card, make_character

pytestmark = pytest.mark.django_db

HUGE = "99999999999999999999999"  # past 64 bits
POSTGRES = connection.vendor == "postgresql"


def routers():
    from cardsdb.api.urls import router as cardsdb_router
    from legends.api.urls import router as legends_router
    from realms.api.urls import router as realms_router

    return [cardsdb_router, realms_router, legends_router]


def number_filters():
    """(list URL, parameter) for every number filter of every list of the catalogue, collections, armies, setups."""
    found = []
    for router in routers():
        for _prefix, viewset, basename in router.registry:
            filterset = getattr(viewset, "filterset_class", None)
            if filterset is None:
                continue
            for name, declared in filterset.base_filters.items():
                if isinstance(declared, NumberFilter):
                    found.append((reverse(f"{basename}-list"), name))
    return found


NUMBER_FILTERS = number_filters()


def test_every_number_filter_is_an_integer_filter():
    assert len(NUMBER_FILTERS) > 20
    for router in routers():
        for _prefix, viewset, _basename in router.registry:
            filterset = getattr(viewset, "filterset_class", None)
            for name, declared in (filterset.base_filters.items() if filterset else ()):
                if isinstance(declared, NumberFilter):
                    assert isinstance(declared, IntegerFilter), (viewset, name)


@pytest.mark.parametrize("url, name", NUMBER_FILTERS)
@pytest.mark.parametrize("value", [HUGE, "-1", "1.5", "1e3"])
def test_number_filters_refuse_what_is_not_a_64_bit_whole_number(user_client, url, name, value):
    body = assert_error_shape(user_client.get(url, {name: value}), 400, "invalid")
    assert list(body["fields"]) == [name], body


@pytest.mark.parametrize("url, name", [("/api/cards/", "rarity_id"), ("/api/realms/characters/", "atk__gte")])
def test_number_filters_take_whole_numbers_up_to_64_bits(anon_client, url, name):
    for value in ("0", "1", str(2**63 - 1)):
        assert anon_client.get(url, {name: value}).status_code == 200


def army_code(*values: int) -> str:
    out = bytearray([LEGACY_CODE_VERSION])
    _write_varint(len(values), out)
    for value in values:
        _write_varint(value, out)
    return base64.urlsafe_b64encode(bytes(out)).decode().rstrip("=")


@pytest.mark.parametrize("card_id", [2**63, 2**69])
def test_army_codes_naming_ids_past_64_bits_are_bad_codes(anon_client, card_id):
    code = army_code(card_id * 2)
    body = assert_error_shape(anon_client.get("/api/realms/armies/decode/", {"code": code}), 400, "bad_army_code")
    assert "code" in body["fields"]
    response = anon_client.post("/api/realms/armies/validate/", {"code": code}, format="json")
    assert "code" in assert_error_shape(response, 400, "bad_army_code")["fields"]


def test_the_largest_id_still_decodes(anon_client):
    code = encode_army([(2**63 - 1, "vanguard")])
    response = anon_client.get("/api/realms/armies/decode/", {"code": code})
    # It decodes (no overflow), and names a card this catalogue does not have.
    assert f"#{2**63 - 1}" in assert_error_shape(response, 400, "bad_army_code")["message"]


@pytest.mark.parametrize("collection", [2**64, -1, 0, 1.5, "1"])
def test_army_validation_refuses_collections_that_are_no_id(anon_client, collection):
    response = anon_client.post("/api/realms/armies/validate/", {"slots": [], "collection": collection}, format="json")
    assert "collection" in assert_error_shape(response, 400, "invalid")["fields"]


@pytest.mark.parametrize("collection", [2**64, 2**63, 1.5, True])
def test_saved_armies_refuse_collections_that_are_no_id(user_client, collection):
    response = user_client.post("/api/realms/armies/", {"name": "A", "slots": [], "collection": collection},
                                format="json")
    assert "collection" in assert_error_shape(response, 400, "invalid")["fields"]


def test_formation_refuses_collections_past_64_bits(anon_client):
    body = {"first": "a", "deployments": [], "collections": {"a": 2**64}}
    response = anon_client.post("/api/realms/formations/validate/", body, format="json")
    assert "collections.a" in assert_error_shape(response, 400, "invalid")["fields"]


# --- bodies: depth and size ---------------------------------------------------------------------------

JSON_ENDPOINTS = [
    "/api/collections/",
    "/api/realms/races/",
    "/api/realms/armies/",
    "/api/realms/armies/validate/",
    "/api/realms/formations/validate/",
    "/api/legends/setups/",
    "/api/legends/setups/validate/",
    "/api/legends/setups/export/",
    "/api/auth/token/",
]


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize("url", JSON_ENDPOINTS)
@pytest.mark.parametrize("depth", [1000, 100_000])
def test_deeply_nested_json_is_400(staff_client, url, depth):
    response = staff_client.generic("POST", url, nested(depth), content_type="application/json")
    body = assert_error_shape(response, 400, "parse_error")
    assert "nested deeper" in body["message"]


def test_json_nested_to_the_bound_is_parsed(anon_client):
    deep = json.loads(nested(MAX_JSON_DEPTH - 1))
    response = anon_client.post("/api/legends/setups/validate/", {"mode": "teams", "teams": deep}, format="json")
    assert_error_shape(response, 400, "invalid")
    too_deep = json.loads(nested(MAX_JSON_DEPTH))
    response = anon_client.post("/api/legends/setups/validate/", {"mode": "teams", "teams": too_deep}, format="json")
    assert_error_shape(response, 400, "parse_error")


@pytest.mark.parametrize("url", JSON_ENDPOINTS)
def test_bodies_over_one_mebibyte_are_413(staff_client, url):
    body = json.dumps({"name": "x" * (1024 * 1024)})
    response = staff_client.generic("POST", url, body, content_type="application/json")
    error = assert_error_shape(response, 413, "too_large")
    assert "1,048,576 bytes" in error["message"]


def test_form_bodies_over_one_mebibyte_are_413(anon_client):
    response = anon_client.generic("POST", "/api/auth/token/", "username=" + "x" * (1024 * 1024),
                                   content_type="application/x-www-form-urlencoded")
    assert_error_shape(response, 413, "too_large")


def test_forms_are_refused_where_they_make_no_sense(user_client):
    response = user_client.post("/api/collections/", {"name": "Binder"}, format="multipart")
    assert_error_shape(response, 415, "unsupported_media_type")


def test_card_art_bodies_past_the_image_bound_are_413(staff_client, settings):
    card = make_card("Painted")
    settings.CARD_IMAGE_MAX_BYTES = 1000
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    response = staff_client.generic(
        "PUT", f"/api/cards/{card.slug}/image/", b"x" * 3000, content_type="multipart/form-data; boundary=BoUnDaRy"
    )
    assert_error_shape(response, 413, "too_large")


# --- text the databases refuse ------------------------------------------------------------------------

def post_json(client, url: str, body):
    """POST `body` as JSON with \\u escapes (lone surrogates cannot be encoded otherwise)."""
    return client.generic("POST", url, json.dumps(body), content_type="application/json")


def teams_with_player_name(name: str) -> list[dict]:
    player = {"name": name, "counter": 1}
    return [{"spirit": "akin", "players": [player]}, {"spirit": "yulin", "players": [dict(player, counter=2)]}]


@pytest.mark.parametrize("bad", ["a\x00b", "\ud800", "x\udfff"])
class TestUnstorableText:
    def test_collection_names(self, user_client, bad):
        body = assert_error_shape(post_json(user_client, "/api/collections/", {"name": bad}), 400, "invalid")
        assert list(body["fields"]) == ["name"]
        assert not Collection.objects.exists()

    def test_army_names_and_slots(self, user_client, bad):
        response = post_json(user_client, "/api/realms/armies/",
                             {"name": bad, "slots": [{"card": bad, "line": "vanguard"}]})
        assert set(assert_error_shape(response, 400, "invalid")["fields"]) == {"name", "slots.0.card"}

    def test_setup_player_names(self, user_client, bad):
        body = {"name": "Setup", "mode": "teams", "teams": teams_with_player_name(bad)}
        fields = assert_error_shape(post_json(user_client, "/api/legends/setups/", body), 400, "invalid")["fields"]
        assert set(fields) == {"teams.0.players.0.name", "teams.1.players.0.name"}
        body = {"mode": "teams", "teams": teams_with_player_name(bad)}
        response = post_json(user_client, "/api/legends/setups/validate/", body)
        assert "teams.0.players.0.name" in assert_error_shape(response, 400, "invalid")["fields"]

    def test_keys(self, user_client, bad):
        response = post_json(user_client, "/api/collections/", {"name": "ok", bad: 1})
        assert_error_shape(response, 400, "invalid")
        assert not Collection.objects.exists()

    def test_catalogue_json_fields(self, staff_client, bad):
        body = {"slug": "x", "name": "X", "icon": "*", "identity": "x", "description": "x", "characteristics": [bad]}
        response = post_json(staff_client, "/api/factions/", body)
        assert list(assert_error_shape(response, 400, "invalid")["fields"]) == ["characteristics.0"]


@pytest.mark.parametrize("url, name", [
    ("/api/cards/", "search"),
    ("/api/cards/", "name"),
    ("/api/realms/characters/", "search"),
    ("/api/realms/characters/", "q"),
    ("/api/realms/races/", "search"),
    ("/api/legends/spirits/", "search"),
    ("/api/legends/defenses/", "element"),
    ("/api/collections/", "search"),
    ("/api/realms/armies/", "search"),
    ("/api/legends/setups/", "search"),
])
def test_nul_in_query_parameters_is_400_naming_them(user_client, url, name):
    body = assert_error_shape(user_client.get(url, {name: "a\x00b"}), 400, "invalid")
    assert list(body["fields"]) == [name]


def test_overlong_search_is_400(anon_client):
    assert "search" in assert_error_shape(anon_client.get("/api/cards/", {"search": "x" * 201}), 400)["fields"]
    assert anon_client.get("/api/cards/", {"search": "x" * 200}).status_code == 200


# --- unknown keys -------------------------------------------------------------------------------------

@pytest.mark.parametrize("url, body, key", [
    ("/api/collections/", {"name": "Binder", "colour": "red"}, "colour"),
    ("/api/realms/armies/", {"name": "A", "slots": [], "notes": ""}, "notes"),
    ("/api/legends/setups/", {"name": "S", "mode": "teams", "teams": [], "public": True}, "public"),
    ("/api/legends/setups/export/", {"mode": "teams", "teams": [], "public": True}, "public"),
    ("/api/realms/formations/validate/", {"first": "a", "deployments": [{"player": "a", "card": "x",
                                          "line": "vanguard", "turn": 1}]}, "deployments.0.turn"),
])
def test_unknown_keys_are_refused(user_client, url, body, key):
    fields = assert_error_shape(user_client.post(url, body, format="json"), 400, "invalid")["fields"]
    assert fields == {key: ["Unknown field."]}


def test_read_only_keys_are_ignored(user_client):
    response = user_client.post("/api/collections/", {"name": "Binder", "id": 99, "owner": "bob"}, format="json")
    assert response.status_code == 201 and response.json()["owner"] == "alice"


# --- lost races on unique values ----------------------------------------------------------------------

def racing(serializer_class, make_clash):
    """Patch `serializer_class.validate` so that a clashing row is committed just after the first checks pass,
    as another request would between this one's checks and its save."""
    original = serializer_class.validate
    calls = []

    def validate(self, attrs):
        attrs = original(self, attrs)
        calls.append(attrs)
        if len(calls) == 1:
            make_clash()
        return attrs

    return mock.patch.object(serializer_class, "validate", validate)


def test_a_collection_name_taken_meanwhile_is_400(user, user_client):
    with racing(CollectionSerializer, lambda: Collection.objects.create(owner=user, name="Binder")):
        response = user_client.post("/api/collections/", {"name": "Binder"}, format="json")
    body = assert_error_shape(response, 400, "invalid")
    assert body["fields"] == {"name": ["You already have a collection with this name."]}
    assert Collection.objects.filter(name="Binder").count() == 1


def test_a_race_slug_taken_meanwhile_is_400(staff_client):
    with racing(RaceSerializer, lambda: Race.objects.create(slug="elf", name="Elves of old")):
        response = staff_client.post("/api/realms/races/", {"slug": "elf", "name": "Elf"}, format="json")
    body = assert_error_shape(response, 400, "invalid")
    assert body["fields"] == {"slug": ["race with this slug already exists."]}
    assert Race.objects.filter(slug="elf").count() == 1


def test_a_conflict_the_checks_cannot_name_is_400_too(user, user_client):
    clash = racing(CollectionSerializer, lambda: Collection.objects.create(owner=user, name="Binder"))
    with clash, mock.patch.object(CollectionSerializer, "validate_name", lambda self, value: value), \
            mock.patch("cardsdb.models.Collection.validate_constraints"):
        response = user_client.post("/api/collections/", {"name": "Binder"}, format="json")
    body = assert_error_shape(response, 400, "invalid")
    assert body["fields"] == {"non_field_errors": [RACE_LOST]}


# --- quantities ---------------------------------------------------------------------------------------

def test_a_collection_holds_at_most_the_bound(user, user_client):
    collection = Collection.objects.create(owner=user, name="Hoard")
    card = make_card("Coin")
    url = f"/api/collections/{collection.pk}/"
    assert user_client.post(url + "add/", {"card": card.slug, "quantity": MAX_QUANTITY}).json()["quantity"] == MAX_QUANTITY
    body = assert_error_shape(user_client.post(url + "add/", {"card": card.slug, "quantity": 1}), 400, "invalid")
    assert "at most 1,000,000" in body["fields"]["quantity"][0]
    assert CollectionEntry.objects.get().quantity == MAX_QUANTITY
    response = user_client.post(url + "set-quantity/", {"card": card.slug, "quantity": MAX_QUANTITY + 1})
    assert "quantity" in assert_error_shape(response, 400, "invalid")["fields"]
    for quantity in (2**31, 2**64, -1, 1.5):
        response = user_client.post(url + "add/", {"card": card.slug, "quantity": quantity})
        assert "quantity" in assert_error_shape(response, 400, "invalid")["fields"]
    assert CollectionEntry.objects.get().quantity == MAX_QUANTITY


# --- DEBUG on: still JSON -----------------------------------------------------------------------------

@override_settings(DEBUG=True)
@pytest.mark.parametrize("url", ["/api/nowhere/", "/api/realms/nowhere", "/api/cards/no-such-card/",
                                 "/api/legends/setups/abc/", "/api/simulate/nowhere/"])
def test_unknown_api_urls_are_json_404_with_debug_on(anon_client, url):
    response = anon_client.get(url)
    assert response["Content-Type"].startswith("application/json")
    assert_error_shape(response, 404, "not_found")


@override_settings(DEBUG=True)
def test_a_missing_trailing_slash_still_redirects_get_and_names_it_for_post(anon_client):
    response = anon_client.get("/api/cards?page=1")
    assert response.status_code == 301 and response["Location"] == "/api/cards/?page=1"
    body = assert_error_shape(anon_client.post("/api/realms/armies/validate", {}, format="json"), 404, "not_found")
    assert "/api/realms/armies/validate/" in body["message"]


@override_settings(DEBUG=True)
def test_405_is_json_with_debug_on(staff_client):
    assert_error_shape(staff_client.post("/api/cards/", {}, format="json"), 405, "method_not_allowed")


@override_settings(DEBUG=True)
def test_a_server_error_is_json_with_debug_on(anon_client):
    anon_client.raise_request_exception = False
    with mock.patch("cardsdb.api.views.CardViewSet.list", side_effect=RuntimeError("boom")):
        response = anon_client.get("/api/cards/")
    assert response["Content-Type"].startswith("application/json")
    body = assert_error_shape(response, 500, "server_error")
    assert "boom" not in body["message"]


def test_a_server_error_is_still_raised_in_tests_and_logged(anon_client, caplog):
    with mock.patch("cardsdb.api.views.CardViewSet.list", side_effect=RuntimeError("boom")), \
            pytest.raises(RuntimeError):
        anon_client.get("/api/cards/")
    assert "Internal Server Error: /api/cards/" in caplog.text


def test_a_value_the_database_refuses_is_400_not_500(anon_client):
    from django.db import DataError

    anon_client.raise_request_exception = False
    with mock.patch("cardsdb.api.views.CardViewSet.list", side_effect=DataError("integer out of range")):
        assert_error_shape(anon_client.get("/api/cards/"), 400, "invalid")


# --- query parameters: once each; unknown or empty ones ignored with a warning ---------------------

@pytest.mark.parametrize("query", ["page=1&page=2", "search=a&search=b", "rarity_id=1&rarity_id=2",
                                   "ordering=name&ordering=-name"])
def test_a_parameter_given_twice_is_400(anon_client, query):
    body = assert_error_shape(anon_client.get(f"/api/cards/?{query}"), 400, "invalid")
    assert body["fields"] == {query.split("=")[0]: ["Give this parameter once."]}


def list_urls() -> list[str]:
    """The URL of every list of the API: the catalogue, collections, both games, matches and batches."""
    from simulate.api.urls import router as simulate_router

    return [reverse(f"{basename}-list") for router in [*routers(), simulate_router]
            for _prefix, viewset, basename in router.registry if hasattr(viewset, "list")]


def ignored(*names: str, unknown: tuple[str, ...] = ()) -> list[dict]:
    return [*({"message": f"Unknown parameter `{name}`: ignored.", "parameter": name} for name in unknown),
            *({"message": f"`{name}` is empty: ignored.", "parameter": name} for name in names)]


@pytest.mark.parametrize("url", list_urls())
def test_every_list_names_the_parameters_it_ignores(user_client, url):
    plain = user_client.get(url).json()
    for query, warnings in [
        ({"colour": "red"}, ignored(unknown=("colour",))),
        ({"colour": "", "page": "", "page_size": " ", "ordering": "", "format": ""},
         [*ignored(unknown=("colour",)), *ignored("page", "page_size", "ordering", "format")]),
    ]:
        response = user_client.get(url, query)
        assert response.status_code == 200, response.content
        assert response.json() == {**plain, "warnings": warnings}, query


@pytest.mark.parametrize("url, name", [("/api/cards/", "rarity_id"), ("/api/cards/", "has_image"),
                                       ("/api/cards/", "game"), ("/api/cards/", "search"),
                                       ("/api/sets/", "released_before"), ("/api/realms/characters/", "class"),
                                       ("/api/realms/characters/", "atk__gte"), ("/api/realms/characters/", "faction"),
                                       ("/api/realms/characters/", "q"), ("/api/legends/protectors/", "duel_legal"),
                                       ("/api/simulate/matches/", "winner"), ("/api/simulate/batches/", "status")])
@pytest.mark.parametrize("value", ["", "  "])
def test_a_parameter_given_empty_is_ignored_with_a_warning(anon_client, url, name, value):
    make_character("Listed")
    plain = anon_client.get(url).json()
    response = anon_client.get(url, {name: value})
    assert response.status_code == 200, response.content
    assert response.json() == {**plain, "warnings": ignored(name)}


def test_unknown_parameters_and_ignored_terms_of_q_are_both_named(anon_client):
    make_character("Listed")
    response = anon_client.get("/api/realms/characters/", {"q": "colour:red name:listed", "colour": "red"})
    assert [row["name"] for row in response.json()["results"]] == ["Listed"]
    assert response.json()["warnings"] == [*ignored(unknown=("colour",)), {
        "message": "Unknown key 'colour'", "parameter": "q", "position": 0}]


def test_a_parameter_the_view_documents_is_known():
    from drf_spectacular.utils import OpenApiParameter, extend_schema
    from rest_framework.test import APIRequestFactory

    from cardsdb.api.views import CardViewSet

    class Documented(CardViewSet):
        @extend_schema(parameters=[OpenApiParameter("lang", str)])
        def list(self, request, *args, **kwargs):
            return super().list(request, *args, **kwargs)

    view = Documented.as_view({"get": "list"})
    response = view(APIRequestFactory().get("/api/cards/", {"lang": "fr", "colour": "red"}))
    assert response.data["warnings"] == ignored(unknown=("colour",))


@pytest.mark.parametrize("url", ["/api/cards/", "/api/realms/characters/", "/api/legends/spirits/",
                                 "/api/simulate/matches/"])
@pytest.mark.parametrize("page", ["last", "１", "２", "0", "abc", "1.0", "+1", " 1"])
def test_a_page_is_a_number_in_ascii_digits(anon_client, url, page):
    make_character("Listed")
    body = assert_error_shape(anon_client.get(url, {"page": page}), 400, "invalid")
    assert body["fields"] == {"page": ["A page number from 1 is required."]}


def test_a_match_log_pages_in_ascii_digits_and_names_what_it_ignores(anon_client, catalogue):
    match = anon_client.post("/api/simulate/realms/matches/", {"formation": {}, "seed": 1}, format="json").json()
    log = match["log"]
    for page in ("last", "１"):
        assert assert_error_shape(anon_client.get(log, {"page": page}), 400, "invalid")["fields"] == {
            "page": ["A page number from 1 is required."]}
    response = anon_client.get(log, {"page": "", "colour": "red"})
    assert response.status_code == 200 and response.json()["count"] > 0
    assert response.json()["warnings"] == [*ignored("page"), *ignored(unknown=("colour",))]


@pytest.mark.parametrize("value", ["null", "maybe", "2"])
def test_boolean_filters_take_true_or_false_only(anon_client, value):
    for url in ("/api/cards/", "/api/realms/characters/", "/api/legends/spirits/"):
        assert "has_image" in assert_error_shape(anon_client.get(url, {"has_image": value}), 400)["fields"]


def test_nul_in_any_query_parameter_is_400(anon_client):
    body = assert_error_shape(anon_client.get("/api/cards/", {"ordering": "name\x00"}), 400, "invalid")
    assert body["fields"] == {"ordering": ["Null characters are not allowed."]}


# --- JSON types as the schema says ------------------------------------------------------------------

@pytest.mark.parametrize("body, field", [
    ({"name": 7}, "name"),
    ({"name": ["a"]}, "name"),
    ({"name": True}, "name"),
])
def test_strings_must_be_strings(user_client, body, field):
    assert list(assert_error_shape(user_client.post("/api/collections/", body, format="json"), 400)["fields"]) == [field]


def test_numbers_must_be_numbers_and_every_problem_is_named(staff_client):
    body = {"slug": "x y", "name": 5, "order": "3", "color": "#000000", "extra": 1}
    fields = assert_error_shape(staff_client.post("/api/rarities/", body, format="json"), 400, "invalid")["fields"]
    assert set(fields) == {"slug", "name", "order", "extra"}
    assert fields["order"] == ["A whole number is required."]


def test_booleans_must_be_booleans(staff_client):
    from tests.legends.factories import make_protector

    protector = make_protector("Sentinel")
    response = staff_client.patch(f"/api/legends/protectors/{protector.slug}/", {"duel_legal": "yes"}, format="json")
    assert assert_error_shape(response, 400, "invalid")["fields"] == {"duel_legal": ["Must be true or false."]}


# --- charsets: text encodings of JSON only ------------------------------------------------------------

MATCH_URL = "/api/simulate/realms/matches/"
# A 20 MiB JSON body, compressed by bz2 into a few dozen bytes (a bytes-to-bytes codec, not a text encoding).
BZ2_BOMB = bz2.compress(b'{"seed": 1, "x": "' + b"a" * (20 * 1024 * 1024) + b'"}')


@pytest.mark.parametrize("charset, body", [
    ("bz2", BZ2_BOMB),
    ("zlib", zlib.compress(b'{"seed": 1}')),
    ("rot13", b'{"seed": 1}'),
    ("base64", base64.b64encode(b'{"seed": 1}')),
    ("hex", b'{"seed": 1}'.hex().encode()),
    ("latin-1", b'{"seed": 1}'),
    ("no-such-charset", b'{"seed": 1}'),
])
def test_json_in_anything_but_a_unicode_encoding_is_415(anon_client, charset, body):
    response = anon_client.generic("POST", MATCH_URL, body, content_type=f"application/json; charset={charset}")
    error = assert_error_shape(response, 415, "unsupported_media_type")
    assert charset in error["message"] and "UTF-8" in error["message"]
    assert not Match.objects.exists()


@pytest.mark.parametrize("url, content_type, body", [
    ("/api/auth/token/", "application/x-www-form-urlencoded; charset=bz2", bz2.compress(b"username=a&password=b")),
    ("/api/auth/token/", "multipart/form-data; boundary=B; charset=zlib", zlib.compress(b"--B--")),
    ("/api/auth/token/", "application/json; charset=zlib", zlib.compress(b'{"username": "a"}')),
    ("/api/collections/", "application/json; charset=bz2", bz2.compress(b'{"name": "Binder"}')),
])
def test_every_parser_refuses_codecs_that_are_no_text_encoding(user_client, url, content_type, body):
    response = user_client.generic("POST", url, body, content_type=content_type)
    assert_error_shape(response, 415, "unsupported_media_type")
    assert not Collection.objects.exists()


@pytest.mark.parametrize("charset", ["utf-8", "UTF8", "utf-16", "utf-16-le", "utf-32"])
def test_json_in_utf_8_16_and_32_is_read(user_client, charset):
    body = json.dumps({"name": "Bücher ♠"}, ensure_ascii=False).encode(charset)
    response = user_client.generic("POST", "/api/collections/", body,
                                   content_type=f"application/json; charset={charset}")
    assert response.status_code == 201, response.content
    assert Collection.objects.get().name == "Bücher ♠"


def test_a_body_that_is_not_its_charset_is_400(user_client):
    response = user_client.generic("POST", "/api/collections/", b'{"name": "\xff\xfe"}',
                                   content_type="application/json")
    assert "not valid UTF-8" in assert_error_shape(response, 400, "parse_error")["message"]


# --- numbers past what a float holds ------------------------------------------------------------------

@pytest.mark.parametrize("url, body, field", [
    (MATCH_URL, '{"seed": 1e400}', "seed"),
    (MATCH_URL, '{"seed": -1e400}', "seed"),
    (MATCH_URL, '{"options": {"max_rounds": 1e400}}', "options.max_rounds"),
    (MATCH_URL, '{"armies": {"a": {"army": 1e400}, "b": {"army": 1}}}', "armies.a.army"),
    (MATCH_URL, '{"seed": NaN}', "seed"),
    (MATCH_URL, '{"options": {"max_rounds": Infinity}}', "options.max_rounds"),
    (MATCH_URL, '{"seed": -Infinity}', "seed"),
    ("/api/simulate/realms/batches/", '{"kind": "matchup", "count": 1e400}', "count"),
    ("/api/simulate/legends/matches/", '{"seed": 1e999}', "seed"),
    ("/api/realms/armies/validate/", '{"slots": [], "collection": 1e400}', "collection"),
    ("/api/realms/formations/validate/", '{"first": "a", "deployments": [], "collections": {"a": 1e400}}',
     "collections.a"),
    ("/api/legends/setups/validate/", '{"mode": "teams", "teams": [{"players": [{"counter": 1e400}]}]}',
     "teams.0.players.0.counter"),
])
def test_numbers_no_float_holds_are_400_naming_the_field(anon_client, url, body, field):
    response = anon_client.generic("POST", url, body, content_type="application/json")
    error = assert_error_shape(response, 400, "invalid")
    assert error["fields"] == {field: ["A finite number is required."]}, error
    assert error["message"] == f"{field}: A finite number is required."
    assert not Match.objects.exists()


def test_non_finite_quantities_and_staff_edits_are_400(user, user_client, staff_client):
    card = make_card("Finite")
    collection = Collection.objects.create(owner=user, name="Binder")
    for action in ("add", "remove", "set-quantity"):
        response = user_client.generic("POST", f"/api/collections/{collection.pk}/{action}/",
                                       f'{{"card": "{card.slug}", "quantity": 1e400}}', content_type="application/json")
        assert assert_error_shape(response, 400, "invalid")["fields"] == {"quantity": ["A finite number is required."]}
    assert not CollectionEntry.objects.exists()
    response = staff_client.generic("POST", "/api/rarities/", '{"slug": "x", "name": "X", "order": 1e400}',
                                    content_type="application/json")
    assert assert_error_shape(response, 400, "invalid")["fields"] == {"order": ["A finite number is required."]}
    response = staff_client.generic("POST", "/api/rarities/", '{"slug": "x", "name": "X", "order": NaN, "x": [Infinity]}',
                                    content_type="application/json")
    assert assert_error_shape(response, 400, "invalid")["fields"] == {
        "order": ["A finite number is required."], "x.0": ["A finite number is required."]}


# --- strings are strings, at every depth ----------------------------------------------------------------

@pytest.mark.parametrize("value", [0, 7.5, True, False])
def test_a_card_slug_must_be_a_string(user, user_client, value):
    card = make_card("Typed")
    collection = Collection.objects.create(owner=user, name="Binder")
    for action in ("add", "remove", "set-quantity"):
        response = user_client.post(f"/api/collections/{collection.pk}/{action}/", {"card": value, "quantity": 1},
                                    format="json")
        assert assert_error_shape(response, 400, "invalid")["fields"] == {"card": ["Not a valid string."]}
    assert not CollectionEntry.objects.exists() and card.pk


@pytest.mark.parametrize("items, field", [([0], "characteristics.0"), (["ok", True], "characteristics.1"),
                                          (["ok", 1.5, "fine"], "characteristics.1")])
def test_strings_in_lists_must_be_strings(staff_client, items, field):
    body = {"slug": "x", "name": "X", "icon": "*", "identity": "x", "description": "x", "characteristics": items}
    response = staff_client.post("/api/factions/", body, format="json")
    assert assert_error_shape(response, 400, "invalid")["fields"] == {field: ["Not a valid string."]}
    assert not Faction.objects.filter(slug="x").exists()


def test_numbers_in_lists_and_dicts_keep_their_type(staff_client):
    body = {"slug": "x", "name": "X", "icon": "*", "identity": "x", "description": "x", "characteristics": ["ok"]}
    assert staff_client.post("/api/factions/", body, format="json").status_code == 201
    assert Faction.objects.get(slug="x").characteristics == ["ok"]


def input_serializers() -> list[type]:
    """Every serializer that reads a request body (those refusing unknown keys), of every app."""
    import legends.api.matches  # noqa: F401  (the simulate requests of each game)
    import realms.api.matches  # noqa: F401
    from cardsdb.api.serializers import StrictFieldsMixin

    found, todo = set(), [StrictFieldsMixin]
    while todo:
        for subclass in todo.pop().__subclasses__():
            todo.append(subclass)
            model_serializer = issubclass(subclass, serializers.ModelSerializer)
            if not model_serializer or getattr(getattr(subclass, "Meta", None), "model", None):
                found.add(subclass)
    return sorted(found, key=lambda cls: f"{cls.__module__}.{cls.__qualname__}")


def text_fields(serializer, path=""):
    """(dotted path, field) of every writable field reading text, at any depth."""
    for name, field in serializer.fields.items():
        if field.read_only:
            continue
        if isinstance(field, serializers.ListSerializer):
            field = field.child
        while isinstance(field, (serializers.ListField, serializers.DictField)):
            field, name = field.child, f"{name}.*"
        if isinstance(field, serializers.Serializer):
            yield from text_fields(field, f"{path}{name}.")
        elif isinstance(field, (serializers.CharField, serializers.ChoiceField, serializers.SlugRelatedField)):
            yield f"{path}{name}", field


def test_every_string_field_of_every_request_takes_strings_only():
    from cardsdb.api.fields import StringOnly, TextChoiceField
    from simulate.api.serializers import OneOfField

    checked = 0
    for serializer_class in input_serializers():
        for path, field in text_fields(serializer_class()):
            checked += 1
            assert isinstance(field, (StringOnly, TextChoiceField, OneOfField)), (serializer_class, path, field)
    assert checked > 60


@pytest.mark.parametrize("url, body, field", [
    ("/api/realms/armies/validate/", {"slots": [{"card": "a", "line": 1}]}, "slots.0.line"),
    ("/api/realms/armies/validate/", {"slots": [{"card": "a", "line": True}]}, "slots.0.line"),
    ("/api/realms/armies/export/", {"code": "x", "format": 0}, "format"),
    ("/api/realms/formations/validate/", {"first": 1, "deployments": []}, "first"),
    ("/api/legends/setups/validate/", {"mode": 2, "teams": []}, "mode"),
    ("/api/simulate/realms/matches/", {"formation": {"first": 0}}, "formation.first"),
    ("/api/simulate/legends/matches/", {"mode": 1}, "mode"),
])
def test_choices_and_nested_strings_must_be_strings(anon_client, url, body, field):
    response = anon_client.post(url, body, format="json")
    assert assert_error_shape(response, 400)["fields"][field] == ["Not a valid string."]


@pytest.mark.parametrize("body, field", [({"position": 1}, "position"), ({"race": 0}, "race"), ({"class": 2}, "class")])
def test_model_text_and_choice_fields_take_strings_only(staff_client, body, field):
    character = make_character("Typed")
    response = staff_client.patch(f"/api/realms/characters/{character.slug}/", body, format="json")
    assert assert_error_shape(response, 400, "invalid")["fields"] == {field: ["Not a valid string."]}


@pytest.mark.parametrize("value", ["1e400", "NaN", "-Infinity"])
def test_a_number_no_float_holds_in_a_command_line_patch_is_refused(catalogue, value):
    from django.core.management import CommandError, call_command

    from realms.models import Character

    card = Character.objects.order_by("pk").first().slug
    with pytest.raises(CommandError, match="A finite number is required"):
        call_command("simulate_batch", "realms", "--a", "faction:arcane", "--b", "faction:shadow", "--kind", "whatif",
                     "--patch", f"{card}:atk={value}", "--count", "2", "--seed", "1", stdout=io.StringIO(),
                     stderr=io.StringIO())
    assert not Batch.objects.exists()
