"""Errors outside the API answer pages of the site; the API keeps its JSON shape."""

import pytest
from django.test import RequestFactory

from cardsdb.api.errors import SERVER_ERROR_MESSAGE, server_error_view
from tests.conftest import assert_error_shape


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
