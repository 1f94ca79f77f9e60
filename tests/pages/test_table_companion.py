"""The table companion in the browser: two phones (two browser contexts) keep one Echo Realms game played with
physical cards. They confirm the engine's offers, use abilities and tap HP for three rounds, and what they show
(the attack order, who acts, effects with their last rounds, cooldowns, HP) is what the engine computes from the
same decisions; a change made offline reaches the other phone once the connection is back; undo restores the
previous state; the page works at phone width with the keyboard and meets WCAG 2 AA."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from cardsdb.pages.offline import KEPT
from simulate import services
from simulate.engine.seated import PERSON, resume
from simulate.models import SeatedGame
from simulate.pinning import Thawing
from tests.factories import faction_army
from tests.pages.conftest import axe_violations, cached, cut_off
from tests.pages.test_play_what_was_filled_in import code_of

GAME_URL = re.compile(r"/realms/table/([0-9a-f-]{36})/#a=[A-Za-z0-9_-]+&b=[A-Za-z0-9_-]+$")
SIDE_NAMES = {"a": "Army A", "b": "Army B"}
STATS = {"atk": "ATK", "def": "DEF", "spd": "SPD"}


def opened(page) -> tuple[SeatedGame, dict[str, str]]:
    """A table game of Arcane's starter army against Tribal's, a first, from the form; its row and seat links."""
    page.goto("/realms/table/")
    page.get_by_label("Army A, yours: its code").fill(code_of(faction_army("arcane")))
    page.get_by_label("Army B, your opponent's: its code").fill(code_of(faction_army("tribal")))
    page.get_by_label("First player (ties on SPD)").select_option("a")
    page.get_by_role("button", name="Start the game").click()
    expect(page).to_have_url(GAME_URL)
    game_id = GAME_URL.search(page.url).group(1)
    fragment = dict(part.split("=") for part in page.url.split("#")[1].split("&"))
    base = page.url.split("#")[0]
    return SeatedGame.objects.get(pk=game_id), {side: f"{base}#{side}={secret}" for side, secret in fragment.items()}


def engine_state(row: SeatedGame) -> Any:
    """The same game run by the engine alone: the stored armies, seed and moves (decisions and table changes)."""
    row.refresh_from_db()
    setup = services.game_studies("realms").thaw_setup(row.frozen["setup"], Thawing(row.frozen["values"]))
    return resume("realms", setup=setup, options=row.options, seed=row.seed, seats={"a": PERSON, "b": PERSON},
                  moves=[tuple(move) for move in row.moves]).state


def expected_order(state: Any) -> list[str]:
    obs = state.observation("a")
    lines = []
    for index, (uid, spd) in enumerate(obs.attack_order()):
        unit = obs.unit(uid)
        acting = obs.phase == "act" and index == obs.acting
        done = obs.phase == "act" and index < obs.acting
        status = "fallen" if not unit.alive else "acts now" if acting else "has acted" if done else "to act"
        lines.append(f"{unit.name} ({SIDE_NAMES[unit.side]}), SPD {spd}: {status}")
    return lines


def expected_ready(unit: Any, rnd: int) -> str:
    if unit.silenced:
        return "silenced"
    if unit.ready_round <= max(rnd, 1):
        return "ready"
    left = unit.ready_round - rnd
    return f"cooling down: ready in round {unit.ready_round} ({left} round{'' if left == 1 else 's'})"


def expected_effect(effect: Any, rnd: int) -> str:
    if effect.stat:
        what = f"{effect.kind} {'+' if effect.kind == 'buff' else '−'}{effect.amount} {STATS[effect.stat]}"
    else:
        what = f"{effect.kind} {effect.amount}" if effect.amount else effect.kind
    left = effect.until - max(rnd, 1) + 1
    return f"{what}, until the end of round {effect.until} ({left} round{'' if left == 1 else 's'} left)"


def assert_shows_the_engine(phone, state: Any) -> None:
    """The phone's sheet against the engine's state: order, HP, cooldowns, standing effects."""
    expect(phone.locator("#table-order li")).to_have_text(expected_order(state))
    obs = state.observation("a")
    for unit in obs.units:
        expect(phone.locator(f"#hp-{unit.uid}")).to_contain_text(f"HP {unit.hp} / {unit.max_hp}")
        if unit.alive and unit.card is not None:
            expect(phone.locator(f"#ready-{unit.uid}")).to_have_text(expected_ready(unit, obs.round))
        words = [expected_effect(e, obs.round) for e in unit.effects]
        effects = phone.locator(f"#effects-{unit.uid} li")
        if words:
            expect(effects).to_have_text([re.compile(re.escape(w)) for w in words])
        else:
            expect(effects).to_have_count(0)


def decide(phones: dict[str, Any], row: SeatedGame, prefer_ability: bool) -> None:
    """The deciding side's phone confirms an offer (an ability when one is offered and wanted, else the first),
    once it shows the game as it stands; the sheet then shows the game moved on."""
    row.refresh_from_db()
    phone = phones[row.turn]
    version = str(row.version)
    expect(phone.locator("#table-game")).to_have_attribute("data-version", version)
    expect(phone.locator("#table-decision")).to_be_visible()
    labels = phone.locator("#table-choices label").all_inner_texts()
    pick = next((i for i, text in enumerate(labels) if prefer_ability and "Basic Attack" not in text
                 and "stays" not in text and "moves to" not in text), 0)
    phone.locator("#table-choices input[type=radio]").nth(pick).check()
    phone.get_by_role("button", name="Confirm").click()
    expect(phone.locator("#table-game")).not_to_have_attribute("data-version", version)


def test_two_phones_play_three_rounds_and_show_what_the_engine_computes(site, page, new_context):
    row, links = opened(page)
    page.goto(links["a"])
    other = new_context().new_page()
    other.goto(links["b"])
    phones = {"a": page, "b": other}
    expect(page.locator("#table-status")).to_contain_text("Round 1")
    # A free SPD debuff put on by hand, an HP tap: the engine runs on from them.
    first_b = engine_state(row).observation("a").units[7]
    standing = len(first_b.effects)
    page.get_by_label("Unit", exact=True).select_option(first_b.uid)
    page.get_by_label("Effect", exact=True).select_option("debuff")
    page.get_by_label("Stat", exact=True).select_option("spd")
    page.get_by_label("Amount", exact=True).fill("2")
    page.get_by_label("Rounds", exact=True).fill("2")
    page.get_by_role("button", name="Put it on").click()
    expect(other.locator(f"#effects-{first_b.uid} li")).to_have_count(standing + 1)
    other.get_by_role("button", name=f"{first_b.name} ({SIDE_NAMES['b']}): HP down 1").click()
    expect(other.locator(f"#hp-{first_b.uid}")).to_contain_text(f"HP {first_b.hp - 1} / ")
    expect(other.locator(f"#hp-{first_b.uid}")).not_to_contain_text("not sent yet")  # the tap reached the game
    decisions = 0
    while True:
        row.refresh_from_db()
        state = engine_state(row)
        if state.is_terminal() or state.round > 3:
            break
        assert_shows_the_engine(page, state)
        decide(phones, row, prefer_ability=decisions % 2 == 0)
        decisions += 1
    state = engine_state(row)
    assert state.round > 3 or state.is_terminal()
    for phone in phones.values():
        assert_shows_the_engine(phone, state)
    events = state.events()
    assert any(e["type"] == "ability_used" for e in events)  # abilities were used, cooldowns counted
    assert any(e["type"] == "cooldown_started" for e in events)
    assert any(e["type"] == "effect_expired" and e["reason"] == "duration" for e in events)  # and expiries came
    assert sum(1 for e in events if e["type"] == "table_change") == 2


def test_a_change_made_offline_reaches_the_other_phone_when_the_connection_returns(site, page, new_context):
    row, links = opened(page)
    page.goto(links["a"])
    offline = new_context()
    other = offline.new_page()
    other.goto(links["b"])
    target = engine_state(row).observation("a").units[0]
    expect(page.locator(f"#hp-{target.uid}")).to_contain_text(f"HP {target.hp} / ")
    expect(other.locator(f"#hp-{target.uid}")).to_contain_text(f"HP {target.hp} / ")
    moves = len(row.moves)
    offline.set_offline(True)
    other.get_by_role("button", name=f"{target.name} ({SIDE_NAMES['a']}): HP down 5").click()
    expect(other.locator(f"#hp-{target.uid}")).to_contain_text(f"HP {target.hp - 5} / ")
    expect(other.locator(f"#hp-{target.uid}")).to_contain_text("not sent yet")
    expect(other.locator("#table-connection")).to_contain_text("No connection")
    row.refresh_from_db()
    assert len(row.moves) == moves  # kept on the phone while it is offline
    offline.set_offline(False)
    expect(page.locator(f"#hp-{target.uid}")).to_contain_text(f"HP {target.hp - 5} / ")
    expect(other.locator(f"#hp-{target.uid}")).not_to_contain_text("not sent yet")
    row.refresh_from_db()
    assert row.moves[-1] == ["table", ["hp", target.uid, -5]]


@pytest.mark.django_db
@pytest.mark.parametrize(("path", "cache"), [("/realms/table/", "realms-table-v1"), ("/legends/table/", "legends-table-v1")])
def test_each_table_page_has_its_service_worker_served_from_its_own_path(client, path, cache):
    # A worker's scope is the path it comes from: the table pages, and nothing else of the site.
    assert f'data-worker="{path}offline.js"' in client.get(path).content.decode()
    response = client.get(f"{path}offline.js")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/javascript; charset=utf-8"
    assert response["Cache-Control"] == "no-cache"  # a new version is picked up at the next visit
    body = response.content.decode()
    assert f'const CACHE = "{cache}";' in body and f"const KEPT = {KEPT};" in body
    assert client.post(f"{path}offline.js").status_code == 405


def test_a_sheet_reloaded_without_a_connection_opens_from_the_phone_and_sends_its_change_when_it_returns(
        site, page, new_context):
    row, links = opened(page)
    phone = new_context()
    sheet = phone.new_page()
    sheet.goto(links["b"])
    target = engine_state(row).observation("a").units[0]
    expect(sheet.locator(f"#hp-{target.uid}")).to_contain_text(f"HP {target.hp} / ")
    cached(sheet, "realms-table-v1")  # the service worker keeps the page and its files once it runs
    refused = cut_off(phone)
    sheet.reload()
    # Nothing reached the server, the page itself included: the sheet is the phone's copy, with its state.
    assert any(url.split("#")[0] == links["b"].split("#")[0] for url in refused), refused
    expect(sheet.locator(f"#hp-{target.uid}")).to_contain_text(f"HP {target.hp} / ")
    expect(sheet.locator("#table-connection")).to_contain_text("No connection")
    sheet.get_by_role("button", name=f"{target.name} ({SIDE_NAMES['a']}): HP down 1").click()
    expect(sheet.locator(f"#hp-{target.uid}")).to_contain_text(f"HP {target.hp - 1} / ")
    expect(sheet.locator(f"#hp-{target.uid}")).to_contain_text("not sent yet")
    moves = len(row.moves)
    row.refresh_from_db()
    assert len(row.moves) == moves

    phone.unroute_all()
    phone.set_offline(False)
    expect(sheet.locator(f"#hp-{target.uid}")).not_to_contain_text("not sent yet")
    row.refresh_from_db()
    assert row.moves[-1] == ["table", ["hp", target.uid, -1]]


def test_undo_restores_the_previous_state_on_both_phones(site, page, new_context):
    row, links = opened(page)
    page.goto(links["a"])
    other = new_context().new_page()
    other.goto(links["b"])
    before = engine_state(row)
    expect(page.locator("#table-order li")).to_have_text(expected_order(before))
    decide({"a": page, "b": other}, row, prefer_ability=True)
    target = before.observation("a").units[8]
    page.get_by_role("button", name=f"{target.name} ({SIDE_NAMES['b']}): HP down 5").click()
    expect(other.locator(f"#hp-{target.uid}")).to_contain_text(f"HP {target.hp - 5} / ")
    other.get_by_role("button", name="Undo the last change").click()  # the other phone takes back the tap
    expect(page.locator(f"#hp-{target.uid}")).to_contain_text(f"HP {target.hp} / ")
    page.get_by_role("button", name="Undo the last change").click()  # and then the decision
    for phone in (page, other):
        expect(phone.locator("#table-order li")).to_have_text(expected_order(before))
        assert_shows_the_engine(phone, before)
    row.refresh_from_db()
    assert row.moves == []


def test_the_sheet_fits_a_phone_works_with_the_keyboard_and_meets_wcag_aa(site, new_context):
    phone = new_context(viewport={"width": 390, "height": 844})
    page = phone.new_page()
    page.goto("/realms/table/")
    assert axe_violations(page) == []
    row, _ = opened(page)  # one phone shared at the table: its address holds both seats
    expect(page.locator("#table-status")).to_contain_text("Round 1")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390  # nothing wider than the phone
    assert axe_violations(page) == []
    target = engine_state(row).observation("a").units[0]
    button = page.get_by_role("button", name=f"{target.name} ({SIDE_NAMES['a']}): HP down 1")
    button.focus()
    page.keyboard.press("Enter")
    expect(page.locator(f"#hp-{target.uid}")).to_contain_text(f"HP {target.hp - 1} / ")
    expect(page.locator(f"#hp-{target.uid}")).not_to_contain_text("not sent yet")
    row.refresh_from_db()
    version = str(row.version)
    expect(page.locator("#table-game")).to_have_attribute("data-version", version)
    # The decision with the keyboard alone: the first offer chosen, then confirmed.
    page.locator("#table-choices input[type=radio]").first.focus()
    page.keyboard.press("Space")
    expect(page.locator("#table-choices input[type=radio]").first).to_be_checked()
    page.keyboard.press("Tab")
    expect(page.get_by_role("button", name="Confirm")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#table-game")).not_to_have_attribute("data-version", version)
    row.refresh_from_db()
    assert row.moves[-1][0] in ("a", "b")  # the decision confirmed with the keyboard
