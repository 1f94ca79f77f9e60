"""Batches never run inside a request: without a broker they play on a thread of the service, and a batch
whose runner died (a restart) is taken up again from its stored chunks."""

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from simulate import background, batches, studies
from simulate.models import Batch
from tests.factories import faction_army

pytestmark = pytest.mark.django_db

REALMS = "/api/simulate/realms/batches/"


@pytest.fixture
def armies(catalogue):
    return {"a": {"slots": faction_army("arcane")}, "b": {"slots": faction_army("iron-kingdom")}}


def figures(batch: Batch) -> dict:
    return {"status": batch.status, "played": batch.played, "results": batch.results, "summary": batch.summary}


class Killed(BaseException):
    """What a process killed mid-batch looks like from inside: nothing after it runs."""


@pytest.fixture
def small_chunks(monkeypatch):
    """Chunks of 4 matches, so that a dozen matches make three chunks."""
    monkeypatch.setattr(studies, "CHUNK_MATCHES", 4)


def kill_at_chunk(monkeypatch, index: int) -> list[int]:
    """The next batch played stops dead when it starts chunk `index`, as if its process were killed; the
    chunks started are recorded."""
    play_chunk = studies.play_chunk
    started: list[int] = []

    def dying(study, seed, start, stop, cancelled=None):
        started.append(start)
        if start == index * 4:
            raise Killed
        return play_chunk(study, seed, start, stop, cancelled)

    monkeypatch.setattr(studies, "play_chunk", dying)
    return started


def test_the_request_answers_202_before_the_batch_is_played(anon_client, armies, local_runner,
                                                            django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = anon_client.post(REALMS, {"armies": armies, "count": 20, "seed": 1}, format="json")
    assert response.status_code == 202
    assert (response.json()["status"], response.json()["played"]) == ("queued", 0)
    batch = Batch.objects.get()
    assert (batch.status, batch.played, batch.results) == (Batch.Status.QUEUED, 0, {})
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
    assert body["results"]["wins"] + body["results"]["draws"] + body["results"]["losses"] == 25


def test_a_failing_job_leaves_the_thread_serving_the_next(monkeypatch):
    runner = background.LocalRunner()
    done = []
    runner.submit(lambda: 1 / 0)
    runner.submit(lambda: done.append(True))
    assert runner.wait_idle(timeout=30) and done == [True]


def test_an_interrupted_batch_resumes_from_its_stored_chunks_on_the_next_request(anon_client, armies, monkeypatch,
                                                                               local_runner, small_chunks):
    inputs = {"armies": armies, "agents": {"a": "greedy", "b": "random"}}
    whole = batches.play_here(batches.create_batch(game="realms", inputs=inputs, count=12, seed=9).pk)
    batch = batches.create_batch(game="realms", inputs=inputs, count=12, seed=9)
    assert batch.chunks == 3
    kill_at_chunk(monkeypatch, 2)
    with pytest.raises(Killed):
        batches.play_here(batch.pk)
    monkeypatch.setattr(studies, "play_chunk", whole_play_chunk)
    monkeypatch.setattr(background, "local_runner", local_runner)
    monkeypatch.setattr(background, "_resumed_at", None)
    batch.refresh_from_db()
    assert (batch.status, batch.played, batch.chunk_rows.count()) == (Batch.Status.RUNNING, 8, 2)
    assert batch.results["played"] == 8  # the figures of the chunks stored so far

    # Its runner beat a moment ago: nobody takes the batch over.
    assert batches.requeue_stale_batches() == []
    assert batches.play_here(batch.pk).played == 8
    # The process died long ago: the next simulate request, whatever it is, has it resumed.
    Batch.objects.filter(pk=batch.pk).update(heartbeat_at=timezone.now() - timedelta(hours=1),
                                             updated_at=timezone.now() - timedelta(hours=1))
    started = kill_at_chunk(monkeypatch, 99)
    assert anon_client.get(f"/api/simulate/batches/{batch.pk}/").status_code == 200
    assert Batch.objects.get(pk=batch.pk).status == Batch.Status.RUNNING  # not inside the request
    local_runner.run_all()
    batch.refresh_from_db()
    assert started == [8]  # the two stored chunks are not played again
    assert figures(batch) == figures(whole)


whole_play_chunk = studies.play_chunk


def test_a_chunk_stored_twice_counts_once(armies, small_chunks):
    batch = batches.create_batch(game="realms", inputs={"armies": armies}, count=8, seed=3)
    study = studies.study_of(batch)
    tally = studies.play_chunk(study, batch.seed, 0, 4)
    assert studies.store_chunk(batch.pk, 0, tally)
    assert not studies.store_chunk(batch.pk, 0, tally)  # a redelivered chunk
    batch.refresh_from_db()
    assert (batch.played, batch.chunk_rows.count(), batch.results["played"]) == (4, 1, 4)


def test_a_queued_batch_lost_with_its_process_is_played(armies, local_runner):
    batch = batches.create_batch(game="realms", inputs={"armies": armies}, count=3, seed=2)
    assert batches.requeue_stale_batches() == []  # just queued: its runner may be about to start
    Batch.objects.filter(pk=batch.pk).update(updated_at=timezone.now() - timedelta(hours=1))
    assert background.resume_stale_batches() == 1
    local_runner.run_all()
    assert Batch.objects.get(pk=batch.pk).status == Batch.Status.DONE


def test_a_chunk_another_runner_holds_is_not_played_twice(armies, small_chunks):
    batch = batches.create_batch(game="realms", inputs={"armies": armies}, count=12, seed=4)
    held = batches.take_chunk(runner_name="other-runner")
    assert held == (batch.pk, 0)
    played = batches.play_here(batch.pk, runner_name="this-runner")
    assert (played.status, played.played) == (Batch.Status.RUNNING, 8)  # chunks 1 and 2, not the one held
    assert batches.take_chunk(runner_name="third-runner") is None
    assert batches.run_chunk(*held, runner_name="other-runner")
    batch.refresh_from_db()
    assert (batch.status, batch.played) == (Batch.Status.DONE, 12)
    assert dict(batch.chunk_rows.values_list("index", "runner")) == {0: "other-runner", 1: "this-runner",
                                                                      2: "this-runner"}


def test_a_finished_batch_is_never_played_again(armies):
    batch = batches.create_batch(game="realms", inputs={"armies": armies}, count=2, seed=4)
    done = batches.play_here(batch.pk)
    assert done.status == Batch.Status.DONE
    assert batches.take_chunk(runner_name="late-runner") is None
    Batch.objects.filter(pk=batch.pk).update(updated_at=timezone.now() - timedelta(days=1))
    assert batches.requeue_stale_batches() == []


def test_a_cancelled_batch_plays_no_more_chunks(anon_client, armies, small_chunks, local_runner,
                                                django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = anon_client.post(REALMS, {"armies": armies, "count": 12, "seed": 5}, format="json")
    batch = Batch.objects.get()
    batches.run_chunk(batch.pk, 0)
    answer = anon_client.post(f"/api/simulate/batches/{batch.pk}/cancel/")
    assert answer.status_code == 200
    assert (answer.json()["status"], answer.json()["played"]) == ("cancelled", 4)
    local_runner.run_all()
    assert (Batch.objects.get().status, Batch.objects.get().played) == (Batch.Status.CANCELLED, 4)
    assert response.status_code == 202


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
    monkeypatch.setattr(studies, "CHUNK_MATCHES", 1)
    monkeypatch.setattr(tasks.play_next_chunk, "delay", lambda: sent.append("chunk"))
    monkeypatch.setattr(tasks.resume_batches, "delay", lambda: sent.append("resume"))
    batch = batches.create_batch(game="realms", inputs={"armies": armies}, count=2, seed=1)
    background.queue_batch(batch.pk)
    background.resume_soon()
    assert sent == ["chunk", "chunk", "resume"] and local_runner.jobs == []  # a message per chunk
    # A worker took chunk 0 and was killed: its message, delivered again, plays the same chunk.
    assert batches.take_chunk(runner_name="killed", task="task-1") == (batch.pk, 0)
    assert batches.take_chunk(runner_name="other", task="task-1") == (batch.pk, 0)
    # A batch queued on the broker waits in its queue: handed out again only after a long wait, the chunk
    # held by a worker that never came back too.
    Batch.objects.filter(pk=batch.pk).update(updated_at=timezone.now() - timedelta(minutes=5),
                                             heartbeat_at=timezone.now() - timedelta(minutes=5))
    assert background.resume_stale_batches() == 0
    Batch.objects.filter(pk=batch.pk).update(updated_at=timezone.now() - batches.BROKER_QUEUED_FOR * 2,
                                             heartbeat_at=timezone.now() - batches.BROKER_QUEUED_FOR * 2)
    assert background.resume_stale_batches() == 1 and sent[3:] == ["chunk", "chunk"]
    assert batches.take_chunk(runner_name="next", task="task-2") == (batch.pk, 0)


def test_a_broker_that_does_not_answer_leaves_the_batch_queued(anon_client, armies, settings, monkeypatch,
                                                               django_capture_on_commit_callbacks):
    from simulate import tasks

    settings.CELERY_BROKER_URL = "redis://broker.invalid:6379/0"

    def refuse(*args, **kwargs):
        raise ConnectionError("no broker")

    monkeypatch.setattr(tasks.play_next_chunk, "delay", refuse)
    monkeypatch.setattr(tasks.resume_batches, "delay", refuse)
    with django_capture_on_commit_callbacks(execute=True):
        response = anon_client.post(REALMS, {"armies": armies, "count": 2}, format="json")
    assert response.status_code == 202
    assert Batch.objects.get().status == Batch.Status.QUEUED
