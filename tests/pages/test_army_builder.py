"""The army builder in the browser: violations shown live as an army is built and fixed, its order set by the
player (it settles their own SPD ties), its code copied and shared, a decklist pasted and copied, armies saved
and opened again, each in the order built; anonymous visitors cannot save."""

import re

from playwright.sync_api import expect

from realms import services
from realms.engine.vocabulary import ARMY_SIZE, RARITY_QUOTA
from realms.models import Army, Character
from tests.factories import faction_army
from tests.pages.conftest import axe_violations, sign_in
from tests.realms.test_army_order import BUILT

BUILDER = "/realms/armies/build/"


def _characters(slots) -> dict[str, Character]:
    return {c.slug: c for c in Character.objects.filter(slug__in=[s["card"] for s in slots]).select_related("rarity")}


def _code(slots) -> str:
    return services.army_validate(slots=services.slots_from_data(slots))["code"]


def _slot_inputs(page):
    return page.locator('#army-builder input[name="card"]')


def _add(page, character: Character, line: str) -> None:
    """Press the card's Add button and wait for the army to hold one card more."""
    before = _slot_inputs(page).count()
    page.get_by_role("button", name=f"Add {character.name} to {line.title()}", exact=True).click()
    expect(_slot_inputs(page)).to_have_count(before + 1)


def _army_names(page) -> list[str]:
    """The army's cards as the page lists them: in army order."""
    return page.locator("#army-builder .army-slot .slot-name").all_inner_texts()


def _names(slots) -> list[str]:
    cards = _characters(slots)
    return [cards[s["card"]].name for s in slots]


def _verdict(page):
    return page.locator("#army-validity")


def test_an_illegal_army_shows_its_violations_live_and_turns_valid_when_fixed(site, page):
    slots = faction_army("arcane")
    cards = _characters(slots)
    legendary = next(s for s in slots if cards[s["card"]].rarity.slug == "legendary")
    extra = (Character.objects.filter(rarity__slug="common").exclude(slug__in=cards).exclude(position="flex")
             .order_by("pk").first())
    page.goto(BUILDER)
    page.evaluate("window.stayedOnThePage = true")
    expect(_verdict(page)).to_have_text("Not valid")
    for slot in slots:
        if slot is not legendary:
            _add(page, cards[slot["card"]], slot["line"])
    _add(page, extra, extra.position)
    # The pressed button keeps the focus across the update, for keyboard users.
    expect(page.get_by_role("button", name=f"Add {extra.name} to {extra.position.title()}", exact=True)).to_be_focused()
    violations = page.locator("#army-status .violations")
    common_quota, legendary_quota = RARITY_QUOTA["common"], RARITY_QUOTA["legendary"]
    assert (common_quota, legendary_quota) == (3, 1)
    expect(violations).to_contain_text(f"An army has 3 common cards; this one has {common_quota + 1}.")
    expect(violations).to_contain_text("An army has 1 legendary card; this one has 0.")
    expect(_verdict(page)).to_have_text("Not valid")
    expect(page.locator('[data-rarity="common"] .rarity-count')).to_have_text(f"{common_quota + 1} / {common_quota}")

    page.get_by_role("button", name=f"Remove {extra.name}", exact=True).click()
    expect(_slot_inputs(page)).to_have_count(ARMY_SIZE - 1)
    _add(page, cards[legendary["card"]], legendary["line"])
    expect(_verdict(page)).to_have_text("Valid")
    expect(violations).to_have_count(0)
    for rarity, need in RARITY_QUOTA.items():
        expect(page.locator(f'[data-rarity="{rarity}"] .rarity-count')).to_have_text(f"{need} / {need}")
    expect(page.locator("#army-code")).to_have_value(_code(slots))
    assert page.evaluate("window.stayedOnThePage === true")  # htmx updated the page in place


def test_a_card_in_a_line_it_cannot_stand_in_is_named_and_moving_it_fixes_that(site, page):
    card = Character.objects.filter(position="vanguard").order_by("pk").first()
    page.goto(BUILDER)
    _add(page, card, "rearguard")
    message = f"{card.name} is a vanguard card and cannot stand in the rearguard."
    expect(page.locator("#army-status .violations")).to_contain_text(message)
    page.get_by_role("button", name=f"Move {card.name} to Vanguard", exact=True).click()
    expect(page.locator("#army-status .violations")).not_to_contain_text(message)
    expect(page.locator('#army-builder .army-slot[data-line="vanguard"] .slot-line')).to_have_text(["Vanguard"])


def test_a_card_added_twice_is_named_with_its_place_in_army_order(site, page):
    card = Character.objects.filter(position="vanguard").order_by("pk").first()
    page.goto(BUILDER)
    _add(page, card, "vanguard")
    _add(page, card, "vanguard")
    expect(page.locator("#army-status .violations")).to_contain_text(
        f"{card.name} is already in the army (number 1 in army order); each card is a unique unit.")
    expect(page.locator("#army-status .violations")).not_to_contain_text(card.slug)


def test_copy_the_code_and_open_the_share_link_in_a_fresh_browser(site, page, new_context, live_server):
    slots = faction_army("shadow")
    cards = _characters(slots)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.goto(BUILDER)
    for slot in slots:
        _add(page, cards[slot["card"]], slot["line"])
    expect(_verdict(page)).to_have_text("Valid")
    code = page.locator("#army-code").input_value()
    assert code == _code(slots)
    page.get_by_role("button", name="Copy the army code").click()
    expect(page.locator("#army-code ~ .copy-status")).to_have_text("Copied.")
    assert page.evaluate("navigator.clipboard.readText()") == code
    share = page.locator("#army-share").input_value()
    assert share == f"{live_server.url}{BUILDER}?code={code}"

    fresh = new_context()
    other = fresh.new_page()
    other.goto(share)
    expect(_verdict(other)).to_have_text("Valid")
    expect(_slot_inputs(other)).to_have_count(ARMY_SIZE)
    assert _army_names(other) == _names(slots)  # in the order built


def _tied_at_six(page):
    """The attack-order preview's line for SPD 6, where the army's own cards tie."""
    return page.locator("#army-builder .attack-order li", has_text="SPD 6:")


def test_the_player_sets_the_army_order_and_the_preview_code_link_and_decklist_keep_it(site, page, new_context):
    cards = _characters(BUILT)
    acolyte, warlock, runecaster = (cards[s["card"]] for s in BUILT[:3])
    urgoth = cards[BUILT[6]["card"]]
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.goto(BUILDER)
    # Added Runecaster, Warlock, Acolyte: the order a share link used to give this army.
    for slot in [BUILT[2], BUILT[1], BUILT[0], *BUILT[3:]]:
        _add(page, cards[slot["card"]], slot["line"])
    expect(_verdict(page)).to_have_text("Valid")
    expect(_tied_at_six(page)).to_contain_text(f"SPD 6: {runecaster.name}, {warlock.name}, {acolyte.name}, "
                                               f"{urgoth.name} (tied: they act in army order)")
    earlier = page.get_by_role("button", name=f"Move {acolyte.name} earlier", exact=True)
    earlier.click()
    expect(page.locator("#army-status")).to_contain_text(f"{acolyte.name} is now number 2 of 7 in the army order.")
    expect(earlier).to_be_focused()  # the focus follows the card, for keyboard users
    page.keyboard.press("Enter")
    expect(page.locator("#army-status")).to_contain_text(f"{acolyte.name} is now number 1 of 7 in the army order.")
    expect(earlier).to_be_disabled()  # first already: the focus moves to its other button
    expect(page.get_by_role("button", name=f"Move {acolyte.name} later", exact=True)).to_be_focused()
    page.get_by_role("button", name=f"Move {runecaster.name} later", exact=True).click()
    expect(page.locator("#army-status")).to_contain_text(f"{runecaster.name} is now number 3 of 7")
    assert _army_names(page) == _names(BUILT)
    in_order = f"SPD 6: {acolyte.name}, {warlock.name}, {runecaster.name}, {urgoth.name}"
    expect(_tied_at_six(page)).to_contain_text(in_order)

    code = page.locator("#army-code").input_value()
    assert code == _code(BUILT)
    decklist = page.locator("#army-decklist").input_value()
    assert decklist == services.army_export_text(services.slots_from_data(BUILT))
    page.get_by_role("button", name="Copy the decklist").click()
    expect(page.locator("#army-decklist + .copy-row .copy-status")).to_have_text("Copied.")
    assert page.evaluate("navigator.clipboard.readText()") == decklist

    fresh = new_context()
    other = fresh.new_page()
    other.goto(page.locator("#army-share").input_value())
    expect(_slot_inputs(other)).to_have_count(ARMY_SIZE)
    assert _army_names(other) == _names(BUILT)
    expect(_tied_at_six(other)).to_contain_text(in_order)
    other.goto(BUILDER)
    other.get_by_label("An army code, or a decklist").fill(decklist)
    other.get_by_role("button", name="Load it").click()
    expect(other.locator("#army-code")).to_have_value(code)
    assert _army_names(other) == _names(BUILT)


def test_a_saved_army_keeps_the_order_built_and_a_saved_move_changes_it(site, page, django_user_model):
    user = django_user_model.objects.create_user("tara", password="tara-password-1")
    cards = _characters(BUILT)
    warlock = cards[BUILT[1]["card"]]
    sign_in(page, "tara", "tara-password-1")
    page.goto(f"{BUILDER}?code={_code(BUILT)}")
    assert _army_names(page) == _names(BUILT)
    page.get_by_label("Army name").fill("Tied at six")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.locator("#army-status")).to_contain_text("Saved “Tied at six”.")
    army = Army.objects.get(owner=user)
    assert army.slots == BUILT

    page.goto(f"{BUILDER}?army={army.pk}")
    expect(_slot_inputs(page)).to_have_count(ARMY_SIZE)
    assert _army_names(page) == _names(BUILT)
    page.get_by_role("button", name=f"Move {warlock.name} earlier", exact=True).click()
    moved = [BUILT[1], BUILT[0], *BUILT[2:]]
    expect(page.locator("#army-builder .army-slot .slot-name").first).to_have_text(warlock.name)
    page.get_by_role("button", name="Save changes").click()
    expect(page.locator("#army-status")).to_contain_text("Saved “Tied at six”.")
    army.refresh_from_db()
    assert army.slots == moved
    expect(page.locator("#army-code")).to_have_value(_code(moved))
    page.reload()
    assert _army_names(page) == _names(moved)


def test_paste_a_decklist_lists_the_lines_not_read_and_loads_the_rest(site, page):
    slots = faction_army("celestial")
    cards = _characters(slots)
    lines = ["My celestial army", "# Vanguard"]
    lines += [cards[s["card"]].name for s in slots if s["line"] == "vanguard"]
    lines += ["", "# Rearguard"]
    lines += [cards[s["card"]].name for s in slots if s["line"] == "rearguard"]
    page.goto(BUILDER)
    page.get_by_label("An army code, or a decklist").fill("\n".join(lines))
    page.get_by_role("button", name="Load it").click()
    expect(page.locator("#army-status")).to_contain_text(f"Read {ARMY_SIZE} cards from the decklist.")
    expect(page.locator(".decklist-problems li")).to_have_text(["Line 1: No character card 'My celestial army'."])
    expect(_verdict(page)).to_have_text("Valid")
    assert _army_names(page) == ([cards[s["card"]].name for s in slots if s["line"] == "vanguard"]
                                 + [cards[s["card"]].name for s in slots if s["line"] == "rearguard"])


def test_a_misspelt_card_of_a_pasted_decklist_gets_one_suggestion(site, page):
    card = Character.objects.order_by("pk").first()
    misspelt = card.name[:-1] + card.name[-1].swapcase() * 2
    page.goto(BUILDER)
    page.get_by_label("An army code, or a decklist").fill(misspelt)
    page.get_by_role("button", name="Load it").click()
    expect(page.locator(".decklist-problems li")).to_have_text(
        [f"Line 1: No character card '{misspelt}'; did you mean '{card.name}'?"])


def test_paste_a_code_loads_its_army(site, page):
    slots = faction_army("arcane")
    page.goto(BUILDER)
    page.get_by_label("An army code, or a decklist").fill(_code(slots))
    page.get_by_role("button", name="Load it").click()
    expect(page.locator("#army-status")).to_contain_text("Loaded the army of the pasted code.")
    expect(_slot_inputs(page)).to_have_count(ARMY_SIZE)
    assert _army_names(page) == _names(slots)


def test_a_bad_code_in_the_address_is_explained(site, page):
    response = page.goto(f"{BUILDER}?code=not-a-code")
    assert response.status == 400
    expect(page.locator("#army-status")).to_contain_text("Bad army code")
    expect(_slot_inputs(page)).to_have_count(0)


def test_search_the_characters_with_the_query_language(site, page):
    expected = Character.objects.filter(faction__slug="abyssal").count()
    card = Character.objects.filter(faction__slug="abyssal", position="rearguard").order_by("pk").first()
    page.goto(BUILDER)
    page.get_by_label("Search").fill("faction:abyssal")
    page.get_by_label("Search").press("Enter")
    expect(page.locator(".pick")).to_have_count(expected)
    _add(page, card, "rearguard")
    expect(page.get_by_label("Search")).to_have_value("faction:abyssal")


def test_save_when_signed_in_then_find_it_on_a_card_page_and_open_it(site, page, django_user_model):
    user = django_user_model.objects.create_user("nora", password="nora-password-1")
    slots = faction_army("arcane")
    cards = _characters(slots)
    sign_in(page, "nora", "nora-password-1")
    page.goto(f"{BUILDER}?code={_code(slots)}")
    page.get_by_label("Army name").fill("Nora's arcane")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.locator("#army-status")).to_contain_text("Saved “Nora's arcane”.")
    army = Army.objects.get(owner=user)
    expect(page).to_have_url(re.compile(rf"\?army={army.pk}$"))
    assert army.slots == slots

    first = cards[slots[0]["card"]]
    page.goto(f"/realms/cards/{first.slug}/")
    listed = page.get_by_role("region", name="Your armies with this card")
    listed.get_by_role("link", name="Nora's arcane").click()
    expect(page.get_by_role("heading", name="Your army: editing “Nora's arcane”")).to_be_visible()
    expect(_slot_inputs(page)).to_have_count(ARMY_SIZE)
    page.get_by_role("button", name=f"Remove {first.name}", exact=True).click()
    expect(_slot_inputs(page)).to_have_count(ARMY_SIZE - 1)
    page.get_by_role("button", name="Save changes").click()
    expect(page.locator("#army-status")).to_contain_text("Saved “Nora's arcane”.")
    army.refresh_from_db()
    assert len(army.slots) == ARMY_SIZE - 1 and first.slug not in {s["card"] for s in army.slots}
    page.goto(f"/realms/cards/{first.slug}/")
    expect(page.get_by_text("None of your saved armies uses it.")).to_be_visible()


def test_anonymous_visitors_are_asked_to_sign_in_to_save(site, page):
    page.goto(f"{BUILDER}?code={_code(faction_army('arcane'))}")
    expect(page.get_by_role("link", name="Sign in to save")).to_be_visible()
    expect(page.get_by_role("button", name="Save", exact=True)).to_have_count(0)
    expect(page.get_by_label("Army name")).to_have_count(0)


def test_the_builder_works_without_javascript(site, new_context):
    card = Character.objects.filter(position="vanguard").order_by("pk").first()
    context = new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(BUILDER)
    page.get_by_role("button", name=f"Add {card.name} to Vanguard", exact=True).click()
    expect(page.locator("#army-builder .army-slot .slot-name")).to_have_text([card.name])
    expect(page.locator('[data-rarity="common"] .rarity-count')).to_have_text(
        f"{int(card.rarity.slug == 'common')} / {RARITY_QUOTA['common']}")
    second = Character.objects.filter(position="rearguard").order_by("pk").first()
    page.get_by_role("button", name=f"Add {second.name} to Rearguard", exact=True).click()
    page.get_by_role("button", name=f"Move {second.name} earlier", exact=True).click()
    expect(page.locator("#army-builder .army-slot .slot-name")).to_have_text([second.name, card.name])


def test_the_builder_ends_with_its_footer(site, page):
    # The list of characters scrolls in its own box: nothing of it may lengthen the page below the footer.
    page.goto(BUILDER)
    expect(page.locator(".pick")).to_have_count(min(Character.objects.count(), 100))
    height, footer_bottom = page.evaluate(
        "[document.documentElement.scrollHeight, document.querySelector('footer').getBoundingClientRect().bottom"
        " + window.scrollY]")
    assert height <= max(footer_bottom + 1, page.viewport_size["height"])


def test_the_builder_at_phone_width_has_no_sideways_scroll(site, page):
    page.set_viewport_size({"width": 375, "height": 740})
    page.goto(f"{BUILDER}?code={_code(faction_army('arcane'))}")
    expect(_slot_inputs(page)).to_have_count(ARMY_SIZE)
    assert page.evaluate("document.documentElement.scrollWidth") <= 375


def test_the_builder_meets_wcag_aa(site, page):
    page.goto(BUILDER)
    card = Character.objects.filter(position="vanguard").order_by("pk").first()
    _add(page, card, "rearguard")
    assert axe_violations(page) == []
    page.goto(f"{BUILDER}?code={_code(faction_army('arcane'))}")
    assert axe_violations(page) == []
