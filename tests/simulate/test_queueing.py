"""How studies are queued: at most MAX_UNFINISHED queued or running per account and per address, however many
requests arrive at once; and one client's chunks take turns with every other client's, so that a small study
queued behind a large one of somebody else is not kept waiting for it (on the service's own thread and on a
real Celery worker through Redis)."""

import json
import threading
import urllib.error
import urllib.request
from collections import Counter

import pytest
from rest_framework.throttling import AnonRateThrottle, ScopedRateThrottle, UserRateThrottle

from simulate import batches
from simulate.models import Batch
from tests.factories import faction_army

REALMS = "/api/simulate/realms/batches/"
ROUNDS = 10


@pytest.fixture
def generous_rates(monkeypatch):
    """The request rates out of the way: what is counted here is the bound on unfinished studies."""
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"simulate": "1000/minute", "batches": "1000/minute"})
    monkeypatch.setattr(AnonRateThrottle, "THROTTLE_RATES", {"anon": "1000/minute"})
    monkeypatch.setattr(UserRateThrottle, "THROTTLE_RATES", {"user": "1000/minute"})


def fire(requests: list[urllib.request.Request], at_once: int = 8) -> list[tuple[int, dict]]:
    """The requests in waves of `at_once` (within the test server's queue of pending connections), each
    request of a wave on a thread of its own and the wave released at once; their statuses and bodies."""
    answers: list[tuple[int, dict]] = []
    lock = threading.Lock()

    def send(request, start):
        start.wait()
        try:
            with urllib.request.urlopen(request, timeout=120) as answer:
                status, body = answer.status, answer.read()
        except urllib.error.HTTPError as exc:
            status, body = exc.code, exc.read()
        with lock:
            answers.append((status, json.loads(body)))

    for first in range(0, len(requests), at_once):
        wave = requests[first:first + at_once]
        start = threading.Barrier(len(wave))
        threads = [threading.Thread(target=send, args=(request, start)) for request in wave]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    return answers


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
