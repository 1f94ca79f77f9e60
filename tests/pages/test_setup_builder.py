"""The Akin Legends setup builder in the browser: live violations, codes and share links, saving."""

import re

from playwright.sync_api import expect

from cardsdb.models import Card
from legends import services
from legends.api.serializers import SetupInputSerializer
from legends.models import TeamSetup
from tests.pages.conftest import axe_violations, sign_in

BUILDER = "/legends/setups/build/"


def team(page, number: int):
    return page.get_by_role("group", name=f"Team {number}", exact=True)


def report(page):
    return page.locator("#setup-report")


def violations_of(setup: dict) -> list[str]:
    """The messages the API's validation gives for a setup, each card named by its name as the page shows it."""
    data = SetupInputSerializer(data=setup)
    assert data.is_valid(), data.errors
    names = dict(Card.objects.values_list("slug", "name"))
    return [re.sub(r"'([\w-]+)'", lambda found: names.get(found.group(1), found.group(0)), v["message"])
            for v in services.setup_validate(**data.validated_data)["violations"]]


def default_teams() -> list[dict]:
    """The setup the builder starts from: the two spirits, cards drawn, counters 1 and 3 against 2 and 4."""
    return [
        {"spirit": "akin", "players": [{"name": "Player 1", "counter": 1}, {"name": "Player 2", "counter": 3}]},
        {"spirit": "yulin", "players": [{"name": "Player 3", "counter": 2}, {"name": "Player 4", "counter": 4}]},
    ]


def test_an_illegal_setup_shows_its_violations_live_and_turns_valid_once_fixed(site, page):
    page.goto(BUILDER)
    expect(report(page).get_by_text("Valid", exact=True)).to_be_visible()

    team(page, 1).get_by_label("Spirit").select_option("akin")
    team(page, 0).get_by_label("Player 2 counter").select_option("2")
    teams = default_teams()
    teams[1]["spirit"] = "akin"
    teams[0]["players"][1]["counter"] = 2
    expected = violations_of({"mode": "teams", "teams": teams})
    assert len(expected) == 3  # a spirit taken twice, a counter held twice, teammates in a row
    expect(report(page).get_by_text("Invalid", exact=True)).to_be_visible()
    expect(report(page).locator(".violations li")).to_have_count(len(expected))
    for message in expected:
        expect(report(page)).to_contain_text(message)

    team(page, 1).get_by_label("Spirit").select_option("yulin")
    team(page, 0).get_by_label("Player 2 counter").select_option("3")
    expect(report(page).get_by_text("Valid", exact=True)).to_be_visible()
    expect(report(page).locator(".violations li")).to_have_count(0)


def test_teams_players_and_cards_are_named_as_the_api_and_the_replays_name_them(site, page):
    page.goto(BUILDER)
    # Teams by their index (team 0, team 1), players numbered in setup order, team 0 first.
    for number, players in ((0, ("Player 1", "Player 2")), (1, ("Player 3", "Player 4"))):
        for player in players:
            expect(team(page, number).get_by_label(f"{player} name")).to_have_value(player)
    expect(report(page).locator(".to-draw")).to_contain_text("Team 0: 1 protector")

    team(page, 1).get_by_label("Spirit").select_option("akin")
    team(page, 0).get_by_label("Player 2 counter").select_option("2")
    violations = report(page).locator(".violations li")
    expect(violations).to_contain_text([
        "Team 1 takes the spirit Akin, already taken by team 0; the two teams protect different spirits.",
        "Player 3 holds counter 2, already held by Player 2; the counters 1 to 4 go one to each player.",
        "Teammates Player 1 and Player 2 hold counters 1 and 2, so they play one after the other",
    ])
    expect(report(page)).not_to_contain_text("'akin'")


def test_choosing_cards_and_names_updates_the_code_as_the_api_encodes_it(site, page):
    page.goto(BUILDER)
    team(page, 0).get_by_label("Protector").select_option("spy")
    for number, slug in enumerate(["steam-wall", "magma-rampart"], start=1):
        team(page, 0).get_by_label(f"Defense {number}").select_option(slug)
    team(page, 1).get_by_label("Player 3 name").fill("Cat")
    teams = default_teams()
    teams[0].update(protector="spy", defenses=["steam-wall", "magma-rampart"])
    teams[1]["players"][0]["name"] = "Cat"
    setup = {"mode": "teams", "teams": teams}
    for message in violations_of(setup):  # two defenses of three
        expect(report(page)).to_contain_text(message)
    data = SetupInputSerializer(data=setup)
    assert data.is_valid()
    code = services.setup_validate(**data.validated_data)["code"]
    expect(page.locator("#setup-code")).to_have_value(code)
    expect(report(page)).to_contain_text("Team 1: 1 protector")


def test_copy_the_code_and_the_share_link_opens_the_same_setup_in_a_fresh_browser(site, page, browser):
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.goto(BUILDER)
    team(page, 0).get_by_label("Protector").select_option("archivist")
    for number, slug in enumerate(["steam-wall", "magma-rampart", "dust-tower"], start=1):
        team(page, 1).get_by_label(f"Defense {number}").select_option(slug)
    team(page, 1).get_by_label("Player 4 name").fill("Dan")
    expect(page.locator("#setup-code")).to_have_value(re.compile(r"^[A-Za-z0-9_-]+$"))
    expect(page.locator("#share-url")).to_have_value(re.compile(r"code="))
    # The report is current once the last change is in it: the name typed last.
    teams = default_teams()
    teams[0]["protector"] = "archivist"
    teams[1].update(defenses=["steam-wall", "magma-rampart", "dust-tower"])
    teams[1]["players"][1]["name"] = "Dan"
    data = SetupInputSerializer(data={"mode": "teams", "teams": teams})
    assert data.is_valid()
    code = services.setup_validate(**data.validated_data)["code"]
    expect(page.locator("#setup-code")).to_have_value(code)

    page.get_by_role("button", name="Copy", exact=True).click()
    expect(page.locator("#setup-code").locator("xpath=..").locator(".copy-status")).to_have_text("Copied.")
    assert page.evaluate("navigator.clipboard.readText()") == code
    share = page.locator("#share-link").get_attribute("href")
    assert share.endswith(f"{BUILDER}?code={code}")

    fresh = browser.new_context(base_url=site)
    try:
        other = fresh.new_page()
        other.goto(share)
        expect(team(other, 0).get_by_label("Protector")).to_have_value("archivist")
        # A code holds each team's defenses in card-code order, so one setup has one code.
        in_code = services.setup_from_code(code)["teams"][1]["defenses"]
        assert sorted(in_code) == sorted(teams[1]["defenses"])
        for number, slug in enumerate(in_code, start=1):
            expect(team(other, 1).get_by_label(f"Defense {number}")).to_have_value(slug)
        expect(team(other, 1).get_by_label("Player 4 name")).to_have_value("Dan")
        expect(other.locator("#setup-code")).to_have_value(code)
        expect(other.get_by_role("link", name="Sign in to save")).to_be_visible()
    finally:
        fresh.close()


def test_a_pasted_code_opens_its_setup_and_a_bad_one_says_why(site, page):
    teams = default_teams()
    teams[0]["protector"] = "wanderer"
    data = SetupInputSerializer(data={"mode": "teams", "teams": teams})
    assert data.is_valid()
    code = services.setup_validate(**data.validated_data)["code"]
    page.goto(BUILDER)
    page.get_by_label("Paste a setup code").fill(code)
    page.get_by_role("button", name="Open").click()
    expect(team(page, 0).get_by_label("Protector")).to_have_value("wanderer")

    page.get_by_label("Paste a setup code").fill("not-a-code!")
    page.get_by_role("button", name="Open").click()
    expect(page.get_by_role("alert")).to_contain_text("Bad setup code")
    expect(team(page, 0).get_by_label("Spirit")).to_be_visible()


def test_switching_to_a_duel_shows_its_shape_and_its_rules(site, page):
    page.goto(BUILDER)
    team(page, 0).get_by_label("Protector").select_option("spy")
    page.get_by_label("Mode").select_option("duel")
    expect(team(page, 0).get_by_label("Player 2 name")).to_have_count(0)
    expect(team(page, 0).get_by_label("Defense 3")).to_have_count(0)
    expect(team(page, 0).get_by_label("Protector")).to_have_value("spy")
    team(page, 1).get_by_label("Player 2 counter").select_option("2")
    teams = [{"spirit": "akin", "protector": "spy", "players": [{"name": "Player 1", "counter": 1}]},
             {"spirit": "yulin", "players": [{"name": "Player 2", "counter": 2}]}]
    expected = violations_of({"mode": "duel", "teams": teams})
    assert len(expected) == 1  # Spy is removed from the two-player variant
    expect(report(page).locator(".violations li")).to_have_count(1)
    expect(report(page)).to_contain_text(expected[0])
    team(page, 0).get_by_label("Protector").select_option("")
    expect(report(page).get_by_text("Valid", exact=True)).to_be_visible()


def test_anonymous_users_are_asked_to_sign_in_to_save(site, page):
    page.goto(BUILDER)
    expect(page.get_by_role("link", name="Sign in to save")).to_be_visible()
    expect(page.get_by_role("button", name="Save")).to_have_count(0)


def test_save_when_signed_in_and_see_it_on_a_used_cards_page(site, page, django_user_model):
    user = django_user_model.objects.create_user("fay", password="fay-password-1")
    sign_in(page, "fay", "fay-password-1")
    page.goto(BUILDER)
    for number, slug in enumerate(["mist-curtain", "reef-barrier", "ember-veil"], start=1):
        team(page, 0).get_by_label(f"Defense {number}").select_option(slug)
    page.get_by_label("Setup name").fill("Friday game")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_role("status").filter(has_text="Saved")).to_contain_text("Friday game")
    saved = TeamSetup.objects.get(owner=user)
    assert saved.teams[0]["defenses"] == ["mist-curtain", "reef-barrier", "ember-veil"]
    expect(page).to_have_url(re.compile(rf"\?setup={saved.pk}$"))
    expect(page.get_by_role("button", name="Save changes")).to_be_visible()

    page.goto("/legends/cards/reef-barrier/")
    setups = page.get_by_role("region", name="In your saved setups")
    setups.get_by_role("link", name="Friday game").click()
    expect(team(page, 0).get_by_label("Defense 2")).to_have_value("reef-barrier")
    page.get_by_label("Setup name").fill("Friday rematch")
    page.get_by_role("button", name="Save changes").click()
    expect(page.get_by_role("status").filter(has_text="Saved")).to_contain_text("Friday rematch")
    assert list(TeamSetup.objects.filter(owner=user).values_list("pk", "name")) == [(saved.pk, "Friday rematch")]


def test_the_builder_works_without_javascript(site, browser):
    context = browser.new_context(base_url=site, java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(BUILDER)
        team(page, 1).get_by_label("Spirit").select_option("akin")
        page.get_by_role("button", name="Check setup").click()
        expect(report(page).get_by_text("Invalid", exact=True)).to_be_visible()
        page.get_by_label("Mode").select_option("duel")
        page.get_by_role("button", name="Check setup").click()
        expect(team(page, 0).get_by_label("Player 2 name")).to_have_count(0)
        expect(team(page, 1).get_by_label("Spirit")).to_have_value("akin")
    finally:
        context.close()


def test_the_builder_meets_wcag_aa_and_fits_a_phone(site, page):
    page.goto(BUILDER)
    assert axe_violations(page) == []
    page.set_viewport_size({"width": 375, "height": 740})
    page.goto(BUILDER)
    expect(team(page, 0).get_by_label("Spirit")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 375


def test_the_builder_works_by_keyboard(site, page):
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.goto(BUILDER)
    spirit = team(page, 1).get_by_label("Spirit")
    spirit.focus()
    page.keyboard.press("ArrowUp")  # Yulin to Akin, the spirit team 0 already takes
    expect(spirit).to_have_value("akin")
    expect(report(page).get_by_text("Invalid", exact=True)).to_be_visible()
    expect(spirit).to_be_focused()
    copy = page.get_by_role("button", name="Copy", exact=True)
    copy.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#setup-code").locator("xpath=..").locator(".copy-status")).to_have_text("Copied.")


def test_a_slow_switch_of_mode_is_not_undone_by_the_check_of_a_change_just_before(site, page):
    # The switch's answer is held past the moment the protector's check falls due (300 ms after the change),
    # as on a loaded server: that check must not cancel the switch.
    def held(route):
        if route.request.method == "POST":
            page.wait_for_timeout(1_000)
        route.continue_()

    page.goto(BUILDER)
    page.route("**/legends/setups/build/", held)
    team(page, 0).get_by_label("Protector").select_option("spy")
    page.get_by_label("Mode").select_option("duel")
    expect(team(page, 0).get_by_label("Player 2 name")).to_have_count(0)
    expect(page.get_by_label("Mode")).to_have_value("duel")
    expect(team(page, 0).get_by_label("Protector")).to_have_value("spy")
