"""Skill: one field at several agent strengths on the same seeds, each card's delta at each, and its flags."""

import pytest
from django.urls import reverse
from django.utils import timezone

from realms.models import Character
from simulate import batches
from simulate.models import Batch
from simulate.study_kinds.skill import card_row
from tests.conftest import assert_error_shape
from tests.simulate.test_contract import contract, openapi  # noqa: F401  (fixtures)
from tests.simulate.test_suggest import small_pool

REALMS = "/api/simulate/realms/batches/"


def row(delta, low, high):
    return {"delta": delta, "delta_ci": {"low": low, "high": high}, "appearances": 100, "win_rate": 0.5, "flag": None}


def test_a_card_strong_against_weak_play_only_is_flagged_and_its_sign_change_too():
    found = card_row("c", [row(0.10, 0.05, 0.15), row(0.0, -0.04, 0.04), row(-0.10, -0.15, -0.05)])
    assert found["deltas"] == [0.10, 0.0, -0.10] and found["change"] == pytest.approx(-0.20)
    assert found["change_ci"]["high"] < 0
    assert found["flags"] == ["sign", "weak_play"]


def test_a_card_that_gains_with_skill_is_flagged_and_noise_is_not():
    assert card_row("c", [row(-0.02, -0.06, 0.02), row(0.09, 0.05, 0.13)])["flags"] == ["needs_skill"]
    assert card_row("c", [row(0.01, -0.05, 0.07), row(0.03, -0.03, 0.09)])["flags"] == []
    assert card_row("c", [None, row(0.03, -0.03, 0.09)])["change"] is None


@pytest.mark.django_db
def test_every_level_draws_the_same_armies_and_the_results_answer_their_schema(
        catalogue, staff_client, contract, local_runner, django_capture_on_commit_callbacks):  # noqa: F811
    with django_capture_on_commit_callbacks(execute=True):
        response = staff_client.post(REALMS, {"kind": "skill", "count": 60, "seed": 4}, format="json")
    contract(response, REALMS)
    local_runner.run_all()
    answer = contract(staff_client.get(response.json()["url"]), "/api/simulate/batches/{id}/", "get")
    assert answer["status"] == "done" and answer["played"] == 2 * 60
    found = answer["results"]["skill"]
    assert found["levels"] == ["random", "greedy"] and found["group"] == "cards"
    assert len(found["cards"]) == 64
    for card in found["cards"]:
        assert len(card["deltas"]) == 2
        assert card["appearances"][0] == card["appearances"][1]  # the same armies drawn at both levels
        if None not in card["deltas"]:
            assert card["change"] == pytest.approx(card["deltas"][1] - card["deltas"][0], abs=1e-5)


@pytest.mark.django_db
def test_refusals_name_the_levels(catalogue, staff_client):
    for body, field in (({"levels": ["greedy"]}, "levels"), ({"levels": ["random", "random"]}, "levels"),
                        ({"agents": {"a": "random", "b": "random"}}, "agents")):
        response = staff_client.post(REALMS, {"kind": "skill", "count": 10, **body}, format="json")
        assert field in assert_error_shape(response, 400, "invalid")["fields"], response.json()


@pytest.mark.django_db
def test_a_card_built_to_matter_only_against_random_play_is_flagged_and_its_page_says_so(catalogue, staff, client):
    """A wall that only soaks blows (ATK 0, DEF 30, HP 15, in the Rearguard): random attackers spend blows of 1 on it,
    greedy ones leave it for last, so it helps its side against random play and is a wasted slot against greedy."""
    cards = small_pool()
    wall = Character.objects.get(slug=cards[0])
    wall.attack, wall.defense, wall.health, wall.position = 0, 30, 15, "rearguard"
    wall.save()
    study = batches.play_here(batches.create_batch(game="realms", kind="skill", inputs={"pool": {"cards": cards}},
                                                   count=400, seed=3, user=staff).pk)
    rows = {row["card"]: row for row in study.results["skill"]["cards"]}
    assert rows[wall.slug]["deltas_ci"][0]["low"] > 0 and rows[wall.slug]["change_ci"]["high"] < 0
    assert "weak_play" in rows[wall.slug]["flags"]
    # Published, the card's page says what it measured and links it.
    Batch.objects.filter(pk=study.pk).update(published_at=timezone.now())
    page = client.get(reverse("realms-card", args=[wall.slug])).content.decode()
    assert "In the meta studies" in page and "strong only against weak play" in page
    assert reverse("study-detail", args=[study.pk]) in page
