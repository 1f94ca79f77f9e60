"""How studies are queued: at most MAX_UNFINISHED queued or running per account and per address, however many
requests arrive at once; and one client's chunks take turns with every other client's, so that a small study
queued behind a large one of somebody else is not kept waiting for it (on the service's own thread and on a
real Celery worker through Redis)."""

import json
import socket
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections import Counter

import pytest
from rest_framework.test import APIClient
from rest_framework.throttling import AnonRateThrottle, ScopedRateThrottle, UserRateThrottle

from simulate import batches, studies
from simulate.models import Batch, BatchChunk
from tests.conftest import fire_in_waves
from tests.factories import faction_army

REALMS = "/api/simulate/realms/batches/"
ROUNDS = 10


@pytest.fixture
def generous_rates(monkeypatch):
    """The request rates out of the way: what is counted here is the bound on unfinished studies."""
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"simulate": "1000/minute", "batches": "1000/minute"})
    monkeypatch.setattr(AnonRateThrottle, "THROTTLE_RATES", {"anon": "1000/minute"})
    monkeypatch.setattr(UserRateThrottle, "THROTTLE_RATES", {"user": "1000/minute"})


def fire(requests: list[urllib.request.Request]) -> list[tuple[int, dict]]:
    """The requests sent in parallel waves; their statuses and bodies."""
    return [(status, json.loads(body)) for status, body in fire_in_waves(requests)]


def study_request(url: str, body: dict) -> urllib.request.Request:
    return urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})


# ------------------------------------------------------------------------------------- the bound


@pytest.mark.django_db(transaction=True)
def test_parallel_studies_of_one_client_stop_at_the_bound(catalogue, live_server, generous_rates, local_runner):
    armies = {"a": {"slots": faction_army("arcane")}, "b": {"slots": faction_army("iron-kingdom")}}
    body = {"armies": armies, "count": 2, "seed": 1}
    for _ in range(ROUNDS):  # each round a new race: studies of the round before are cancelled first
        answers = fire([study_request(f"{live_server.url}{REALMS}", body)
                        for _ in range(2 * batches.MAX_UNFINISHED)])
        assert Counter(status for status, _ in answers) == {202: batches.MAX_UNFINISHED,
                                                            429: batches.MAX_UNFINISHED}
        for status, answer in answers:
            if status == 429:
                assert answer["code"] == "too_many_batches", answer
                assert f"{batches.MAX_UNFINISHED} batches queued or running" in answer["message"]
        assert Batch.objects.filter(status=Batch.Status.QUEUED).count() == batches.MAX_UNFINISHED
        for status, answer in answers:
            if status == 202:
                cancel = urllib.request.Request(f"{live_server.url}/api/simulate/batches/{answer['id']}/cancel/",
                                                method="POST")
                with urllib.request.urlopen(cancel, timeout=60) as cancelled:
                    assert json.loads(cancelled.read())["status"] == "cancelled"


# ------------------------------------------------------------------------------------- taking turns

LARGE, SMALL = 40, 4  # matches: 20 chunks and 2 chunks of 2 matches


@pytest.fixture
def armies(catalogue):
    return {"a": {"slots": faction_army("arcane")}, "b": {"slots": faction_army("iron-kingdom")}}


@pytest.fixture
def chunks_of_two(monkeypatch):
    monkeypatch.setattr(studies, "CHUNK_MATCHES", 2)


def client_at(address: str) -> APIClient:
    return APIClient(REMOTE_ADDR=address)


def queue_study(client: APIClient, armies: dict, count: int, seed: int) -> dict:
    response = client.post(REALMS, {"armies": armies, "count": count, "seed": seed}, format="json")
    assert response.status_code == 202, response.content
    return response.json()


def turns() -> list[str]:
    """Whose chunk was stored, chunk after chunk, in the order they were stored."""
    return list(BatchChunk.objects.order_by("pk").values_list("batch__client", flat=True))


@pytest.mark.django_db
def test_on_the_service_thread_clients_take_turns(armies, chunks_of_two, local_runner,
                                                  django_capture_on_commit_callbacks):
    first, second = client_at("203.0.113.1"), client_at("203.0.113.2")
    with django_capture_on_commit_callbacks(execute=True):
        large = [queue_study(first, armies, LARGE, seed) for seed in (1, 2)]
        small = queue_study(second, armies, SMALL, 3)
    local_runner.run_all()
    played = {row.pk: row for row in Batch.objects.all()}
    assert [played[uuid.UUID(b["id"])].status for b in (*large, small)] == ["done"] * 3
    assert [played[uuid.UUID(b["id"])].played for b in (*large, small)] == [LARGE, LARGE, SMALL]
    stored = turns()
    # The second client's two chunks come second and fourth: its first is played after one chunk of the
    # first client, though that client queued 40 chunks before it, in two studies.
    assert stored[:4] == ["address:203.0.113.1", "address:203.0.113.2"] * 2, stored
    assert stored.count("address:203.0.113.1") == 2 * LARGE // 2


def redis_answers() -> bool:
    try:
        with socket.create_connection(("127.0.0.1", 6379), timeout=1):
            return True
    except OSError:
        return False


@pytest.fixture
def broker_url():
    """A Redis database held for this test (a lock key in it), emptied before and after."""
    import redis

    token = uuid.uuid4().hex
    for number in (9, 8, 7, 6):
        client = redis.Redis(host="127.0.0.1", port=6379, db=number)
        if client.set("cardsdb-queue-test-lock", token, nx=True, ex=600):
            break
        client.close()
    else:
        pytest.fail("Every Redis database this test may use is held by another run of it.")
    for key in client.scan_iter():
        if key != b"cardsdb-queue-test-lock":
            client.delete(key)
    yield f"redis://127.0.0.1:6379/{number}"
    client.flushdb()
    client.close()


@pytest.mark.skipif(not redis_answers(), reason="no Redis broker at 127.0.0.1:6379")
@pytest.mark.django_db(transaction=True)
def test_on_a_real_celery_worker_clients_take_turns(armies, chunks_of_two, settings, broker_url, local_runner):
    from celery import Celery
    from celery.contrib.testing.worker import start_worker

    import simulate.tasks  # noqa: F401  (its tasks registered before the test app is made)
    from cardsdb.celery import app as service_app

    settings.CELERY_BROKER_URL = broker_url
    redis_app = Celery("cardsdb-queue-test", broker=broker_url, set_as_current=True)
    redis_app.conf.task_always_eager = False
    redis_app.conf.worker_prefetch_multiplier = 1
    try:
        # Both queued before the worker starts: the first client's 20 chunks are in the broker first.
        large = queue_study(client_at("203.0.113.1"), armies, LARGE, 1)
        small = queue_study(client_at("203.0.113.2"), armies, SMALL, 2)
        with start_worker(redis_app, pool="solo", perform_ping_check=False, shutdown_timeout=30):
            deadline = time.monotonic() + 120
            while Batch.objects.filter(status__in=batches.UNFINISHED).exists() and time.monotonic() < deadline:
                time.sleep(0.2)
    finally:
        service_app.set_current()
        redis_app.close()
    assert local_runner.jobs == []  # with a broker, nothing runs on the service's own thread
    played = {str(row.pk): (row.status, row.played) for row in Batch.objects.all()}
    assert played == {large["id"]: ("done", LARGE), small["id"]: ("done", SMALL)}
    stored = turns()
    assert stored[:4] == ["address:203.0.113.1", "address:203.0.113.2"] * 2, stored
    assert sorted(BatchChunk.objects.filter(batch_id=large["id"]).values_list("index", flat=True)) == list(range(20))


@pytest.mark.django_db(transaction=True)
def test_runners_taking_chunks_at_once_never_take_the_same_one(armies, chunks_of_two):
    from django.db import connection

    studies_queued = [batches.create_batch(game="realms", inputs={"armies": armies}, count=LARGE, seed=seed,
                                           client=f"address:203.0.113.{seed}") for seed in (1, 2, 3)]
    taken: list[tuple] = []
    errors: list[Exception] = []
    lock = threading.Lock()
    start = threading.Barrier(8)

    def runner(name: str) -> None:
        start.wait()
        try:
            while (chunk := batches.take_chunk(runner_name=name)) is not None:
                with lock:
                    taken.append(chunk)
        except Exception as exc:  # a deadlock or a chunk claimed twice
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=runner, args=(f"runner-{n}",)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(taken) == len(set(taken)) == 3 * LARGE // 2
    assert set(taken) == {(study.pk, index) for study in studies_queued for index in range(study.chunks)}
