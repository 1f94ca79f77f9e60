"""How varied a pairing's matches were: each match's result fingerprinted into a bounded sketch of its tally,
the same however chunks split the matches, read as `distinct_games` and `one_game` in every study's figures,
and shown beside the interval in the report and on the command line."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command
from django.urls import reverse
from hypothesis import given, settings
from hypothesis import strategies as st

from realms.models import Character
from simulate.engine.tally import (
    SKETCH_SIZE,
    WIN,
    count_match,
    distinct_games,
    figures,
    fingerprint,
    merge,
    new_tally,
)
from tests.factories import find_army

REALMS = "/api/simulate/realms/batches/"
# No random tie-break and side a always first: with armies that pick no unit at random, greedy against greedy
# plays the very same match from every seed.
FIXED = {"tie_break": "alternate", "first_player": "a"}
WARNING = "effectively one game: the interval says how this policy plays, not how the sides compare."


def tally_of(games: list[str]) -> dict:
    """The tally of matches with these fingerprints (every other count alike)."""
    tally = new_tally()
    for game in games:
        count_match(tally, outcome=WIN, first="a", rounds=5, reason="elimination", share=0.5, game=game)
    return tally


@settings(max_examples=60, deadline=None)
@given(games=st.lists(st.integers(min_value=0, max_value=400), max_size=300),
       cuts=st.lists(st.integers(min_value=0, max_value=300), max_size=6), order=st.randoms(use_true_random=False))
def test_the_sketch_of_a_sum_is_the_same_however_the_matches_were_split(games, cuts, order):
    fingerprints = [fingerprint("match", game) for game in games]
    whole = tally_of(fingerprints)
    bounds = sorted({0, len(fingerprints), *(min(cut, len(fingerprints)) for cut in cuts)})
    chunks = [tally_of(fingerprints[start:stop]) for start, stop in zip(bounds, bounds[1:], strict=False)]
    order.shuffle(chunks)
    total = new_tally()
    for chunk in chunks:
        total = merge(total, chunk)
    assert total == whole
    assert figures(total)["distinct_games"] == figures(whole)["distinct_games"]


def test_distinct_games_are_exact_below_the_sketch_size_and_estimated_above():
    few = tally_of([fingerprint(i % 20) for i in range(200)])
    assert figures(few)["distinct_games"] == {"count": 20, "exact": True}
    many = tally_of([fingerprint(i) for i in range(5000)])
    counted = figures(many)["distinct_games"]
    assert len(many["games"]) == SKETCH_SIZE and not counted["exact"]
    assert 3000 <= counted["count"] <= 5000  # k = 64 minimum values: a relative error of about 1/8, never
    # more games than matches
    # 90 different matches, whose 64th smallest fingerprint estimates 91 games: 90 are shown.
    assert distinct_games(dict.fromkeys(sorted(fingerprint(i) for i in range(90))[:SKETCH_SIZE], 1))["count"] == 91
    assert figures(tally_of([fingerprint(i) for i in range(90)]))["distinct_games"] == {"count": 90, "exact": False}


def test_a_fingerprint_is_stable_across_runs_and_depends_on_every_part():
    # BLAKE2b of the compact JSON, not Python's hash(), which changes from one process to the next.
    assert fingerprint("a", "elimination", 7, 60, {"a": []}) == "d783dea4b9319176"
    assert fingerprint("a", "elimination", 7, 60) != fingerprint("a", "elimination", 7, 61)
    assert fingerprint({"x": 1, "y": 2}) == fingerprint({"y": 2, "x": 1})


def test_few_matches_are_never_flagged_and_one_game_in_ten_is():
    assert figures(tally_of(["0" * 16] * 9))["one_game"] is False
    replayed = figures(tally_of(["0" * 16] * 10))
    assert replayed["one_game"] is True
    assert replayed["one_game_warning"] == f"These 10 matches were {WARNING}"
    assert figures(tally_of([fingerprint(i % 3) for i in range(30)]))["one_game"] is True  # 3 games over 30
    assert figures(tally_of([fingerprint(i % 4) for i in range(30)]))["one_game"] is False
    assert figures(new_tally())["one_game"] is False


def test_figures_counted_before_games_were_say_nothing_of_them():
    old = tally_of(["0" * 16] * 20)
    del old["games"]
    assert (figures(old)["distinct_games"], figures(old)["one_game"]) == (None, False)


# ------------------------------------------------------------------------------------- through the API


@pytest.fixture
def fixed_armies(catalogue):
    """Two legal armies of starter cards whose abilities pick no unit at random."""
    plain = [card for card in Character.objects.select_related("rarity").order_by("pk")
             if "random_" not in json.dumps([card.main_ability, card.faction_ability])]
    first = find_army(plain)
    assert first is not None
    second = find_army([card for card in plain if card.slug not in {c.slug for c, _ in first}])
    assert second is not None
    return [{"slots": [{"card": card.slug, "line": line} for card, line in army]} for army in (first, second)]



@pytest.mark.django_db
def test_a_greedy_pairing_that_replays_one_match_is_flagged_one_game(study, fixed_armies):
    body = study(REALMS, {"armies": {"a": fixed_armies[0], "b": fixed_armies[1]}, "agents": {"a": "greedy", "b": "greedy"},
                  "options": FIXED, "count": 20, "seed": 3})
    results = body["results"]
    assert results["distinct_games"] == {"count": 1, "exact": True}
    assert results["one_game"] is True
    assert results["one_game_warning"] == f"These 20 matches were {WARNING}"
    assert results["wins"] in (0, 20) or results["draws"] == 20  # one game: one outcome


@pytest.mark.django_db
def test_a_softmax_pairing_of_the_same_armies_is_many_games(study, fixed_armies):
    body = study(REALMS, {"armies": {"a": fixed_armies[0], "b": fixed_armies[1]}, "options": FIXED, "count": 20, "seed": 3})
    results = body["results"]
    assert results["distinct_games"]["count"] >= 15 and results["distinct_games"]["exact"]
    assert (results["one_game"], results["one_game_warning"]) == (False, None)


@pytest.mark.django_db
def test_every_pairing_of_a_gauntlet_and_a_matrix_says_how_varied_it_was(study, fixed_armies, client):
    gauntlet = study(REALMS, {"kind": "gauntlet", "subject": fixed_armies[0], "opponents": [fixed_armies[1], {"random": True}],
                      "agents": {"a": "greedy", "b": "greedy"}, "options": FIXED, "count": 10, "seed": 8})
    rows = gauntlet["results"]["opponents"]
    assert rows[0]["one_game"] is True and rows[0]["distinct_games"] == {"count": 1, "exact": True}
    assert all("distinct_games" in row and "one_game_warning" in row for row in rows)
    matrix = study(REALMS, {"kind": "matrix", "entrants": fixed_armies, "agents": {"a": "greedy", "b": "greedy"},
                    "options": FIXED, "count": 10, "seed": 8})
    cells = matrix["results"]["matrix"]["cells"]
    # Sides swap every second match, so each seat order is one game: two games over ten matches.
    assert cells[0][1]["distinct_games"] == cells[1][0]["distinct_games"] == {"count": 2, "exact": True}
    assert cells[0][1]["one_game"] is False
    replayed = study(REALMS, {"kind": "matrix", "entrants": fixed_armies, "agents": {"a": "greedy", "b": "greedy"},
                      "options": FIXED, "count": 20, "seed": 8})
    assert replayed["results"]["matrix"]["cells"][0][1]["one_game"] is True  # two games over twenty matches
    html = client.get(reverse("study-detail", args=[replayed["id"]])).content.decode()
    assert html.count('aria-label="effectively one game (or a few) replayed">*</span>') == 2
    assert "These cells' matches were effectively one game (or a few, one a seat when sides swap)" in html


@pytest.mark.django_db
def test_the_report_and_the_command_line_show_the_warning_by_the_interval(study, fixed_armies, client, capsys):
    body = study(REALMS, {"armies": {"a": fixed_armies[0], "b": fixed_armies[1]}, "agents": {"a": "greedy", "b": "greedy"},
                  "options": FIXED, "count": 12, "seed": 5})
    html = client.get(reverse("study-detail", args=[body["id"]])).content.decode()
    assert f"These 12 matches were {WARNING}" in html
    call_command("simulate_batch", "realms", "--count", "12", "--seed", "5", "--agents", "greedy", "greedy",
                 "--inputs", json.dumps({"armies": {"a": fixed_armies[0], "b": fixed_armies[1]}, "options": FIXED}),
                 verbosity=0)
    out = capsys.readouterr().out
    assert f"Warning: These 12 matches were {WARNING}" in out
    assert "Distinct games: 1" in out


@pytest.mark.django_db
def test_a_field_says_how_it_was_drawn_and_what_share_of_sides_fielded_each_member(study, client):
    body = study(REALMS, {"kind": "field", "count": 20, "seed": 2})
    assert body["results"]["draw"].startswith("Two random legal armies a match.")
    html = client.get(reverse("study-detail", args=[body["id"]])).content.decode()
    assert "How the field was drawn: Two random legal armies a match." in html
    assert "Share of sides" in html
    row = body["results"]["cards"][0]
    assert f"{row['appearances'] / 40:.1%}" in html

