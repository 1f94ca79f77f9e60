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


@pytest.mark.django_db(transaction=True)
def test_sign_ups_at_once_that_read_alike_leave_one_account(live_server, django_user_model, monkeypatch):
    import urllib.parse
    import urllib.request

    from rest_framework.throttling import ScopedRateThrottle

    from tests.conftest import fire_in_waves

    monkeypatch.setitem(ScopedRateThrottle.THROTTLE_RATES, "auth", "100/minute")
    with urllib.request.urlopen(f"{live_server.url}/accounts/signup/") as answer:
        cookie = next(c.split(";")[0] for c in answer.headers.get_all("Set-Cookie") if c.startswith("csrftoken="))
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', answer.read().decode())[1]
    names = ["alice", "a1ice", "aIice", "ALICE", "Alice", "A1ice", "AIice", "alIce"]  # each reads as "alice"
    requests = [urllib.request.Request(
        f"{live_server.url}/accounts/signup/", headers={"Cookie": cookie, "Referer": f"{live_server.url}/"},
        data=urllib.parse.urlencode({"username": name, "password1": "a-long-pass-phrase-9",
                                     "password2": "a-long-pass-phrase-9", "csrfmiddlewaretoken": token}).encode())
        for name in names]
    # A sign-up that succeeds is redirected home (the redirect followed: 200), a refused one answers 400.
    for _ in range(3):  # each round a new race
        django_user_model.objects.all().delete()
        statuses = sorted(status for status, _ in fire_in_waves(requests))
        assert statuses == [200] + [400] * 7, statuses
        assert django_user_model.objects.count() == 1


@pytest.mark.django_db
def test_accounts_made_any_way_hold_their_forms_and_a_rename_moves_them(client, django_user_model):
    staff_made = django_user_model.objects.create_user("oliver", password="a-password-of-theirs-1")
    password = {"password1": "a-long-pass-phrase-9", "password2": "a-long-pass-phrase-9"}
    assert LOOKS_LIKE in client.post("/accounts/signup/", {"username": "0liver", **password}).content.decode()
    staff_made.username = "olga"
    staff_made.save(update_fields=["username"])
    assert client.post("/accounts/signup/", {"username": "0liver", **password}).status_code == 302
    client.logout()
    assert LOOKS_LIKE in client.post("/accounts/signup/", {"username": "oIga", **password}).content.decode()
