"""A study keeps its first matches of each outcome as samples, whatever its chunks; any of its matches plays
again with its log from what the study froze, with the outcome the study counted."""

import pytest
from django.urls import reverse

from realms.models import Character
from simulate import batches, replays, studies
from simulate.models import Batch, Match
from tests.conftest import assert_error_shape
from tests.factories import faction_army

pytestmark = pytest.mark.django_db

SIDE_A_WON = {"win": "a", "draw": None, "loss": "b"}


@pytest.fixture
def armies(catalogue):
    return {"a": {"slots": faction_army("arcane")}, "b": {"slots": faction_army("iron-kingdom")}}


def played(inputs, *, kind="matchup", count=30, chunk=None, monkeypatch=None, **options):
    if chunk is not None:
        monkeypatch.setattr(studies, "CHUNK_MATCHES", chunk)
    return batches.play_here(batches.create_batch(game="realms", kind=kind, inputs=inputs, count=count, seed=12,
                                                  **options).pk)


def test_samples_are_the_first_matches_of_each_outcome_however_chunks_split(armies, monkeypatch):
    whole = played({"armies": armies}, chunk=500, monkeypatch=monkeypatch)
    split = played({"armies": armies}, chunk=7, monkeypatch=monkeypatch)
    samples = replays.samples_of(whole)
    assert samples == replays.samples_of(split) and samples
    by_outcome: dict[str, list[int]] = {}
    for sample in samples:
        by_outcome.setdefault(sample["outcome"], []).append(sample["match"])
        assert sample["seed"] == whole.seed + sample["match"]
    assert all(indexes == sorted(indexes) and len(indexes) <= 3 for indexes in by_outcome.values())
    assert sum(len(indexes) for indexes in by_outcome.values()) == min(3, whole.results["wins"]) + \
        min(3, whole.results["draws"]) + min(3, whole.results["losses"])


def test_a_replayed_sample_has_the_outcome_the_study_counted_even_after_edits(armies, anon_client):
    study = played({"armies": armies})
    for slot in armies["a"]["slots"]:
        Character.objects.filter(slug=slot["card"]).update(attack=1)
    for sample in replays.samples_of(study):
        response = anon_client.post(f"/api/simulate/batches/{study.pk}/replay/",
                                    {"pairing": sample["pairing"], "match": sample["match"]}, format="json")
        assert response.status_code == 201, response.content
        match = response.json()
        assert (match["winner"], match["seed"]) == (SIDE_A_WON[sample["outcome"]], sample["seed"])
        assert anon_client.get(f"{match['url']}log/").json()["count"] > 0
        again = anon_client.post(f"/api/simulate/batches/{study.pk}/replay/",
                                 {"pairing": sample["pairing"], "match": sample["match"]}, format="json").json()
        assert again["id"] == match["id"]  # played once
    assert Match.objects.filter(study=study).count() == len(replays.samples_of(study))


def test_a_field_samples_drawn_armies_are_stored_with_the_match(catalogue, anon_client):
    study = played({}, kind="field", count=12)
    sample = replays.samples_of(study)[0]
    body = anon_client.get(f"/api/simulate/batches/{study.pk}/samples/").json()
    assert body[0] == {**sample, "pairing_label": {}}
    match = anon_client.post(f"/api/simulate/batches/{study.pk}/replay/", {"pairing": 0, "match": sample["match"]},
                             format="json").json()
    assert match["winner"] == SIDE_A_WON[sample["outcome"]]
    assert [len(match["setup"]["armies"][side]) for side in ("a", "b")] == [7, 7]


def test_a_match_the_study_does_not_have_is_a_400_and_an_old_study_a_409(armies, anon_client):
    study = played({"armies": armies}, count=4)
    url = f"/api/simulate/batches/{study.pk}/replay/"
    assert_error_shape(anon_client.post(url, {"pairing": 0, "match": 4}, format="json"), 400)
    assert_error_shape(anon_client.post(url, {"pairing": 1, "match": 0}, format="json"), 400)
    assert_error_shape(anon_client.post(url, {"pairing": 0, "match": "1"}, format="json"), 400)
    Batch.objects.filter(pk=study.pk).update(frozen=None)
    assert_error_shape(anon_client.post(url, {"pairing": 0, "match": 0}, format="json"), 409, "not_replayable")


def test_the_study_page_lists_samples_that_open_in_the_viewer(armies, client):
    study = played({"armies": armies}, count=10)
    page = client.get(reverse("study-detail", args=[study.pk])).content.decode()
    assert "Sample matches" in page
    sample = replays.samples_of(study)[0]
    assert f"{sample['outcome']}, seed {sample['seed']}" in page
    response = client.post(reverse("study-replay", args=[study.pk]), {"pairing": 0, "match": sample["match"]})
    match = Match.objects.get(study=study)
    assert response.status_code == 302 and response["Location"] == reverse("match-replay", args=[match.pk])
    assert client.post(reverse("study-replay", args=[study.pk]), {"pairing": "x", "match": 0}).status_code == 400
