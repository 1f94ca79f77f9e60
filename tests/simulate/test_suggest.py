"""Suggest: from a published field study with one deliberately broken card, the smallest patch that brings the
cards back inside the band, its search checked against every patch of a small model, and its confirmation."""

import itertools

import numpy as np
import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from legends.engine.vocabulary import MAX_COPIES
from legends.models import SummoningCard
from realms.models import Character
from simulate import batches
from simulate.models import Batch
from simulate.study_kinds.suggest import Model, Option, queue_confirmation, refined_patch, search
from tests.conftest import assert_error_shape
from tests.simulate.test_contract import contract, openapi  # noqa: F401  (fixtures)

pytestmark = pytest.mark.django_db

REALMS = "/api/simulate/realms/batches/"
BAND = 10  # points: wide enough that a field of 800 matches places most cards inside it


def small_pool() -> list[str]:
    """Sixteen cards that make legal armies: each card in a third to a half of them, so few matches measure it."""
    cards: list[str] = []
    for rarity, count in (("common", 6), ("uncommon", 4), ("rare", 3), ("legendary", 3)):
        cards += Character.objects.filter(rarity__slug=rarity).order_by("slug").values_list("slug", flat=True)[:count]
    return cards


@pytest.fixture
def broken_field(catalogue, staff):
    """A published field study of the small pool in which its first common was given ATK 30."""
    cards = small_pool()
    broken = Character.objects.get(slug=cards[0])
    broken.attack = 30
    broken.save()
    study = batches.play_here(batches.create_batch(game="realms", kind="field", inputs={"pool": {"cards": cards}},
                                                   count=800, seed=1, user=staff).pk)
    Batch.objects.filter(pk=study.pk).update(published_at=timezone.now())
    return study, broken.slug


def test_a_suggestion_finds_the_broken_card_and_a_nerf_that_the_confirmation_measures(
        broken_field, staff, django_capture_on_commit_callbacks, local_runner):
    study, broken = broken_field
    rows = {row["card"]: row for row in study.results["cards"]}
    assert max(rows, key=lambda card: rows[card]["delta"]) == broken and rows[broken]["delta"] > 0.25
    with django_capture_on_commit_callbacks(execute=True):
        suggestion = batches.play_here(batches.create_batch(
            game="realms", kind="suggest", inputs={"study": str(study.pk), "band": BAND}, count=200, seed=2,
            user=staff).pk)
    assert suggestion.status == Batch.Status.DONE, suggestion.error
    fix = suggestion.inputs["fix"]
    assert fix[0] == broken  # the furthest outside the band first
    inside = {card for card, row in rows.items() if abs(row["delta"]) <= BAND / 100}
    assert not inside & set(fix)
    found = suggestion.results["suggestion"]
    patched = {entry["card"]: entry["changes"] for entry in found["patch"]}
    assert not inside & set(patched)  # the cards inside the band are left alone
    assert_a_nerf(broken, patched[broken])
    change = next(change for change in found["changes"] if change["card"] == broken)
    assert change["inside"] and abs(change["predicted_delta"]) <= BAND / 100
    assert change["delta_before"] == rows[broken]["delta"]
    local_runner.run_all()
    assert_confirmed_lower(suggestion, found["patch"], broken, rows[broken]["delta"])


def assert_confirmed_lower(suggestion, patch, broken, before):
    """The confirming what-if: the same field with the patch, on paired seeds, until each card's shift is decided;
    the broken card's delta measured lower, beyond its interval."""
    confirmation = Batch.objects.get(kind="whatif", inputs__confirms=str(suggestion.pk))
    assert confirmation.status == Batch.Status.DONE and confirmation.inputs["patch"] == patch
    assert {test["of"] for test in confirmation.results["sequential"]["tests"]} == {entry["card"] for entry in patch}
    suggestion.refresh_from_db()
    confirmed = suggestion.results["confirmation"]["cards"][broken]
    assert confirmed["shift"] < 0 and confirmed["delta_ci"]["high"] < before
    assert confirmed["delta"] == pytest.approx(before + confirmed["shift"], abs=1e-6)


def assert_a_nerf(slug, changes):
    """One number of the card, moved the way that weakens it."""
    (field, value), = changes.items()
    card = Character.objects.get(slug=slug)
    now = {"atk": card.attack, "def": card.defense, "spd": card.speed, "hp": card.health, "cooldown": card.cooldown}
    assert value > now[field] if field == "cooldown" else value < now[field]


def test_the_search_finds_the_patch_that_every_patch_of_a_small_model_ranks_first():
    # Three cards outside a band of 0.03, each with two numbers; one card's change also moves another's delta.
    rng = np.random.default_rng(5)
    deltas = np.array([0.12, -0.07, 0.05])
    options: list[list[Option | None]] = []
    shifts = []
    for card in range(3):
        card_options: list[Option | None] = [None]
        card_shifts = [np.zeros(3)]
        for field, slope in (("atk", rng.uniform(0.01, 0.03)), ("hp", rng.uniform(0.002, 0.01))):
            for steps in range(1, 7):
                card_options.append(Option(field, steps, steps))
                moved = np.zeros(3)
                moved[card] = -np.sign(deltas[card]) * slope * steps
                if card == 0:
                    moved[2] = 0.004 * steps  # a nerf of the first raises the third a little
                card_shifts.append(moved)
        options.append(card_options)
        shifts.append(np.array(card_shifts))
    model = Model(["a", "b", "c"], deltas, options, shifts, 0.03)
    every = np.array(list(itertools.product(*(range(len(o)) for o in options))))
    scores = model.evaluate(every)
    best = min(range(len(every)), key=lambda i: (round(scores[i][0], 9), scores[i][1], scores[i][2]))
    choice, front = search(model, seed=3)
    assert tuple(model.evaluate(np.array(choice))[0]) == tuple(scores[best])
    for row in front:  # the front's least error at each number of changes is the least of every patch
        at = scores[scores[:, 1] == row["changes"]]
        assert row["error"] == pytest.approx(at[:, 0].min(), abs=1e-8)


def test_through_the_api_its_results_answer_their_schema_and_the_command_prints_the_patch(
        broken_field, staff_client, contract, django_capture_on_commit_callbacks, local_runner, capsys):  # noqa: F811
    study, broken = broken_field
    with django_capture_on_commit_callbacks(execute=True):
        response = staff_client.post(REALMS, {"kind": "suggest", "study": str(study.pk), "band": BAND,
                                              "cards": [broken], "tune": ["atk", "hp"], "count": 60, "seed": 4},
                                     format="json")
    contract(response, REALMS)
    local_runner.run_all()
    body = contract(staff_client.get(response.json()["url"]), "/api/simulate/batches/{id}/", "get")
    assert body["status"] == "done" and {row["field"] for row in body["results"]["screen"]} <= {"atk", "hp"}
    assert [change["card"] for change in body["results"]["suggestion"]["changes"]] == [broken]
    call_command("simulate_batch", "realms", "--kind", "suggest", "--from-study", str(study.pk),
                 "--band", str(BAND), "--fix", broken, "--tune", "atk", "--count", "40", "--processes", "1")
    printed = capsys.readouterr().out
    assert "Suggested patch" in printed and f"  {broken}: " in printed and "Screened moves" in printed


def test_refusals_name_what_is_wrong(catalogue, staff_client, broken_field):
    study, broken = broken_field
    for body, path in (({"study": "00000000-0000-0000-0000-000000000000"}, "study"),
                       ({"study": str(study.pk), "cards": ["no-such-card"]}, "cards"),
                       ({"study": str(study.pk), "band": 50}, "band"),  # every card inside ±50 points
                       ({"study": str(study.pk), "band": 0}, "band")):
        response = staff_client.post(REALMS, {"kind": "suggest", "count": 10, **body}, format="json")
        assert path in assert_error_shape(response, 400, "invalid")["fields"], (body, response.json())


def test_without_a_published_field_study_there_is_nothing_to_start_from(catalogue, staff_client):
    response = staff_client.post(REALMS, {"kind": "suggest", "count": 10}, format="json")
    assert "study" in assert_error_shape(response, 400, "invalid")["fields"]


def test_an_akin_legends_suggestion_tunes_summoning_cards_copies(catalogue, staff, django_capture_on_commit_callbacks,
                                                                 local_runner):
    study = batches.play_here(batches.create_batch(game="legends", kind="field", inputs={"mode": "duel"}, count=300,
                                                   seed=5, user=staff).pk)
    Batch.objects.filter(pk=study.pk).update(published_at=timezone.now())
    copies = dict(SummoningCard.objects.values_list("slug", "copies"))
    # The furthest card whose copies can move the way that brings it back (fewer when over, more when under).
    row = max((row for row in study.results["summoning_cards"] if row["delta"] is not None and (
        copies[row["summoning_card"]] > 1 if row["delta"] > 0 else copies[row["summoning_card"]] < MAX_COPIES)),
        key=lambda row: abs(row["delta"]))
    with django_capture_on_commit_callbacks(execute=True):
        suggestion = batches.play_here(batches.create_batch(
            game="legends", kind="suggest", inputs={"study": str(study.pk), "band": 5, "cards": [row["summoning_card"]]},
            count=40, seed=6, user=staff).pk)
    assert suggestion.status == Batch.Status.DONE, suggestion.error
    assert suggestion.inputs["mode"] == "duel"  # the study's own field
    assert {move["field"] for move in suggestion.results["screen"]} == {"copies"}
    change = suggestion.results["suggestion"]["changes"][0]
    assert change["card"] == row["summoning_card"] and change["delta_before"] == row["delta"]
    assert change["field"] in (None, "copies")


def test_a_refined_patch_moves_each_card_not_placed_inside_to_where_its_line_crosses_zero():
    # Royal Battlemage +22.9 at ATK 11, confirmed -4.0 at ATK 6: 5.38 points an ATK, so zero near ATK 6.74.
    suggestion = Batch(game="realms", kind="suggest", inputs={"bounds": {"b": {"atk": [5, 20]}}})  # never saved
    changes = [{"card": "a", "field": "atk", "before": 11, "after": 6, "delta_before": 0.229},
               {"card": "b", "field": "atk", "before": 6, "after": 12, "delta_before": -0.207},
               {"card": "c", "field": "hp", "before": 30, "after": 26, "delta_before": 0.05}]
    confirmed = {"a": {"delta": -0.04, "shift": -0.269, "verdict": "outside"},
                 "b": {"delta": -0.05, "shift": 0.157, "verdict": "unsure"},  # 2.6 points an ATK: ~14, within [5, 20]
                 "c": {"delta": 0.01, "shift": -0.04, "verdict": "inside"}}
    assert refined_patch(suggestion, changes, confirmed) == [
        {"card": "a", "changes": {"atk": 7}}, {"card": "b", "changes": {"atk": 14}}, {"card": "c", "changes": {"hp": 26}}]
    suggestion.inputs["bounds"]["b"]["atk"] = [5, 13]
    assert refined_patch(suggestion, changes, confirmed)[1] == {"card": "b", "changes": {"atk": 13}}
    inside = {card: {**row, "verdict": "inside"} for card, row in confirmed.items()}
    assert refined_patch(suggestion, changes, inside) is None  # every card placed inside: nothing to refine


def test_a_confirmation_that_overshoots_queues_a_refined_round_that_the_report_lists(
        broken_field, staff, client, django_capture_on_commit_callbacks, local_runner):
    study, broken = broken_field
    with django_capture_on_commit_callbacks(execute=False):  # the search's own confirmation is not queued here
        suggestion = batches.play_here(batches.create_batch(
            game="realms", kind="suggest", inputs={"study": str(study.pk), "band": BAND, "cards": [broken],
                                                   "tune": ["atk"]}, count=60, seed=4, user=staff).pk)
    # Round 1 of a patch far past the search's: ATK 30 → 1 takes the card past zero.
    with django_capture_on_commit_callbacks(execute=True):
        queue_confirmation(suggestion, [{"card": broken, "changes": {"atk": 1}}])
    with django_capture_on_commit_callbacks(execute=True):
        local_runner.run_all()
    suggestion.refresh_from_db()
    (first,) = suggestion.results["confirmations"][:1]
    assert first["round"] == 1 and first["cards"][broken]["verdict"] != "inside", first["cards"]
    assert first["cards"][broken]["shift"] < 0 and first["cards"][broken]["delta"] < 0  # past zero, not placed inside
    second = Batch.objects.get(kind="whatif", inputs__confirms=str(suggestion.pk), inputs__round=2)
    refined = second.inputs["patch"][0]["changes"]["atk"]
    assert 1 < refined < 30  # moved back up, toward where the card's line crosses zero
    with django_capture_on_commit_callbacks(execute=True):
        local_runner.run_all()
    suggestion.refresh_from_db()
    assert [done["round"] for done in suggestion.results["confirmations"]][:2] == [1, 2]
    # The latest round (a third one queued, when the second did not place the card inside either).
    assert suggestion.results["confirmation"]["round"] >= 2
    client.force_login(staff)
    page = client.get(reverse("study-detail", args=[suggestion.pk])).content.decode()
    assert 'class="rounds"' in page and f"{broken} atk 1" in page and f"{broken} atk {refined}" in page
