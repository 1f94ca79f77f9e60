"""The Echo Realms card gallery and card pages in the browser: faces, filters, the query language, pages,
every field of a card, its study figures, and card text shown as text."""

import re

from playwright.sync_api import expect

from realms.models import Character
from simulate import batches, publishing
from tests.pages.conftest import axe_violations, sign_in

PAGE_SIZE = 24


def _names_in_order(**lookups) -> list[str]:
    """The names of the characters these ORM lookups select, in the gallery's order (name, then pk)."""
    return list(Character.objects.filter(**lookups).order_by("name", "pk").values_list("name", flat=True))


def _tile_names(page) -> list[str]:
    return page.locator(".card-tile .card-name").all_inner_texts()


def test_gallery_shows_card_faces_linking_to_their_pages(site, page):
    names = _names_in_order()
    page.goto("/realms/cards/")
    expect(page.get_by_role("heading", name="Echo Realms cards")).to_be_visible()
    expect(page.locator(".result-count")).to_have_text(f"{len(names)} cards, page 1 of {-(-len(names) // PAGE_SIZE)}.")
    tiles = page.locator(".card-tile")
    expect(tiles).to_have_count(min(PAGE_SIZE, len(names)))
    assert _tile_names(page) == names[:PAGE_SIZE]
    first = Character.objects.order_by("name", "pk").first()
    image = tiles.first.locator("img")
    expect(image).to_have_attribute("loading", "lazy")
    expect(image).to_have_attribute("src", f"/api/realms/characters/{first.slug}/card.png?size=small")
    expect(image).to_have_attribute("alt", re.compile(
        rf"^{re.escape(first.name)}: .*ATK {first.attack}, DEF {first.defense}, SPD {first.speed}, HP {first.health}$"))
    # The face itself is drawn and loaded.
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=image.element_handle())
    tiles.first.get_by_role("link").click()
    expect(page).to_have_url(re.compile(rf"/realms/cards/{first.slug}/$"))


def test_filter_by_faction_shows_only_its_cards_and_pushes_the_url(site, page):
    names = _names_in_order(faction__slug="arcane")
    page.goto("/realms/cards/")
    page.evaluate("window.stayedOnThePage = true")
    page.get_by_label("Faction").select_option("arcane")
    page.get_by_role("button", name="Show cards").click()
    expect(page.locator(".result-count")).to_have_text(re.compile(rf"^{len(names)} cards"))
    expect(page).to_have_url(re.compile(r"/realms/cards/\?faction=arcane$"))
    assert _tile_names(page) == names[:PAGE_SIZE]
    assert page.evaluate("window.stayedOnThePage === true")  # htmx swapped the grid in place
    page.go_back()
    expect(page.locator(".result-count")).to_have_text(re.compile(rf"^{Character.objects.count()} cards"))


def test_query_language_filters_and_reports_ignored_terms(site, page):
    names = _names_in_order(character_class="mage", attack__gte=9)
    assert names  # the official sets have such mages
    page.goto("/realms/cards/")
    page.get_by_label("Query").fill("class:mage atk>=9 colour:red")
    page.get_by_label("Query").press("Enter")
    expect(page.locator(".result-count")).to_have_text(re.compile(rf"^{len(names)} card"))
    assert _tile_names(page) == names[:PAGE_SIZE]
    expect(page.locator("#gallery-summary .warnings")).to_contain_text("colour")


def test_a_query_that_cannot_be_run_is_explained(site, page):
    page.goto("/realms/cards/")
    page.get_by_label("Query").fill("(atk>")
    page.get_by_role("button", name="Show cards").click()
    summary = page.locator("#gallery-summary")
    expect(summary).to_contain_text("These filters could not be used")
    expect(summary).to_contain_text("Query:")
    expect(page.locator(".card-tile")).to_have_count(0)


def test_a_search_that_matches_nothing_says_so(site, page):
    assert not Character.objects.filter(attack__gte=999).exists()
    page.goto("/realms/cards/")
    page.get_by_label("Query").fill("atk>=999")
    page.get_by_label("Query").press("Enter")
    expect(page.locator(".result-count")).to_have_text("0 cards.")
    expect(page.locator("#gallery-results")).to_contain_text("No card matches these filters.")
    expect(page.locator(".card-tile")).to_have_count(0)


def test_stat_range_and_order_filter_like_the_api(site, page):
    names = _names_in_order(health__gte=25)
    page.goto("/realms/cards/")
    page.get_by_text("Stat ranges").click()
    page.get_by_label("HP at least").fill("25")
    page.get_by_label("Order").select_option("-hp")
    page.get_by_role("button", name="Show cards").click()
    expect(page.locator(".result-count")).to_have_text(re.compile(rf"^{len(names)} card"))
    shown = _tile_names(page)
    expected = list(Character.objects.filter(health__gte=25).order_by("-health", "pk").values_list("name", flat=True))
    assert shown == expected[:PAGE_SIZE]


def test_pages_go_forward_and_back(site, page):
    names = _names_in_order()
    pages = -(-len(names) // PAGE_SIZE)
    assert pages >= 2
    page.goto("/realms/cards/")
    page.get_by_role("link", name="Next →").click()
    expect(page.locator(".result-count")).to_have_text(f"{len(names)} cards, page 2 of {pages}.")
    expect(page).to_have_url(re.compile(r"page=2"))
    assert _tile_names(page) == names[PAGE_SIZE:2 * PAGE_SIZE]
    page.get_by_role("link", name="← Previous").click()
    expect(page.locator(".result-count")).to_have_text(f"{len(names)} cards, page 1 of {pages}.")
    assert _tile_names(page) == names[:PAGE_SIZE]


def test_gallery_works_without_javascript(site, new_context):
    names = _names_in_order(faction__slug="shadow")
    context = new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto("/realms/cards/")
    page.get_by_label("Faction").select_option("shadow")
    page.get_by_role("button", name="Show cards").click()
    expect(page.locator(".result-count")).to_have_text(re.compile(rf"^{len(names)} cards"))
    assert _tile_names(page) == names[:PAGE_SIZE]


def test_card_page_shows_every_field_and_its_abilities_in_words(site, page):
    character = Character.objects.select_related("rarity", "race", "faction", "card_set").get(
        slug=Character.objects.order_by("pk").values_list("slug", flat=True)[0])
    page.goto("/realms/cards/")
    page.get_by_label("Query").fill(f'name="{character.name}"')
    page.get_by_role("button", name="Show cards").click()
    page.locator(".card-tile").get_by_role("link", name=re.compile(re.escape(character.name))).first.click()
    expect(page.get_by_role("heading", level=1)).to_have_text(character.name)
    fields = page.locator("dl.fields")
    for label, value in [
        ("Code", character.code), ("Set", character.card_set.name), ("Rarity", character.rarity.name),
        ("Race", character.race.name), ("Faction", character.faction.name),
        ("Class", character.get_character_class_display()), ("Position", character.get_position_display()),
        ("ATK", str(character.attack)), ("DEF", str(character.defense)), ("SPD", str(character.speed)),
        ("HP", str(character.health)),
    ]:
        expect(fields.locator(f"dt:text-is('{label}') + dd")).to_have_text(value)
    expect(page.locator("#faction-ability-text")).to_have_text(character.faction_ability["text"])
    expect(page.locator("#main-ability-text")).to_have_text(character.main_ability["text"])
    expect(page.get_by_text(f"Faction ability: {character.faction_ability['name']}")).to_be_visible()
    expect(page.get_by_text(f"Main ability: {character.main_ability['name']}")).to_be_visible()
    if character.flavor_text:
        expect(page.locator(".flavor-text")).to_have_text(character.flavor_text)
    expect(page.get_by_role("region", name="Simulated win rate")).to_contain_text("No study yet")
    face = page.get_by_role("img", name=re.compile(rf"^{re.escape(character.name)}:"))
    expect(face).to_have_attribute("src", f"/api/realms/characters/{character.slug}/card.png?size=large")
    expect(page.get_by_role("link", name="Edit in admin")).to_have_count(0)


def test_card_page_shows_the_published_field_study_with_its_interval(site, page, settings, django_user_model):
    settings.SIMULATE_PUBLISH_POINTS = 100  # a 20-match study measures every card within ±100 points
    batch = batches.play_here(batches.create_batch(game="realms", kind="field", inputs={}, count=20, seed=3).pk)
    batch = publishing.publish(batch, user=django_user_model.objects.create_user("dee", is_staff=True))
    row = batch.results["cards"][0]
    page.goto(f"/realms/cards/{row['card']}/")
    region = page.get_by_role("region", name="Simulated win rate")
    low, high = row["win_rate_ci"]["low"], row["win_rate_ci"]["high"]
    expect(region).to_contain_text(
        f"Win rate {row['win_rate']:.1%} (95% interval {low:.1%} to {high:.1%}) over the {row['appearances']} armies")
    expect(region).to_contain_text(re.compile(rf"Armies without it\s*{row['without_win_rate']:.1%}"))
    delta, delta_low, delta_high = (f"{value * 100:+.1f} pp" for value in
                                    (row["delta"], row["delta_ci"]["low"], row["delta_ci"]["high"]))
    expect(region).to_contain_text(re.compile(
        rf"Difference\s*{re.escape(delta)} \(95% interval {re.escape(delta_low)} to {re.escape(delta_high)}\)"))
    expect(region.get_by_role("link", name=f"Field study of {batch.played} matches")).to_have_attribute(
        "href", f"/studies/{batch.pk}/")


def test_staff_see_the_admin_link_of_the_card(site, page, django_user_model):
    character = Character.objects.order_by("pk").first()
    django_user_model.objects.create_user("sam", password="sam-password-1", is_staff=True)
    sign_in(page, "sam", "sam-password-1")
    page.goto(f"/realms/cards/{character.slug}/")
    expect(page.get_by_role("link", name="Edit in admin")).to_have_attribute(
        "href", f"/admin/realms/character/{character.pk}/change/")


def test_a_card_named_like_a_script_shows_the_text_and_runs_nothing(site, page):
    copy = Character.objects.order_by("pk").first()
    copy.pk = copy.id = copy.card_ptr_id = None
    copy.slug, copy.code, copy.name = "script-card", "", "<script>alert(1)</script>"
    copy.flavor_text = '<img src=x onerror="alert(2)">'
    copy.save()
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.goto("/realms/cards/script-card/")
    expect(page.get_by_role("heading", level=1)).to_have_text("<script>alert(1)</script>")
    expect(page.locator(".flavor-text")).to_have_text('<img src=x onerror="alert(2)">')
    page.goto("/realms/cards/?q=name:script")
    expect(page.locator(".card-tile .card-name")).to_have_text(["<script>alert(1)</script>"])
    assert dialogs == []


def test_unknown_card_is_a_readable_404(site, page):
    response = page.goto("/realms/cards/no-such-card/")
    assert response.status == 404
    expect(page.get_by_role("heading", name="Not found")).to_be_visible()


def test_gallery_and_card_page_meet_wcag_aa(site, page):
    page.goto("/realms/cards/?q=(atk>")
    assert axe_violations(page) == []
    page.goto("/realms/cards/")
    assert axe_violations(page) == []
    page.goto(f"/realms/cards/{Character.objects.order_by('pk').first().slug}/")
    assert axe_violations(page) == []


def test_gallery_at_phone_width_has_no_sideways_scroll(site, page):
    page.set_viewport_size({"width": 375, "height": 740})
    page.goto("/realms/cards/")
    expect(page.locator(".card-tile").first).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 375


def test_card_page_at_phone_width_has_no_sideways_scroll(site, page):
    page.set_viewport_size({"width": 375, "height": 740})
    page.goto(f"/realms/cards/{Character.objects.order_by('-pk').first().slug}/")
    expect(page.locator("dl.fields")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
