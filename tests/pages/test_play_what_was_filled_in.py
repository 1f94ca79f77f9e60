"""What a person fills in is what plays, in the browser: a code typed or a saved army picked chooses its source on
the match page, the study form sends only the fields its kind reads, and the builders hand a legal army or setup
to the match and study pages, where exactly that army or setup plays."""

import re

from playwright.sync_api import expect

from legends.models import Protector
from realms import services
from realms.models import Army, Character
from simulate.models import Batch, Match
from tests.factories import faction_army
from tests.pages.conftest import sign_in

REPLAY_URL = re.compile(r"/matches/[0-9a-f-]{36}/$")
STUDY_URL = re.compile(r"/studies/[0-9a-f-]{36}/$")


def code_of(slots) -> str:
    return services.army_validate(slots=services.slots_from_data(slots))["code"]


def played(page) -> Match:
    expect(page).to_have_url(REPLAY_URL)
    return Match.objects.get(pk=page.url.rstrip("/").rsplit("/", 1)[1])


def started(page) -> Batch:
    expect(page).to_have_url(STUDY_URL)
    return Batch.objects.get(pk=page.url.rstrip("/").rsplit("/", 1)[1])


def expect_side_a_fields(page, slots) -> None:
    """The replay's board at its first event lists side a's army: each card in its line, in army order."""
    names = dict(Character.objects.filter(slug__in=[s["card"] for s in slots]).values_list("slug", "name"))
    side = page.get_by_role("region", name="Side a", exact=True)
    expect(page.locator("#replay-counter")).to_have_text(re.compile(r"^Event 1 of "))
    for index, line in enumerate(("vanguard", "rearguard")):
        shown = [f"a{number} {names[s['card']]}" for number, s in enumerate(slots, start=1) if s["line"] == line]
        expect(side.locator(".line").nth(index).locator(".unit-name")).to_have_text(shown)


def test_typing_a_code_or_picking_a_saved_army_chooses_it_and_that_army_plays(site, page, user):
    mine, typed = faction_army("arcane"), faction_army("tribal")
    army = Army.objects.create(owner=user, name="My arcane army", slots=mine)
    sign_in(page, "alice", "alice-password-1")
    page.goto("/matches/new/?game=realms")
    side_a, side_b = (page.get_by_role("group", name=f"Side {side}'s army") for side in "ab")
    expect(side_a.get_by_label("A random legal army")).to_be_checked()
    side_a.get_by_label("Saved army of side a").select_option(label="My arcane army")
    expect(side_a.get_by_label("One of my saved armies")).to_be_checked()
    side_b.get_by_label("Army code of side b").fill(code_of(typed))
    expect(side_b.get_by_label("Army code", exact=True)).to_be_checked()
    page.get_by_label(re.compile("^Seed")).fill("5")
    page.get_by_role("button", name="Play the match").click()
    match = played(page)
    assert match.inputs["armies"] == {"a": {"army": army.pk}, "b": {"code": code_of(typed)}}
    expect_side_a_fields(page, mine)

    page.goto("/matches/new/?game=legends")
    page.get_by_role("textbox", name="Setup code").fill("not a code")
    expect(page.get_by_role("radio", name="Setup code")).to_be_checked()
    page.get_by_role("button", name="Play the match").click()
    expect(page.locator("#setup-errors")).to_contain_text("Bad setup code")
    assert not Match.objects.filter(game="legends").exists()


def test_a_code_left_beside_a_random_army_is_refused_and_says_why(site, page):
    page.goto("/matches/new/?game=realms")
    side_a = page.get_by_role("group", name="Side a's army")
    side_a.get_by_label("Army code of side a").fill(code_of(faction_army("arcane")))
    side_a.get_by_label("A random legal army").check()
    page.get_by_role("button", name="Play the match").click()
    expect(page.locator("#a-errors")).to_contain_text(
        "Army code of side a is filled in, but “A random legal army” is chosen for side a's army")
    assert not Match.objects.exists()


def test_the_study_form_sends_what_its_kind_reads(site, page, runner):
    code = code_of(faction_army("arcane"))
    page.goto("/studies/new/?game=realms")
    kind, base = page.get_by_label("Kind of study"), page.get_by_label("What-if of")
    kind.select_option("whatif")
    page.get_by_label("Card sets (field)").fill("core")
    expect(base).to_have_value("field")
    page.get_by_label("Army a", exact=True).fill(code)
    expect(base).to_have_value("matchup")
    page.get_by_label("Army b", exact=True).fill(code)
    kind.select_option("gauntlet")
    expect(page.get_by_label("Army b", exact=True)).to_be_hidden()  # a gauntlet meets its opponents
    page.get_by_label("Opponents (gauntlet)").fill("faction:tribal")
    page.get_by_label("Matches per pairing").fill("2")
    page.get_by_role("button", name="Start the study").click()
    batch = started(page)
    assert batch.kind == "gauntlet" and batch.inputs["subject"] == {"code": code}


def test_an_army_built_is_played_and_studied_from_the_builder(site, page, runner):
    slots = faction_army("abyssal")
    code = code_of(slots)
    page.goto("/realms/armies/build/")
    page.get_by_label("An army code, or a decklist").fill(code_of(slots[:5]))
    page.get_by_role("button", name="Load it").click()
    expect(page.locator("#army-validity")).to_have_text("Not valid")
    expect(page.get_by_role("link", name="Play this army")).to_have_count(0)
    expect(page.locator("#army-status")).to_contain_text("Once the army is valid, it can be played")
    page.get_by_label("An army code, or a decklist").fill(code)
    page.get_by_role("button", name="Load it").click()
    expect(page.locator("#army-validity")).to_have_text("Valid")

    page.get_by_role("link", name="Watch it played").click()
    side_a = page.get_by_role("group", name="Side a's army")
    expect(side_a.get_by_label("Army code", exact=True)).to_be_checked()
    expect(side_a.get_by_label("Army code of side a")).to_have_value(code)
    page.get_by_role("button", name="Play the match").click()
    match = played(page)
    assert match.inputs["armies"]["a"] == {"code": code} and match.setup["armies"]["a"] == slots
    expect_side_a_fields(page, slots)

    page.goto(f"/realms/armies/build/?code={code}")
    page.get_by_role("link", name="Study this army").click()
    expect(page.get_by_label("Army a", exact=True)).to_have_value(code)
    page.get_by_label("Matches per pairing").fill("2")
    page.get_by_role("button", name="Start the study").click()
    assert started(page).inputs["armies"]["a"] == {"code": code}


def test_a_setup_built_is_played_and_studied_from_the_builder(site, page, runner):
    def team(number: int):
        return page.get_by_role("group", name=f"Team {number}", exact=True)

    page.goto("/legends/setups/build/")
    team(0).get_by_label("Protector").select_option("spy")
    team(1).get_by_label("Protector").select_option("archivist")
    team(0).get_by_label("Player 1 name").fill("Ada")
    team(1).get_by_label("Player 4 name").fill("Dan")
    team(1).get_by_label("Spirit").select_option("akin")  # two teams of one spirit: not legal
    expect(page.locator("#setup-status")).to_have_text("Invalid")
    expect(page.get_by_role("link", name="Play this setup")).to_have_count(0)
    expect(page.locator("#setup-report")).to_contain_text("Once the setup is valid, it can be played")
    team(1).get_by_label("Spirit").select_option("yulin")
    expect(page.locator("#setup-status")).to_have_text("Valid")
    code = page.locator("#setup-code").input_value()

    page.get_by_role("link", name="Watch it played").click()
    expect(page.get_by_role("radio", name="Setup code")).to_be_checked()
    expect(page.get_by_role("textbox", name="Setup code")).to_have_value(code)
    page.get_by_role("button", name="Play the match").click()
    match = played(page)
    teams = match.events[0]["teams"]
    assert [[p["name"] for p in t["players"]] for t in teams] == [["Ada", "Player 2"], ["Player 3", "Dan"]]
    board = page.locator("#replay-board .team")
    for number, protector in enumerate(("spy", "archivist")):
        expect(board.nth(number)).to_contain_text(f"Protector: {Protector.objects.get(slug=protector).name}")
    expect(board.nth(0).locator("[data-seat]").first).to_contain_text("Ada")
    expect(board.nth(1).locator("[data-seat]").last).to_contain_text("Dan")

    page.goto(f"/legends/setups/build/?code={code}")
    page.get_by_role("link", name="Study this setup").click()
    expect(page.get_by_label("Setup code", exact=True)).to_have_value(code)
    page.get_by_label("Matches per pairing").fill("2")
    page.get_by_role("button", name="Start the study").click()
    setup = started(page).inputs["setup"]
    assert [t.get("protector") for t in setup["teams"]] == ["spy", "archivist"]
    assert [[p["name"] for p in t["players"]] for t in setup["teams"]] == [["Ada", "Player 2"], ["Player 3", "Dan"]]
