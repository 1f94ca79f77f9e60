"""The balance lab's kinds of study, through the API as a designer uses them, and the promise that chunks
never change results."""

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from realms.models import Character
from simulate import batches, studies
from simulate.engine.stats import mcnemar_p, wilson
from simulate.engine.tally import merge
from simulate.models import Batch, BatchChunk
from tests.conftest import assert_error_shape
from tests.factories import faction_army

pytestmark = pytest.mark.django_db

REALMS = "/api/simulate/realms/batches/"


@pytest.fixture
def armies(catalogue):
    return {"a": {"slots": faction_army("arcane")}, "b": {"slots": faction_army("iron-kingdom")}}


@pytest.fixture
def small_chunks(monkeypatch):
    monkeypatch.setattr(studies, "CHUNK_MATCHES", 6)


@pytest.fixture
def study(anon_client, local_runner, django_capture_on_commit_callbacks, catalogue):
    """Post a study, play what the request handed to the background, and read it back."""

    def post(payload, status=202):
        with django_capture_on_commit_callbacks(execute=True):
            response = anon_client.post(REALMS, payload, format="json")
        assert response.status_code == status, response.content
        if status != 202:
            return response
        local_runner.run_all()
        body = anon_client.get(response.json()["url"]).json()
        assert body["status"] == "done", body["error"]
        return body

    return post


def figures_match_counts(figures: dict) -> None:
    """A figures block says what its counts say: the win rate and its Wilson interval."""
    played = figures["wins"] + figures["draws"] + figures["losses"]
    low, high = wilson(figures["wins"], played)
    assert figures["win_rate"] == round(figures["wins"] / played, 6)
    assert figures["win_rate_ci"] == {"low": round(low, 6), "high": round(high, 6)}


def test_a_matchup_reports_side_as_rates_by_first_seat_rounds_and_decisiveness(study, armies):
    body = study({"armies": armies, "agents": {"a": "greedy", "b": "random"}, "count": 30, "seed": 4,
                  "swap_sides": True})
    results = body["results"]
    assert (body["kind"], body["played"], results["played"]) == ("matchup", 30, 30)
    figures_match_counts(results)
    first = results["by_first"]
    assert first["a"]["wins"] + first["a"]["draws"] + first["a"]["losses"] == 15  # swapped every second match
    assert first["a"]["wins"] + first["b"]["wins"] == results["wins"]
    figures_match_counts(first["b"])
    assert sum(results["rounds"]["histogram"].values()) == 30
    assert results["rounds"]["min"] <= results["rounds"]["mean"] <= results["rounds"]["max"]
    assert 0 < results["decisiveness"]["wins"] <= 1  # greedy beats random, keeping part of its HP
    assert body["summary"]["wins"] == {"a": results["wins"], "b": results["losses"]}


def test_a_matchup_stops_once_its_interval_is_narrow_enough(study, armies, small_chunks):
    body = study({"armies": armies, "agents": {"a": "greedy", "b": "random"}, "count": 600, "seed": 1,
                  "until_ci_width": 0.3})
    ci = body["results"]["win_rate_ci"]
    assert body["played"] < 600 and body["played"] % 6 == 0
    assert ci["high"] - ci["low"] <= 0.3
    earlier = [row.tally for row in BatchChunk.objects.filter(batch=Batch.objects.get()).order_by("index")
               if row.index < body["played"] // 6 - 1]
    assert earlier  # it took more than one chunk
    total = earlier[0]
    for tally in earlier[1:]:
        total = merge(total, tally)
    low, high = wilson(total["pairings"][0]["wins"], total["pairings"][0]["matches"])
    assert high - low > 0.3  # one chunk earlier it was still too wide


def test_until_ci_width_is_for_matchups_only(study, armies):
    response = study({"kind": "gauntlet", "subject": armies["a"], "opponents": [armies["b"]], "count": 4,
                      "until_ci_width": 0.1}, status=400)
    assert "until_ci_width" in assert_error_shape(response, 400, "invalid")["fields"]


def test_a_gauntlet_has_a_row_per_opponent_equal_to_its_own_matchup(study, armies):
    tribal = {"slots": faction_army("tribal")}
    body = study({"kind": "gauntlet", "subject": armies["a"], "opponents": [armies["b"], tribal], "count": 8,
                  "seed": 11, "swap_sides": True})
    rows = body["results"]["opponents"]
    assert [row["opponent"] for row in rows] == [0, 1] and body["played"] == 16
    alone = study({"armies": {"a": armies["a"], "b": tribal}, "count": 8, "seed": 11, "swap_sides": True})
    assert {k: v for k, v in rows[1].items() if k != "opponent"} == alone["results"]


def test_a_matrix_of_every_factions_strongest_army(study):
    body = study({"kind": "matrix", "factions": True, "count": 2, "seed": 3})
    matrix = body["results"]["matrix"]
    size = len(matrix["rows"])
    assert size >= 2 and matrix["rows"] == matrix["cols"] and body["played"] == size * (size - 1)
    assert "Arcane" in matrix["rows"]
    for i in range(size):
        assert matrix["cells"][i][i] is None
        for j in range(i + 1, size):
            there, back = matrix["cells"][i][j], matrix["cells"][j][i]
            assert (there["wins"], there["losses"], there["draws"]) == (back["losses"], back["wins"], back["draws"])
    means = {row["name"]: row["mean_win_rate"] for row in body["results"]["standings"]}
    row0 = [cell["win_rate"] for cell in matrix["cells"][0] if cell is not None]
    assert means[matrix["rows"][0]] == pytest.approx(sum(row0) / len(row0), abs=1e-6)
    assert len(body["inputs"]["entrants"]) == size  # the armies chosen are kept with the batch


def test_a_field_ranks_every_card_by_delta_with_intervals(study, small_chunks):
    body = study({"kind": "field", "count": 60, "seed": 2})
    results = body["results"]
    cards = results["cards"]
    armies = 2 * 60
    assert sum(row["appearances"] for row in cards) == 7 * armies  # seven different cards an army
    assert [row["delta"] for row in cards] == sorted((row["delta"] for row in cards), reverse=True)
    wins = sum(results[key] for key in ("wins", "losses"))  # every decided match has one winning army
    for row in cards:
        without = armies - row["appearances"]
        without_wins = wins - row["wins"]
        assert row["without_win_rate"] == round(without_wins / without, 6)
        assert row["delta"] == pytest.approx(row["win_rate"] - row["without_win_rate"], abs=2e-6)
        expected = "over" if row["delta_ci"]["low"] > 0 else "under" if row["delta_ci"]["high"] < 0 else None
        assert row["flag"] == expected
        assert row["delta_ci"]["low"] <= row["delta"] <= row["delta_ci"]["high"]
    assert {row["faction"] for row in results["factions"]} <= set(Character.objects.values_list("faction__slug",
                                                                                                 flat=True))
    assert sum(row["appearances"] for row in results["classes"]) >= armies


def test_a_whatif_plays_the_same_seeds_with_and_without_the_patch_in_a_sandbox(study, armies):
    card = armies["a"]["slots"][0]["card"]
    before = Character.objects.get(slug=card)
    body = study({"kind": "whatif", "armies": armies, "count": 20, "seed": 8,
                  "patch": [{"card": card, "changes": {"atk": 29, "hp": before.health + 20}}]})
    results = body["results"]
    assert body["played"] == 40 and results["base"] == "matchup"
    plain = study({"armies": armies, "count": 20, "seed": 8})
    assert results["baseline"] == plain["results"]  # the baseline is the unpatched matchup, seed for seed
    diff = results["difference"]
    b, c = diff["discordant"]["baseline_only"], diff["discordant"]["patched_only"]
    assert diff["win_rate"] == round((c - b) / 20, 6)
    assert results["patched"]["wins"] - results["baseline"]["wins"] == c - b
    assert results["p_value"] == round(mcnemar_p(b, c), 6)
    after = Character.objects.get(slug=card)
    assert (after.attack, after.health, after.updated_at) == (before.attack, before.health, before.updated_at)


def test_a_patch_is_validated_like_an_admin_edit(study, armies):
    card = armies["a"]["slots"][0]["card"]
    response = study({"kind": "whatif", "armies": armies, "count": 2,
                      "patch": [{"card": card, "changes": {"atk": 31}}]}, status=400)
    fields = assert_error_shape(response, 400, "invalid")["fields"]
    assert "patch.0.changes.atk" in fields and "30" in fields["patch.0.changes.atk"][0]
    response = study({"kind": "whatif", "armies": armies, "count": 2,
                      "patch": [{"card": card, "changes": {"main_ability": {"kind": "no-such-effect"}}}]}, status=400)
    assert "patch.0.changes.main_ability" in assert_error_shape(response, 400, "invalid")["fields"]
    response = study({"kind": "whatif", "armies": armies, "count": 2,
                      "patch": [{"card": "no-such-card", "changes": {"atk": 3}}]}, status=400)
    assert "patch.0.card" in assert_error_shape(response, 400, "invalid")["fields"]
    assert Batch.objects.count() == 0


def test_a_patch_that_changes_no_card_the_matches_use_is_refused(study, armies):
    fielded = {slot["card"] for army in armies.values() for slot in army["slots"]}
    absent = Character.objects.exclude(slug__in=fielded).order_by("slug").first()
    response = study({"kind": "whatif", "armies": armies, "count": 2,
                      "patch": [{"card": absent.slug, "changes": {"atk": absent.attack + 1}}]}, status=400)
    message = assert_error_shape(response, 400, "invalid")["fields"]["patch"][0]
    assert message.startswith("The patch changes nothing these matches use")
    card = Character.objects.get(slug=armies["a"]["slots"][0]["card"])
    response = study({"kind": "whatif", "armies": armies, "count": 2,
                      "patch": [{"card": card.slug, "changes": {"atk": card.attack}}]}, status=400)
    assert "patch" in assert_error_shape(response, 400, "invalid")["fields"]
    assert Batch.objects.count() == 0


def test_a_field_whatif_shows_the_patched_cards_rows_both_ways(study, small_chunks):
    card = Character.objects.order_by("slug").first()
    body = study({"kind": "whatif", "base": "field", "count": 30, "seed": 5,
                  "patch": [{"card": card.slug, "changes": {"atk": min(30, card.attack + 5)}}]})
    rows = body["results"]["patched_rows"]
    assert [row["card"] for row in rows] == [card.slug]
    if rows[0]["baseline"] is not None:
        assert rows[0]["baseline"]["appearances"] == rows[0]["patched"]["appearances"]  # the same armies
        assert body["results"]["difference"]["pairs"] == rows[0]["baseline"]["appearances"]


def test_a_ladder_plays_the_matchup_at_every_level(study, armies):
    body = study({"kind": "ladder", "armies": armies, "count": 4, "seed": 2, "levels": ["random", "greedy"]})
    rows = body["results"]["agents"]
    assert [row["agent"] for row in rows] == ["random", "greedy"] and body["played"] == 8
    greedy = study({"armies": armies, "agents": {"a": "greedy", "b": "greedy"}, "count": 4, "seed": 2})
    assert {k: v for k, v in rows[1].items() if k != "agent"} == greedy["results"]


@pytest.mark.parametrize("payload, field", [
    ({"kind": "gauntlet", "opponents": []}, "opponents"),
    ({"kind": "matrix", "entrants": []}, "entrants"),
    ({"kind": "field", "pool": {"cards": ["no-such-card"]}}, "pool.cards"),
    ({"kind": "field", "pool": {"sets": ["NOPE"]}}, "pool.sets"),
    ({"kind": "ladder", "levels": ["genius"]}, "levels.0"),
    ({"kind": "whatif"}, "patch"),
    ({"kind": "tournament"}, "kind"),
])
def test_bad_studies_are_refused_with_the_path_at_fault(study, armies, payload, field):
    body = {"count": 2, **payload}
    if payload["kind"] in ("ladder", "whatif"):
        body["armies"] = armies
    fields = assert_error_shape(study(body, status=400), 400, "invalid")["fields"]
    assert any(path.startswith(field) for path in fields), fields


def test_a_client_has_at_most_five_unfinished_batches(anon_client, armies):
    for _ in range(batches.MAX_UNFINISHED):
        assert anon_client.post(REALMS, {"armies": armies, "count": 2}, format="json").status_code == 202
    response = anon_client.post(REALMS, {"armies": armies, "count": 2}, format="json")
    assert assert_error_shape(response, 429, "too_many_batches")
    Batch.objects.filter(pk=Batch.objects.first().pk).update(status=Batch.Status.CANCELLED)
    assert anon_client.post(REALMS, {"armies": armies, "count": 2}, format="json").status_code == 202


# --------------------------------------------------------------------------- chunks change nothing


@pytest.fixture
def field_study(catalogue):
    return studies.plan(game="realms", kind="field", inputs={}, per_pairing=12, swap_sides=False)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cuts=st.sets(st.integers(min_value=1, max_value=11), max_size=6))
def test_chunking_never_changes_a_field_studys_counts(field_study, cuts):
    whole = studies.play_chunk(field_study, 40, 0, 12)
    bounds = [0, *sorted(cuts), 12]
    parts = [studies.play_chunk(field_study, 40, a, b) for a, b in zip(bounds, bounds[1:], strict=False)]
    total = parts[0]
    for part in parts[1:]:
        total = merge(total, part)
    assert total == whole


def test_chunks_stored_in_any_order_give_the_results_of_one_run(armies, monkeypatch):
    monkeypatch.setattr(studies, "CHUNK_MATCHES", 3)
    inputs = {"armies": armies, "agents": {"a": "greedy", "b": "random"},
              "patch": [{"card": armies["a"]["slots"][0]["card"], "changes": {"atk": 25}}]}
    one_run = batches.play_here(batches.create_batch(game="realms", kind="whatif", inputs=inputs, count=9, seed=6,
                                                     swap_sides=True).pk)
    shuffled = batches.create_batch(game="realms", kind="whatif", inputs=inputs, count=9, seed=6, swap_sides=True)
    order = list(range(shuffled.chunks))
    random.Random(1).shuffle(order)
    study = studies.study_of(shuffled)
    for index in order:
        start, stop = studies.chunk_bounds(shuffled, index)
        studies.store_chunk(shuffled.pk, index, studies.play_chunk(study, shuffled.seed, start, stop))
    shuffled.refresh_from_db()
    assert order != sorted(order) and shuffled.chunks == 9
    assert (shuffled.status, shuffled.played, shuffled.results) == (one_run.status, one_run.played, one_run.results)


# ------------------------------------------------------------------- the catalogue shows the results


def test_cards_show_the_field_study_staff_published_and_no_other(anon_client, staff_client, local_runner,
                                                                 small_chunks, django_capture_on_commit_callbacks,
                                                                 catalogue, settings):
    settings.SIMULATE_PUBLISH_POINTS = 100  # a 30-match study measures every card within ±100 points
    assert anon_client.get("/api/realms/characters/").json()["results"][0]["simulated"] is None
    with django_capture_on_commit_callbacks(execute=True):
        queued = staff_client.post(REALMS, {"kind": "field", "count": 30, "seed": 9}, format="json").json()
    local_runner.run_all()
    results = staff_client.get(queued["url"]).json()["results"]
    row = results["cards"][0]
    # Finished but not published: no card shows it, and it is private to the designer who ran it.
    assert anon_client.get(f"/api/realms/characters/{row['card']}/").json()["simulated"] is None
    assert anon_client.get(queued["url"]).status_code == 404
    published = staff_client.post(f"{queued['url']}publish/")
    assert published.status_code == 200 and published.json()["published_at"] is not None
    assert anon_client.get(queued["url"]).status_code == 200
    card = anon_client.get(f"/api/realms/characters/{row['card']}/").json()
    simulated = card["simulated"]
    assert (simulated["batch"], simulated["played"]) == (queued["id"], 30)
    assert {key: simulated[key] for key in row if key != "card"} == {key: value for key, value in row.items()
                                                                      if key != "card"}
    # A later study, even a designer's, is not the catalogue's until it is published; nor one of another pool.
    with django_capture_on_commit_callbacks(execute=True):
        later = staff_client.post(REALMS, {"kind": "field", "count": 60, "seed": 1}, format="json").json()
        other_pool = staff_client.post(REALMS, {"kind": "field", "count": 60, "seed": 1,
                                                "pool": {"cards": [r["card"] for r in results["cards"]]}},
                                       format="json").json()
    local_runner.run_all()
    published = staff_client.post(f"{other_pool['url']}publish/")
    assert published.status_code == 200, published.json()
    assert anon_client.get(f"/api/realms/characters/{row['card']}/").json()["simulated"]["batch"] == queued["id"]
    assert staff_client.post(f"{later['url']}publish/").status_code == 200
    assert anon_client.get(f"/api/realms/characters/{row['card']}/").json()["simulated"]["batch"] == later["id"]
    # Withdrawn: the one published before it is the catalogue's again.
    assert staff_client.delete(f"{later['url']}publish/").json()["published_at"] is None
    assert anon_client.get(f"/api/realms/characters/{row['card']}/").json()["simulated"]["batch"] == queued["id"]


def test_options_on_cancel_describe_it(anon_client, armies):
    batch = batches.create_batch(game="realms", inputs={"armies": armies}, count=2, seed=1)
    response = anon_client.options(f"/api/simulate/batches/{batch.pk}/cancel/")
    assert response.status_code == 200 and "POST" in response["Allow"]


def test_an_early_stop_counts_from_the_first_chunk_whichever_chunk_is_stored_first(armies, monkeypatch):
    monkeypatch.setattr(studies, "CHUNK_MATCHES", 4)
    batch = batches.create_batch(game="realms", inputs={"armies": armies}, count=12, seed=2, until_ci_width=1.0)
    study = studies.study_of(batch)
    for index in (1, 0):
        start, stop = studies.chunk_bounds(batch, index)
        studies.store_chunk(batch.pk, index, studies.play_chunk(study, batch.seed, start, stop))
        batch.refresh_from_db()
        if index == 1:  # any interval is at most 1 wide, but chunk 0 is still to come
            assert (batch.status, batch.played) == (Batch.Status.RUNNING, 4)
    first = studies.play_chunk(study, batch.seed, 0, 4)["pairings"][0]
    assert (batch.status, batch.played, batch.results["wins"]) == (Batch.Status.DONE, 4, first["wins"])
