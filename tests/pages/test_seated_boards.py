"""Playing a game yourself in the browser: from the builders to a board, a whole match by clicking, the hot seat
that never shows one seat's hand to another, and two browsers that each see the other's moves arrive."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from legends.models import SummoningCard
from simulate import seating
from simulate.models import Match, SeatedGame
from tests.factories import faction_army
from tests.pages.conftest import axe_violations
from tests.pages.test_play_what_was_filled_in import code_of

SEAT_URL = re.compile(r"/play/[0-9a-f-]{36}/[A-Za-z0-9_-]+/$")
TABLE_URL = re.compile(r"/play/[0-9a-f-]{36}/#")
MOVES = 600  # more than any match of these setups asks of one seat


def game_of(page) -> SeatedGame:
    return SeatedGame.objects.get(pk=re.search(r"/play/([0-9a-f-]{36})/", page.url).group(1))


def click_until_over(page) -> None:
    """Click the first legal move whenever the board says it is this seat's turn, until the game is over."""
    status = page.locator("#seat-status")
    for _ in range(MOVES):
        expect(status).to_have_text(re.compile(r"Your turn|The game is over"))
        if "over" in status.inner_text():
            return
        version = page.locator("#seat").get_attribute("data-version")
        page.locator("#seat-actions button").first.click()
        expect(page.locator("#seat")).not_to_have_attribute("data-version", version)  # the move was made
    raise AssertionError("the game did not end")


def test_an_army_from_the_builder_plays_a_whole_match_against_greedy_by_clicking(site, page):
    code = code_of(faction_army("arcane"))
    page.goto(f"/realms/armies/build/?code={code}")
    page.get_by_role("link", name="Play this army").click()
    expect(page.get_by_label("Agent of side a")).to_have_value("person")
    page.get_by_role("group", name="Side b's army").get_by_label("A random legal army").check()
    page.get_by_label("Agent of side b").select_option("greedy")
    page.get_by_role("button", name="Play the match").click()
    expect(page).to_have_url(SEAT_URL)
    expect(page.locator("#seat-status")).to_have_text(re.compile("Your turn"))
    expect(page.locator("#seat-board .unit").first).to_be_visible()
    expect(page.locator("#seat-board")).to_contain_text("(agent greedy)")
    # The unit whose move it is stands out, and the moves offered are its own.
    actor = page.locator("#seat-board .unit.to-act")
    expect(actor).to_have_count(1)
    expect(actor).to_contain_text("your move")
    actor_id, actor_name = actor.locator(".unit-name").inner_text().split(" ", 1)
    # ... and in the round's attack order too.
    expect(page.locator('#seat-board .attack-order li[aria-current="step"]')).to_contain_text(actor_id)
    assert page.locator("#seat-actions button").first.inner_text().startswith(actor_name)
    assert "Basic Attack" in page.locator("#seat-actions").inner_text()
    expect(page.locator("#seat-log li").first).to_be_visible()  # the round so far, in words
    click_until_over(page)
    expect(page.get_by_role("button", name="Take back my last move")).to_be_hidden()  # nothing to take back now
    row = game_of(page)
    row.refresh_from_db()
    match = Match.objects.get(pk=row.match_id)
    assert match.inputs["armies"]["a"] == {"code": code} and match.agents == {"a": "person", "b": "greedy"}
    page.get_by_role("link", name="Watch the replay").click()
    expect(page).to_have_url(re.compile(f"/matches/{match.pk}/$"))


def test_a_setup_from_the_builder_plays_a_whole_duel_against_greedy_by_clicking(site, page):
    page.goto("/legends/setups/build/")
    play = page.get_by_role("link", name="Play this setup")
    teams_link = play.get_attribute("href")
    page.get_by_label("Mode").select_option("duel")
    expect(page.locator("#setup-status")).to_have_text("Valid")
    expect(play).not_to_have_attribute("href", teams_link)  # the link now carries the duel's code
    play.click()
    page.get_by_label("Agent of team 1").select_option("greedy")
    page.get_by_role("button", name="Play the match").click()
    expect(page).to_have_url(SEAT_URL)
    expect(page.locator("#seat-status")).to_have_text(re.compile("Your turn"))
    click_until_over(page)
    row = game_of(page)
    row.refresh_from_db()
    assert row.status == SeatedGame.Status.FINISHED and Match.objects.get(pk=row.match_id).agents == {
        "t0p0": "person", "t1p0": "greedy"}


def observed(row: SeatedGame, player: str) -> dict:
    observation: Any = seating.replayed(row).state.observation(player)
    return observation.to_dict()


def hand_of(row: SeatedGame, player: str) -> set[str]:
    return set(observed(row, player)["hand"])


def seen_by(row: SeatedGame, player: str) -> set[str]:
    """Every card the seat's observation shows: its hand, the plays and discards it may see."""
    seen = observed(row, player)
    plays = [play.get("card") for key in ("plays", "last_plays") for play in seen[key]]
    return {*seen["hand"], *seen["discard"], *(card for card in plays if card)}


def test_the_hot_seat_never_shows_one_seats_hand_to_another(site, page):
    page.goto("/matches/new/?game=legends")
    page.get_by_label("Agent of team 0").select_option("person")
    page.get_by_label("Agent of team 1").select_option("person")
    page.get_by_label(re.compile("^Seed")).fill("12")
    page.get_by_role("button", name="Play the match").click()
    expect(page).to_have_url(TABLE_URL)
    expect(page.locator("#seat-link-list li")).to_have_count(4)
    page.get_by_role("button", name="Play every seat at this device").click()
    ready = page.get_by_role("button", name="I am ready: show my seat")
    seen = set()
    hidden_checked = 0  # cards of other hands this seat could not see, looked for on its screen
    for _ in range(10):  # the first turns of the match, each seat's hand shown to its player alone
        expect(ready.or_(page.locator("#seat-actions button").first)).to_be_visible()
        if ready.is_visible():
            expect(page.locator("#seat-board")).to_be_empty()  # nothing of the last seat while the device changes hands
            ready.click()
        expect(page.locator("#seat-status")).to_contain_text("Your turn (seat ")
        player = re.search(r"seat (t\dp\d)", page.locator("#seat-status").inner_text()).group(1)
        seen.add(player)
        row = SeatedGame.objects.get(pk=game_of(page).pk)
        shown = page.locator("#seat-board").inner_text() + page.locator("#seat-actions").inner_text()
        others = set().union(*(hand_of(row, other) for other in row.seats if other != player)) - seen_by(row, player)
        names = dict(SummoningCard.objects.filter(slug__in=others).values_list("slug", "name"))
        assert not [name for name in names.values() if name in shown], (player, names)
        hidden_checked += len(names)
        expect(page.locator("#seat")).to_have_attribute("data-version", re.compile(r"^\d+$"))
        version = page.locator("#seat").get_attribute("data-version")
        page.locator("#seat-actions button").first.click()
        expect(page.locator("#seat")).not_to_have_attribute("data-version", version)
    assert len(seen) == 4 and hidden_checked  # every seat played, each after its own hand-off


def test_two_browsers_play_each_other_and_see_the_moves_arrive(site, page, new_context):
    code = code_of(faction_army("arcane"))
    page.goto(f"/matches/new/?game=realms&a_code={code}&agent_a=person&agent_b=person")
    page.get_by_role("group", name="Side b's army").get_by_label("A random legal army").check()
    page.get_by_role("button", name="Play the match").click()
    expect(page).to_have_url(TABLE_URL)
    links = page.locator("#seat-link-list a")
    expect(links).to_have_count(2)
    first_link, second_link = links.nth(0).get_attribute("href"), links.nth(1).get_attribute("href")
    page.goto(first_link)
    other = new_context().new_page()
    other.goto(second_link)
    seats = {"a": page, "b": other}
    for _ in range(6):
        row = SeatedGame.objects.get(pk=game_of(page).pk)
        mover, waiter = seats[row.turn], seats["b" if row.turn == "a" else "a"]
        expect(mover.locator("#seat-status")).to_contain_text("Your turn")
        expect(waiter.locator("#seat-status")).to_contain_text(f"Waiting for seat {row.turn}")
        moves = len(row.moves)
        expect(waiter.locator("#seat")).to_have_attribute("data-version", str(row.version))
        mover.locator("#seat-actions button").first.click()
        # The other browser sees the move arrive, without reloading: the game it shows moves on, in words too.
        expect(waiter.locator("#seat")).not_to_have_attribute("data-version", str(row.version))
        expect(waiter.locator("#seat-log li").first).to_be_visible()
        assert len(SeatedGame.objects.get(pk=row.pk).moves) > moves


def test_the_board_fits_a_phone_works_with_the_keyboard_and_meets_wcag_aa(site, new_context):
    phone = new_context(viewport={"width": 390, "height": 844})
    page = phone.new_page()
    code = code_of(faction_army("arcane"))
    page.goto(f"/matches/new/?game=realms&a_code={code}&agent_a=person")
    page.get_by_role("group", name="Side b's army").get_by_label("A random legal army").check()
    page.get_by_role("button", name="Play the match").click()
    expect(page).to_have_url(SEAT_URL)
    expect(page.locator("#seat-status")).to_have_text(re.compile("Your turn"))
    assert page.evaluate("document.documentElement.scrollWidth") <= 390  # nothing wider than the phone
    assert axe_violations(page) == []
    version = page.locator("#seat").get_attribute("data-version")
    first = page.locator("#seat-actions button").first
    first.focus()
    # The board asks the server again every few seconds; a reading that brings nothing new keeps the focus where it is.
    with page.expect_response(lambda response: "/seats/" in response.url and response.request.method == "GET"):
        pass
    assert page.evaluate("document.activeElement.dataset.index") == first.get_attribute("data-index")
    page.keyboard.press("Enter")
    expect(page.locator("#seat")).not_to_have_attribute("data-version", version)
