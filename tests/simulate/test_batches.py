"""Batches of matches: stored by the request, played in the background (the service's own thread without a
broker, a Celery worker on a real Redis broker)."""

import socket
import time

import pytest
from rest_framework.test import APIClient

from simulate.models import Batch, Match
from tests.conftest import assert_error_shape
from tests.factories import faction_army
from tests.simulate.test_legends_matches_api import DUEL

pytestmark = pytest.mark.django_db

REALMS = "/api/simulate/realms/batches/"
LEGENDS = "/api/simulate/legends/batches/"


@pytest.fixture
def armies(catalogue):
    return {"a": {"slots": faction_army("arcane")}, "b": {"slots": faction_army("iron-kingdom")}}


@pytest.fixture
def queue(local_runner, django_capture_on_commit_callbacks):
    """Post a batch, check that the request only stored it, play what it handed to the background, read it."""

    def post(client, url, payload):
        with django_capture_on_commit_callbacks(execute=True):
            response = client.post(url, payload, format="json")
        assert response.status_code == 202, response.content
        answered = response.json()
        assert (answered["status"], answered["played"]) == ("queued", 0)
        assert local_runner.run_all() >= 1
        return client.get(answered["url"]).json()

    return post


def test_a_realms_batch_runs_to_the_end_in_the_background(anon_client, armies, queue):
    body = queue(anon_client, REALMS, {"armies": armies, "agents": {"a": "greedy", "b": "random"}, "count": 30,
                                       "seed": 100})
    assert body["status"] == "done" and body["played"] == 30 and body["error"] == ""
    summary = body["summary"]
    assert summary["wins"]["a"] + summary["wins"]["b"] + summary["draws"] == 30
    assert sum(summary["reasons"].values()) == 30
    assert summary["rounds"]["min"] <= summary["rounds"]["mean"] <= summary["rounds"]["max"]
    assert Match.objects.count() == 0  # batches keep figures, not logs


def test_batch_matches_are_the_matches_of_seed_plus_index(anon_client, armies, queue):
    payload = {"armies": armies, "agents": {"a": "greedy", "b": "random"}, "seed": 40}
    body = queue(anon_client, REALMS, {**payload, "count": 6})
    singles = [anon_client.post("/api/simulate/realms/matches/", {**payload, "seed": 40 + i},
                                format="json").json() for i in range(6)]
    wins = {"a": 0, "b": 0}
    for match in singles:
        if match["winner"]:
            wins[match["winner"]] += 1
    assert body["summary"]["wins"] == wins
    assert body["summary"]["rounds"]["total"] == sum(m["rounds"] for m in singles)


def test_swapped_sides_are_counted_for_the_side_as_given(anon_client, armies, queue):
    body = queue(anon_client, REALMS, {"armies": armies, "agents": {"a": "greedy", "b": "random"}, "seed": 7,
                                       "count": 2, "swap_sides": True})
    plain = anon_client.post("/api/simulate/realms/matches/", {
        "armies": armies, "agents": {"a": "greedy", "b": "random"}, "seed": 7}, format="json").json()
    swapped = anon_client.post("/api/simulate/realms/matches/", {
        "armies": {"a": armies["b"], "b": armies["a"]}, "agents": {"a": "random", "b": "greedy"}, "seed": 8,
    }, format="json").json()
    expected = {"a": 0, "b": 0}
    if plain["winner"]:
        expected[plain["winner"]] += 1
    if swapped["winner"]:
        expected["b" if swapped["winner"] == "a" else "a"] += 1
    assert body["summary"]["wins"] == expected


def test_a_legends_batch(anon_client, catalogue, queue):
    body = queue(anon_client, LEGENDS, {"setup": DUEL, "agents": ["greedy", "random"], "count": 12,
                                        "swap_sides": True, "seed": 3})
    assert body["status"] == "done" and body["played"] == 12
    summary = body["summary"]
    assert len(summary["wins"]) == 2  # by team index, as a Legends winner is
    assert summary["wins"][0] + summary["wins"][1] + summary["draws"] == 12


@pytest.mark.parametrize("url, payload, field", [
    (REALMS, {"count": 0}, "count"),
    (REALMS, {"count": 100_001}, "count"),
    (REALMS, {"count": 20_001}, "count"),  # no broker: at most 20,000 on the service's own thread
    (REALMS, {"count": 201, "agents": {"a": "search", "b": "greedy"}}, "count"),
    (REALMS, {"count": 201, "agents": {"a": "greedy", "b": "ismcts"}}, "count"),  # every look-ahead agent
    (LEGENDS, {"count": 201, "setup": DUEL, "agents": ["ismcts-strong", "greedy"]}, "count"),
    (REALMS, {"count": 5, "agents": {"a": "genius", "b": "greedy"}}, "agents"),
    (REALMS, {"count": 5, "options": {"max_rounds": -1}}, "options.max_rounds"),
    (REALMS, {"count": 5, "swap_sides": "often"}, "swap_sides"),
    (LEGENDS, {"count": 5, "setup": DUEL, "agents": ["greedy"]}, "agents"),
    (LEGENDS, {"count": 5, "setup": DUEL, "agents": "genius"}, "agents"),
])
def test_bad_batches_are_refused_before_anything_is_queued(anon_client, armies, url, payload, field):
    if url == REALMS:
        payload = {"armies": armies, **payload}
    body = assert_error_shape(anon_client.post(url, payload, format="json"), 400, "invalid")
    assert any(key == field or key.startswith(field + ".") for key in body["fields"]), body
    assert Batch.objects.count() == 0


def test_an_illegal_army_is_refused_with_its_violations(anon_client, armies):
    armies["b"]["slots"] = armies["b"]["slots"][:5]
    response = anon_client.post(REALMS, {"armies": armies, "count": 3}, format="json")
    assert {v["code"] for v in assert_error_shape(response, 400, "rule_violations")["violations"]} >= {"army_size"}
    assert Batch.objects.count() == 0


def test_batches_of_a_user_are_private(user_client, other_client, armies, queue):
    body = queue(user_client, REALMS, {"armies": armies, "count": 2})
    assert_error_shape(other_client.get(body["url"]), 404, "not_found")
    assert user_client.get("/api/simulate/batches/").json()["count"] == 1
    assert other_client.get("/api/simulate/batches/").json()["count"] == 0


def redis_answers(host: str = "127.0.0.1", port: int = 6379) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


@pytest.mark.skipif(not redis_answers(), reason="no Redis broker at 127.0.0.1:6379")
@pytest.mark.django_db(transaction=True)
def test_a_batch_runs_on_a_real_celery_worker_through_redis(catalogue, settings, local_runner):
    from celery import Celery
    from celery.contrib.testing.worker import start_worker

    import simulate.tasks  # noqa: F401  (its tasks registered before the test app is made)
    from cardsdb.celery import app as service_app

    settings.CELERY_BROKER_URL = "redis://127.0.0.1:6379/15"
    client = APIClient()
    armies = {"a": {"slots": faction_army("shadow")}, "b": {"slots": faction_army("tribal")}}
    # A second app on a real Redis broker, made current: shared tasks (run_batch) then send through it.
    redis_app = Celery("cardsdb-test", broker="redis://127.0.0.1:6379/15", set_as_current=True)
    redis_app.conf.task_always_eager = False
    try:
        with start_worker(redis_app, pool="solo", perform_ping_check=False, shutdown_timeout=30):
            response = client.post(REALMS, {"armies": armies, "count": 40, "seed": 5}, format="json")
            assert response.status_code == 202, response.content
            deadline = time.monotonic() + 60
            body = response.json()
            while body["status"] not in ("done", "failed") and time.monotonic() < deadline:
                time.sleep(0.2)
                body = client.get(body["url"]).json()
    finally:
        service_app.set_current()
        redis_app.close()
    assert body["status"] == "done", body
    assert local_runner.jobs == []  # with a broker, nothing runs on the service's own thread
    assert body["played"] == 40
    assert body["summary"]["wins"]["a"] + body["summary"]["wins"]["b"] + body["summary"]["draws"] == 40


@pytest.mark.parametrize("url, body, field", [
    (REALMS, {"formation": {"collections": {"a": 1}}}, "formation.collections.a"),
    (REALMS, {"armies": {"a": {"army": 1}, "b": {"army": 2}}}, "armies.a.army"),
    (LEGENDS, {"setup": {"setup": 1}}, "setup.setup"),
])
def test_an_anonymous_batch_naming_saved_rows_is_400_not_500(anon_client, catalogue, url, body, field):
    body = assert_error_shape(anon_client.post(url, {**body, "count": 2}, format="json"), 400, "invalid")
    assert field in body["fields"]
    assert Batch.objects.count() == 0
