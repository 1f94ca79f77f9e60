"""Every page checked by axe-core in the browser against WCAG 2 A and AA: labels, alt text, names of
buttons and links, landmarks, contrast. A page's violations are listed by rule and element. The gallery,
card and builder pages are checked in their own tests, in the states they reach there."""

import random
import re

import pytest

from realms.studies import command_army
from simulate import batches
from simulate.api.serializers import study_inputs
from simulate.services import game_matches, play_match
from tests.factories import faction_army
from tests.pages.conftest import axe_violations, sign_in

PAGES = ["/", "/search/?q=nyx", "/accounts/login/", "/accounts/signup/", "/no-such-page/",
         "/matches/new/", "/matches/new/?game=legends", "/studies/new/", "/studies/new/?game=legends", "/realms/rules/",
         "/realms/table/", "/legends/table/"]
LEGENDS_TEAMS = {"mode": "teams", "teams": [
    {"spirit": "akin", "players": [{"name": "Ann", "counter": 1}, {"name": "Ben", "counter": 3}]},
    {"spirit": "yulin", "players": [{"name": "Cat", "counter": 2}, {"name": "Dan", "counter": 4}]}]}


@pytest.mark.parametrize("path", PAGES)
def test_page_meets_wcag_aa(site, page, path):
    page.goto(path)
    assert axe_violations(page) == []


@pytest.mark.parametrize("path", ["/", "/accounts/login/", "/matches/new/", "/studies/new/"])
def test_page_meets_wcag_aa_at_phone_width(site, page, path):
    page.set_viewport_size({"width": 375, "height": 740})
    page.goto(path)
    assert axe_violations(page) == []


def test_replays_meet_wcag_aa_while_stepping(site, page):
    army = command_army("random", random.Random(3))
    realms, _ = play_match(game="realms", inputs={"armies": {"a": {"slots": army}, "b": {"slots": army}}}, seed=3)
    legends, _ = play_match(game="legends", inputs={"mode": "teams", "setup": LEGENDS_TEAMS}, seed=3)
    for match in (realms, legends):
        page.goto(f"/matches/{match.pk}/")
        assert axe_violations(page) == [], match.game
        for _ in range(15):
            page.get_by_role("button", name="Step forward").click()
        assert axe_violations(page) == [], match.game


def study_body(kind: str) -> dict:
    if kind == "matchup":
        return {"kind": kind, "count": 20,
                "armies": {"a": {"slots": faction_army("arcane")}, "b": {"slots": faction_army("shadow")}}}
    if kind == "search":
        return {"kind": kind, "count": 400}
    return {"kind": kind, "count": 20} if kind in ("field", "skill") else {"kind": kind, "factions": True, "count": 2}


@pytest.mark.parametrize("kind", ["matchup", "field", "matrix", "equilibrium", "skill", "search"])
def test_study_reports_meet_wcag_aa(site, page, kind):
    body = study_body(kind)
    data = game_matches("realms").batch_request(data={**body, "seed": 1})
    data.is_valid(raise_exception=True)
    given = data.validated_data
    batch = batches.play_here(batches.create_batch(
        game="realms", kind=given["kind"], inputs=study_inputs(given, body), count=given["count"], seed=1).pk)
    page.goto(f"/studies/{batch.pk}/")
    page.get_by_role("heading", name="Report").wait_for()
    assert axe_violations(page) == []


def test_the_study_list_and_a_comparison_meet_wcag_aa(site, page, django_user_model):
    user = django_user_model.objects.create_user("dana", password="dana-password-1")
    first, second = (batches.play_here(batches.create_batch(game="realms", kind="field", inputs={}, count=10, seed=seed,
                                                            user=user).pk) for seed in (1, 2))
    sign_in(page, "dana", "dana-password-1")
    page.goto("/studies/")
    page.get_by_role("table").wait_for()
    assert axe_violations(page) == []
    page.goto(f"/studies/{first.pk}/")
    page.get_by_label("Compare with another of your field studies").select_option(str(second.pk))
    page.get_by_role("button", name="Compare", exact=True).click()
    page.get_by_role("heading", name=re.compile("^Compare two")).wait_for()
    assert page.get_by_role("table", name="Members by the size of the difference of their deltas").is_visible()
    assert axe_violations(page) == []


def test_the_check_catches_a_missing_label_alt_text_and_low_contrast(site, page):
    page.goto("/")
    page.evaluate("""() => {
        const main = document.querySelector("main");
        main.insertAdjacentHTML("beforeend",
            '<img src="/static/cardsdb/site.css"><input type="text"><p id="faint">faint text</p>');
        const faint = document.getElementById("faint");  // styled through the CSSOM, as the site's CSP allows
        faint.style.color = "#bbb";
        faint.style.background = "#fff";
    }""")
    rules = {line.split(" ")[0] for line in axe_violations(page)}
    assert {"image-alt", "label", "color-contrast"} <= rules
