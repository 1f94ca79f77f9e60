"""Batches never run inside a request: without a broker they play on a thread of the service, and a batch
whose runner died (a restart) is taken up again from its saved progress."""

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from simulate import background, services
from simulate.models import Batch
from tests.factories import faction_army

pytestmark = pytest.mark.django_db

REALMS = "/api/simulate/realms/batches/"


@pytest.fixture
def armies(catalogue):
    return {"a": {"slots": faction_army("arcane")}, "b": {"slots": faction_army("iron-kingdom")}}


def figures(batch: Batch) -> dict:
    summary = dict(batch.summary)
    return {"status": batch.status, "played": batch.played, "wins": summary["wins"], "draws": summary["draws"],
            "reasons": summary["reasons"], "rounds": summary["rounds"]}


class Killed(BaseException):
    """What a process killed mid-batch looks like from inside: nothing after it runs."""


def kill_at(monkeypatch, index: int) -> None:
    """The next batch played stops dead before its match `index`, as if its process were killed."""
    player = services.batch_player

    def dying_player(batch):
        play_one = player(batch)

        def play(i):
            if i == index:
                raise Killed
            return play_one(i)

        return play

    monkeypatch.setattr(services, "batch_player", dying_player)


def test_the_request_answers_202_before_the_batch_is_played(anon_client, armies, local_runner,
                                                            django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = anon_client.post(REALMS, {"armies": armies, "count": 20, "seed": 1}, format="json")
    assert response.status_code == 202
    assert (response.json()["status"], response.json()["played"]) == ("queued", 0)
    batch = Batch.objects.get()
    assert (batch.status, batch.played, batch.summary) == (Batch.Status.QUEUED, 0, {})
    local_runner.run_all()
    assert Batch.objects.get().status == Batch.Status.DONE


@pytest.mark.django_db(transaction=True)
def test_without_a_broker_a_batch_plays_on_a_thread_of_the_service(catalogue, monkeypatch):
    runner = background.LocalRunner()
    monkeypatch.setattr(background, "local_runner", runner)
    client = APIClient()
    armies = {"a": {"slots": faction_army("shadow")}, "b": {"slots": faction_army("tribal")}}
    response = client.post(REALMS, {"armies": armies, "count": 25, "seed": 3}, format="json")
    assert response.status_code == 202 and response.json()["status"] == "queued"
    assert runner.wait_idle(timeout=120), "the background thread did not finish in two minutes"
    body = client.get(response.json()["url"]).json()
    assert (body["status"], body["played"]) == ("done", 25)
    assert sum(body["summary"]["wins"].values()) + body["summary"]["draws"] == 25


def test_a_failing_job_leaves_the_thread_serving_the_next(monkeypatch):
    runner = background.LocalRunner()
    done = []
    runner.submit(lambda: 1 / 0)
    runner.submit(lambda: done.append(True))
    assert runner.wait_idle(timeout=30) and done == [True]


def test_an_interrupted_batch_resumes_from_its_progress_on_the_next_request(anon_client, armies, monkeypatch,
                                                                          local_runner):
    inputs = {"armies": armies, "agents": {"a": "greedy", "b": "random"}}
    whole = services.run_batch(batch_id=services.create_batch(game="realms", inputs=inputs, count=12, seed=9).pk)
    batch = services.create_batch(game="realms", inputs=inputs, count=12, seed=9)
    kill_at(monkeypatch, 7)
    with pytest.raises(Killed):
        services.run_batch(batch_id=batch.pk)
    monkeypatch.undo()  # the next runner plays normally (and the recording runner is put back below)
    monkeypatch.setattr(background, "local_runner", local_runner)
    monkeypatch.setattr(background, "_resumed_at", None)
    batch.refresh_from_db()
    assert (batch.status, batch.played) == (Batch.Status.RUNNING, 7)

    # Its runner beat a moment ago: nobody takes the batch over.
    assert services.requeue_stale_batches() == []
    assert services.run_batch(batch_id=batch.pk).played == 7
    # The process died long ago: the next simulate request, whatever it is, has it resumed.
    Batch.objects.filter(pk=batch.pk).update(heartbeat_at=timezone.now() - timedelta(hours=1))
    played = []
    original = services.batch_player

    def counting_player(b):
        play_one = original(b)
        return lambda i: played.append(i) or play_one(i)

    monkeypatch.setattr(services, "batch_player", counting_player)
    assert anon_client.get(f"/api/simulate/batches/{batch.pk}/").status_code == 200
    assert Batch.objects.get(pk=batch.pk).status == Batch.Status.RUNNING  # not inside the request
    local_runner.run_all()
    batch.refresh_from_db()
    assert played == list(range(7, 12))  # the seven saved matches are not played again
    assert figures(batch) == figures(whole)


def test_a_queued_batch_lost_with_its_process_is_played(armies, local_runner):
    batch = services.create_batch(game="realms", inputs={"armies": armies}, count=3, seed=2)
    assert services.requeue_stale_batches() == []  # just queued: its runner may be about to start
    Batch.objects.filter(pk=batch.pk).update(updated_at=timezone.now() - timedelta(hours=1))
    assert background.resume_stale_batches() == 1
    local_runner.run_all()
    assert Batch.objects.get(pk=batch.pk).status == Batch.Status.DONE


def test_a_runner_whose_batch_was_taken_over_stops(armies, monkeypatch):
    batch = services.create_batch(game="realms", inputs={"armies": armies}, count=10, seed=4)
    original = services.batch_player

    def taken_over_at_4(b):
        play_one = original(b)

        def play(i):
            if i == 4:  # meanwhile another runner took the batch (this one looked dead)
                Batch.objects.filter(pk=b.pk).update(runner="other-runner")
            return play_one(i)

        return play

    monkeypatch.setattr(services, "batch_player", taken_over_at_4)
    services.run_batch(batch_id=batch.pk, runner_name="first-runner")
    batch.refresh_from_db()
    assert (batch.status, batch.runner, batch.played) == (Batch.Status.RUNNING, "other-runner", 4)


def test_a_finished_batch_is_never_played_again(armies):
    batch = services.create_batch(game="realms", inputs={"armies": armies}, count=2, seed=4)
    done = services.run_batch(batch_id=batch.pk)
    assert done.status == Batch.Status.DONE
    assert not services.claim_batch(batch.pk, "late-runner")
    Batch.objects.filter(pk=batch.pk).update(updated_at=timezone.now() - timedelta(days=1))
    assert services.requeue_stale_batches() == []


def test_resuming_is_looked_for_at_most_once_a_minute_per_process(anon_client, local_runner, monkeypatch):
    for _ in range(3):
        anon_client.get("/api/simulate/batches/")
    assert len(local_runner.jobs) == 1
    monkeypatch.setattr(background, "_resumed_at", background._resumed_at - background.RESUME_EVERY_SECONDS)
    anon_client.get("/api/simulate/matches/")
    assert len(local_runner.jobs) == 2


def test_with_a_broker_batches_and_resuming_go_to_the_workers(armies, settings, monkeypatch, local_runner):
    from simulate import tasks

    settings.CELERY_BROKER_URL = "redis://broker.invalid:6379/0"
    sent = []
    monkeypatch.setattr(tasks.run_batch, "delay", lambda batch_id: sent.append(("run", batch_id)))
    monkeypatch.setattr(tasks.resume_batches, "delay", lambda: sent.append(("resume",)))
    batch = services.create_batch(game="realms", inputs={"armies": armies}, count=2, seed=1)
    background.queue_batch(batch.pk)
    background.resume_soon()
    assert sent == [("run", str(batch.pk)), ("resume",)] and local_runner.jobs == []
    # A batch queued on the broker waits in its queue: handed out again only after a long wait.
    Batch.objects.filter(pk=batch.pk).update(updated_at=timezone.now() - timedelta(minutes=5))
    assert background.resume_stale_batches() == 0
    Batch.objects.filter(pk=batch.pk).update(updated_at=timezone.now() - services.BROKER_QUEUED_FOR * 2)
    assert background.resume_stale_batches() == 1 and sent[-1] == ("run", str(batch.pk))


def test_a_broker_that_does_not_answer_leaves_the_batch_queued(anon_client, armies, settings, monkeypatch,
                                                               django_capture_on_commit_callbacks):
    from simulate import tasks

    settings.CELERY_BROKER_URL = "redis://broker.invalid:6379/0"

    def refuse(*args, **kwargs):
        raise ConnectionError("no broker")

    monkeypatch.setattr(tasks.run_batch, "delay", refuse)
    monkeypatch.setattr(tasks.resume_batches, "delay", refuse)
    with django_capture_on_commit_callbacks(execute=True):
        response = anon_client.post(REALMS, {"armies": armies, "count": 2}, format="json")
    assert response.status_code == 202
    assert Batch.objects.get().status == Batch.Status.QUEUED
