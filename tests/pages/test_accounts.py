"""Signing up, in and out: the pages' forms, their messages and their rate."""

import re

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect


def test_sign_up_then_signed_in(site, page):
    page.goto("/accounts/login/")
    page.get_by_role("link", name="Create one").click()
    page.get_by_label("Username").fill("frida")
    page.get_by_label("Password", exact=True).fill("a-long-pass-phrase-9")
    page.get_by_label("Password confirmation").fill("a-long-pass-phrase-9")
    page.get_by_role("button", name="Create the account").click()
    expect(page.get_by_text(re.compile("Signed in as frida"))).to_be_visible()
    assert get_user_model().objects.filter(username="frida").exists()


@pytest.mark.django_db
def test_sign_up_refusals_are_shown_by_field(client, django_user_model):
    django_user_model.objects.create_user("gus", password="gus-password-1")
    response = client.post("/accounts/signup/", {"username": "gus", "password1": "123", "password2": "124"})
    assert response.status_code == 400
    text = response.content.decode()
    assert "A user with that username already exists." in text
    assert "The two password fields didn" in text
    assert django_user_model.objects.count() == 1


@pytest.mark.django_db
def test_password_guessing_on_the_sign_in_page_is_rated_as_the_token_view(client, django_user_model, settings):
    django_user_model.objects.create_user("hal", password="hal-password-1")
    answers = [client.post("/accounts/login/", {"username": "hal", "password": f"guess-{i}"}).status_code
               for i in range(12)]
    # THROTTLE_AUTH is 10/minute: ten wrong guesses are answered by the form, the next are refused.
    assert answers[:10] == [200] * 10
    assert answers[10:] == [429, 429]
    refused = client.post("/accounts/login/", {"username": "hal", "password": "hal-password-1"})
    assert refused.status_code == 429
    assert "Too many requests; try again in" in refused.content.decode()
    assert int(refused["Retry-After"]) >= 1


@pytest.mark.django_db
def test_garbage_sign_in_answers_the_form(client):
    response = client.post("/accounts/login/", {"username": "x" * 10_000, "password": "\x00"})
    assert response.status_code == 200
    text = response.content.decode()
    assert "Null characters are not allowed." in text
