"""Army search: MAP-Elites islands on a toy space (the archive, the numbering of games, the merge), then on a
small pool where one card was made dominant on purpose: the search fills its best niches with that card, shows
each kept army's fresh games, replays them, and answers its schema, its page and the command line."""

import json
from datetime import timedelta
from random import Random

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from realms.models import Character
from simulate import batches, studies
from simulate.elites import Elite, Island, Settings, island_data, merged_cells, place, run_island
from simulate.engine.errors import InputError
from simulate.models import Batch
from tests.conftest import assert_error_shape
from tests.simulate.test_contract import contract, openapi  # noqa: F401  (fixtures)
from tests.simulate.test_suggest import small_pool

REALMS = "/api/simulate/realms/batches/"


class Numbers:
    """Genomes 0..19; a genome's cell is its parity and whether it is below 10; a genome wins every game when it
    is 7 or 13 and none otherwise; a mutation adds or takes one or two."""

    def random(self, rng: Random) -> int:
        return rng.randrange(20)

    def mutate(self, genome: int, rng: Random) -> int:
        return min(19, max(0, genome + rng.choice((-2, -1, 1, 2))))

    def cell(self, genome: int) -> tuple[int, ...]:
        return (genome % 2, int(genome < 10))

    def key(self, genome: int) -> int:
        return genome


def numbered_evaluator(played: list[int]):
    def evaluate(genome: int, first: int, games: int) -> int:
        played.extend(range(first, first + games))
        return games if genome in (7, 13) else 0
    return evaluate


def test_an_island_keeps_the_fittest_genome_of_each_cell_and_numbers_every_game_once():
    played: list[int] = []
    island = run_island(Numbers(), numbered_evaluator(played), 4000, 1000, Random(3), Settings(per_evaluation=10))
    assert set(island.elites) <= {(0, 0), (0, 1), (1, 0), (1, 1)} and len(island.elites) == 4
    assert island.elites[(1, 1)].genome == 7 and island.elites[(1, 0)].genome == 13
    assert island.elites[(1, 1)].fitness == 1.0
    # Every game numbered once, from the first, none past the island's share.
    assert played == list(range(1000, 1000 + len(played))) and island.games == len(played) <= 4000
    # Every elite replayed on games after the search's, its own and in a row.
    finals = sorted((elite.final_first, elite.final_games) for elite in island.elites.values())
    assert all(games >= 10 for _, games in finals) and finals[0][0] >= 1000 + 3000
    assert all(a + n == b for (a, n), (b, _) in zip(finals, finals[1:], strict=False))
    assert island.elites[(1, 1)].final_wins == island.elites[(1, 1)].final_games


def test_the_same_genome_found_again_firms_up_its_estimate_and_a_fitter_one_replaces_it():
    island = Island()
    space = Numbers()
    place(island, space, Elite(3, (1, 1), 5, 10))
    place(island, space, Elite(3, (1, 1), 1, 10))
    assert (island.elites[(1, 1)].wins, island.elites[(1, 1)].games, island.replaced) == (6, 20, 0)
    place(island, space, Elite(5, (1, 1), 4, 10))
    assert island.elites[(1, 1)].genome == 5 and island.replaced == 1
    place(island, space, Elite(9, (1, 1), 3, 10))
    assert island.elites[(1, 1)].genome == 5


def test_islands_merge_on_the_search_figures_never_on_the_fresh_games():
    lucky = Island({(0,): Elite(1, (0,), 9, 10, final_wins=2, final_games=10)})
    steady = Island({(0,): Elite(2, (0,), 8, 10, final_wins=9, final_games=10), (1,): Elite(3, (1,), 1, 10)})
    cells = merged_cells([island_data(lucky, int), island_data(steady, int)])
    assert cells[(0,)]["genome"] == 1 and cells[(0,)]["island"] == 0
    assert cells[(1,)]["genome"] == 3 and cells[(1,)]["island"] == 1


@pytest.fixture
def dominant_card(catalogue):
    """The small pool with its first common given ATK 30."""
    cards = small_pool()
    broken = Character.objects.get(slug=cards[0])
    broken.attack = 30
    broken.save()
    return cards, broken.slug


def fields(cell, card: str) -> bool:
    return card in {slot["card"] for slot in cell["cards"]}


def check_cells(found) -> None:
    """Each niche's army is in its cell, replayed on fresh games, flagged by its interval, and has its code."""
    for cell in found["cells"]:
        vanguard = sum(card["line"] == "vanguard" for card in cell["cards"])
        assert cell["cell"] == [vanguard] and cell["labels"] == [f"{vanguard} in the Vanguard"]
        assert cell["final_games"] >= 10 and cell["builder_url"] == f"/realms/armies/build/?code={cell['code']}"
        assert cell["degenerate"] == (cell["win_rate_ci"]["low"] > 0.7)


def test_the_search_fills_its_best_niches_with_the_dominant_card(dominant_card, staff, staff_client):
    cards, broken = dominant_card
    batch = batches.play_here(batches.create_batch(
        game="realms", kind="search", inputs={"pool": {"cards": cards}, "descriptors": ["vanguard"]}, count=2400,
        seed=7, user=staff).pk)
    found = batch.results["search"]
    assert found["islands"] == 2 and found["evaluations"] > 2 * 24 and batch.played <= 2400
    strongest = sorted(found["cells"], key=lambda cell: -cell["win_rate_ci"]["low"])
    assert fields(strongest[0], broken) and strongest[0]["win_rate_ci"]["low"] > 0.5  # beats the field beyond noise
    fielding = [cell for cell in found["cells"] if fields(cell, broken)]
    assert len(fielding) * 2 > len(found["cells"])  # most niches' best army fields it
    check_cells(found)
    staff_client.force_login(staff)
    page = staff_client.get(reverse("study-detail", args=[batch.pk])).content.decode()
    assert 'class="heat-map archive"' in page and "The strongest armies" in page
    assert strongest[0]["cards"][0]["name"] in page and "Open in the army builder" in page
    # Published, the dominant card's page names the niches whose strongest army fields it.
    Batch.objects.filter(pk=batch.pk).update(published_at=timezone.now())
    card_page = staff_client.get(reverse("realms-card", args=[broken])).content.decode()
    assert f"In the strongest army of {len(fielding)} of {len(found['cells'])} niches" in card_page
    check_equilibrium_of(batch, staff)


def check_equilibrium_of(search, staff) -> None:
    """The equilibrium of a search's strongest armies: each kept army an entrant, named by its niche."""
    meta = batches.play_here(batches.create_batch(game="realms", kind="equilibrium", inputs={"study": str(search.pk)},
                                                  count=6, seed=1, user=staff).pk)
    kept = sorted(search.results["search"]["cells"], key=lambda cell: (-cell["win_rate_ci"]["low"], cell["cell"]))[:8]
    assert meta.inputs["entrants"] == [cell["entrant"] for cell in kept]
    assert [row["name"] for row in meta.results["equilibrium"]["entrants"]] == [", ".join(c["labels"]) for c in kept]
    assert sum(row["weight"] for row in meta.results["equilibrium"]["entrants"]) == pytest.approx(1)


def test_a_kept_army_s_fresh_game_replays_with_that_army(dominant_card, staff, staff_client):
    cards, _ = dominant_card
    batch = batches.play_here(batches.create_batch(
        game="realms", kind="search", inputs={"pool": {"cards": cards}, "descriptors": []}, count=800, seed=2,
        user=staff).pk)
    (cell,) = batch.results["search"]["cells"]  # no descriptor: one niche, the strongest army
    assert cell["labels"] == [] and cell["cell"] == []
    number = cell["final_first"] + 1  # an odd game: the army on side b
    response = staff_client.post(f"/api/simulate/batches/{batch.pk}/replay/", {"pairing": 0, "match": number},
                                 format="json")
    assert response.status_code == 201, response.content
    armies = response.json()["setup"]["armies"]
    assert [[slot["card"], slot["line"]] for slot in armies["b"]] == cell["genome"]
    response = staff_client.post(f"/api/simulate/batches/{batch.pk}/replay/", {"pairing": 0, "match": 0},
                                 format="json")
    assert "match" in assert_error_shape(response, 400)["fields"]  # a game of the search itself: no kept army


def test_through_the_api_it_answers_its_schema_and_the_command_prints_the_armies(
        dominant_card, staff_client, contract, django_capture_on_commit_callbacks, local_runner, capsys):  # noqa: F811
    cards, broken = dominant_card
    with django_capture_on_commit_callbacks(execute=True):
        response = staff_client.post(REALMS, {"kind": "search", "pool": {"cards": cards}, "count": 800, "seed": 4},
                                     format="json")
    contract(response, REALMS)
    local_runner.run_all()
    body = contract(staff_client.get(response.json()["url"]), "/api/simulate/batches/{id}/", "get")
    assert body["status"] == "done" and body["results"]["search"]["descriptors"] == ["factions", "mean_spd"]
    call_command("simulate_batch", "realms", "--kind", "search", "--descriptors", "factions", "--count", "800",
                 "--seed", "2", "--processes", "1", "--inputs", json.dumps({"pool": {"cards": cards}}))
    printed = capsys.readouterr().out
    assert "Strongest armies" in printed and broken in printed


def test_refusals_name_what_is_wrong(catalogue, staff_client):
    for game, body, path in (("realms", {"descriptors": ["colour"]}, "descriptors"),
                             ("realms", {"descriptors": ["factions", "factions"]}, "descriptors"),
                             ("realms", {"descriptors": ["factions", "vanguard", "mean_spd"]}, "descriptors"),
                             ("realms", {"count": 100}, "count"),
                             ("realms", {"degenerate_above": 0.2}, "degenerate_above"),
                             ("legends", {"mode": "duel"}, "descriptors")):
        response = staff_client.post(f"/api/simulate/{game}/batches/", {"kind": "search", "count": 800, **body},
                                     format="json")
        assert path in assert_error_shape(response, 400)["fields"], (body, response.json())


def test_only_a_search_may_play_more_than_a_batch_s_bound(catalogue, settings):
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:6379/15"  # stored, never dispatched: nothing is sent
    big = batches.create_batch(game="realms", kind="search", inputs={}, count=200_000, seed=1)
    assert (big.count, big.chunks, big.plan["units"], big.plan["matches_per_unit"]) == (200_000, 10, 10, 20_000)
    with pytest.raises(InputError) as refused:
        batches.create_batch(game="realms", kind="field", inputs={}, count=200_000, seed=1)
    assert refused.value.errors[0][0] == "count" and "at most 100,000" in str(refused.value)
    settings.CELERY_BROKER_URL = ""
    with pytest.raises(InputError) as refused:
        batches.create_batch(game="realms", kind="search", inputs={}, count=120_000, seed=1)
    assert "at most 100,000" in str(refused.value)


def test_a_cancelled_search_stops_inside_its_island(catalogue, monkeypatch):
    monkeypatch.setattr(studies, "CANCEL_CHECK_SECONDS", 0)  # asked at every chance, not once a second
    study = studies.plan(game="realms", kind="search", inputs={"descriptors": []}, per_pairing=4000,
                         swap_sides=False)
    asked = []

    def cancelled() -> bool:
        asked.append(True)
        return len(asked) == 3

    assert study.units == 2 and studies.play_chunk(study, 1, 0, 1, cancelled) is None
    assert len(asked) == 3  # before the island, then before each army's games: stopped after its first army


def test_a_runner_deep_in_an_island_keeps_its_batch_alive_until_it_is_cancelled(catalogue):
    batch = batches.create_batch(game="realms", kind="search", inputs={}, count=400, seed=1)
    long_ago = timezone.now() - timedelta(hours=1)
    Batch.objects.filter(pk=batch.pk).update(heartbeat_at=long_ago, updated_at=long_ago, status=Batch.Status.RUNNING)
    assert batches.cancelled_or_alive(batch.pk) is False
    assert Batch.objects.get(pk=batch.pk).heartbeat_at > long_ago
    assert batches.requeue_stale_batches() == []  # alive: not taken for left without a runner
    batches.cancel_batch(Batch.objects.get(pk=batch.pk))
    assert batches.cancelled_or_alive(batch.pk) is True
