"""A card that something uses is never deleted from under its users: the API answers 409 `protected` naming each
kind of use, the admin lists the uses and deletes nothing, and any other delete is refused as well; a card
nothing uses is deleted."""

import pytest
from django.db import transaction

from cardsdb.card_uses import CardInUse
from cardsdb.models import Card, Collection, CollectionEntry
from legends.models import TeamSetup
from realms.models import Army, Character
from simulate.models import Batch
from tests.conftest import assert_error_shape

pytestmark = pytest.mark.django_db

GUARDIAN = "/api/realms/characters/iron-guardian/"


def hold(user, slug="iron-guardian", copies=3) -> CollectionEntry:
    collection = Collection.objects.create(owner=user, name="Binder")
    return CollectionEntry.objects.create(collection=collection, card=Card.objects.get(slug=slug), quantity=copies)


def study(status=Batch.Status.QUEUED, game="realms") -> Batch:
    return Batch.objects.create(game=game, kind="matchup", client="address:203.0.113.9", inputs={}, count=2,
                                per_pairing=2, seed=1, chunk_size=2, chunks=1, status=status)


def test_a_card_nothing_uses_is_deleted(catalogue, staff_client, user):
    hold(user, slug="aegis-paladin")
    Army.objects.create(owner=user, name="Other cards", slots=[{"card": "aegis-paladin", "line": "vanguard"}])
    study(status=Batch.Status.DONE)
    assert staff_client.delete(GUARDIAN).status_code == 204
    assert not Card.objects.filter(slug="iron-guardian").exists()


def test_a_card_a_collection_holds_is_kept_with_its_copies(catalogue, staff_client, user):
    entry = hold(user)
    body = assert_error_shape(staff_client.delete(GUARDIAN), 409, "protected")
    assert body["uses"] == {"collections": 1}
    assert body["message"] == ("The card 'Iron Guardian' (iron-guardian) is still used by 1 collection; it can be "
                               "deleted once nothing uses it.")
    entry.refresh_from_db()
    assert entry.quantity == 3 and Character.objects.filter(slug="iron-guardian").exists()


def test_every_kind_of_use_is_counted(catalogue, staff_client, user, other_user):
    hold(user)
    hold(other_user)
    for owner in (user, other_user):
        Army.objects.create(owner=owner, name="Wall", slots=[{"card": "iron-guardian", "line": "vanguard"}])
    study()
    body = assert_error_shape(staff_client.delete(GUARDIAN), 409, "protected")
    assert body["uses"] == {"collections": 2, "saved_armies": 2, "studies": 1}
    assert "2 collections, 2 saved armies and 1 queued or running study" in body["message"]


def test_an_army_naming_the_slug_in_another_field_does_not_count(catalogue, staff_client, user):
    Army.objects.create(owner=user, name="iron-guardian", slots=[{"card": "aegis-paladin", "line": "vanguard"}])
    assert staff_client.delete(GUARDIAN).status_code == 204


def test_a_study_of_the_other_game_does_not_keep_a_card(catalogue, staff_client):
    study(game="legends")
    assert staff_client.delete(GUARDIAN).status_code == 204


def test_an_akin_legends_card_a_saved_setup_names_is_kept(catalogue, staff_client, user):
    teams = [{"spirit": "akin", "defenses": ["dust-tower"], "players": [{"name": "Ann", "counter": 1}]},
             {"spirit": "yulin", "players": [{"name": "Cat", "counter": 2}]}]
    TeamSetup.objects.create(owner=user, name="Towers", mode="duel", teams=teams)
    body = assert_error_shape(staff_client.delete("/api/legends/defenses/dust-tower/"), 409, "protected")
    assert body["uses"] == {"saved_setups": 1}
    assert Card.objects.filter(slug="dust-tower").exists()


def test_any_other_delete_is_refused_too(catalogue, user):
    Army.objects.create(owner=user, name="Wall", slots=[{"card": "iron-guardian", "line": "rearguard"}])
    card = Character.objects.get(slug="iron-guardian")
    with pytest.raises(CardInUse, match="1 saved army"), transaction.atomic():
        card.delete()
    with pytest.raises(CardInUse), transaction.atomic():
        Card.objects.filter(slug="iron-guardian").delete()
    assert Card.objects.filter(slug="iron-guardian").exists()


def test_the_admin_lists_the_uses_and_deletes_nothing(catalogue, admin_client, user):
    hold(user)
    Army.objects.create(owner=user, name="Wall", slots=[{"card": "iron-guardian", "line": "vanguard"}])
    card = Character.objects.get(slug="iron-guardian")
    url = f"/admin/realms/character/{card.pk}/delete/"
    page = admin_client.get(url).content.decode()
    assert "would require deleting the following protected related objects" in page
    assert f"Saved army of {user.username}: Wall" in page
    admin_client.post(url, {"post": "yes"})
    assert Character.objects.filter(slug="iron-guardian").exists()
    assert CollectionEntry.objects.filter(card=card).count() == 1


def test_the_answer_is_the_error_shape_the_schema_describes(catalogue, staff_client, user, anon_client):
    hold(user)
    body = assert_error_shape(staff_client.delete(GUARDIAN), 409, "protected")
    schema = anon_client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    error = schema["components"]["schemas"]["Error"]
    assert error["additionalProperties"] is False and set(body) <= set(error["properties"])
    assert error["properties"]["uses"]["additionalProperties"] == {"type": "integer", "minimum": 1}
