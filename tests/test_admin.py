"""Every model has a working admin: list, search, filters and the add form load for staff."""

import pytest
from django.contrib import admin

from tests.factories import make_character

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client, django_user_model):
    user = django_user_model.objects.create_superuser("root", "root@example.com", "root-password-1")
    client.force_login(user)
    return client


def registered_models():
    return sorted(
        (model._meta.app_label, model._meta.model_name)
        for model in admin.site._registry
        if model._meta.app_label in {"cardsdb", "realms", "legends", "simulate"}
    )


@pytest.mark.parametrize("app_label, model_name", registered_models())
def test_changelist_search_and_add_form_load(admin_client, catalogue, app_label, model_name):
    base = f"/admin/{app_label}/{model_name}/"
    assert admin_client.get(base).status_code == 200
    assert admin_client.get(base, {"q": "a"}).status_code == 200
    # Stored matches, games with people, batches and their chunks, issued card codes and releases (made through the
    # API) are records: they have no add form.
    records = {("simulate", "match"), ("simulate", "seatedgame"), ("simulate", "batch"), ("simulate", "batchchunk"),
               ("simulate", "studyclient"),
               ("simulate", "chunkclaim"), ("simulate", "frozenplan"), ("cardsdb", "issuedcardcode"),
               ("cardsdb", "usernameform"), ("cardsdb", "release")}
    expected = 403 if (app_label, model_name) in records else 200
    assert admin_client.get(f"{base}add/").status_code == expected


def test_every_catalogue_model_is_registered():
    from django.apps import apps

    models = {m for app in ("cardsdb", "realms", "legends", "simulate") for m in apps.get_app_config(app).get_models()
              if not hasattr(m, "instance_type")}  # a card's versions are shown on its History page
    assert models - set(admin.site._registry) == set()


def test_character_change_form_shows_the_card_face(admin_client, catalogue):
    card = make_character("Admin Face")
    response = admin_client.get(f"/admin/realms/character/{card.pk}/change/")
    assert response.status_code == 200
    assert f"/api/realms/characters/{card.slug}/card.png".encode() in response.content


def test_admin_refuses_what_the_api_refuses(admin_client, catalogue):
    from realms.models import Character

    card = Character.objects.get(slug="merlin-archmage-of-runes")
    form = admin_client.get(f"/admin/realms/character/{card.pk}/change/")
    assert form.status_code == 200
    data = {
        "name": card.name, "slug": card.slug, "card_set": card.card_set_id, "rarity": card.rarity_id,
        "race": card.race_id, "character_class": "mage", "faction": card.faction_id,
        "position": "vanguard",  # R3: a Mage stands in the rearguard
        "attack": 11, "defense": 3, "speed": 7, "health": 18, "cooldown": 3,
        "faction_ability": '{"name": "x"}', "main_ability": '"strike"', "flavor_text": "",
    }
    response = admin_client.post(f"/admin/realms/character/{card.pk}/change/", data)
    assert response.status_code == 200  # the form comes back with errors instead of saving
    content = response.content.decode()
    assert "(rule R3)" in content
    assert "faction_ability.text: is required" in content and "faction_ability.trigger: is required" in content
    assert "main_ability: must be an object" in content
    card.refresh_from_db()
    assert card.position == "rearguard"
