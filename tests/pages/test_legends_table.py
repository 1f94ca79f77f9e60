"""The Akin Legends table tracker in the browser: the turn order of a round, the counters handed on at its end
(ruling L11), the duel's swap, element markers, the win (L12), Undo, a reload, and a phone used with the keyboard
only. Everything is checked as the players read it on the page."""

import re

import pytest
from playwright.sync_api import expect

from legends.engine.vocabulary import DEFENSE_ELEMENTS, DUEL, MAX_ROUNDS_DEFAULT, MODES, TEAMS
from tests.pages.conftest import axe_violations, cached, cut_off

TABLE = "/legends/table/"
# Players 1 and 2 are Team 1, players 3 and 4 Team 2; seated so that teammates alternate, they hold the
# counters 1 Ann, 2 Cat, 3 Ben, 4 Dan in round 1.
NAMES = ("Ann", "Ben", "Cat", "Dan")
ROUND_1 = ["Ann", "Cat", "Ben", "Dan"]
# L11: counter 1 goes to the player who held 2, 2 to the holder of 3, 3 to the holder of 4, 4 to the holder of 1.
ROUND_2 = ["Cat", "Ben", "Dan", "Ann"]
ROUND_3 = ["Ben", "Dan", "Ann", "Cat"]
TEAM_OF = {"Ann": 1, "Ben": 1, "Cat": 2, "Dan": 2}


def start_game(page, mode: str = TEAMS, names: tuple[str, ...] = NAMES) -> None:
    page.goto(TABLE)
    page.get_by_label("Mode").select_option(mode)  # no game stored yet: the page opens on its setup form
    for number, name in enumerate(names, start=1):
        name_field(page, number).fill(name)
    page.get_by_role("button", name="Start the game").click()
    expect(page.get_by_role("heading", name="The game")).to_be_visible()


def name_field(page, number: int):
    """A player's name field, as shown (a duel hides each team's second player, and numbers its players 1 and 2)."""
    return page.get_by_role("textbox", name=f"Player {number} name", exact=True)


def counters(page):
    return page.get_by_role("region", name="Turn counters").get_by_role("listitem")


def expect_holders(page, holders: list[str]) -> None:
    """The counters list reads "Counter 1: <holder> (Team n)", in counter order."""
    expect(counters(page)).to_have_text(
        [re.compile(rf"^Counter {c}: {name} \(Team {TEAM_OF.get(name, c)}\)") for c, name in enumerate(holders, 1)])


def now(page):
    return page.locator("#table-now")


def round_line(page):
    return page.locator("#table-round")


def button(page, name: str):
    return page.get_by_role("button", name=name, exact=True)


def defense(page, team: int, number: int):
    """The list item of one defense: its name, its markers (or "Destroyed") and its buttons."""
    return page.get_by_role("listitem").filter(has=button(page, f"Team {team} defense {number} destroyed"))


def add_marker(page, team: int, number: int):
    return button(page, f"Team {team} defense {number} markers: add one")


def remove_marker(page, team: int, number: int):
    return button(page, f"Team {team} defense {number} markers: remove one")


def log_lines(page):
    return page.get_by_role("region", name="Log").get_by_role("listitem")


def tab_to(page, target, key: str = "Tab", limit: int = 80) -> None:
    """Press Tab (or Shift+Tab) until `target` has the focus, as a keyboard user moves through the page."""
    for _ in range(limit):
        page.keyboard.press(key)
        if target.evaluate("node => node === document.activeElement"):
            return
    raise AssertionError(f"Tab never reached {target}")


def play_round_with_the_keyboard(page, holders: list[str], round_number: int) -> None:
    """Every turn of a round with Enter: the counters in order 1 to 4, once a pass, the first pass face up;
    then the showdown and End round, which the focus moves to."""
    turns = MODES[TEAMS].passes * MODES[TEAMS].counters
    for turn in range(turns):
        counter = turn % len(holders)
        face = "face up" if turn < len(holders) else "face down"
        expect(now(page)).to_have_text(f"Counter {counter + 1}: {holders[counter]} plays")
        expect(round_line(page)).to_have_text(f"Round {round_number} · turn {turn + 1} of {turns} · {face}")
        expect(button(page, "Next turn")).to_be_focused()
        page.keyboard.press("Enter")
    expect(now(page)).to_contain_text("Showdown")
    expect(button(page, "Next turn")).to_be_disabled()
    expect(button(page, "End round")).to_be_focused()
    page.keyboard.press("Enter")


# ------------------------------------------------------------------------------------ without a browser


@pytest.mark.django_db
def test_the_page_answers_with_its_setup_form(client):
    response = client.get(TABLE)
    assert response.status_code == 200
    html = response.content.decode()
    assert "Akin Legends at the table" in html
    assert 'id="table-form"' in html and "Start the game" in html
    for number in range(1, MODES[TEAMS].players + 1):
        assert f"Player {number} name" in html
    # The rulebook's three defenses a team, and the matches' rounds before a draw, from the rule vocabulary.
    assert re.search(rf'name="defenses" value="{MODES[TEAMS].defenses_per_team}"', html)
    assert re.search(rf'name="max_rounds" value="{MAX_ROUNDS_DEFAULT}"', html)
    assert 'src="/static/legends/table.js"' in html


# ------------------------------------------------------------------------------------ in the browser


def test_two_rounds_of_a_teams_game_with_the_keyboard_hand_the_counters_on_as_l11_says(site, page):
    page.goto(TABLE)
    for number, name in enumerate(NAMES, start=1):
        tab_to(page, name_field(page, number))
        page.keyboard.type(name)
    tab_to(page, button(page, "Start the game"))
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="The game")).to_be_focused()
    expect_holders(page, ROUND_1)
    page.keyboard.press("Tab")

    play_round_with_the_keyboard(page, ROUND_1, 1)
    expect(round_line(page)).to_have_text(re.compile(r"^Round 2 · turn 1 of"))
    expect_holders(page, ROUND_2)
    # The ruling's own words: the holder of counter 2 now holds 1 and starts, the holder of 1 now holds 4.
    assert (ROUND_2[0], ROUND_2[3]) == (ROUND_1[1], ROUND_1[0])
    expect(counters(page).first).to_contain_text("plays now")
    expect(log_lines(page).first).to_have_text(re.compile(
        r"^Round 1 Round 1 ends; the counters are handed on: counter 1 to Cat, counter 2 to Ben, counter 3 to Dan, "
        r"counter 4 to Ann\. Counter 1: Cat plays$"))

    expect(button(page, "Next turn")).to_be_focused()
    play_round_with_the_keyboard(page, ROUND_2, 2)
    expect(round_line(page)).to_have_text(re.compile(r"^Round 3 · turn 1 of"))
    expect_holders(page, ROUND_3)
    assert (ROUND_3[0], ROUND_3[3]) == (ROUND_2[1], ROUND_2[0])
    expect(now(page)).to_have_text("Counter 1: Ben plays")


def test_a_duel_swaps_the_two_counters_at_the_end_of_each_round(site, page):
    page.goto(TABLE)
    page.get_by_label("Mode").select_option(DUEL)
    # The rulebook's two defenses a player in the two-player variant, and one player a team.
    expect(page.get_by_label("Defenses per team")).to_have_value(str(MODES[DUEL].defenses_per_team))
    expect(name_field(page, 3)).to_have_count(0)
    name_field(page, 1).fill("Ann")
    name_field(page, 2).fill("Bob")
    button(page, "Start the game").click()
    expect(counters(page)).to_have_text([re.compile(r"^Counter 1: Ann \(Team 1\)"), re.compile(r"^Counter 2: Bob \(Team 2\)")])
    team_2 = page.get_by_role("region", name="Team 2")
    expect(team_2).to_contain_text(f"Bob · {MODES[DUEL].defenses_per_team} of {MODES[DUEL].defenses_per_team} defenses standing")

    turns = MODES[DUEL].passes * MODES[DUEL].counters  # three cards each, players alternating
    for turn in range(turns):
        face = "face up" if turn < MODES[DUEL].counters else "face down"
        expect(now(page)).to_have_text(f"Counter {turn % 2 + 1}: {('Ann', 'Bob')[turn % 2]} plays")
        expect(round_line(page)).to_have_text(f"Round 1 · turn {turn + 1} of {turns} · {face}")
        button(page, "Next turn").click()
    button(page, "End round").click()
    expect(counters(page)).to_have_text([re.compile(r"^Counter 1: Bob"), re.compile(r"^Counter 2: Ann")])
    expect(now(page)).to_have_text("Counter 1: Bob plays")

    for _ in range(turns):
        button(page, "Next turn").click()
    button(page, "End round").click()
    expect(counters(page)).to_have_text([re.compile(r"^Counter 1: Ann"), re.compile(r"^Counter 2: Bob")])


def test_markers_are_added_and_removed_and_both_elements_destroy_a_defense(site, page):
    start_game(page)
    expect(defense(page, 1, 2)).to_contain_text(f"Markers: 0 of {DEFENSE_ELEMENTS}")
    expect(remove_marker(page, 1, 2)).to_be_disabled()

    add_marker(page, 1, 2).click()
    expect(defense(page, 1, 2)).to_contain_text(f"Markers: 1 of {DEFENSE_ELEMENTS}")
    expect(log_lines(page).first).to_have_text(f"Round 1 Team 1 defense 2: a marker added (1 of {DEFENSE_ELEMENTS}).")
    expect(defense(page, 1, 1)).to_contain_text("Markers: 0 of")  # only that defense
    expect(defense(page, 2, 2)).to_contain_text("Markers: 0 of")

    remove_marker(page, 1, 2).click()  # a healing card took it off
    expect(defense(page, 1, 2)).to_contain_text(f"Markers: 0 of {DEFENSE_ELEMENTS}")
    expect(log_lines(page).first).to_have_text(f"Round 1 Team 1 defense 2: a marker removed (0 of {DEFENSE_ELEMENTS}).")

    for _ in range(DEFENSE_ELEMENTS):
        add_marker(page, 1, 2).click()
    expect(defense(page, 1, 2)).to_contain_text("Destroyed")
    expect(button(page, "Team 1 defense 2 destroyed")).to_have_attribute("aria-pressed", "true")
    expect(add_marker(page, 1, 2)).to_be_disabled()
    expect(page.get_by_role("region", name="Team 1")).to_contain_text("2 of 3 defenses standing")
    expect(log_lines(page).first).to_contain_text("both of its elements lie on it: destroyed")


def test_a_team_with_every_defense_destroyed_loses_and_both_at_once_is_a_draw(site, page):
    start_game(page)
    for number in range(1, MODES[TEAMS].defenses_per_team + 1):
        expect(page.locator("#table-result")).to_be_hidden()
        button(page, f"Team 1 defense {number} destroyed").click()
    expect(page.get_by_text("Team 2 wins: every defense of Team 1 is destroyed.", exact=True)).to_be_visible()
    expect(now(page)).to_have_text("The game is over.")
    expect(button(page, "Next turn")).to_be_disabled()
    expect(button(page, "End round")).to_be_disabled()
    assert axe_violations(page) == []

    # Team 2's last defenses fall in the same showdown: nobody wins.
    for number in range(1, MODES[TEAMS].defenses_per_team + 1):
        button(page, f"Team 2 defense {number} destroyed").click()
    expect(page.get_by_text("Draw: both teams have lost all of their defenses.", exact=True)).to_be_visible()

    button(page, "Undo").click()
    expect(page.get_by_text("Team 2 wins: every defense of Team 1 is destroyed.", exact=True)).to_be_visible()


def test_a_game_undecided_when_its_last_round_ends_is_a_draw_unless_its_showdown_decided_it(site, page):
    page.goto(TABLE)
    page.get_by_label("Mode").select_option(DUEL)
    expect(page.get_by_label("Rounds before a draw")).to_have_value(str(MAX_ROUNDS_DEFAULT))
    page.get_by_label("Rounds before a draw").fill("2")
    button(page, "Start the game").click()
    turns = MODES[DUEL].passes * MODES[DUEL].counters
    for _ in range(turns):
        button(page, "Next turn").click()
    expect(round_line(page)).to_have_text("Round 1 · showdown")
    button(page, "End round").click()
    expect(round_line(page)).to_have_text(f"Round 2 · turn 1 of {turns} · face up · the last round")
    for _ in range(turns):
        button(page, "Next turn").click()
    expect(round_line(page)).to_have_text("Round 2 · showdown · the last round")
    expect(page.locator("#table-result")).to_be_hidden()

    button(page, "End round").click()
    draw = "Draw: round 2 was the game's last, and both teams still have defenses."
    expect(page.locator("#table-result")).to_have_text(draw)
    expect(now(page)).to_have_text("The game is over.")
    expect(log_lines(page).first).to_have_text(f"Round 2 Round 2 ends, the game's last. {draw}")
    expect(button(page, "Next turn")).to_be_disabled()
    expect(button(page, "End round")).to_be_disabled()

    # Taken back, and the last showdown destroys every defense of Team 1: that decides the game, not the limit.
    button(page, "Undo").click()
    expect(page.locator("#table-result")).to_be_hidden()
    expect(button(page, "End round")).to_be_enabled()
    for number in range(1, MODES[DUEL].defenses_per_team + 1):
        button(page, f"Team 1 defense {number} destroyed").click()
    expect(page.locator("#table-result")).to_have_text("Team 2 wins: every defense of Team 1 is destroyed.")
    expect(button(page, "End round")).to_be_disabled()


def test_undo_restores_the_state_before_each_change_in_turn(site, page):
    start_game(page)
    add_marker(page, 2, 3).click()
    for _ in range(MODES[TEAMS].passes * MODES[TEAMS].counters):
        button(page, "Next turn").click()
    button(page, "End round").click()
    add_marker(page, 1, 1).click()
    expect_holders(page, ROUND_2)
    expect(round_line(page)).to_have_text(re.compile("^Round 2 "))

    button(page, "Undo").click()  # the marker
    expect(defense(page, 1, 1)).to_contain_text("Markers: 0 of")
    expect(page.get_by_role("status").filter(has_text="Undone")).to_have_text(
        f"Undone: Team 1 defense 1: a marker added (1 of {DEFENSE_ELEMENTS}).")
    expect(round_line(page)).to_have_text(re.compile("^Round 2 "))

    button(page, "Undo").click()  # the end of the round: the counters as they were, round 1's showdown
    expect_holders(page, ROUND_1)
    expect(round_line(page)).to_have_text("Round 1 · showdown")
    expect(button(page, "End round")).to_be_enabled()

    button(page, "Undo").click()  # the last turn
    expect(now(page)).to_have_text("Counter 4: Dan plays")
    for _ in range(MODES[TEAMS].passes * MODES[TEAMS].counters - 1):
        button(page, "Undo").click()
    expect(now(page)).to_have_text("Counter 1: Ann plays")
    expect(defense(page, 2, 3)).to_contain_text("Markers: 1 of")
    button(page, "Undo").click()
    expect(defense(page, 2, 3)).to_contain_text("Markers: 0 of")
    expect(button(page, "Undo")).to_be_disabled()  # back at the start
    expect(log_lines(page)).to_have_count(1)
    expect(log_lines(page).first).to_contain_text("The game begins. Team 1: Ann and Ben; Team 2: Cat and Dan.")


def test_a_reload_keeps_the_game(site, page):
    start_game(page)
    add_marker(page, 1, 3).click()
    for _ in range(MODES[TEAMS].passes * MODES[TEAMS].counters):
        button(page, "Next turn").click()
    button(page, "End round").click()
    button(page, "Next turn").click()

    page.reload()
    expect(page.get_by_role("heading", name="The game")).to_be_visible()
    expect(page.get_by_role("heading", name="New game")).to_be_hidden()
    expect_holders(page, ROUND_2)
    expect(now(page)).to_have_text("Counter 2: Ben plays")
    expect(defense(page, 1, 3)).to_contain_text("Markers: 1 of")
    expect(log_lines(page).first).to_have_text("Round 2 Counter 2: Ben plays")

    button(page, "Undo").click()  # the history survives too
    expect(now(page)).to_have_text("Counter 1: Cat plays")

    # A new game replaces it, and that one is what a reload shows.
    button(page, "New game").click()
    expect(button(page, "Back to the game")).to_be_visible()
    for number, name in enumerate(("Eve", "Fay", "Gus", "Hal"), start=1):
        name_field(page, number).fill(name)
    button(page, "Start the game").click()
    expect(now(page)).to_have_text("Counter 1: Eve plays")
    page.reload()
    expect(now(page)).to_have_text("Counter 1: Eve plays")
    expect(defense(page, 1, 3)).to_contain_text("Markers: 0 of")


def test_a_game_reloaded_without_a_connection_opens_from_the_phone(site, new_context):
    page = new_context().new_page()
    start_game(page)
    button(page, "Next turn").click()
    add_marker(page, 2, 1).click()
    cached(page, "legends-table-v1")
    refused = cut_off(page.context)
    page.reload()
    # Nothing reached the server, the page itself included: the tracker is the phone's copy, with its game.
    assert any(url.endswith(TABLE) for url in refused), refused
    expect(now(page)).to_have_text("Counter 2: Cat plays")
    expect(defense(page, 2, 1)).to_contain_text("Markers: 1 of")
    button(page, "Next turn").click()
    expect(now(page)).to_have_text("Counter 3: Ben plays")


def test_at_phone_width_a_game_is_played_with_the_keyboard_only(site, page):
    console_errors: list[str] = []  # a refusal of the site's CSP, a missing file
    page.on("console", lambda message: console_errors.append(message.text) if message.type == "error" else None)
    page.set_viewport_size({"width": 375, "height": 740})
    page.goto(TABLE)
    assert axe_violations(page) == []
    tab_to(page, button(page, "Start the game"))
    page.keyboard.press("Enter")  # every name left blank: Player 1 to Player 4
    expect(now(page)).to_have_text("Counter 1: Player 1 plays")
    expect(counters(page).nth(1)).to_have_text(re.compile(r"^Counter 2: Player 3 \(Team 2\)"))

    tab_to(page, add_marker(page, 2, 1))
    assert page.evaluate("getComputedStyle(document.activeElement).outlineStyle") != "none"  # the focus shows
    page.keyboard.press("Enter")
    expect(defense(page, 2, 1)).to_contain_text("Markers: 1 of")
    expect(add_marker(page, 2, 1)).to_be_focused()  # still there, for a second marker
    page.keyboard.press("Enter")
    expect(defense(page, 2, 1)).to_contain_text("Destroyed")
    expect(button(page, "Team 2 defense 1 destroyed")).to_be_focused()  # its buttons are off: the focus stays near

    tab_to(page, button(page, "Next turn"), key="Shift+Tab")
    page.keyboard.press("Enter")
    expect(now(page)).to_have_text("Counter 2: Player 3 plays")
    expect(page.get_by_role("button", name="Undo")).to_be_enabled()
    tab_to(page, button(page, "Undo"))
    page.keyboard.press("Space")
    expect(now(page)).to_have_text("Counter 1: Player 1 plays")

    assert page.evaluate("document.documentElement.scrollWidth") <= 375  # nothing wider than the phone
    assert axe_violations(page) == []
    assert console_errors == []
