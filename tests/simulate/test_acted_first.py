"""Who acted first in a match, counted by studies: Echo Realms' first player (an option, or a coin from the
seed) and Akin Legends' team holding turn counter 1, whichever seat it sat in."""

import pytest
from django.urls import reverse

from simulate import batches, studies
from simulate.engine import runner
from tests.factories import faction_army

pytestmark = pytest.mark.django_db


@pytest.fixture
def armies(catalogue):
    return {"a": {"slots": faction_army("arcane")}, "b": {"slots": faction_army("iron-kingdom")}}


def test_the_first_player_option_decides_who_acted_first_in_every_match(armies):
    study = batches.play_here(batches.create_batch(
        game="realms", inputs={"armies": armies, "options": {"first_player": "b"}}, count=12, seed=3,
        swap_sides=True).pk)
    acted = study.results["by_acted_first"]
    # Side b's army plays first when it sits in seat b (the even matches); swapped, side a's army sits in seat
    # b and plays first.
    assert acted["b"]["wins"] + acted["b"]["draws"] + acted["b"]["losses"] == 6
    assert acted["a"]["wins"] + acted["a"]["draws"] + acted["a"]["losses"] == 6
    halves = study.results["by_first"]
    assert (acted["a"]["wins"], acted["b"]["wins"]) == (halves["b"]["wins"], halves["a"]["wins"])
    first = study.results["first_actor"]  # the first player's own record: side b's wins as given, a's swapped
    assert first["wins"] == halves["a"]["losses"] + halves["b"]["wins"]


def test_a_coin_from_the_seed_splits_a_realms_matchup_by_who_acted_first(armies):
    study = batches.play_here(batches.create_batch(game="realms", inputs={"armies": armies}, count=40, seed=8).pk)
    plan = studies.study_of(study)
    prepared = plan.pairings[0].prepared
    firsts = [runner.play_match("realms", setup=prepared.setup, agents=prepared.agents, seed=study.seed + i,
                                options=prepared.options, keep_log=False).first for i in range(40)]
    acted = study.results["by_acted_first"]
    assert [sum(acted[side][key] for key in ("wins", "draws", "losses")) for side in ("a", "b")] == \
        [firsts.count("a"), firsts.count("b")]
    assert 0 < firsts.count("a") < 40


def test_akin_legends_counts_the_team_holding_counter_one(catalogue, client):
    study = batches.play_here(batches.create_batch(game="legends", kind="field", inputs={"mode": "teams"}, count=10,
                                                   seed=4).pk)
    acted, first = study.results["by_acted_first"], study.results["first_actor"]
    # A field draws players with legal counters (L5): team 0 holds counter 1, so it acted first in every match.
    assert sum(acted["a"][key] for key in ("wins", "draws", "losses")) == 10
    assert (first["wins"], first["draws"], first["losses"]) == (acted["a"]["wins"], acted["a"]["draws"],
                                                                acted["a"]["losses"])
    page = client.get(reverse("study-detail", args=[study.pk])).content.decode()
    assert "The side whose player acted first" in page and "Team 0 acted first" not in page  # no side a here
