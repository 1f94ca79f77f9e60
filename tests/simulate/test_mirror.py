"""The mirror kind of study: one army (team) against itself, never swapped, measuring the first seat's
advantage; through the API and the command line, for both games, with its figures checked by hand."""

import io
import json

import pytest
from django.core.management import call_command

from simulate import batches, studies
from simulate.engine.stats import binomial_half_p, wilson
from simulate.engine.tally import new_tally
from simulate.models import Batch
from simulate.study_kinds import study_kind
from tests.conftest import assert_error_shape
from tests.factories import faction_army

pytestmark = pytest.mark.django_db

REALMS = "/api/simulate/realms/batches/"
LEGENDS = "/api/simulate/legends/batches/"
# Akin Legends makes spirits, protectors and defenses unique to a team: a mirror's team leaves its cards out, so
# that each side draws its own from the match seed alike, and the second side takes the spirit left.
DUEL_TEAM = {"spirit": "akin", "players": [{"name": "Ann", "counter": 1}]}


def first_seat_figures_hold(results: dict, count: int) -> None:
    """The counts add up, the rate and its Wilson interval are those of the counts, the test is that of the
    decisive matches, and side a held the first seat in every match."""
    wins, draws, losses = results["wins"], results["draws"], results["losses"]
    assert wins + draws + losses == results["played"] == count
    low, high = wilson(wins, count)
    assert results["win_rate_ci"] == {"low": round(low, 6), "high": round(high, 6)}
    assert low <= results["win_rate"] <= high
    assert results["first_seat"] == {"decisive": wins + losses, "p_value": round(binomial_half_p(wins, losses), 6)}
    assert results["by_first"]["a"]["wins"] == wins and results["by_first"]["b"]["wins"] == 0
    assert results["by_first"]["b"]["draws"] == results["by_first"]["b"]["losses"] == 0


def test_a_realms_mirror_through_the_api(study, catalogue):
    army = {"slots": faction_army("arcane")}
    body = study(REALMS, {"kind": "mirror", "subject": army, "count": 24, "seed": 11})
    assert body["kind"] == "mirror" and body["swap_sides"] is False
    first_seat_figures_hold(body["results"], 24)
    again = study(REALMS, {"kind": "mirror", "subject": army, "count": 24, "seed": 11})
    assert again["results"] == body["results"]  # a seed plays the same matches


def test_a_legends_duel_mirror_through_the_api(study, catalogue):
    body = study(LEGENDS, {"kind": "mirror", "mode": "duel", "subject": DUEL_TEAM, "count": 12, "seed": 5})
    first_seat_figures_hold(body["results"], 12)


def test_a_mirror_refuses_swapped_sides_a_missing_subject_and_other_kinds_keys(anon_client, catalogue):
    army = {"slots": faction_army("arcane")}
    refusals = [
        ({"kind": "mirror", "subject": army, "count": 2, "swap_sides": True}, "swap_sides"),
        ({"kind": "mirror", "count": 2}, "subject"),
        ({"kind": "mirror", "subject": army, "opponents": [army], "count": 2}, "opponents"),
    ]
    for payload, field in refusals:
        response = anon_client.post(REALMS, payload, format="json")
        assert field in assert_error_shape(response, 400)["fields"]
    response = anon_client.post(LEGENDS, {"kind": "mirror", "subject": DUEL_TEAM, "count": 2}, format="json")
    assert "mode" in assert_error_shape(response, 400)["fields"]


def test_a_legends_mirror_of_a_team_fielding_a_card_breaks_its_uniqueness(anon_client, catalogue):
    team = {**DUEL_TEAM, "protector": "archivist"}
    response = anon_client.post(LEGENDS, {"kind": "mirror", "mode": "duel", "subject": team, "count": 2},
                                format="json")
    body = assert_error_shape(response, 400)
    assert [(v["code"], v["at"]) for v in body["violations"]] == [("protector_duplicate", "subject")]


def test_the_results_of_a_mirror_by_hand(catalogue):
    """9 wins, 1 loss and 2 draws of the first seat: a rate of 9/12, and p = 22/1024 over 10 decisive."""
    batch = Batch(game="realms", kind="mirror", inputs={}, count=12, seed=0)
    leg = new_tally()
    leg.update(matches=12, wins=9, losses=1, draws=2)
    results = study_kind("mirror").results(batch, {"pairings": [leg]}, None)
    assert (results["wins"], results["draws"], results["losses"], results["played"]) == (9, 2, 1, 12)
    assert results["win_rate"] == 0.75
    assert results["win_rate_ci"]["low"] < 0.75 < results["win_rate_ci"]["high"]
    assert results["first_seat"] == {"decisive": 10, "p_value": round(22 / 1024, 6)}


def test_a_mirror_plays_the_same_army_on_both_sides(catalogue):
    army = {"slots": faction_army("arcane")}
    batch = batches.create_batch(game="realms", kind="mirror", inputs={"subject": army}, count=2, seed=3)
    study = studies.study_of(batch)
    (pairing,) = study.pairings
    assert not pairing.swap
    assert pairing.prepared.stored_setup["armies"]["a"] == pairing.prepared.stored_setup["armies"]["b"]


def run(game: str, *args) -> str:
    out, err = io.StringIO(), io.StringIO()
    call_command("simulate_batch", game, "--kind", "mirror", *args, stdout=out, stderr=err)
    return out.getvalue()


def test_a_realms_mirror_from_the_command_line(catalogue):
    text = run("realms", "--a", "faction:arcane", "--count", "6", "--seed", "2")
    batch = Batch.objects.get()
    assert batch.kind == "mirror" and batch.inputs["subject"]["slots"] and batch.played == 6
    assert "Mirror: the same side a in both seats, never swapped; 6 matches" in text
    results = batch.results
    assert text.splitlines()[2] == (f"Win rate of the first seat (side a in every match): "
                                    f"{results['win_rate']:.1%} (95% CI {results['win_rate_ci']['low']:.1%} – "
                                    f"{results['win_rate_ci']['high']:.1%})")
    assert f"side a: W {results['wins']} · D {results['draws']} · L {results['losses']} of 6" in text
    assert (f"Exact binomial test of the first seat's wins over {results['first_seat']['decisive']} decisive "
            "matches against 50%") in text


def test_a_legends_mirror_from_the_command_line(catalogue):
    text = run("legends", "--inputs", json.dumps({"mode": "duel", "subject": DUEL_TEAM}), "--count", "4",
               "--seed", "9")
    batch = Batch.objects.get()
    assert batch.kind == "mirror" and batch.inputs["subject"] == DUEL_TEAM
    assert "Mirror: the same team 0 in both seats, never swapped; 4 matches" in text
