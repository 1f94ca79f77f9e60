"""The site's icon: at /favicon.ico (where browsers and feed readers look), linked from every page's head."""

from io import BytesIO

import pytest
from django.test import RequestFactory
from PIL import Image

from cardsdb.api.errors import server_error_view

LINK = '<link rel="icon" href="/favicon.ico"'


@pytest.mark.django_db
@pytest.mark.parametrize("method", ["get", "head"])
def test_favicon_ico_answers_the_site_s_icon(client, method):
    response = getattr(client, method)("/favicon.ico")
    assert response.status_code == 200
    assert response["Content-Type"] == "image/x-icon"
    assert "max-age" in response["Cache-Control"]
    if method == "get":
        icon = Image.open(BytesIO(b"".join(response.streaming_content)))
        assert icon.format == "ICO"
        assert {(16, 16), (32, 32), (48, 48)} <= icon.info["sizes"]


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/", "/realms/cards/", "/legends/setups/build/", "/accounts/login/", "/no-such-page/"])
def test_every_page_links_the_icon(client, path):
    assert LINK in client.get(path).content.decode()


def test_the_server_error_page_links_the_icon():
    assert LINK in server_error_view(RequestFactory().get("/realms/cards/")).content.decode()


def test_the_browser_shows_the_icon(site, page):
    page.goto("/")
    href = page.locator('head link[rel="icon"]').get_attribute("href")
    icon = page.request.get(href)
    assert icon.ok and icon.headers["content-type"] == "image/x-icon"
    assert Image.open(BytesIO(icon.body())).size == (48, 48)  # the largest of its sizes
