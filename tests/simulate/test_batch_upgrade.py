"""Batches stored before studies keep what they measured across the upgrade: finished ones their summary
(with the win rate and interval it gives), unfinished ones are played again in chunks from the start."""

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from simulate import batches
from simulate.engine.stats import wilson
from simulate.models import Batch
from tests.factories import faction_army

BEFORE, AFTER = ("simulate", "0003_batch_runner_and_indexes"), ("simulate", "0004_studies_in_chunks")


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_batches_stored_before_studies_are_kept_and_resumed():
    call_command("load_official", verbosity=0)
    armies = {"a": {"slots": faction_army("arcane")}, "b": {"slots": faction_army("tribal")}}
    executor = MigrationExecutor(connection)
    executor.migrate([BEFORE])
    old = executor.loader.project_state([BEFORE]).apps.get_model("simulate", "Batch")
    done = old.objects.create(game="realms", inputs={"armies": armies}, count=40, seed=1, status="done", played=40,
                              summary={"wins": {"a": 25, "b": 13}, "draws": 2, "reasons": {}, "rounds": {"total": 1}})
    halfway = old.objects.create(game="realms", inputs={"armies": armies}, count=12, seed=3, status="running",
                                 played=5, summary={"wins": {"a": 3, "b": 2}, "draws": 0}, runner="gone:1:x")
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate([AFTER])
    call_command("migrate", verbosity=0)

    finished = Batch.objects.get(pk=done.pk)
    low, high = wilson(25, 40)
    assert finished.summary["wins"] == {"a": 25, "b": 13} and finished.status == Batch.Status.DONE
    assert (finished.results["wins"], finished.results["losses"], finished.results["draws"]) == (25, 13, 2)
    assert finished.results["win_rate_ci"] == {"low": round(low, 6), "high": round(high, 6)}
    resumed = Batch.objects.get(pk=halfway.pk)
    assert (resumed.status, resumed.played, resumed.per_pairing, resumed.chunks) == (Batch.Status.QUEUED, 0, 12, 1)
    played = batches.play_here(resumed.pk)
    fresh = batches.play_here(batches.create_batch(game="realms", inputs={"armies": armies}, count=12, seed=3).pk)
    assert (played.status, played.played, played.results) == (Batch.Status.DONE, 12, fresh.results)
