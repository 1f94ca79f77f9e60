"""Collections under concurrency: requests fired in parallel at a live server (each on its own connection),
on SQLite and on PostgreSQL (DATABASE_URL). The 1,000,000-copy bound holds however many additions race
(a CHECK constraint and one conditional update), and a collection deleted while additions are in flight
answers cleanly on both sides."""

from __future__ import annotations

import io
import json
import threading
import urllib.error
import urllib.request

import pytest
from django.core.management import call_command
from django.db import IntegrityError, transaction
from rest_framework.authtoken.models import Token

from cardsdb.models import MAX_QUANTITY, Collection, CollectionEntry
from tests.factories import make_card


def request_json(method: str, url: str, token: str, payload: dict | None = None) -> tuple[int, dict | None]:
    """(status, body) of one request; error statuses are answers too."""
    data = json.dumps(payload).encode() if payload is not None else None
    request = urllib.request.Request(url, data=data, method=method, headers={
        "Content-Type": "application/json", "Authorization": f"Token {token}"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            body = response.read()
            return response.status, json.loads(body) if body else None
    except urllib.error.HTTPError as exc:
        body = exc.read()
        return exc.code, json.loads(body) if body else None


def in_parallel(jobs: list) -> list:
    """Run every job on a thread of its own, all released at once; their results in order (an exception in a
    job fails the test)."""
    barrier = threading.Barrier(len(jobs))
    results: list = [None] * len(jobs)
    errors: list[BaseException] = []

    def run(index: int, job) -> None:
        try:
            barrier.wait()
            results[index] = job()
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i, job)) for i, job in enumerate(jobs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    return results


@pytest.mark.django_db(transaction=True)
def test_simultaneous_additions_of_a_card_not_yet_held_never_pass_the_bound(live_server, user):
    collection = Collection.objects.create(owner=user, name="Race")
    card = make_card("Contended")
    token = Token.objects.create(user=user).key
    url = f"{live_server.url}/api/collections/{collection.pk}/add/"
    adds = 6
    answers = in_parallel([lambda: request_json("POST", url, token, {"card": card.slug, "quantity": 600_000})] * adds)

    statuses = sorted(status for status, _ in answers)
    assert statuses == [200] + [400] * (adds - 1), answers
    for status, body in answers:
        if status == 400:
            assert body["code"] == "invalid" and list(body["fields"]) == ["quantity"]
    assert CollectionEntry.objects.get(collection=collection, card=card).quantity == 600_000


@pytest.mark.django_db(transaction=True)
def test_simultaneous_additions_that_fit_all_count_up_to_the_bound(live_server, user):
    collection = Collection.objects.create(owner=user, name="Race")
    card = make_card("Contended")
    token = Token.objects.create(user=user).key
    url = f"{live_server.url}/api/collections/{collection.pk}/add/"
    answers = in_parallel([lambda: request_json("POST", url, token, {"card": card.slug, "quantity": 250_000})] * 6)
    assert sorted(status for status, _ in answers) == [200] * 4 + [400] * 2
    assert CollectionEntry.objects.get(collection=collection, card=card).quantity == MAX_QUANTITY


@pytest.mark.django_db
def test_the_database_holds_no_more_than_the_bound(user):
    collection = Collection.objects.create(owner=user, name="Binder")
    entry = CollectionEntry.objects.create(collection=collection, card=make_card("Bounded"), quantity=MAX_QUANTITY)
    with pytest.raises(IntegrityError), transaction.atomic():
        CollectionEntry.objects.filter(pk=entry.pk).update(quantity=MAX_QUANTITY + 1)


@pytest.mark.django_db(transaction=True)
def test_deleting_a_collection_while_additions_are_in_flight_answers_cleanly_on_both_sides(live_server, user):
    cards = [make_card(f"Flight {i}") for i in range(6)]
    token = Token.objects.create(user=user).key
    for round_ in range(3):
        collection = Collection.objects.create(owner=user, name=f"Doomed {round_}")
        base = f"{live_server.url}/api/collections/{collection.pk}/"

        def add(card, url=f"{base}add/"):
            return lambda: [request_json("POST", url, token, {"card": card.slug}) for _ in range(3)]

        def delete(url=base):
            return [request_json("DELETE", url, token)]

        answers = in_parallel([add(card) for card in cards] + [delete])
        *additions, (deleted,) = answers
        assert deleted[0] == 204, deleted
        for status, body in (answer for adds in additions for answer in adds):
            assert status in (200, 404), (status, body)
            if status == 404:
                assert body["code"] == "not_found" and body["message"]
        assert not Collection.objects.filter(pk=collection.pk).exists()
        assert not CollectionEntry.objects.filter(collection_id=collection.pk).exists()


@pytest.mark.django_db(transaction=True)
def test_two_deletes_of_one_collection_answer_204_and_404(live_server, user):
    collection = Collection.objects.create(owner=user, name="Twice")
    CollectionEntry.objects.create(collection=collection, card=make_card("Held"), quantity=3)
    token = Token.objects.create(user=user).key
    url = f"{live_server.url}/api/collections/{collection.pk}/"
    answers = in_parallel([lambda: request_json("DELETE", url, token)] * 2)
    assert sorted(status for status, _ in answers) == [204, 404], answers


@pytest.mark.django_db(transaction=True)
def test_the_migration_brings_entries_past_the_bound_back_to_it_and_reports_them(user, capsys):
    collection = Collection.objects.create(owner=user, name="Hoard")
    card = make_card("Hoarded")
    entry = CollectionEntry.objects.create(collection=collection, card=card, quantity=5)
    call_command("migrate", "cardsdb", "0004", verbosity=0)
    try:
        CollectionEntry.objects.filter(pk=entry.pk).update(quantity=3_600_000)  # as racing additions stored it
    finally:  # every app forward: the card history of both games depends on cardsdb's later migrations
        call_command("migrate", verbosity=0, stdout=io.StringIO())
    entry.refresh_from_db()
    assert entry.quantity == MAX_QUANTITY
    assert (f"Collection {collection.pk} ('Hoard' of alice) held 3,600,000 copies of {card.slug!r}; it now holds "
            "1,000,000") in capsys.readouterr().out
