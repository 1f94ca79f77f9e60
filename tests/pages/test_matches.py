"""Playing a match from the match page and stepping through its replay, in the browser."""

import random
import re

from playwright.sync_api import expect

from realms.engine.army import Slot
from realms.services import army_code
from realms.studies import command_army
from simulate.models import Match
from simulate.services import play_match

REPLAY_URL = re.compile(r"/matches/[0-9a-f-]{36}/$")


def official_army_code(seed: int) -> str:
    """The code of a legal army of official cards (drawn as `manage.py simulate` draws one)."""
    slots = command_army("random", random.Random(seed))
    return army_code([Slot(card=s["card"], line=s["line"]) for s in slots])


def play_realms_from_the_form(page, code: str, seed: int) -> Match:
    page.goto("/matches/new/")
    side_a = page.get_by_role("group", name="Side a's army")
    side_a.get_by_label("Army code", exact=True).check()
    side_a.get_by_label("Army code of side a").fill(code)
    page.get_by_role("group", name="Side b's army").get_by_label("A random legal army").check()
    page.get_by_label("Agent of side a").select_option("greedy")
    page.get_by_label("Agent of side b").select_option("random")
    page.get_by_label(re.compile("^Seed")).fill(str(seed))
    page.get_by_role("button", name="Play the match").click()
    expect(page).to_have_url(REPLAY_URL)
    return Match.objects.get(pk=page.url.rstrip("/").rsplit("/", 1)[1])


def outcome_text(match: Match, winner_label: str) -> str:
    rounds = f"after {match.rounds} round{'' if match.rounds == 1 else 's'}"
    if match.winner is None:
        return f"Draw ({match.reason}) {rounds}."
    return f"{winner_label} wins ({match.reason}) {rounds}."


def step_to(page, position: int, total: int) -> None:
    """Press Step forward until the counter reads `position`."""
    counter = page.locator("#replay-counter")
    forward = page.get_by_role("button", name="Step forward")
    current = int(re.match(r"Event (\d+)", counter.inner_text()).group(1))
    for _ in range(position - current):
        forward.click()
    expect(counter).to_have_text(f"Event {position} of {total}")


def hp_meter(page, unit_id: str, name: str):
    return page.get_by_role("meter", name=f"HP of {unit_id} {name}", exact=True)


def test_a_realms_match_is_played_and_replayed_step_by_step(site, page, browser):
    code = official_army_code(11)
    match = play_realms_from_the_form(page, code, seed=4242)
    assert match.inputs["armies"]["a"] == {"code": code}
    assert match.agents == {"a": "greedy", "b": "random"}
    events = match.events
    total = len(events)
    names = {u["id"]: u["name"] for u in events[0]["units"]}
    counter = page.locator("#replay-counter")
    expect(counter).to_have_text(f"Event 1 of {total}")
    expect(page.locator("#match-winner")).to_have_text(
        "None: a draw" if match.winner is None else f"Side {match.winner}")
    expect(page.locator(".unit.acting")).to_have_count(0)

    # The first Basic Attack that takes HP off its target.
    hit = next(i for i, e in enumerate(events)
               if e["type"] == "damage" and e["via"] == "basic" and e["hp_after"] < e["hp_before"])
    attack = events[hit]
    step_to(page, hit, total)
    target = hp_meter(page, attack["tgt"], names[attack["tgt"]])
    expect(target).to_have_attribute("aria-valuenow", str(attack["hp_before"]))

    page.get_by_role("button", name="Step forward").click()
    expect(counter).to_have_text(f"Event {hit + 1} of {total}")
    expect(target).to_have_attribute("aria-valuenow", str(attack["hp_after"]))
    acting = page.locator(".unit.acting")
    expect(acting).to_have_count(1)
    expect(acting).to_contain_text(f"{attack['src']} {names[attack['src']]}")
    expect(page.locator("#replay-text")).to_contain_text(f"HP {attack['hp_before']} -> {attack['hp_after']}")
    expect(page.locator(f'.unit[data-unit="{attack["tgt"]}"] .hp-text')).to_contain_text(f"HP {attack['hp_after']} /")

    page.get_by_role("button", name="Step back").click()
    expect(counter).to_have_text(f"Event {hit} of {total}")
    expect(target).to_have_attribute("aria-valuenow", str(attack["hp_before"]))

    # The arrow keys step too, while the controls have focus.
    page.get_by_role("button", name="Step forward").focus()
    page.keyboard.press("ArrowRight")
    expect(counter).to_have_text(f"Event {hit + 1} of {total}")

    second_round = next(i for i, e in enumerate(events) if e["type"] == "round_start" and e["round"] == 2)
    page.get_by_label("Jump to round").select_option(label="Round 2")
    page.get_by_role("button", name="Jump").click()
    expect(counter).to_have_text(f"Event {second_round + 1} of {total}")
    expect(page.locator("#replay-text")).to_have_text("Round 2")

    page.get_by_label("Speed").select_option("250")
    page.get_by_role("button", name="Play", exact=True).click()
    expect(counter).to_have_text(f"Event {total} of {total}", timeout=30_000)
    expect(page.locator("#replay-outcome")).to_have_text(outcome_text(match, f"Side {match.winner}"))
    expect(page.get_by_role("button", name="Pause")).to_be_disabled()

    # The same inputs and seed play the same match again.
    again = play_realms_from_the_form(page, code, seed=4242)
    assert again.pk != match.pk
    assert (again.winner, again.reason, again.rounds, again.events) == (match.winner, match.reason, match.rounds, events)

    # The share link opens the same replay in a browser that has never been to the site.
    share = page.get_by_label("Link to this replay").input_value()
    assert share.endswith(f"/matches/{again.pk}/")
    context = browser.new_context()
    try:
        other = context.new_page()
        other.goto(share)
        expect(other.locator("#replay-counter")).to_have_text(f"Event 1 of {total}")
        expect(other.locator("#match-winner")).to_have_text(page.locator("#match-winner").inner_text())
        other.get_by_role("button", name="Step forward").click()
        expect(other.locator("#replay-counter")).to_have_text(f"Event 2 of {total}")
    finally:
        context.close()


def hidden_facedown(events: list[dict]) -> tuple[int, dict, str]:
    """A face-down card of the log and a seat that never saw it before the showdown: its index, the event,
    the seat."""
    seats = [p["id"] for team in events[0]["teams"] for p in team["players"]]
    for index, event in enumerate(events):
        if event["type"] != "facedown":
            continue
        saw = set(event["visible_to"])
        for other in events:
            if other["type"] == "spy" and (other["round"], other["seq"]) == (event["round"], event["seq"]):
                saw |= set(other["visible_to"])
        blind = [seat for seat in seats if seat not in saw]
        if blind:
            return index, event, blind[0]
    raise AssertionError("no face-down card hidden from a seat")


def test_a_legends_replay_shows_each_seat_only_what_it_saw(site, page):
    page.goto("/matches/new/?game=legends")
    page.get_by_role("radio", name=re.compile("^Random setup")).check()
    page.get_by_label("Mode of a random setup").select_option("teams")
    page.get_by_label("Agent of team 0").select_option("greedy")
    page.get_by_label("Agent of team 1").select_option("random")
    page.get_by_label(re.compile("^Seed")).fill("31")
    page.get_by_role("button", name="Play the match").click()
    expect(page).to_have_url(REPLAY_URL)
    match = Match.objects.get(game="legends")
    assert list(match.agents.values()) == ["greedy", "greedy", "random", "random"]
    events = match.events
    total = len(events)
    index, facedown, seat = hidden_facedown(events)
    card = next(d["name"] for d in events[0]["deck"] if d["slug"] == facedown["card"])
    seat_name = next(p["name"] for t in events[0]["teams"] for p in t["players"] if p["id"] == seat)

    teams = page.locator("#replay-board .team")
    expect(teams).to_have_count(2)
    for team in events[0]["teams"]:
        for defense in team["defenses"]:
            expect(teams.nth(team["team"]).locator(".defenses")).to_contain_text(defense["name"])

    step_to(page, index + 1, total)
    play = page.locator("#plays li", has_text=f"Turn {facedown['seq'] + 1}:")
    expect(play).to_contain_text(card)
    expect(page.locator("#replay-text")).to_contain_text(facedown["card"])

    page.get_by_label("View as").select_option(seat)
    expect(play).to_contain_text("face down")
    expect(play).not_to_contain_text(card)
    expect(page.locator("#replay-text")).to_contain_text(f"Hidden from {seat_name} ({seat})")
    expect(page.locator("#replay-text")).not_to_contain_text(facedown["card"])
    expect(page.locator(f'[data-seat="{seat}"] .hand')).not_to_contain_text("hidden")
    expect(page.locator(f'[data-seat="{facedown["player"]}"] .hand')).to_have_text("Hand: hidden from this seat")

    page.get_by_label("View as").select_option("")
    expect(play).to_contain_text(card)

    # Played to the end, the viewer states the stored result.
    page.get_by_label("Speed").select_option("250")
    page.get_by_role("button", name="Play", exact=True).click()
    expect(page.locator("#replay-counter")).to_have_text(f"Event {total} of {total}", timeout=30_000)
    spirit = None if match.winner is None else events[0]["teams"][int(match.winner)]["spirit"]["name"]
    expect(page.locator("#replay-outcome")).to_have_text(outcome_text(match, f"Team {match.winner} ({spirit})"))
    expect(page.locator("#match-winner")).to_have_text(
        "None: a draw" if match.winner is None else f"Team {match.winner} ({spirit})")


def test_the_form_shows_what_is_wrong_next_to_the_field(site, page):
    page.goto("/matches/new/")
    side_a = page.get_by_role("group", name="Side a's army")
    side_a.get_by_label("Army code", exact=True).check()
    side_a.get_by_label("Army code of side a").fill("not a code")
    page.get_by_role("button", name="Play the match").click()
    expect(page.locator("#a-errors")).to_contain_text("not valid")
    expect(side_a.get_by_label("Army code of side a")).to_have_value("not a code")
    expect(side_a.get_by_label("Army code", exact=True)).to_be_checked()
    page.get_by_label(re.compile("^Seed")).fill("minus one")
    page.get_by_role("button", name="Play the match").click()
    expect(page.locator("#seed-errors")).to_contain_text("whole number")
    expect(page.get_by_label(re.compile("^Seed"))).to_have_value("minus one")
    assert not Match.objects.exists()


def test_replays_fit_a_phone(site, page):
    army = command_army("random", random.Random(5))
    realms, _ = play_match(game="realms", inputs={"armies": {"a": {"slots": army}, "b": {"slots": army}}}, seed=5)
    legends, _ = play_match(game="legends", inputs={"mode": "teams", "setup": {"mode": "teams", "teams": [
        {"spirit": "akin", "players": [{"name": "Ann", "counter": 1}, {"name": "Ben", "counter": 3}]},
        {"spirit": "yulin", "players": [{"name": "Cat", "counter": 2}, {"name": "Dan", "counter": 4}]}]}}, seed=5)
    page.set_viewport_size({"width": 375, "height": 740})
    for url in (f"/matches/{realms.pk}/", f"/matches/{legends.pk}/", "/matches/new/", "/matches/new/?game=legends"):
        page.goto(url)
        if "new" not in url:
            page.get_by_role("button", name="Step forward").click()
            expect(page.locator("#replay-counter")).to_contain_text("Event 2 of")
        assert page.evaluate("document.documentElement.scrollWidth") <= 375, url


def test_card_names_in_the_replay_are_text(site, page):
    from realms.models import Character

    army = command_army("random", random.Random(8))
    Character.objects.filter(slug=army[0]["card"]).update(name="<img src=x onerror=alert(1)>")
    match, _ = play_match(game="realms", inputs={"armies": {"a": {"slots": army}, "b": {"slots": army}}}, seed=8)
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.goto(f"/matches/{match.pk}/")
    expect(page.locator('.unit[data-unit="a1"] .unit-name')).to_have_text("a1 <img src=x onerror=alert(1)>")
    expect(page.locator("#replay-text")).to_contain_text("a1 <img src=x onerror=alert(1)>")
    expect(page.locator("#replay-board img")).to_have_count(0)
    assert not dialogs
