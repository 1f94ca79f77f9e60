"""Every page checked by axe-core in the browser against WCAG 2 A and AA: labels, alt text, names of
buttons and links, landmarks, contrast. A page's violations are listed by rule and element."""

import pytest
from axe_playwright_python.sync_playwright import Axe

WCAG_AA = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]},
           "resultTypes": ["violations"]}


def axe_violations(page) -> list[str]:
    """Each violation as `rule: selector` lines, readable in a failing assertion."""
    results = Axe().run(page, options=WCAG_AA)
    return [f"{v['id']} ({v['impact']}): {', '.join(str(n['target']) for n in v['nodes'])}"
            for v in results.response["violations"]]


PAGES = ["/", "/search/?q=nyx", "/accounts/login/", "/no-such-page/"]


@pytest.mark.parametrize("path", PAGES)
def test_page_meets_wcag_aa(site, page, path):
    page.goto(path)
    assert axe_violations(page) == []


@pytest.mark.parametrize("path", ["/", "/accounts/login/"])
def test_page_meets_wcag_aa_at_phone_width(site, page, path):
    page.set_viewport_size({"width": 375, "height": 740})
    page.goto(path)
    assert axe_violations(page) == []


def test_the_check_catches_a_missing_label_alt_text_and_low_contrast(site, page):
    page.goto("/")
    page.evaluate("""() => {
        const main = document.querySelector("main");
        main.insertAdjacentHTML("beforeend",
            '<img src="/static/cardsdb/site.css"><input type="text">' +
            '<p style="color:#bbb;background:#fff">faint text</p>');
    }""")
    rules = {line.split(" ")[0] for line in axe_violations(page)}
    assert {"image-alt", "label", "color-contrast"} <= rules
