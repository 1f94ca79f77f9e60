"""Collections: owner-only access, entry changes, bad input and concurrent updates."""

import json
import threading
import urllib.request

import pytest
from rest_framework.authtoken.models import Token

from cardsdb.models import Collection, CollectionEntry
from tests.conftest import assert_error_shape
from tests.factories import make_card

pytestmark = pytest.mark.django_db


@pytest.fixture
def collection(user):
    return Collection.objects.create(owner=user, name="Main binder")


@pytest.fixture
def card(db):
    return make_card("Iron Guardian")


def test_owner_creates_lists_and_renames(user_client):
    created = user_client.post("/api/collections/", {"name": "Binder"})
    assert created.status_code == 201, created.content
    assert created.json()["owner"] == "alice" and created.json()["entries"] == []
    cid = created.json()["id"]
    assert user_client.patch(f"/api/collections/{cid}/", {"name": "Binder 2"}).status_code == 200
    listed = user_client.get("/api/collections/").json()
    assert [c["name"] for c in listed["results"]] == ["Binder 2"]
    assert user_client.delete(f"/api/collections/{cid}/").status_code == 204
    assert user_client.get("/api/collections/").json()["count"] == 0


def test_duplicate_name_for_same_owner_is_refused(user_client, collection):
    body = assert_error_shape(user_client.post("/api/collections/", {"name": "Main binder"}), 400, "invalid")
    assert "name" in body["fields"]


def test_anonymous_gets_401(anon_client, collection):
    assert_error_shape(anon_client.get("/api/collections/"), 401, "not_authenticated")
    assert_error_shape(anon_client.get(f"/api/collections/{collection.pk}/"), 401)


def test_another_user_sees_404_and_cannot_change_it(other_client, collection, card):
    assert other_client.get("/api/collections/").json()["count"] == 0
    url = f"/api/collections/{collection.pk}/"
    assert_error_shape(other_client.get(url), 404, "not_found")
    assert_error_shape(other_client.patch(url, {"name": "Mine now"}), 404)
    assert_error_shape(other_client.delete(url), 404)
    assert_error_shape(other_client.post(url + "add/", {"card": card.slug}), 404)
    collection.refresh_from_db()
    assert collection.name == "Main binder" and not collection.entries.exists()


def test_staff_cannot_read_someone_elses_collection(staff_client, collection):
    assert_error_shape(staff_client.get(f"/api/collections/{collection.pk}/"), 404)


def test_add_remove_and_set_quantity(user_client, collection, card):
    url = f"/api/collections/{collection.pk}/"
    assert user_client.post(url + "add/", {"card": card.slug}).json()["quantity"] == 1
    assert user_client.post(url + "add/", {"card": card.slug, "quantity": 3}).json()["quantity"] == 4
    assert user_client.post(url + "remove/", {"card": card.slug, "quantity": 2}).json()["quantity"] == 2
    assert user_client.post(url + "set-quantity/", {"card": card.slug, "quantity": 7}).json()["quantity"] == 7
    assert user_client.post(url + "set-quantity/", {"card": card.slug, "quantity": 0}).json()["quantity"] == 0
    entries = user_client.get(url).json()["entries"]
    assert entries == [{"card": card.slug, "name": "Iron Guardian", "game": "realms", "quantity": 0}]


def test_collections_may_mix_games(user_client, collection):
    knight = make_card("Knight", game="realms")
    spirit = make_card("Akin", game="legends")
    url = f"/api/collections/{collection.pk}/add/"
    user_client.post(url, {"card": knight.slug})
    user_client.post(url, {"card": spirit.slug})
    games = sorted(e["game"] for e in user_client.get(f"/api/collections/{collection.pk}/").json()["entries"])
    assert games == ["legends", "realms"]


def test_removing_more_than_held_is_refused_and_changes_nothing(user_client, collection, card):
    url = f"/api/collections/{collection.pk}/"
    user_client.post(url + "add/", {"card": card.slug, "quantity": 2})
    body = assert_error_shape(
        user_client.post(url + "remove/", {"card": card.slug, "quantity": 3}), 400, "insufficient_quantity"
    )
    assert "quantity" in body["fields"]
    assert CollectionEntry.objects.get(collection=collection, card=card).quantity == 2


def test_removing_a_card_never_held_leaves_no_entry(user_client, collection, card):
    url = f"/api/collections/{collection.pk}/remove/"
    assert_error_shape(user_client.post(url, {"card": card.slug}), 400, "insufficient_quantity")
    assert not CollectionEntry.objects.filter(collection=collection).exists()


@pytest.mark.parametrize(
    "action, payload, field",
    [
        ("add", {"card": "no-such-card"}, "card"),
        ("add", {"quantity": 1}, "card"),
        ("add", {"card": "CARD", "quantity": -1}, "quantity"),
        ("add", {"card": "CARD", "quantity": 0}, "quantity"),
        ("add", {"card": "CARD", "quantity": "many"}, "quantity"),
        ("add", {"card": ["CARD"], "quantity": 1}, "card"),
        ("remove", {"card": "CARD", "quantity": -2}, "quantity"),
        ("set-quantity", {"card": "CARD", "quantity": -1}, "quantity"),
        ("set-quantity", {"card": "CARD"}, "quantity"),
        ("set-quantity", {"card": "CARD", "quantity": 10**12}, "quantity"),
    ],
)
def test_bad_entry_input_is_a_field_error(user_client, collection, card, action, payload, field):
    payload = {k: (card.slug if v == "CARD" else [card.slug] if v == ["CARD"] else v) for k, v in payload.items()}
    response = user_client.post(f"/api/collections/{collection.pk}/{action}/", payload, format="json")
    body = assert_error_shape(response, 400, "invalid")
    assert field in body["fields"]
    assert not CollectionEntry.objects.filter(collection=collection).exists()


def test_malformed_json_on_entry_action(user_client, collection):
    response = user_client.generic(
        "POST", f"/api/collections/{collection.pk}/add/", "{card:", content_type="application/json"
    )
    assert_error_shape(response, 400, "parse_error")


def test_body_that_is_not_an_object(user_client, collection):
    response = user_client.post(f"/api/collections/{collection.pk}/add/", [1, 2], format="json")
    assert_error_shape(response, 400, "invalid")


def test_collection_list_runs_a_constant_number_of_queries(user, user_client, django_assert_max_num_queries):
    cards = [make_card(f"Card {i}") for i in range(6)]

    def fill(n: int) -> None:
        for i in range(n):
            collection = Collection.objects.create(owner=user, name=f"C{n}-{i}")
            for card in cards:
                CollectionEntry.objects.create(collection=collection, card=card, quantity=1)

    fill(1)
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as small:
        assert user_client.get("/api/collections/").json()["count"] == 1
    fill(10)
    with CaptureQueriesContext(connection) as large:
        assert user_client.get("/api/collections/").json()["count"] == 11
    assert len(small.captured_queries) == len(large.captured_queries)


def _post_json(url: str, token: str, payload: dict) -> int:
    request = urllib.request.Request(
        url,
        data=json.dumps(payload).encode(),
        headers={"Content-Type": "application/json", "Authorization": f"Token {token}"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.status


@pytest.mark.django_db(transaction=True)
def test_simultaneous_additions_over_http_all_count(live_server, user):
    collection = Collection.objects.create(owner=user, name="Race")
    card = make_card("Contended")
    token = Token.objects.create(user=user).key
    url = f"{live_server.url}/api/collections/{collection.pk}/add/"
    workers, per_worker = 4, 5
    barrier = threading.Barrier(workers)
    statuses: list[int] = []
    errors: list[BaseException] = []

    def add_many() -> None:
        try:
            barrier.wait()
            for _ in range(per_worker):
                statuses.append(_post_json(url, token, {"card": card.slug, "quantity": 1}))
        except BaseException as exc:  # surfaced below, so a failing thread fails the test
            errors.append(exc)

    threads = [threading.Thread(target=add_many) for _ in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert statuses == [200] * (workers * per_worker)
    entry = CollectionEntry.objects.get(collection=collection, card=card)
    assert entry.quantity == workers * per_worker
