"""A card's set belongs to its game: one rule (Card.clean), refused alike by the admin and the API."""

from typing import Any

import pytest
from django import forms
from django.core.exceptions import ValidationError

from cardsdb.models import Card, CardSet
from legends.models import Spirit
from realms.models import Character

pytestmark = pytest.mark.django_db

REALMS_MESSAGE = "Choose an Echo Realms card set."
LEGENDS_MESSAGE = "Choose an Akin Legends card set."
# What each game's API and admin answer for a card of that game: (model, API resource, card slug, message).
GAMES = {
    "realms": (Character, "/api/realms/characters/", "merlin-archmage-of-runes", REALMS_MESSAGE),
    "legends": (Spirit, "/api/legends/spirits/", "akin", LEGENDS_MESSAGE),
}
OTHER_SET = {"realms": "al-eotp", "legends": "er-core"}


@pytest.fixture
def admin_client(client, django_user_model):
    client.force_login(django_user_model.objects.create_superuser("root", "root@example.com", "root-password-1"))
    return client


@pytest.fixture
def second_sets(catalogue):
    """A second set of each game, a valid new home for its cards."""
    CardSet.objects.create(code="er-two", name="Echo Realms: Two", game="realms", release_date="2026-06-01")
    CardSet.objects.create(code="al-two", name="Akin Legends: Two", game="legends", release_date="2026-06-01")


def admin_change(admin_client, model, card, **changes):
    """Post the card's admin change form as it stands, with `changes` (set codes become set ids)."""
    url = f"/admin/{model._meta.app_label}/{model._meta.model_name}/{card.pk}/change/"
    form = admin_client.get(url).context["adminform"].form
    data: dict[str, Any] = {}
    for name, field in form.fields.items():
        if isinstance(field, forms.FileField):
            continue
        value = form[name].value()  # as the form renders it (JSON as text, related rows as keys)
        if isinstance(field, forms.BooleanField):
            if value:
                data[name] = "on"
            continue
        if value is not None:
            data[name] = value
    for name, value in changes.items():
        data[name] = CardSet.objects.get(code=value).pk if name == "card_set" else value
    response = admin_client.post(url, data)
    errors = response.context["adminform"].form.errors if response.status_code == 200 else {}
    return response, errors


def test_the_model_refuses_a_set_of_the_other_game(second_sets):
    card = Character.objects.get(slug="merlin-archmage-of-runes")
    card.card_set = CardSet.objects.get(code="al-eotp")
    with pytest.raises(ValidationError) as caught:
        card.full_clean()
    assert caught.value.message_dict["card_set"] == [REALMS_MESSAGE]
    spirit = Spirit.objects.get(slug="akin")
    spirit.card_set = CardSet.objects.get(code="er-core")
    with pytest.raises(ValidationError) as caught:
        spirit.full_clean()
    assert caught.value.message_dict["card_set"] == [LEGENDS_MESSAGE]
    plain = Card(game="realms", name="Plain", slug="plain", card_set=CardSet.objects.get(code="al-eotp"))
    with pytest.raises(ValidationError) as caught:
        plain.full_clean()
    assert caught.value.message_dict["card_set"] == [REALMS_MESSAGE]


@pytest.mark.parametrize("game", [
    "realms", "legends",
])
def test_the_admin_refuses_a_set_of_the_other_game(admin_client, second_sets, game):
    model, _, slug, message = GAMES[game]
    card = model.objects.get(slug=slug)
    response, errors = admin_change(admin_client, model, card, card_set=OTHER_SET[game])
    assert response.status_code == 200
    assert errors.get("card_set") == [message]
    card.refresh_from_db()
    assert card.card_set.game == game


@pytest.mark.parametrize("game", [
    "realms", "legends",
])
def test_the_api_refuses_a_set_of_the_other_game_with_the_admin_message(staff_client, second_sets, game):
    model, resource, slug, message = GAMES[game]
    response = staff_client.patch(f"{resource}{slug}/", {"set": OTHER_SET[game]}, format="json")
    assert response.status_code == 400, response.content
    assert response.json()["fields"] == {"set": [message]}
    assert model.objects.get(slug=slug).card_set.game == game


def test_the_shared_card_admin_refuses_it_too_and_keeps_the_game(admin_client, second_sets):
    card = Card.objects.get(slug="merlin-archmage-of-runes")
    response, errors = admin_change(admin_client, Card, card, card_set="al-eotp")
    assert errors.get("card_set") == [REALMS_MESSAGE]
    # The game of an existing card is not on the form, so a character cannot be passed off as another game's.
    response, errors = admin_change(admin_client, Card, card, card_set="al-eotp", game="legends")
    assert errors.get("card_set") == [REALMS_MESSAGE]
    assert Card.objects.get(pk=card.pk).game == "realms"


@pytest.mark.parametrize("game, code", [("realms", "er-two"), ("legends", "al-two")])
def test_admin_and_api_accept_a_set_of_the_card_s_game(admin_client, staff_client, second_sets, game, code):
    model, resource, slug, _ = GAMES[game]
    card = model.objects.get(slug=slug)
    response, errors = admin_change(admin_client, model, card, card_set=code)
    assert response.status_code == 302, errors
    assert model.objects.get(pk=card.pk).card_set.code == code
    original = "er-core" if game == "realms" else "al-eotp"
    response = staff_client.patch(f"{resource}{slug}/", {"set": original}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["set"] == original
    assert staff_client.get(f"/api/cards/?set={code}").json()["count"] == 0
