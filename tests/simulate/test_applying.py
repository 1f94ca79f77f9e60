"""A what-if's patch applied to the catalogue by staff: each patched card a new version, all or none, and
never over an edit made since the what-if measured the card."""

import pytest
from django.urls import reverse

from legends.models import SummoningCard
from realms.models import Character
from simulate import batches
from tests.conftest import assert_error_shape
from tests.factories import faction_army

pytestmark = pytest.mark.django_db


@pytest.fixture
def armies(catalogue):
    return {"a": {"slots": faction_army("arcane")}, "b": {"slots": faction_army("iron-kingdom")}}


def whatif(armies, patch, user=None):
    return batches.play_here(batches.create_batch(game="realms", kind="whatif", count=4, seed=3, user=user,
                                                  inputs={"armies": armies, "patch": patch}).pk)


def url(batch) -> str:
    return f"/api/simulate/batches/{batch.pk}/apply/"


def test_staff_apply_a_whatifs_patch_as_new_versions(armies, staff, staff_client, anon_client):
    first, second = (slot["card"] for slot in armies["a"]["slots"][:2])
    atk = Character.objects.get(slug=first).attack
    study = whatif(armies, [{"card": first, "changes": {"atk": atk + 1}}, {"card": second, "changes": {"spd": 2}}],
                   user=staff)
    response = staff_client.post(url(study))
    assert response.status_code == 200, response.content
    applied = response.json()["applied"]
    assert [(row["model"], row["slug"]) for row in applied] == [("realms.character", first), ("realms.character", second)]
    assert (Character.objects.get(slug=first).attack, Character.objects.get(slug=second).speed) == (atk + 1, 2)
    history = anon_client.get(f"/api/realms/characters/{first}/history/").json()["results"][0]
    assert history["id"] == applied[0]["version"] and history["reason"] == f"Applied from what-if {study.pk}"
    assert history["user"] == staff.username
    assert {"field": "attack", "before": atk, "after": atk + 1} in history["changes"]


def test_a_card_edited_since_is_not_overwritten_and_nothing_is_applied(armies, staff, staff_client):
    first, second = (slot["card"] for slot in armies["a"]["slots"][:2])
    study = whatif(armies, [{"card": first, "changes": {"atk": 3}}, {"card": second, "changes": {"atk": 4}}],
                   user=staff)
    edited = Character.objects.get(slug=second)
    edited.attack = 12
    edited.save()
    before = Character.objects.get(slug=first).attack
    body = assert_error_shape(staff_client.post(url(study)), 409, "not_applicable")
    assert second in body["message"] and "edited since" in body["message"]
    assert (Character.objects.get(slug=first).attack, Character.objects.get(slug=second).attack) == (before, 12)


def test_only_staff_apply_and_only_a_finished_whatif(armies, user, user_client, staff, staff_client):
    study = whatif(armies, [{"card": armies["a"]["slots"][0]["card"], "changes": {"atk": 3}}], user=user)
    assert_error_shape(user_client.post(url(study)), 403, "permission_denied")
    matchup = batches.play_here(batches.create_batch(game="realms", inputs={"armies": armies}, count=2, seed=1,
                                                     user=staff).pk)
    assert_error_shape(staff_client.post(url(matchup)), 409, "not_applicable")
    queued = batches.create_batch(game="realms", kind="whatif", count=2, seed=1, user=staff, inputs={
        "armies": armies, "patch": [{"card": armies["a"]["slots"][0]["card"], "changes": {"atk": 3}}]})
    assert "queued" in assert_error_shape(staff_client.post(url(queued)), 409, "not_applicable")["message"]


def test_a_legends_patch_names_elements_by_slug(catalogue, staff, staff_client):
    card = SummoningCard.objects.order_by("slug").first()
    study = batches.play_here(batches.create_batch(
        game="legends", kind="whatif", count=4, seed=2, user=staff,
        inputs={"mode": "teams", "base": "field", "patch": [{"card": card.slug, "changes": {"copies": card.copies + 1}}]}).pk)
    assert staff_client.post(url(study)).status_code == 200
    assert SummoningCard.objects.get(slug=card.slug).copies == card.copies + 1


def test_the_whatif_page_offers_staff_its_patch_as_an_edit(client, armies, staff):
    slug = armies["a"]["slots"][0]["card"]
    study = whatif(armies, [{"card": slug, "changes": {"spd": 3}}], user=staff)
    client.force_login(staff)
    assert "Apply this patch to the catalogue" in client.get(reverse("study-detail", args=[study.pk])).content.decode()
    response = client.post(reverse("study-apply", args=[study.pk]))
    assert response.status_code == 302 and response["Location"] == reverse("realms-card", args=[slug])
    assert Character.objects.get(slug=slug).speed == 3
    assert client.post(reverse("study-apply", args=[study.pk])).status_code == 409  # now edited since


def test_undo_puts_every_patched_card_back_as_a_new_version_and_round_trips(armies, staff, staff_client, anon_client):
    first, second = (slot["card"] for slot in armies["a"]["slots"][:2])
    before = {slug: Character.objects.get(slug=slug) for slug in (first, second)}
    study = whatif(armies, [{"card": first, "changes": {"atk": 3}}, {"card": second, "changes": {"hp": 40}}],
                   user=staff)
    applied = staff_client.post(url(study)).json()["applied"]
    response = staff_client.post(f"/api/simulate/batches/{study.pk}/undo/")
    assert response.status_code == 200, response.content
    undone = response.json()["applied"]
    assert [row["slug"] for row in undone] == [first, second]
    assert all(after["version"] > done["version"] for after, done in zip(undone, applied, strict=True))
    for slug, card in before.items():
        now = Character.objects.get(slug=slug)
        assert (now.attack, now.health, now.speed) == (card.attack, card.health, card.speed)
    history = anon_client.get(f"/api/realms/characters/{first}/history/").json()["results"]
    assert [row["reason"] for row in history[:2]] == [f"Undone: what-if {study.pk}", f"Applied from what-if {study.pk}"]
    assert {"field": "attack", "before": 3, "after": before[first].attack} in history[0]["changes"]
    # Undone once: a second undo would overwrite the undo itself; applying again works (the cards are as measured).
    assert "undone already" in assert_error_shape(staff_client.post(f"/api/simulate/batches/{study.pk}/undo/"), 409,
                                                  "not_applicable")["message"]


def test_undo_refuses_over_an_edit_made_since_the_patch_and_changes_nothing(armies, staff, staff_client, user_client):
    first, second = (slot["card"] for slot in armies["a"]["slots"][:2])
    study = whatif(armies, [{"card": first, "changes": {"atk": 3}}, {"card": second, "changes": {"atk": 4}}],
                   user=staff)
    assert_error_shape(staff_client.post(f"/api/simulate/batches/{study.pk}/undo/"), 409, "not_applicable")  # never applied
    assert staff_client.post(url(study)).status_code == 200
    assert_error_shape(user_client.post(f"/api/simulate/batches/{study.pk}/undo/"), 403, "permission_denied")
    edited = Character.objects.get(slug=second)
    edited.attack = 12
    edited.save()
    body = assert_error_shape(staff_client.post(f"/api/simulate/batches/{study.pk}/undo/"), 409, "not_applicable")
    assert second in body["message"]
    assert (Character.objects.get(slug=first).attack, Character.objects.get(slug=second).attack) == (3, 12)


def test_the_whatif_page_offers_staff_an_undo(client, armies, staff):
    slug = armies["a"]["slots"][0]["card"]
    speed = Character.objects.get(slug=slug).speed
    study = whatif(armies, [{"card": slug, "changes": {"spd": 3 if speed != 3 else 4}}], user=staff)
    client.force_login(staff)
    assert client.post(reverse("study-apply", args=[study.pk])).status_code == 302
    assert "Undo this patch" in client.get(reverse("study-detail", args=[study.pk])).content.decode()
    response = client.post(reverse("study-undo", args=[study.pk]))
    assert response.status_code == 302 and response["Location"] == reverse("realms-card", args=[slug])
    assert Character.objects.get(slug=slug).speed == speed
