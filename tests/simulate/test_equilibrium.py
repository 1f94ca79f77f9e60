"""The meta of a matchup matrix: the equilibrium of hand-built matrices whose answer is known, α-Rank, the health
figures, the cycles and the resampled support."""

import math

import numpy as np
import pytest
from django.urls import reverse

from simulate.equilibrium import alpha_rank, cycles, meta, nash, payoffs, resampled_support
from tests.conftest import assert_error_shape
from tests.simulate.test_contract import contract, openapi  # noqa: F401  (fixtures)

# Rock beats scissors, scissors beats paper, paper beats rock, each 70 wins, 10 draws, 20 losses in 100.
ROCK_PAPER_SCISSORS = [[None, (20, 10, 70), (70, 10, 20)],
                       [(70, 10, 20), None, (20, 10, 70)],
                       [(20, 10, 70), (70, 10, 20), None]]


def lower_ends(outcomes, ends):
    """A lower interval end per cell: `ends` for a winning cell, 0.1 for a losing one."""
    return [[None if cell is None else ends if cell[0] > cell[2] else 0.1 for cell in row] for row in outcomes]


def test_rock_paper_scissors_is_uniform_and_its_cycle_is_reported():
    found = meta(ROCK_PAPER_SCISSORS, lower_ends(ROCK_PAPER_SCISSORS, 0.6))
    assert found.weights == pytest.approx([1 / 3] * 3, abs=1e-6)
    assert found.support == [0, 1, 2]
    assert found.entropy_bits == pytest.approx(math.log2(3), abs=1e-5)
    assert found.top3_share == pytest.approx(1.0)
    assert found.cycles == [[0, 2, 1]]  # rock beats scissors beats paper beats rock
    assert found.alpha_rank == pytest.approx([1 / 3] * 3, abs=1e-6)


def test_a_dominant_entrant_takes_every_weight_and_leads_alpha_rank():
    # Entrant 2 beats both others; 0 beats 1.
    outcomes = [[None, (60, 0, 40), (10, 0, 90)],
                [(40, 0, 60), None, (20, 0, 80)],
                [(90, 0, 10), (80, 0, 20), None]]
    found = meta(outcomes, lower_ends(outcomes, 0.55))
    assert found.weights == pytest.approx([0, 0, 1], abs=1e-6) and found.support == [2]
    assert found.entropy_bits == 0 and found.cycles == []
    assert int(np.argmax(found.alpha_rank)) == 2 and found.alpha_rank[2] > 0.9


def test_the_payoffs_are_wins_less_losses_and_antisymmetric():
    matrix = payoffs(ROCK_PAPER_SCISSORS)
    assert matrix[0, 2] == pytest.approx(0.5) and matrix[2, 0] == pytest.approx(-0.5)
    assert np.allclose(matrix, -matrix.T)


def test_no_entrant_beats_the_equilibrium_of_a_random_antisymmetric_game():
    rng = np.random.default_rng(3)
    for _ in range(20):
        upper = np.triu(rng.uniform(-1, 1, (6, 6)), 1)
        matrix = upper - upper.T
        weights = nash(matrix)
        assert weights.sum() == pytest.approx(1.0) and (weights >= 0).all()
        assert (weights @ matrix >= -1e-7).all()  # every column pays the mix at least the game's value, 0


def test_cycles_are_listed_once_each_from_their_smallest_entrant():
    edges = [[1], [2], [0, 3], [1]]  # 0→1→2→0 and 1→2→3→1
    assert cycles(edges) == [[0, 1, 2], [1, 2, 3]]


def test_alpha_rank_of_a_single_entrant_is_certain():
    assert list(alpha_rank(np.zeros((1, 1)))) == [1.0]


def test_resampling_keeps_a_clear_winner_alone_and_rock_paper_scissors_whole():
    clear = [[None, (95, 0, 5)], [(5, 0, 95), None]]
    shares, bounds = resampled_support(clear, draws=100, seed=1)
    assert shares == [1.0, 0.0] and bounds[0] == (1.0, 1.0)
    shares, bounds = resampled_support(ROCK_PAPER_SCISSORS, draws=100, seed=1)
    assert shares == [1.0, 1.0, 1.0]
    assert all(low < 1 / 3 < high for low, high in bounds)


# ------------------------------------------------------------------------------------------- the study kind

REALMS = "/api/simulate/realms/batches/"


@pytest.mark.django_db
def test_an_equilibrium_of_every_faction_answers_its_schema_and_its_page_shows_the_meta(
        catalogue, staff, staff_client, contract, local_runner, django_capture_on_commit_callbacks):  # noqa: F811
    with django_capture_on_commit_callbacks(execute=True):
        response = staff_client.post(REALMS, {"kind": "equilibrium", "factions": True, "count": 10, "seed": 3},
                                     format="json")
    contract(response, REALMS)
    local_runner.run_all()
    answer = contract(staff_client.get(response.json()["url"]), "/api/simulate/batches/{id}/", "get")
    assert answer["status"] == "done", answer
    found = answer["results"]["equilibrium"]
    names = answer["results"]["matrix"]["rows"]
    assert [row["name"] for row in found["entrants"]] == names and len(names) == 8
    assert sum(row["weight"] for row in found["entrants"]) == pytest.approx(1.0, abs=1e-5)
    assert set(found["support"]) == {row["name"] for row in found["entrants"] if row["weight"] > 1e-6}
    assert all(row["weight_low"] <= row["weight_high"] for row in found["entrants"]) and found["resamples"] == 200
    # No entrant beats the mix: each column's payoff against it is at least the game's value, 0.
    cells = answer["results"]["matrix"]["cells"]
    for j in range(len(names)):
        paid = sum(row["weight"] * (0 if i == j else (cells[i][j]["wins"] - cells[i][j]["losses"]) / cells[i][j]["played"])
                   for i, row in enumerate(found["entrants"]))
        assert paid >= -1e-5
    staff_client.force_login(staff)
    page = staff_client.get(reverse("study-detail", args=[answer["id"]])).content.decode()
    assert 'class="equilibrium"' in page and f"support {len(found['support'])} of 8" in page


@pytest.mark.django_db
def test_an_equilibrium_plays_a_matrix_studys_entrants_and_refuses_two_sources(
        catalogue, staff, staff_client, local_runner, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        matrix = staff_client.post(REALMS, {"kind": "matrix", "factions": True, "count": 4, "seed": 1}, format="json")
    local_runner.run_all()
    with django_capture_on_commit_callbacks(execute=True):
        response = staff_client.post(REALMS, {"kind": "equilibrium", "study": matrix.json()["id"], "count": 6,
                                              "seed": 2}, format="json")
    assert response.status_code == 202, response.json()
    local_runner.run_all()
    played = staff_client.get(response.json()["url"]).json()
    source = staff_client.get(matrix.json()["url"]).json()
    assert played["results"]["matrix"]["rows"] == source["results"]["matrix"]["rows"]
    assert played["results"]["played"] == 6 * 28
    for body, field in (({"study": matrix.json()["id"], "factions": True}, None),
                        ({"study": "00000000-0000-0000-0000-000000000000"}, "study")):
        refused = staff_client.post(REALMS, {"kind": "equilibrium", "count": 4, **body}, format="json")
        error = assert_error_shape(refused, 400, "invalid")
        assert field is None or field in error["fields"], error


@pytest.mark.django_db
def test_the_command_line_prints_the_weights_and_the_cycles_heading(catalogue, capsys):
    from django.core.management import call_command

    call_command("simulate_batch", "realms", "--kind", "equilibrium", "--factions", "--count", "4", "--seed", "1",
                 "--processes", "1")
    printed = capsys.readouterr().out
    assert "Equilibrium (support " in printed and "resampled 95%" in printed and "α-Rank" in printed
