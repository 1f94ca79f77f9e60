"""Errors outside the API answer pages of the site (a missing object with DEBUG on too); the API keeps its JSON
shape."""

import uuid

import pytest
from django.test import RequestFactory
from django.urls import reverse

from cardsdb.api.errors import SERVER_ERROR_MESSAGE, server_error_view
from simulate import batches
from tests.conftest import assert_error_shape
from tests.factories import faction_army


@pytest.mark.django_db
def test_an_unknown_page_is_a_404_page_of_the_site(client):
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")
    text = response.content.decode()
    assert "There is no page at this address." in text
    assert 'href="/"' in text


@pytest.mark.django_db
def test_an_unknown_api_url_keeps_the_json_shape(client):
    assert_error_shape(client.get("/api/no-such-thing/"), 404, "not_found")


def test_a_server_error_page_reads_neither_session_nor_user():
    request = RequestFactory().get("/realms/cards/")  # no session, no user: as when the database is down
    response = server_error_view(request)
    assert response.status_code == 500
    assert SERVER_ERROR_MESSAGE in response.content.decode()


def test_a_server_error_under_the_api_is_json():
    response = server_error_view(RequestFactory().get("/api/cards/"))
    assert response.status_code == 500
    assert response["Content-Type"] == "application/json"


# Missing objects with DEBUG on ------------------------------------------------------------------


DJANGO_DEBUG_PAGE = "you have <code>DEBUG = True</code>"
NO_SUCH_STUDY = "There is no study at this address, or it is private: a study started while signed in is seen only"


def assert_site_404(response, message: str) -> None:
    assert response.status_code == 404
    text = response.content.decode()
    assert DJANGO_DEBUG_PAGE not in text and "URLconf" not in text
    assert "<h1>Not found</h1>" in text and message in text
    assert "Back to the home page" in text


@pytest.mark.django_db
def test_another_account_s_study_is_the_site_s_404_page_with_debug_on(client, settings, catalogue, user, other_user):
    settings.DEBUG = True
    armies = {"a": {"slots": faction_army("arcane")}, "b": {"slots": faction_army("tribal")}}
    batch = batches.create_batch(game="realms", inputs={"armies": armies}, count=2, seed=1, user=other_user)
    client.force_login(user)  # the link was shared; the study is other_user's
    for name in ("study-detail", "study-progress"):
        assert_site_404(client.get(reverse(name, args=[batch.id])), NO_SUCH_STUDY)
    assert_site_404(client.post(reverse("study-cancel", args=[batch.id])), NO_SUCH_STUDY)


@pytest.mark.django_db
@pytest.mark.parametrize(("path", "message"), [
    ("/realms/cards/no-such-card/", "There is no Echo Realms card with this slug."),
    ("/legends/cards/no-such-card/", "There is no Akin Legends card with this slug."),
    (f"/matches/{uuid.uuid4()}/", "There is no match at this address, or it is private"),
    (f"/studies/{uuid.uuid4()}/", "There is no study at this address, or it is private"),
])
def test_missing_objects_answer_the_site_s_404_page_with_debug_on(client, settings, path, message):
    settings.DEBUG = True
    assert_site_404(client.get(path), message)


@pytest.mark.django_db
def test_missing_objects_answer_the_site_s_404_page_with_debug_off(client):
    assert_site_404(client.get("/realms/cards/no-such-card/"), "There is no Echo Realms card with this slug.")


@pytest.mark.django_db
def test_a_missing_object_under_the_api_keeps_the_json_shape_with_debug_on(client, settings):
    settings.DEBUG = True
    assert_error_shape(client.get("/api/realms/characters/no-such-card/"), 404, "not_found")
