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


CYRILLIC_A = "\u0430"  # а, drawn as Latin a


LOOKS_LIKE = "This username looks like an existing one"


@pytest.mark.django_db
@pytest.mark.parametrize(("existing", "name", "says"), [
    ("alice", f"{CYRILLIC_A}lice", "this username mixes Cyrillic and Latin"),
    ("alice", "\u03b1lice", "this username mixes Greek and Latin"),  # Greek alpha
    ("alice", "\u0430\u04c0\u0456\u0441\u0435", LOOKS_LIKE),  # all Cyrillic: аӀісе
    ("alice", "a1ice", LOOKS_LIKE),  # digit one for l
    ("alice", "aIice", LOOKS_LIKE),  # capital i for l
    ("mike", "rnike", LOOKS_LIKE),  # r and n for m
    ("stra\u00dfe", "STRASSE", LOOKS_LIKE),  # Unicode's case folding: ß is ss
])
def test_sign_up_refuses_a_name_that_reads_as_another_or_mixes_scripts(client, django_user_model, existing, name, says):
    django_user_model.objects.create_user(existing, password="a-password-of-theirs-1")
    response = client.post("/accounts/signup/", {"username": name, "password1": "a-long-pass-phrase-9",
                                                 "password2": "a-long-pass-phrase-9"})
    assert response.status_code == 400
    text = response.content.decode()
    assert says in text, text
    assert 'id="id_username-errors"' in text  # next to the field
    assert list(django_user_model.objects.values_list("username", flat=True)) == [existing]


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["alice2", "malice", "\u5c71\u7530\u305f\u308d\u3046", "Jos\u00e9", "\u0432\u0430\u0441\u044f"])
def test_sign_up_takes_names_of_one_script_that_read_as_no_other(client, django_user_model, name):
    django_user_model.objects.create_user("alice", password="alice-password-1")
    password = {"password1": "a-long-pass-phrase-9", "password2": "a-long-pass-phrase-9"}
    refused = client.post("/accounts/signup/", {"username": f"{CYRILLIC_A}lice", **password})
    assert "this username mixes Cyrillic and Latin" in refused.content.decode()
    response = client.post("/accounts/signup/", {"username": name, **password})  # then one that reads as no other
    assert response.status_code == 302, response.content.decode()
    assert django_user_model.objects.filter(username=name).exists()
