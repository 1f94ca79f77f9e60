"""Errors outside the API answer pages of the site (a refused CSRF check, a missing object with DEBUG on too);
the API keeps its JSON shape."""

import json

import pytest
from django.middleware.csrf import REASON_NO_CSRF_COOKIE
from django.test import Client, RequestFactory
from django.urls import reverse
from rest_framework.test import APIClient

from cardsdb.api.errors import SERVER_ERROR_MESSAGE, csrf_failure_view, server_error_view
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


# A refused CSRF check ---------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_form_posted_without_its_csrf_token_answers_the_site_s_page_saying_what_to_do(user):
    client = Client(enforce_csrf_checks=True)
    client.get("/accounts/login/")  # the cookie is set, the token left out of the post
    response = client.post("/accounts/login/", {"username": "alice", "password": "alice-password-1"})
    assert response.status_code == 403
    assert response["Content-Type"].startswith("text/html")
    text = response.content.decode()
    assert "<h1>The form could not be sent</h1>" in text
    assert "Reload the page and try again." in text
    assert 'href="/static/cardsdb/site.css"' in text and "Back to the home page" in text
    assert "CSRF verification failed" not in text  # Django's own page


@pytest.mark.django_db
def test_a_form_posted_without_the_csrf_cookie_asks_to_allow_cookies():
    response = Client(enforce_csrf_checks=True).post("/accounts/login/", {"username": "x", "password": "y"})
    assert response.status_code == 403
    assert "Allow cookies for this site, then reload the page and try again." in response.content.decode()


@pytest.mark.django_db
def test_a_refused_csrf_check_of_an_htmx_request_takes_the_whole_window(user):
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    client.get("/realms/armies/build/")
    response = client.post("/realms/armies/build/panel/", {"card": []}, HTTP_HX_REQUEST="true")
    assert response.status_code == 403
    assert response["HX-Retarget"] == "body" and response["HX-Reswap"] == "innerHTML"
    assert "Reload the page and try again." in response.content.decode()


def test_a_refused_csrf_check_under_the_api_keeps_the_json_shape():
    # DRF's views check CSRF themselves (403 permission_denied); a view under /api/ outside DRF is refused here.
    response = csrf_failure_view(RequestFactory().post("/api/realms/armies/"), REASON_NO_CSRF_COOKIE)
    assert response.status_code == 403 and response["Content-Type"] == "application/json"
    body = json.loads(response.content)
    assert body["code"] == "csrf_failed" and body["reason"] == REASON_NO_CSRF_COOKIE
    assert "X-CSRFToken" in body["message"]


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
    # The API keeps its JSON 404.
    assert_error_shape(client.get(f"/api/simulate/batches/{batch.id}/"), 404, "not_found")


@pytest.mark.django_db
@pytest.mark.parametrize(("path", "message"), [
    ("/realms/cards/no-such-card/", "There is no Echo Realms card with this slug."),
    ("/legends/cards/no-such-card/", "There is no Akin Legends card with this slug."),
    ("/matches/00000000-0000-4000-8000-000000000001/", "There is no match at this address, or it is private"),
    ("/studies/00000000-0000-4000-8000-000000000002/", "There is no study at this address, or it is private"),
])
def test_missing_objects_answer_the_site_s_404_page_with_debug_on(client, settings, path, message):
    settings.DEBUG = True
    assert_site_404(client.get(path), message)


@pytest.mark.django_db
def test_missing_objects_answer_the_site_s_404_page_with_debug_off(client):
    assert_site_404(client.get("/realms/cards/no-such-card/"), "There is no Echo Realms card with this slug.")


@pytest.mark.django_db
def test_an_api_write_signed_in_by_the_session_without_its_csrf_token_is_csrf_failed(user):
    client = APIClient(enforce_csrf_checks=True)
    client.login(username="alice", password="alice-password-1")
    body = assert_error_shape(client.post("/api/collections/", {"name": "Mine"}, format="json"), 403, "csrf_failed")
    assert body["reason"] == REASON_NO_CSRF_COOKIE
    assert "X-CSRFToken" in body["message"]
    token = client.get("/accounts/login/").cookies["csrftoken"].value
    response = client.post("/api/collections/", {"name": "Mine"}, format="json", HTTP_X_CSRFTOKEN=token)
    assert response.status_code == 201, response.content
