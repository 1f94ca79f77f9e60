"""The Akin Legends gallery and card pages in the browser: kinds, the API's filters and q, pages, a card's
fields and simulated win rate, escaping, phone width."""

import re

from django.db.models import Q
from playwright.sync_api import expect

from cardsdb.models import Card, CardSet
from legends.models import DefenseCard, Protector, SummoningCard
from simulate import batches, publishing
from tests.legends.factories import make_defense
from tests.pages.conftest import axe_violations, sign_in

GALLERY = "/legends/cards/"
PAGE_SIZE = 24


def tiles(page):
    return page.locator("#gallery-results .card-tile")


def summary(page):
    return page.locator("#gallery-summary")


def count_text(count: int) -> re.Pattern:
    return re.compile(rf"^{count} cards?\b")


def names(queryset) -> list[str]:
    return list(queryset.order_by("name", "pk").values_list("name", flat=True))


def test_the_gallery_shows_every_kind_and_switches_kind(site, page):
    every = Card.objects.filter(game="legends")
    page.goto(GALLERY)
    expect(summary(page)).to_have_text(count_text(every.count()))
    expect(tiles(page)).to_have_count(min(PAGE_SIZE, every.count()))
    first = page.locator("#gallery-results img").first
    expect(first).to_have_attribute("loading", "lazy")
    first_name = names(every)[0]
    expect(first).to_have_attribute("alt", re.compile(rf"^{re.escape(first_name)}, "))

    page.get_by_role("navigation", name="Kind of card").get_by_role("link", name="Defense cards").click()
    expect(page).to_have_url(re.compile(r"kind=defenses"))
    expect(summary(page)).to_have_text(count_text(DefenseCard.objects.count()))
    expect(tiles(page)).to_have_count(DefenseCard.objects.count())
    expect(page.locator("#gallery-results img").first).to_have_attribute(
        "src", re.compile(r"^/api/legends/defenses/[\w-]+/card\.png\?size=small$"))
    assert page.locator(".card-tile .card-name").all_inner_texts() == names(DefenseCard.objects.all())
    for img in page.locator("#gallery-results img").all():
        assert img.get_attribute("alt").endswith(", defense card")

    page.get_by_role("link", name="Protectors").click()
    expect(tiles(page)).to_have_count(Protector.objects.count())
    expect(page.get_by_label("Duel-legal")).to_be_visible()


def test_filter_by_an_element_counts_what_the_orm_counts(site, page):
    fire = DefenseCard.objects.filter(Q(element_1__slug="fire") | Q(element_2__slug="fire"))
    assert 0 < fire.count() < DefenseCard.objects.count()
    page.goto(f"{GALLERY}?kind=defenses")
    page.get_by_label("Element").select_option("fire")
    expect(summary(page)).to_have_text(count_text(fire.count()))
    expect(page).to_have_url(re.compile(r"element=fire"))
    expect(tiles(page)).to_have_count(fire.count())
    assert page.locator(".card-tile .card-name").all_inner_texts() == names(fire)
    # The pushed URL is a page of its own: opened again, it shows the same cards.
    page.reload()
    expect(page.get_by_label("Element")).to_have_value("fire")
    expect(tiles(page)).to_have_count(fire.count())


def test_the_query_box_filters_and_the_pages_follow(site, page):
    fire = SummoningCard.objects.filter(
        Q(attack_1__slug="fire") | Q(attack_2__slug="fire") | Q(effect_element__slug="fire"))
    assert fire.count() > PAGE_SIZE
    pages = -(-fire.count() // PAGE_SIZE)
    page.goto(f"{GALLERY}?kind=summoning-cards")
    page.get_by_label("Query", exact=True).fill("element:fire")
    page.get_by_label("Query", exact=True).press("Enter")
    expect(summary(page)).to_have_text(count_text(fire.count()))
    expect(page).to_have_url(re.compile(r"q=element%3Afire"))
    expect(page.locator(".pagination")).to_contain_text(f"Page 1 of {pages}")
    assert page.locator(".card-tile .card-name").all_inner_texts() == names(fire)[:PAGE_SIZE]

    page.get_by_role("link", name="Next").focus()
    page.keyboard.press("Enter")
    expect(page.locator(".pagination")).to_contain_text(f"Page 2 of {pages}")
    # The link is replaced with the page: the keyboard carries on from the count, then the first card.
    expect(summary(page)).to_be_focused()
    page.keyboard.press("Tab")
    expect(tiles(page).first.get_by_role("link")).to_be_focused()
    expect(page).to_have_url(re.compile(r"page=2"))
    expect(tiles(page).first.locator(".card-name")).to_have_text(names(fire)[PAGE_SIZE])
    assert page.locator(".card-tile .card-name").all_inner_texts() == names(fire)[PAGE_SIZE:2 * PAGE_SIZE]
    expect(page.get_by_label("Query", exact=True)).to_have_value("element:fire")


def test_every_kind_reads_the_query_in_its_own_keys(site, page):
    page.goto(GALLERY)
    page.get_by_label("Query", exact=True).fill("element:fire")
    page.get_by_label("Query", exact=True).press("Enter")
    # Spirits have no element: they are left out, and the page says so.
    expected = (DefenseCard.objects.filter(Q(element_1__slug="fire") | Q(element_2__slug="fire")).count()
                + SummoningCard.objects.filter(Q(attack_1__slug="fire") | Q(attack_2__slug="fire")
                                               | Q(effect_element__slug="fire")).count()
                + Protector.objects.filter(effect__element="fire").count())
    expect(summary(page)).to_have_text(count_text(expected))
    expect(page.locator("#gallery-results")).to_contain_text("Left out")
    expect(page.locator("#gallery-results")).to_contain_text("Spirits")


def test_query_errors_and_warnings_are_readable_messages(site, page):
    page.goto(f"{GALLERY}?kind=protectors")
    page.get_by_label("Query", exact=True).fill("element:fire colour:red")
    page.get_by_label("Query", exact=True).press("Enter")
    expect(page.get_by_role("list", name="Warnings")).to_contain_text("Unknown key 'colour'")
    expect(tiles(page)).to_have_count(Protector.objects.filter(effect__element="fire").count())

    page.get_by_label("Query", exact=True).fill("(element:fire")
    page.get_by_label("Query", exact=True).press("Enter")
    expect(page.get_by_role("alert")).to_contain_text("Query:")
    expect(tiles(page)).to_have_count(0)


def test_the_gallery_works_without_javascript(site, browser):
    context = browser.new_context(base_url=site, java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(f"{GALLERY}?kind=summoning-cards")
        page.get_by_label("Effect", exact=True).select_option("boost")
        page.get_by_role("button", name="Show cards").click()
        expect(page).to_have_url(re.compile(r"effect_kind=boost"))
        expect(summary(page)).to_have_text(count_text(SummoningCard.objects.filter(effect_kind="boost").count()))
    finally:
        context.close()


def test_a_card_page_shows_its_fields_and_links_back(site, page):
    card = DefenseCard.objects.select_related("card_set", "element_1", "element_2").first()
    page.goto(f"{GALLERY}?kind=defenses")
    page.get_by_role("link", name=re.compile(rf"^{re.escape(card.name)}, defense card")).click()
    expect(page).to_have_url(re.compile(rf"/legends/cards/{card.slug}/$"))
    expect(page.get_by_role("heading", level=1)).to_have_text(card.name)
    fields = page.get_by_role("region", name="Fields")
    for text in (card.code, card.card_set.name, card.rules_text, card.element_1.name, card.element_2.name):
        expect(fields).to_contain_text(text)
    face = page.get_by_role("img", name=f"Card face of {card.name}, defense card")
    expect(face).to_have_attribute("src", f"/api/legends/defenses/{card.slug}/card.png?size=large")
    expect(page.get_by_role("region", name="Simulated win rate")).to_contain_text("No study yet")
    expect(page.get_by_role("link", name="Edit in admin")).to_have_count(0)


def test_a_summoning_cards_page_shows_its_attacks_effect_and_copies(site, page):
    card = SummoningCard.objects.select_related("attack_1", "attack_2", "effect_element").filter(copies__gt=1).first()
    page.goto(f"/legends/cards/{card.slug}/")
    fields = page.get_by_role("region", name="Fields")
    expect(fields).to_contain_text(f"{card.attack_1.name} / ")
    expect(fields).to_contain_text(f"{card.get_effect_kind_display()} · ")
    expect(fields.locator("dt", has_text="Copies in the deck").locator("xpath=following-sibling::dd[1]")).to_have_text(
        str(card.copies))


def test_a_card_page_shows_the_published_field_studys_win_rate(site, page, settings, django_user_model):
    settings.SIMULATE_PUBLISH_POINTS = 100  # a 20-match study measures every card within ±100 points
    study = batches.play_here(batches.create_batch(game="legends", kind="field", inputs={"mode": "teams"},
                                                   count=20, seed=3).pk)
    study = publishing.publish(study, user=django_user_model.objects.create_user("dee", is_staff=True))
    row = study.results["defenses"][0]
    page.goto(f"/legends/cards/{row['defense']}/")
    region = page.get_by_role("region", name="Simulated win rate")
    low, high = row["win_rate_ci"]["low"], row["win_rate_ci"]["high"]
    expect(region).to_contain_text(f"Win rate {row['win_rate']:.1%} (95% interval {low:.1%} to {high:.1%})")
    expect(region.get_by_role("link", name=f"Field study of {study.played} matches")).to_have_attribute(
        "href", f"/studies/{study.pk}/")


def test_a_card_named_like_a_script_shows_as_text(site, page):
    name = "<script>alert(1)</script>"
    make_defense(name, slug="script-wall", card_set=CardSet.objects.get(code="al-eotp"))
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.goto(f"{GALLERY}?kind=defenses&q=name:script")
    expect(page.locator(".card-tile .card-name")).to_have_text(name)
    expect(page.locator("#gallery-results img")).to_have_attribute("alt", f"{name}, defense card")
    page.locator(".card-tile a").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(name)
    expect(page).to_have_title(re.compile(re.escape(name)))
    assert page.locator("main script").count() == 0
    assert dialogs == []


def test_staff_see_an_edit_in_admin_link(site, page, django_user_model):
    django_user_model.objects.create_user("gil", password="gil-password-1", is_staff=True, is_superuser=True)
    sign_in(page, "gil", "gil-password-1")
    card = Protector.objects.get(slug="spy")
    page.goto(f"/legends/cards/{card.slug}/")
    link = page.get_by_role("link", name="Edit in admin")
    expect(link).to_have_attribute("href", f"/admin/legends/protector/{card.pk}/change/")
    link.click()
    expect(page).to_have_url(re.compile(rf"/admin/legends/protector/{card.pk}/change/$"))


def test_the_pages_fit_a_phone_and_meet_wcag_aa(site, page):
    for path in (GALLERY, f"{GALLERY}?kind=summoning-cards&q=element:fire", "/legends/cards/ember-ward-of-steam/",
                 "/legends/cards/spy/"):
        page.set_viewport_size({"width": 1280, "height": 900})
        page.goto(path)
        assert axe_violations(page) == [], path
        page.set_viewport_size({"width": 375, "height": 740})
        page.goto(path)
        expect(page.get_by_role("heading", level=1)).to_be_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= 375, path
