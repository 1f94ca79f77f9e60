"""Anonymous matches, games with people and batches expire: `manage.py cleanup_simulations` deletes them (and ends
the games with people left idle), hourly on Celery beat."""

import io
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from cardsdb.celery import app
from simulate import seating, services, tasks
from simulate.models import Batch, FrozenPlan, Match, SeatedGame
from tests.factories import faction_army

pytestmark = pytest.mark.django_db


def match(owner=None, age_days: float = 0) -> Match:
    row = Match.objects.create(game="realms", owner=owner, inputs={}, agents={}, options={}, seed=1, reason="x",
                               rounds=1, schema_version=1)
    Match.objects.filter(pk=row.pk).update(created_at=timezone.now() - timedelta(days=age_days))
    return row


def batch(owner=None, age_days: float = 0, status=Batch.Status.DONE) -> Batch:
    row = Batch.objects.create(game="realms", owner=owner, inputs={}, count=1, seed=1, status=status)
    Batch.objects.filter(pk=row.pk).update(created_at=timezone.now() - timedelta(days=age_days))
    return row


@pytest.fixture
def rows(user):
    return {
        "old anonymous match": match(age_days=8), "new anonymous match": match(age_days=6),
        "old user match": match(owner=user, age_days=30),
        "old anonymous batch": batch(age_days=8), "old anonymous running batch": batch(age_days=9,
                                                                                      status=Batch.Status.RUNNING),
        "new anonymous batch": batch(age_days=1), "old user batch": batch(owner=user, age_days=30),
    }


def left(rows) -> set[str]:
    kept = set(Match.objects.values_list("pk", flat=True)) | set(Batch.objects.values_list("pk", flat=True))
    return {name for name, row in rows.items() if row.pk in kept}


def cleanup(*args) -> str:
    out = io.StringIO()
    call_command("cleanup_simulations", *args, stdout=out)
    return out.getvalue()


def test_anonymous_matches_and_batches_older_than_7_days_are_deleted(rows):
    assert cleanup() == ("Ended 0 game(s) with people left idle for 24 hours.\n"
                         "Deleted 1 anonymous match(es), 0 anonymous game(s) with people and 2 batch(es) older than 7 "
                         "day(s).\n")
    assert left(rows) == {"new anonymous match", "old user match", "new anonymous batch", "old user batch"}


def test_a_dry_run_deletes_nothing(rows):
    assert cleanup("--dry-run").startswith("Would delete 1 anonymous match(es), 0 anonymous game(s) with people and "
                                           "2 batch(es)")
    assert left(rows) == set(rows)


def test_the_expiry_is_a_setting_and_a_flag(rows, settings):
    settings.SIMULATE_ANONYMOUS_EXPIRY_DAYS = 10
    cleanup()
    assert left(rows) == set(rows)
    assert "Deleted 2 anonymous match(es), 0 anonymous game(s) with people and 2 batch(es) older than 5 day(s)" in \
        cleanup("--days", "5")
    assert left(rows) == {"old user match", "new anonymous batch", "old user batch"}
    with pytest.raises(CommandError, match="--days"):
        cleanup("--days", "0")


def test_the_expiry_setting_comes_from_the_environment_too(rows, monkeypatch):
    monkeypatch.setenv("SIMULATE_ANONYMOUS_EXPIRY_DAYS", "2")
    assert services.expiry_cutoff().date() == (timezone.now() - timedelta(days=2)).date()


def test_deletes_in_chunks(monkeypatch):
    monkeypatch.setattr(services, "DELETE_CHUNK", 2)
    for _ in range(5):
        match(age_days=8)
    assert services.delete_expired_simulations() == {"games": 0, "matches": 5, "batches": 0, "plans": 0}
    assert Match.objects.count() == 0


def test_celery_beat_runs_the_cleanup_hourly_and_resumes_batches():
    schedule = {entry["task"]: entry["schedule"] for entry in app.conf.beat_schedule.values()}
    assert schedule == {"simulate.cleanup_simulations": 3600, "simulate.resume_batches": 60}
    app.loader.import_default_modules()
    assert {"simulate.cleanup_simulations", "simulate.resume_batches", "simulate.run_chunk"} <= set(app.tasks)


def test_the_cleanup_task_deletes_what_expired(rows):
    assert tasks.cleanup_simulations.apply().get() == {"ended_games": 0, "games": 0, "matches": 1, "batches": 2,
                                                       "plans": 0}


def test_a_published_study_is_kept_and_plans_no_study_plays_any_more_go(rows):
    Batch.objects.filter(pk=rows["old anonymous batch"].pk).update(published_at=timezone.now())
    plans = {age: FrozenPlan.objects.create(digest=f"{age:064d}", game="realms", data={}) for age in (8, 6)}
    for age, plan in plans.items():
        FrozenPlan.objects.filter(pk=plan.pk).update(created_at=timezone.now() - timedelta(days=age))
    Batch.objects.filter(pk=rows["new anonymous batch"].pk).update(frozen=plans[8])  # still played
    assert services.delete_expired_simulations() == {"games": 0, "matches": 1, "batches": 1, "plans": 0}
    assert "old anonymous batch" in left(rows)
    Batch.objects.filter(pk=rows["new anonymous batch"].pk).delete()
    assert services.delete_expired_simulations()["plans"] == 1  # the 8-day-old plan; the 6-day-old one is kept
    assert list(FrozenPlan.objects.values_list("pk", flat=True)) == [plans[6].pk]


def test_games_with_people_left_idle_end_and_anonymous_ones_expire(catalogue, user):
    armies = {"a": {"slots": faction_army("arcane")}, "b": {"slots": faction_army("iron-kingdom")}}
    games = {name: seating.open_game(game="realms", inputs={"armies": armies}, seats={"a": "person", "b": "greedy"},
                                     seed=1, user=owner, client="address:127.0.0.1")[0]
             for name, owner in (("idle", None), ("fresh", None), ("old user", user))}
    idle_since = timezone.now() - timedelta(hours=seating.IDLE_HOURS + 1)
    SeatedGame.objects.filter(pk=games["idle"].pk).update(last_move_at=idle_since)
    SeatedGame.objects.filter(pk=games["old user"].pk).update(last_move_at=timezone.now() - timedelta(days=30))
    assert seating.open_games_of("address:127.0.0.1") == 3
    assert cleanup().startswith("Ended 2 game(s) with people left idle for 24 hours.")  # the user's too
    assert seating.open_games_of("address:127.0.0.1") == 1
    assert SeatedGame.objects.get(pk=games["idle"].pk).status == SeatedGame.Status.ENDED
    # Anonymous games idle past the expiry are deleted; the user's are kept.
    SeatedGame.objects.filter(pk=games["idle"].pk).update(last_move_at=timezone.now() - timedelta(days=8))
    assert "0 anonymous match(es), 1 anonymous game(s) with people" in cleanup()
    assert set(SeatedGame.objects.values_list("pk", flat=True)) == {games["fresh"].pk, games["old user"].pk}
