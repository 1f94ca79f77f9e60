"""Publishing a study: staff only, finished studies only, and a field study only when it measured every card
within ±5 points; a published study is readable by everyone, an unpublished one by its owner alone."""

import pytest

from simulate import batches, publishing
from simulate.models import Batch
from tests.conftest import assert_error_shape
from tests.factories import faction_army

pytestmark = pytest.mark.django_db


def url(batch: Batch, tail: str = "") -> str:
    return f"/api/simulate/batches/{batch.pk}/{tail}"


@pytest.fixture
def matchup(catalogue, user):
    armies = {"a": {"slots": faction_army("arcane")}, "b": {"slots": faction_army("iron-kingdom")}}
    return batches.play_here(batches.create_batch(game="realms", inputs={"armies": armies}, count=4, seed=1,
                                                  user=user).pk)


def test_an_unpublished_study_is_its_owners_alone_and_a_published_one_everyones(matchup, user_client, other_client,
                                                                                 anon_client, staff_client):
    assert user_client.get(url(matchup)).status_code == 200
    for stranger in (other_client, anon_client, staff_client):
        assert_error_shape(stranger.get(url(matchup)), 404, "not_found")
    # Staff publish what they can read: the owner's study is not theirs to see before it is published.
    assert_error_shape(staff_client.post(url(matchup, "publish/")), 404, "not_found")
    publishing.publish(matchup, user=None)
    for reader in (user_client, other_client, anon_client, staff_client):
        body = reader.get(url(matchup)).json()
        assert body["id"] == str(matchup.pk) and body["published_at"] is not None
    # Published is not everyone's to list: a list holds your own studies.
    assert other_client.get("/api/simulate/batches/").json()["count"] == 0


def test_only_staff_publish_or_withdraw(matchup, user_client, anon_client, staff_client):
    publishing.publish(matchup, user=None)
    assert_error_shape(user_client.post(url(matchup, "publish/")), 403, "permission_denied")
    assert anon_client.post(url(matchup, "publish/")).status_code in (401, 403)
    assert_error_shape(user_client.delete(url(matchup, "publish/")), 403, "permission_denied")
    withdrawn = staff_client.delete(url(matchup, "publish/"))
    assert withdrawn.status_code == 200 and withdrawn.json()["published_at"] is None
    assert_error_shape(anon_client.get(url(matchup)), 404, "not_found")


def test_an_unfinished_study_is_not_published(catalogue, staff, staff_client):
    queued = batches.create_batch(game="realms", kind="field", inputs={}, count=10, seed=1, user=staff)
    body = assert_error_shape(staff_client.post(url(queued, "publish/")), 409, "not_publishable")
    assert "queued" in body["message"]
    assert Batch.objects.get(pk=queued.pk).published_at is None


def test_a_small_field_study_is_refused_with_the_cards_it_measured_too_loosely(catalogue, staff, staff_client):
    small = batches.play_here(batches.create_batch(game="realms", kind="field", inputs={}, count=40, seed=1,
                                                   user=staff).pk)
    body = assert_error_shape(staff_client.post(url(small, "publish/")), 409, "not_publishable")
    assert "±5 points" in body["message"] and "40 matches" in body["message"]
    widths = {row["card"]: row["half_width"] for row in body["cards"]}
    rows = {row["card"]: row for row in small.results["cards"]}
    assert widths and all(width is None or width > 0.05 for width in widths.values())
    for card, width in widths.items():
        if width is not None:
            ci = rows[card]["delta_ci"]
            assert width == round((ci["high"] - ci["low"]) / 2, 4)
    assert Batch.objects.get(pk=small.pk).published_at is None
    assert staff_client.get(f"/api/realms/characters/{small.results['cards'][0]['card']}/").json()["simulated"] is None


def test_a_field_study_measuring_every_card_within_five_points_is_published(catalogue, staff, staff_client,
                                                                           anon_client):
    """At the real bound: an Akin Legends field study large enough for every protector, defense and
    summoning card played."""
    count = 3_000
    study = batches.play_here(batches.create_batch(game="legends", kind="field", inputs={"mode": "teams"},
                                                   count=count, seed=11, user=staff).pk)
    assert publishing.too_wide(study) == []
    assert staff_client.post(url(study, "publish/")).status_code == 200
    row = study.results["defenses"][0]
    simulated = anon_client.get(f"/api/legends/defenses/{row['defense']}/").json()["simulated"]
    assert simulated["batch"] == str(study.pk) and simulated["delta"] == row["delta"]
    assert (row["delta_ci"]["high"] - row["delta_ci"]["low"]) / 2 <= 0.05
