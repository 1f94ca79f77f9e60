"""A study plays what it froze when it was created: an edit of the catalogue while it runs changes none of
its figures, and playing it again (rerun) gives the very same figures, whatever was edited since."""

import pytest

from legends.models import SummoningCard
from realms.models import Character
from simulate import batches, pinning, studies
from simulate.models import Batch, FrozenPlan
from tests.conftest import assert_error_shape
from tests.factories import faction_army

pytestmark = pytest.mark.django_db

REALMS, LEGENDS = "/api/simulate/realms/batches/", "/api/simulate/legends/batches/"


@pytest.fixture
def armies(catalogue):
    return {"a": {"slots": faction_army("arcane")}, "b": {"slots": faction_army("iron-kingdom")}}


@pytest.fixture
def small_chunks(monkeypatch):
    monkeypatch.setattr(studies, "CHUNK_MATCHES", 10)


def play_chunks(batch: Batch, indexes) -> Batch:
    """Play these chunks of the batch as a runner does (each planned from the stored batch), in this order."""
    for index in indexes:
        assert batches.run_chunk(batch.pk, index, study=studies.study_of(Batch.objects.get(pk=batch.pk)))
    batch.refresh_from_db()
    return batch


def weaken(slug: str) -> None:
    """A designer's edit of a card: much weaker (as the admin saves it)."""
    card = Character.objects.get(slug=slug)
    card.attack, card.health = 1, 1
    card.save()


def test_an_edit_between_chunks_changes_none_of_a_matchups_figures(armies, small_chunks):
    untouched = batches.play_here(batches.create_batch(game="realms", inputs={"armies": armies}, count=40, seed=5).pk)
    batch = batches.create_batch(game="realms", inputs={"armies": armies}, count=40, seed=5)
    play_chunks(batch, [0, 1])
    for slot in armies["a"]["slots"]:  # every card of side a, between chunks
        weaken(slot["card"])
    batch = play_chunks(batch, [2, 3])
    assert batch.status == Batch.Status.DONE
    assert (batch.results, batch.summary) == (untouched.results, untouched.summary)
    # The edit is real: a study created now plays the weakened cards, and its figures differ.
    after = batches.play_here(batches.create_batch(game="realms", inputs={"armies": armies}, count=40, seed=5).pk)
    assert after.summary["wins"] != untouched.summary["wins"]


def test_an_edit_between_chunks_changes_none_of_a_field_studys_figures(catalogue, small_chunks):
    untouched = batches.play_here(batches.create_batch(game="realms", kind="field", inputs={}, count=30, seed=8).pk)
    batch = batches.create_batch(game="realms", kind="field", inputs={}, count=30, seed=8)
    play_chunks(batch, [0])
    strongest = untouched.results["cards"][0]["card"]
    weaken(strongest)
    Character.objects.filter(slug=untouched.results["cards"][-1]["card"]).delete()  # deleted while it runs
    batch = play_chunks(batch, [1, 2])
    assert batch.results == untouched.results


def test_a_legends_study_plays_its_frozen_catalogue(catalogue, small_chunks):
    inputs = {"mode": "teams"}
    untouched = batches.play_here(batches.create_batch(game="legends", kind="field", inputs=inputs, count=20,
                                                       seed=2).pk)
    batch = batches.create_batch(game="legends", kind="field", inputs=inputs, count=20, seed=2)
    play_chunks(batch, [0])
    SummoningCard.objects.update(copies=1)  # every design down to one copy
    batch = play_chunks(batch, [1])
    assert batch.results == untouched.results


def test_a_rerun_gives_the_same_figures_byte_for_byte_after_edits(anon_client, local_runner, armies,
                                                                   django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        first = anon_client.post(REALMS, {"armies": armies, "count": 24, "seed": 3, "swap_sides": True},
                                 format="json").json()
    local_runner.run_all()
    original = anon_client.get(first["url"]).json()
    for slot in armies["b"]["slots"]:
        weaken(slot["card"])
    with django_capture_on_commit_callbacks(execute=True):
        response = anon_client.post(f"{first['url']}rerun/")
    assert response.status_code == 202, response.content
    again = response.json()
    assert again["id"] != first["id"] and again["rerun_of"] == first["id"] and again["status"] == "queued"
    local_runner.run_all()
    replayed = anon_client.get(again["url"]).json()
    assert replayed["status"] == "done"
    for key in ("results", "summary", "count", "played", "seed", "chunks", "inputs", "catalogue"):
        if key == "catalogue":
            assert replayed[key]["cards"] == original[key]["cards"]
        else:
            assert pinning.canonical(replayed[key]) == pinning.canonical(original[key]), key
    # Both play one stored plan.
    assert Batch.objects.get(pk=again["id"]).frozen_id == Batch.objects.get(pk=first["id"]).frozen_id


def test_equal_studies_share_one_frozen_plan_and_an_edit_makes_a_new_one(armies):
    one = batches.create_batch(game="realms", inputs={"armies": armies}, count=4, seed=1)
    two = batches.create_batch(game="realms", inputs={"armies": armies}, count=9, seed=7)
    assert one.frozen_id == two.frozen_id and FrozenPlan.objects.count() == 1
    weaken(armies["a"]["slots"][0]["card"])
    three = batches.create_batch(game="realms", inputs={"armies": armies}, count=4, seed=1)
    assert three.frozen_id != one.frozen_id
    frozen = {card["slug"]: card for card in three.frozen.data["values"]}
    assert (frozen[armies["a"]["slots"][0]["card"]]["atk"], frozen[armies["a"]["slots"][0]["card"]]["hp"]) == (1, 1)


def test_a_study_names_the_cards_it_played(anon_client, armies, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        body = anon_client.post(REALMS, {"armies": armies, "count": 2, "seed": 1}, format="json").json()
    played = sorted({slot["card"] for side in armies.values() for slot in side["slots"]})
    assert body["replayable"] is True
    assert body["catalogue"]["cards"] == {"realms.character": played}


def test_a_study_stored_before_plans_were_frozen_is_not_replayed(anon_client, armies):
    batch = batches.create_batch(game="realms", inputs={"armies": armies}, count=2, seed=1)
    Batch.objects.filter(pk=batch.pk).update(frozen=None, catalogue={})
    body = anon_client.get(f"/api/simulate/batches/{batch.pk}/").json()
    assert (body["replayable"], body["catalogue"]) == (False, None)
    response = anon_client.post(f"/api/simulate/batches/{batch.pk}/rerun/")
    assert_error_shape(response, 409, "not_replayable")
    # It still plays, planned from its inputs as before.
    assert batches.play_here(batch.pk).status == Batch.Status.DONE


def test_a_private_study_cannot_be_rerun_by_others(client, user, other_user, armies):
    batch = batches.create_batch(game="realms", inputs={"armies": armies}, count=2, seed=1, user=user)
    client.force_login(other_user)
    assert_error_shape(client.post(f"/api/simulate/batches/{batch.pk}/rerun/"), 404, "not_found")


def test_a_study_names_the_release_it_played_and_the_cards_edited_since(anon_client, staff_client, armies,
                                                                        django_capture_on_commit_callbacks):
    assert staff_client.post("/api/realms/releases/", {"name": "Core 1.1"}, format="json").status_code == 201
    with django_capture_on_commit_callbacks(execute=True):
        first = anon_client.post(REALMS, {"armies": armies, "count": 2, "seed": 1}, format="json").json()
    assert first["catalogue"]["release"] == "Core 1.1" and first["catalogue"]["edited_since"] == []
    slug = armies["a"]["slots"][0]["card"]
    before = Character.objects.get(slug=slug).attack
    assert staff_client.patch(f"/api/realms/characters/{slug}/", {"atk": before + 2}, format="json").status_code == 200
    edited = anon_client.get(first["url"]).json()["catalogue"]["edited_since"]
    assert [(card["model"], card["slug"], card["status"]) for card in edited] == [("realms.character", slug, "changed")]
    assert {"field": "attack", "before": before, "after": before + 2} in edited[0]["changes"]
    # A study created now plays the edited card: the working catalogue, no release, nothing edited since.
    with django_capture_on_commit_callbacks(execute=True):
        second = anon_client.post(REALMS, {"armies": armies, "count": 2, "seed": 1}, format="json").json()
    assert second["catalogue"]["release"] is None and second["catalogue"]["edited_since"] == []
    assert second["catalogue"]["versions"]["realms.character"][slug] == edited[0]["version"]
