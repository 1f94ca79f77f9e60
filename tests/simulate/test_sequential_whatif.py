"""A what-if that stops as soon as its paired difference is decided: how many games it took, what a fixed count
would have needed, and figures that do not depend on how its chunks were spread."""

import random

import pytest

from realms.models import Character
from simulate import batches, studies
from simulate.engine.sequential import Design, verdict
from simulate.models import Batch, BatchChunk
from tests.conftest import assert_error_shape
from tests.factories import faction_army

pytestmark = pytest.mark.django_db

REALMS = "/api/simulate/realms/batches/"


@pytest.fixture
def armies(catalogue):
    return {"a": {"slots": faction_army("arcane")}, "b": {"slots": faction_army("iron-kingdom")}}


@pytest.fixture
def study(anon_client, local_runner, django_capture_on_commit_callbacks, catalogue):
    def post(payload, status=202):
        with django_capture_on_commit_callbacks(execute=True):
            response = anon_client.post(REALMS, payload, format="json")
        assert response.status_code == status, response.content
        if status != 202:
            return response
        local_runner.run_all()
        return anon_client.get(response.json()["url"]).json()

    return post


def broken_patch(armies):
    """Side a's first character made far stronger: its side wins far more often."""
    card = Character.objects.get(slug=armies["a"]["slots"][0]["card"])
    return [{"card": card.slug, "changes": {"atk": 30, "hp": min(card.health + 25, 60)}}]


def test_a_large_difference_stops_early_and_says_what_a_fixed_count_needed(study, armies):
    body = study({"kind": "whatif", "armies": armies, "count": 4000, "seed": 3, "patch": broken_patch(armies),
                  "sequential": {"delta": 5}})
    results, test = body["results"], body["results"]["sequential"]
    assert body["status"] == "done" and body["played"] < 8000  # 4,000 seeds at most, two games each
    assert test["stopped_early"] and test["decided"] and test["tests"][0]["decision"] == "raised"
    assert test["games"] == body["played"] == 2 * results["difference"]["pairs"]
    assert test["games"] % 100 == 0  # it looked every 50 pairs (100 games)
    # The decision, recomputed from the pairs it reports, and the stop at the first look that decided it.
    pairs, discordant = results["difference"]["pairs"], results["difference"]["discordant"]
    design = Design(delta=0.05)
    assert verdict(design, pairs, discordant["baseline_only"], discordant["patched_only"]).decision == "raised"
    assert test["fixed_games"] > test["games"]
    assert test["count"] == 8000 and (test["delta"], test["alpha"], test["beta"]) == (5, 0.05, 0.05)


def test_without_sequential_a_whatif_plays_its_count_and_reports_no_test(study, armies):
    body = study({"kind": "whatif", "armies": armies, "count": 60, "seed": 3, "patch": broken_patch(armies)})
    assert body["played"] == 120 and "sequential" not in body["results"]


def test_the_stop_is_the_same_however_chunks_were_spread(armies):
    card = Character.objects.get(slug=armies["a"]["slots"][0]["card"])
    patch = [{"card": card.slug, "changes": {"atk": min(30, card.attack + 3)}}]  # decided after several looks
    inputs = {"armies": armies, "patch": patch, "sequential": {"delta": 5}}
    in_order = batches.play_here(batches.create_batch(game="realms", kind="whatif", inputs=inputs, count=3000,
                                                      seed=9).pk)
    assert in_order.tally["stopped_at_chunk"] > 2 and in_order.results["sequential"]["stopped_early"]
    shuffled = batches.create_batch(game="realms", kind="whatif", inputs=inputs, count=3000, seed=9)
    order = list(range(shuffled.chunks))
    random.Random(4).shuffle(order)
    for index in order:
        fresh = Batch.objects.get(pk=shuffled.pk)
        if fresh.status == Batch.Status.DONE:
            break
        tally = studies.play_chunk(studies.study_of(fresh), fresh.seed, *studies.chunk_bounds(fresh, index))
        studies.store_chunk(fresh.pk, index, tally)
    shuffled.refresh_from_db()
    assert shuffled.status == Batch.Status.DONE
    assert (shuffled.results, shuffled.played) == (in_order.results, in_order.played)
    # Chunks played past the stop (out of order) are kept but counted in nothing.
    assert BatchChunk.objects.filter(batch=shuffled).count() >= in_order.tally["stopped_at_chunk"]


def test_a_patch_that_hardly_matters_is_decided_unchanged(study, armies):
    card = Character.objects.get(slug=armies["b"]["slots"][-1]["card"])
    changes = {"spd": card.speed + 1 if card.speed < 30 else card.speed - 1}
    body = study({"kind": "whatif", "armies": armies, "count": 3000, "seed": 2,
                  "patch": [{"card": card.slug, "changes": changes}], "sequential": {"delta": 15}})
    test = body["results"]["sequential"]
    assert test["tests"][0]["decision"] == "unchanged" and test["stopped_early"]
    assert abs(body["results"]["difference"]["win_rate"]) < 0.15


@pytest.mark.parametrize(("sequential", "path"), [
    ({"delta": 0}, "sequential.delta"), ({"alpha": 0.5}, "sequential.alpha"), ({"beta": "x"}, "sequential.beta"),
    ({"gamma": 1}, "sequential.gamma"), ("yes", "sequential"),
])
def test_bad_sequential_options_are_refused_by_name(study, armies, sequential, path):
    response = study({"kind": "whatif", "armies": armies, "count": 10, "patch": broken_patch(armies),
                      "sequential": sequential}, status=400)
    assert path in assert_error_shape(response, 400, "invalid")["fields"]


def test_only_a_paired_study_takes_sequential(study, armies):
    response = study({"armies": armies, "count": 10, "sequential": {}}, status=400)
    assert "sequential" in assert_error_shape(response, 400, "invalid")["fields"]
