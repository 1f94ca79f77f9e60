"""The admin shows every Akin Legends model and refuses what the API refuses."""

import json

import pytest

from legends.models import DefenseCard, Element, Protector, SummoningCard, TeamSetup

pytestmark = pytest.mark.django_db

MODELS = ["element", "spirit", "protector", "defensecard", "summoningcard", "teamsetup"]


@pytest.fixture
def admin_client(client, django_user_model):
    admin = django_user_model.objects.create_superuser("root", password="root-password-1")
    client.force_login(admin)
    return client


@pytest.mark.parametrize("model", MODELS)
def test_changelist_and_add_pages_load(catalogue, admin_client, model):
    assert admin_client.get(f"/admin/legends/{model}/").status_code == 200
    assert admin_client.get(f"/admin/legends/{model}/add/").status_code == 200


def test_change_page_shows_the_card_face(catalogue, admin_client):
    card = SummoningCard.objects.get(slug="ember-ward-of-steam")
    page = admin_client.get(f"/admin/legends/summoningcard/{card.pk}/change/").content.decode()
    assert "/api/legends/summoning-cards/ember-ward-of-steam/card.png" in page


def card_form(**fields) -> dict:
    return {"name": "Admin Wall", "slug": "admin-wall", "card_set": 2, "flavor_text": "", **fields}


def test_admin_refuses_a_defense_with_one_element_twice(catalogue, admin_client):
    fire = Element.objects.get(slug="fire").pk
    response = admin_client.post("/admin/legends/defensecard/add/", card_form(element_1=fire, element_2=fire))
    assert response.status_code == 200
    assert "A defense requires two different elements (L2)." in response.content.decode()
    assert not DefenseCard.objects.filter(slug="admin-wall").exists()


def test_admin_creates_a_valid_defense_with_its_text(catalogue, admin_client):
    fire, air = (Element.objects.get(slug=slug).pk for slug in ("fire", "air"))
    response = admin_client.post("/admin/legends/defensecard/add/", card_form(element_1=fire, element_2=air))
    assert response.status_code == 302
    wall = DefenseCard.objects.get(slug="admin-wall")
    assert wall.game == "legends" and wall.rules_text == "Destroyed when markers of both Fire and Air lie on it."


def test_admin_refuses_a_bad_protector_effect(catalogue, admin_client):
    effect = json.dumps({"kind": "reveal_facedown", "when": "before_second_turns"})
    response = admin_client.post(
        "/admin/legends/protector/add/", card_form(name="Spy Two", slug="spy-two", effect=effect, duel_legal="on")
    )
    assert response.status_code == 200
    assert "cannot be duel-legal" in response.content.decode()
    assert not Protector.objects.filter(slug="spy-two").exists()


def test_admin_refuses_a_malformed_setup(catalogue, admin_client, user):
    response = admin_client.post("/admin/legends/teamsetup/add/", {
        "owner": user.pk, "name": "Broken", "mode": "teams", "teams": json.dumps([{"spirit": "akin"}]),
    })
    assert response.status_code == 200
    assert "teams[0].players: is required" in response.content.decode()
    assert not TeamSetup.objects.exists()
