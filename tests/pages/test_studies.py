"""The balance lab in the browser: a study started from the form plays in the live server's background
thread (no broker), its page follows it by polling, and the report shows the stored figures."""

import json
import re

from playwright.sync_api import expect

from realms.engine.army import Slot
from realms.models import Character
from realms.services import army_code
from simulate import studies
from simulate.models import Batch
from simulate.pages import charts
from tests.factories import faction_army

UUID = r"[0-9a-f-]{36}"


def start(page, game="realms", **fields):
    """Fill the study form (labels as a person reads them) and start it; the study's page opens."""
    page.goto(f"/studies/new/?game={game}")
    page.get_by_label("Kind of study").select_option(fields.pop("kind", "matchup"))
    for label, value in fields.items():
        page.get_by_label(label, exact=True).fill(str(value))
    page.get_by_role("button", name="Start the study").click()
    expect(page).to_have_url(re.compile(rf"/studies/{UUID}/$"))
    return Batch.objects.get(pk=page.url.rstrip("/").rsplit("/", 1)[1])


def played_to_the_end(page, runner, batch):
    """Open the gate and wait, without reloading, for the report; the stored batch as it ended."""
    runner.gate.set()
    expect(page.get_by_role("heading", name="Report")).to_be_visible(timeout=60_000)
    batch.refresh_from_db()
    assert batch.status == Batch.Status.DONE
    return batch


def test_a_matchup_shows_its_progress_then_the_stored_figures(site, page, runner):
    batch = start(page, **{"Matches per pairing": 40, "Seed": 7})
    status = page.get_by_role("status").filter(has_text="matches played")
    expect(status).to_contain_text("0 of 40")
    expect(page.locator("progress")).to_have_attribute("max", "40")
    expect(page.get_by_role("button", name="Cancel the study")).to_be_visible()
    url = page.url
    batch = played_to_the_end(page, runner, batch)
    assert page.url == url  # the report came in place, by polling
    expect(status).to_contain_text("40 of 40")
    expect(page.get_by_role("button", name="Cancel the study")).to_have_count(0)
    results = batch.results
    overall = page.locator(".study-report .panel").first
    expect(overall.locator(".wins")).to_have_text(str(results["wins"]))
    expect(overall.locator(".draws")).to_have_text(str(results["draws"]))
    expect(overall.locator(".losses")).to_have_text(str(results["losses"]))
    assert results["wins"] + results["draws"] + results["losses"] == 40
    expect(overall.locator(".win-rate")).to_have_text(f"{results['win_rate'] * 100:.1f}%")
    low, high = results["win_rate_ci"]["low"], results["win_rate_ci"]["high"]
    expect(overall.locator(".win-rate-ci")).to_have_text(f"{low * 100:.1f}% to {high * 100:.1f}%")
    chart = page.get_by_role("img", name=re.compile(r"^Win rate of side a: Win rate"))
    expect(chart).to_have_attribute("aria-label", re.compile(re.escape(f"{low * 100:.1f}% to {high * 100:.1f}%")))
    expect(page.get_by_role("img", name=re.compile("^Matches by rounds played"))).to_be_visible()
    for reason, count in results["reasons"].items():
        expect(page.locator(".reasons")).to_contain_text(f"{reason}: {count}")
    # The progress fragment stopped polling once the study was over.
    expect(page.locator("[hx-trigger]")).to_have_count(0)


def test_a_field_study_ranks_its_cards_and_sorts_them_both_ways(site, page, runner, monkeypatch):
    monkeypatch.setattr(studies, "CHUNK_MATCHES", 10)
    batch = start(page, kind="field", **{"Matches per pairing": 20, "Seed": 3})
    batch = played_to_the_end(page, runner, batch)
    stored = batch.results["cards"]
    table = page.locator("#group-cards")
    rows = table.locator("tbody tr")
    expect(rows).to_have_count(len(stored))

    def shown_deltas():
        return [float(value) for value in rows.evaluate_all("rows => rows.map(r => r.dataset.delta)") if value]

    deltas = sorted((row["delta"] for row in stored if row["delta"] is not None), reverse=True)
    assert shown_deltas() == deltas  # by delta, highest first, by default
    page.get_by_role("link", name="delta, lowest first").click()
    expect(page).to_have_url(re.compile(r"\?sort=delta"))
    expect(page.get_by_role("navigation", name="Sort the field tables").locator("strong")).to_have_text(
        "delta, lowest first")
    assert shown_deltas() == sorted(deltas)
    page.get_by_role("link", name="delta, highest first").click()
    expect(page).to_have_url(re.compile(r"\?sort=-delta"))
    assert shown_deltas() == deltas
    best = {row["card"] for row in stored if row["delta"] == deltas[0]}
    assert rows.first.get_attribute("data-member") in best
    link = table.get_by_role("link").first
    expect(link).to_have_attribute("href", re.compile(r"^/realms/cards/[\w-]+/$"))
    flagged = [row for row in stored if row["flag"]]
    expect(table.locator("tr.flag-over, tr.flag-under")).to_have_count(len(flagged))
    expect(page.locator("#group-factions tbody tr")).to_have_count(len(batch.results["factions"]))
    page.set_viewport_size({"width": 375, "height": 740})
    assert page.evaluate("document.documentElement.scrollWidth") <= 375


def test_a_matrix_shows_a_heat_map_cell_for_every_pair(site, page, runner):
    page.goto("/studies/new/?game=realms")
    page.get_by_label("Kind of study").select_option("matrix")
    expect(page.get_by_label("Army a", exact=True)).to_be_hidden()  # the fields of other kinds hide
    page.get_by_label("Entrants (matrix)").fill("random\nrandom\nrandom")
    page.get_by_label("Matches per pairing").fill("4")
    page.get_by_role("button", name="Start the study").click()
    expect(page).to_have_url(re.compile(rf"/studies/{UUID}/$"))
    batch = played_to_the_end(page, runner, Batch.objects.get())
    matrix = batch.results["matrix"]
    size = len(matrix["rows"])
    assert size == 3 and batch.played == 12
    cells = page.locator("table.heat-map td.heat-cell")
    expect(cells).to_have_count(size * size)
    expect(page.locator("table.heat-map td.self")).to_have_count(size)
    cell = matrix["cells"][0][1]
    first = page.locator("table.heat-map tbody tr").first.locator("td").nth(1)
    expect(first).to_have_text(f"{cell['win_rate'] * 100:.0f}%")
    red, green, blue = bytes.fromhex(charts.heat_colour(cell["win_rate"])[1:])
    expect(first).to_have_css("background-color", f"rgb({red}, {green}, {blue})")


def test_a_whatif_shows_baseline_patched_and_their_difference(site, page, runner):
    armies = {"a": {"slots": faction_army("arcane")}, "b": {"slots": faction_army("iron-kingdom")}}
    patch = [{"card": armies["a"]["slots"][0]["card"], "changes": {"atk": 29}}]
    page.goto("/studies/new/?game=realms")
    page.get_by_label("Kind of study").select_option("whatif")
    page.get_by_text("Advanced: JSON inputs").click()
    page.get_by_label("JSON inputs", exact=True).fill(json.dumps({"armies": armies, "patch": patch}))
    page.get_by_label("Matches per pairing").fill("15")
    page.get_by_label("Seed", exact=True).fill("8")
    page.get_by_role("button", name="Start the study").click()
    expect(page).to_have_url(re.compile(rf"/studies/{UUID}/$"))
    batch = played_to_the_end(page, runner, Batch.objects.get())
    results = batch.results
    for name, key in (("Baseline", "baseline"), ("Patched", "patched")):
        panel = page.get_by_role("region", name=name, exact=True)
        expect(panel.locator(".wins")).to_have_text(str(results[key]["wins"]))
        expect(panel.locator(".win-rate")).to_have_text(charts.pct(results[key]["win_rate"]))
    difference = results["difference"]
    expect(page.locator(".difference")).to_have_text(charts.points(difference["win_rate"]))
    expect(page.locator(".difference-ci")).to_have_text(charts.interval(difference["ci"], charts.points))
    expect(page.locator(".p-value")).to_have_text(charts.probability(results["p_value"]))
    expect(page.get_by_role("img", name=re.compile("^Patched less baseline"))).to_be_visible()
    name = Character.objects.get(slug=patch[0]["card"]).name
    expect(page.locator(".patch")).to_contain_text(f"{name}: atk = 29")
    expect(page.locator(".patch").get_by_role("link", name=name)).to_have_attribute(
        "href", f"/realms/cards/{patch[0]['card']}/")


def test_a_running_study_can_be_cancelled(site, page, runner):
    start(page, **{"Matches per pairing": 20000, "Seed": 1})
    runner.gate.set()
    status = page.get_by_role("status").filter(has_text="matches played")
    expect(status).to_contain_text("Running", timeout=30_000)
    page.get_by_role("button", name="Cancel the study").click()
    expect(status).to_contain_text("Cancelled")
    expect(page.get_by_text("The study was cancelled")).to_be_visible()
    assert Batch.objects.get().status == Batch.Status.CANCELLED


def test_an_akin_legends_duel_matchup_reports_team_0(site, page, runner):
    page.goto("/studies/new/?game=legends")
    page.get_by_label("Mode").select_option("duel")
    page.get_by_label("Matches per pairing").fill("6")
    page.get_by_role("button", name="Start the study").click()
    expect(page).to_have_url(re.compile(rf"/studies/{UUID}/$"))
    batch = played_to_the_end(page, runner, Batch.objects.get())
    assert batch.inputs["mode"] == "duel"
    expect(page.get_by_role("img", name=re.compile("^Win rate of team 0"))).to_be_visible()
    expect(page.locator(".study-report .panel").first.locator(".wins")).to_have_text(str(batch.results["wins"]))


def test_bad_input_is_shown_inline(site, page, runner):
    page.goto("/studies/new/?game=realms")
    page.get_by_label("Matches per pairing").fill("0")
    page.get_by_role("button", name="Start the study").click()
    expect(page.get_by_role("alert")).to_contain_text("The study was not started")
    expect(page.get_by_label("Matches per pairing")).to_have_attribute("aria-invalid", "true")
    assert Batch.objects.count() == 0


def test_a_patch_the_matches_would_not_feel_is_refused_next_to_the_patch_fields(site, page, runner):
    fielded = {slot["card"] for faction in ("arcane", "abyssal") for slot in faction_army(faction)}
    absent = Character.objects.exclude(slug__in=fielded).order_by("slug").first()
    page.goto("/studies/new/?game=realms")
    page.get_by_label("Kind of study").select_option("whatif")
    for side, faction in (("a", "arcane"), ("b", "abyssal")):
        code = army_code([Slot(card=s["card"], line=s["line"]) for s in faction_army(faction)])
        page.get_by_label(f"Army {side}", exact=True).fill(code)
    patch = page.get_by_role("group", name="What-if patch")
    patch.get_by_label("Card to patch (slug)").fill(absent.slug)
    patch.get_by_label("Stat to change").select_option("atk")
    patch.get_by_label("Its new value").fill(str(absent.attack + 1))
    page.get_by_role("button", name="Start the study").click()
    expect(page.get_by_role("alert")).to_contain_text("The study was not started")
    expect(patch.get_by_label("Card to patch (slug)")).to_have_attribute("aria-invalid", "true")
    expect(patch).to_contain_text("The patch changes nothing these matches use")

    # A value the card may not take is told beside the value.
    patch.get_by_label("Card to patch (slug)").fill(fielded.pop())
    patch.get_by_label("Its new value").fill("31")
    page.get_by_role("button", name="Start the study").click()
    expect(patch.get_by_label("Its new value")).to_have_attribute("aria-invalid", "true")
    expect(patch).to_contain_text("30")
    assert Batch.objects.count() == 0
