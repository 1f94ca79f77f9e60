"""The Content-Security-Policy: on every answer, strict on the site's pages (no inline script or style), looser
on the admin's and the API documentation's pages; every page loads under it with no violation and works."""

import random
import re

import pytest
from playwright.sync_api import expect

from legends.models import Spirit
from realms.models import Character
from realms.studies import command_army
from simulate import batches
from simulate.api.serializers import study_inputs
from simulate.services import game_matches, play_match
from tests.pages.conftest import sign_in

HEADER = "content-security-policy"


def directives(policy: str) -> dict[str, list[str]]:
    return {name: sources for name, *sources in (part.split() for part in policy.split(";") if part.strip())}


# ------------------------------------------------------------------------------------ the header


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/", "/realms/cards/", "/accounts/login/", "/no-such-page/", "/api/realms/characters/",
                                  "/api/no-such-thing/", "/healthz", "/favicon.ico"])
def test_every_answer_carries_the_policy(client, path):
    response = client.get(path, HTTP_ACCEPT="application/json" if path.startswith("/api/") else "text/html")
    policy = directives(response[HEADER])
    assert policy["default-src"] == ["'none'"]
    assert policy["script-src"] == ["'self'"]
    assert policy["frame-ancestors"] == ["'none'"]


@pytest.mark.django_db
def test_the_site_s_pages_allow_no_inline_script_nor_style(client):
    policy = directives(client.get("/")[HEADER])
    assert policy["style-src"] == ["'self'"]
    assert policy["form-action"] == ["'self'"] and policy["base-uri"] == ["'none'"]
    assert not any("unsafe" in source for sources in policy.values() for source in sources), policy


@pytest.mark.django_db
def test_a_refusal_before_any_view_carries_the_policy(client):
    response = client.generic("POST", "/matches/new/", b"x" * 10, content_type="application/octet-stream")
    assert 400 <= response.status_code < 500
    assert directives(response[HEADER])["script-src"] == ["'self'"]


@pytest.mark.django_db
def test_the_admin_and_the_api_docs_may_style_inline_but_never_script_inline(client):
    for path in ("/admin/login/", "/api/docs/", "/api/redoc/"):
        policy = directives(client.get(path, HTTP_ACCEPT="text/html")[HEADER])
        assert policy["style-src"] == ["'self'", "'unsafe-inline'"], path
        assert policy["script-src"] == ["'self'"], path
    # The API's JSON keeps the strict policy.
    assert directives(client.get("/api/realms/characters/", HTTP_ACCEPT="application/json")[HEADER])["style-src"] == [
        "'self'"]


@pytest.mark.django_db
def test_swagger_ui_starts_from_a_script_file(client):
    page = client.get("/api/docs/").content.decode()
    assert re.search(r'<script src="/api/docs/\?script="></script>', page), page
    assert not re.search(r"<script>\s*\S", page)  # no inline script
    script = client.get("/api/docs/?script=")
    assert script.status_code == 200 and script["Content-Type"].startswith("application/javascript")
    assert "SwaggerUIBundle(" in script.content.decode()


# ------------------------------------------------------------------------------------ in the browser


@pytest.fixture
def violations(page):
    """Every CSP violation the browser reports while the test runs: its console errors and the DOM events."""
    found: list[str] = []
    page.on("console", lambda message: found.append(message.text)
            if message.type == "error" and "Content Security Policy" in message.text else None)
    page.add_init_script("""
        window.cspViolations = [];
        document.addEventListener("securitypolicyviolation",
            (event) => window.cspViolations.push(`${event.violatedDirective}: ${event.blockedURI || "inline"}`));
    """)
    return found


def open_under_the_policy(page, path: str) -> None:
    response = page.goto(path)
    assert response.ok, (path, response.status)
    assert "script-src 'self'" in response.headers[HEADER], path


def reported(page, violations: list[str]) -> list[str]:
    page.wait_for_load_state("networkidle")
    return violations + page.evaluate("window.cspViolations")


def assert_no_violation(page, violations: list[str]) -> None:
    assert reported(page, violations) == []


def test_the_main_pages_load_with_no_violation(site, page, violations):
    character = Character.objects.order_by("pk").first()
    spirit = Spirit.objects.order_by("pk").first()
    pages = {
        "/": "Echo Realms",
        "/realms/cards/": "Echo Realms cards",
        "/legends/cards/": "Akin Legends cards",
        f"/realms/cards/{character.slug}/": character.name,
        f"/legends/cards/{spirit.slug}/": spirit.name,
        "/realms/armies/build/": "Army builder",
        "/legends/setups/build/": "Setup builder",
        "/matches/new/?game=realms": "Play a match",
        "/matches/new/?game=legends": "Play a match",
        "/studies/new/?game=realms": "New study: Echo Realms",
        "/search/?q=shadow": "Search",
        "/accounts/login/": "Sign in",
        "/accounts/signup/": "Create an account",
    }
    for path, heading in pages.items():
        open_under_the_policy(page, path)
        expect(page.get_by_role("heading", level=1)).to_contain_text(heading)
        assert_no_violation(page, violations)


def test_the_pages_work_under_the_policy(site, page, violations):
    # htmx: the gallery swaps its results in place; the army builder adds a card and fills its rarity meter.
    open_under_the_policy(page, "/realms/cards/")
    page.evaluate("window.stayedOnThePage = true")
    page.get_by_label("Faction").select_option("arcane")
    page.get_by_role("button", name="Show cards").click()
    expect(page).to_have_url(re.compile(r"\?faction=arcane$"))
    assert page.evaluate("window.stayedOnThePage === true")

    open_under_the_policy(page, "/realms/armies/build/")
    character = Character.objects.filter(rarity__slug="common").exclude(position="flex").order_by("pk").first()
    page.get_by_role("button", name=f"Add {character.name} to {character.position.title()}", exact=True).click()
    meter = page.locator('.rarity-counter li[data-rarity="common"] .meter > span')
    expect(meter).not_to_have_css("width", "0px")

    # The setup builder switches mode, and checks the setup as it is edited.
    open_under_the_policy(page, "/legends/setups/build/")
    page.get_by_label("Mode").select_option("duel")
    team = page.get_by_role("group", name="Team 1", exact=True)
    expect(team.get_by_label("Player 2 name")).to_be_visible()
    expect(page.get_by_label("Player 3 name")).to_have_count(0)
    team.get_by_label("Spirit").select_option("akin")
    expect(page.locator("#setup-report").get_by_text("Invalid", exact=True)).to_be_visible()

    # A study's form shows the fields of the kind chosen (its own script).
    open_under_the_policy(page, "/studies/new/?game=realms")
    page.get_by_label("Kind of study").select_option("matrix")
    expect(page.get_by_label("Army a", exact=True)).to_be_hidden()
    assert_no_violation(page, violations)


def test_a_script_slipped_into_a_page_does_not_run(site, page):
    open_under_the_policy(page, "/")
    page.evaluate("""() => {
        const script = document.createElement("script");
        script.textContent = "window.slippedIn = true";
        document.body.append(script);
        document.body.insertAdjacentHTML("beforeend", '<img src="/favicon.ico" onload="window.slippedIn = true">');
    }""")
    page.wait_for_load_state("networkidle")
    assert page.evaluate("window.slippedIn === undefined")


def test_the_admin_works_under_its_policy(site, page, violations, django_user_model):
    django_user_model.objects.create_superuser("stella", password="stella-password-1")
    sign_in(page, "stella", "stella-password-1")
    character = Character.objects.order_by("pk").first()
    for path, heading in (("/admin/", "Site administration"), ("/admin/realms/character/", "Select character to change"),
                          (f"/admin/realms/character/{character.pk}/change/", "Change character")):
        open_under_the_policy(page, path)
        expect(page.get_by_role("heading", level=1)).to_have_text(heading)
        assert_no_violation(page, violations)
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_text(re.compile("was changed successfully"))).to_be_visible()


def test_the_api_docs_work_under_their_policy(site, page, violations):
    open_under_the_policy(page, "/api/docs/")
    expect(page.locator(".swagger-ui .info .title")).to_contain_text("Card Database API")
    # Swagger UI draws a long list of operations as the page scrolls to them.
    characters = page.locator('.opblock-get .opblock-summary-path[data-path="/api/realms/characters/"]')
    for _ in range(200):
        if characters.count():
            break
        page.mouse.wheel(0, 600)
        page.wait_for_timeout(50)
    characters.click()
    page.get_by_role("button", name="Try it out").click()
    page.get_by_role("button", name="Execute").click()
    expect(page.locator(".responses-wrapper .response .response-col_status").first).to_have_text("200")
    assert_no_violation(page, violations)

    open_under_the_policy(page, "/api/redoc/")
    # ReDoc lays out the whole schema before it shows anything: long on a loaded machine.
    expect(page.get_by_role("heading", name=re.compile("Card Database API"), level=1)).to_be_visible(timeout=60_000)
    expect(page.get_by_role("heading", name="auth_token_create")).to_be_attached()
    # Only the logo ReDoc's footer fetches from its maker's site is refused (no third party is asked).
    refused = reported(page, violations)
    assert all("cdn.redoc.ly" in violation for violation in refused), refused
    violations.clear()

    open_under_the_policy(page, "/api/realms/characters/")  # DRF's browsable API
    expect(page.get_by_role("heading", level=1)).to_contain_text("Character")
    assert_no_violation(page, violations)


def test_a_replay_and_a_study_report_load_with_no_violation(site, page, violations):
    army = command_army("random", random.Random(3))
    match, _ = play_match(game="realms", inputs={"armies": {"a": {"slots": army}, "b": {"slots": army}}}, seed=3)
    open_under_the_policy(page, f"/matches/{match.pk}/")
    hp = page.get_by_role("meter").first
    expect(hp.locator("span")).not_to_have_css("width", "0px")  # set by the replay's script
    page.get_by_role("button", name="Step forward").click()
    assert_no_violation(page, violations)

    body = {"kind": "matrix", "factions": True, "count": 2}
    data = game_matches("realms").batch_request(data={**body, "seed": 1})
    data.is_valid(raise_exception=True)
    given = data.validated_data
    batch = batches.play_here(batches.create_batch(
        game="realms", kind=given["kind"], inputs=study_inputs(given, body), count=given["count"], seed=1).pk)
    open_under_the_policy(page, f"/studies/{batch.pk}/")
    cell = page.locator("table.heat-map td.heat-cell.num").first
    expect(cell).not_to_have_css("background-color", "rgba(0, 0, 0, 0)")  # coloured by site.js
    assert_no_violation(page, violations)
