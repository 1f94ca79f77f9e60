"""The home page, search across both games, signing in and out (in the browser)."""

import re

import pytest
from playwright.sync_api import expect

from tests.pages.conftest import sign_in


def test_home_links_every_page_and_both_games(site, page):
    page.goto("/")
    expect(page).to_have_title(re.compile("Home"))
    main = page.get_by_role("main")
    expect(main.get_by_role("heading", name="Echo Realms", exact=True)).to_be_visible()
    expect(main.get_by_role("heading", name="Akin Legends", exact=True)).to_be_visible()
    nav = page.get_by_role("navigation", name="Main")
    for name in ("Echo Realms cards", "Army builder", "Akin Legends cards", "Setup builder", "Match", "Studies"):
        link = nav.get_by_role("link", name=name, exact=True)
        expect(link).to_be_visible()
        assert page.request.get(link.get_attribute("href")).status == 200, name


def test_search_box_finds_cards_of_both_games(site, page):
    page.goto("/")
    page.get_by_label("Search cards of both games").fill("shadow")
    page.get_by_role("button", name="Search").click()
    expect(page).to_have_url(re.compile(r"/search/\?q=shadow"))
    results = page.locator(".search-results li")
    expect(results.first).to_be_visible()
    texts = results.all_inner_texts()
    assert any("Shadow Assassin" in text and "Echo Realms" in text for text in texts), texts
    page.get_by_role("link", name="Shadow Assassin").click()
    expect(page).to_have_url(re.compile(r"/realms/cards/shadow-assassin/$"))


def test_sign_in_and_out(site, page, django_user_model):
    django_user_model.objects.create_user("carol", password="carol-password-1")
    page.goto("/")
    sign_in(page, "carol", "carol-password-1")
    expect(page.get_by_role("link", name="Admin")).to_have_count(0)
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("link", name="Sign in")).to_be_visible()


def test_a_wrong_password_is_refused_with_a_message(site, page, django_user_model):
    django_user_model.objects.create_user("dave", password="dave-password-1")
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill("dave")
    page.get_by_label("Password").fill("not-it")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("alert")).to_contain_text("correct username and password")


def test_staff_see_the_admin_link(site, page, django_user_model):
    django_user_model.objects.create_user("erin", password="erin-password-1", is_staff=True)
    sign_in(page, "erin", "erin-password-1")
    expect(page.get_by_role("navigation", name="Main").get_by_role("link", name="Admin")).to_be_visible()


def test_home_at_phone_width_has_no_sideways_scroll(site, page):
    page.set_viewport_size({"width": 375, "height": 740})
    page.goto("/")
    assert page.evaluate("document.documentElement.scrollWidth") <= 375


@pytest.mark.django_db
@pytest.mark.parametrize("q, says", [("nyx\x00", "Null characters are not allowed."),
                                     ("n" * 51, "Ensure this field has no more than 50 characters.")])
def test_a_search_the_api_would_refuse_is_refused_with_its_message(client, q, says):
    response = client.get("/search/", {"q": q})
    assert response.status_code == 400
    assert f"The search was not run: {says}" in response.content.decode()
