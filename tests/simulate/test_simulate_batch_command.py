"""`manage.py simulate_batch`: a study from the command line, stored and checked like POST .../batches/,
played with a progress bar, its figures printed as the stored batch holds them."""

import io
import json
import multiprocessing
import os
import re
import signal
import time

import pytest
from django.core.management import CommandError, call_command

from realms.models import Character
from simulate import batches, studies
from simulate.models import Batch, ChunkClaim, Match
from simulate.pages.charts import probability
from simulate.study_kinds.whatif import patch_entry
from tests.factories import faction_army

pytestmark = pytest.mark.django_db

REALMS = "/api/simulate/realms/batches/"


def run(*args) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("simulate_batch", "realms", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def pct(value) -> str:
    return "—" if value is None else f"{value:.1%}"


def ci(bounds) -> str:
    return f"{pct(bounds['low'])} – {pct(bounds['high'])}"


def pts(value) -> str:
    return f"{value * 100:+.1f} pts"


def row(text: str, first: str, after: str = "") -> list[str]:
    """The cells of the table row that starts with `first` (in the part of `text` after the line `after`)."""
    lines = text.splitlines()
    for line in lines[lines.index(after) + 1 if after else 0:]:
        cells = re.split(r"\s{2,}", line.strip())
        if cells[0] == first:
            return cells
    raise AssertionError(f"no row {first!r} in:\n{text}")


def outcome_cells(figures) -> list[str]:
    return [str(figures["played"]), str(figures["wins"]), str(figures["draws"]), str(figures["losses"]),
            pct(figures["win_rate"]), ci(figures["win_rate_ci"])]


@pytest.fixture
def armies(catalogue):
    return {"a": {"slots": faction_army("arcane")}, "b": {"slots": faction_army("iron-kingdom")}}


def test_a_matchup_prints_its_headline_by_sides_as_given_and_swapped_rounds_and_decisiveness(catalogue):
    text, bar = run("--a", "faction:arcane", "--b", "faction:shadow", "--count", "12", "--seed", "3",
                    "--swap-sides", "--agents", "greedy", "random")
    batch = Batch.objects.get()
    results = batch.results
    assert (batch.status, batch.played, batch.seed, batch.swap_sides) == ("done", 12, 3, True)
    assert batch.inputs["agents"] == {"a": "greedy", "b": "random"}
    assert text.splitlines()[2:4] == [
        f"Win rate of side a: {pct(results['win_rate'])} (95% CI {ci(results['win_rate_ci'])})",
        f"side a: W {results['wins']} · D {results['draws']} · L {results['losses']} of 12 "
        f"(draws {pct(results['draws'] / 12)})"]
    for half, name in (("a", "as given"), ("b", "swapped")):
        assert row(text, name)[1:] == outcome_cells({"played": 6, **results["by_first"][half]})
    rounds = results["rounds"]
    assert f"Rounds: mean {rounds['mean']:.2f}, min {rounds['min']}, max {rounds['max']}" in text
    assert f"in side a's wins {pct(results['decisiveness']['wins'])}" in text
    assert f"in its losses {pct(results['decisiveness']['losses'])}" in text
    assert "12/12" in bar  # the bar reached the count, on stderr


def test_the_armies_are_those_manage_py_simulate_draws_from_the_seed(catalogue):
    call_command("simulate", "realms", "--a", "faction:arcane", "--b", "random", "--seed", "9", "--save",
                 stdout=io.StringIO())
    run("--a", "faction:arcane", "--b", "random", "--count", "1", "--seed", "9")
    assert Batch.objects.get().inputs["armies"] == Match.objects.get().inputs["armies"]


def test_json_is_the_stored_batch(catalogue):
    text, _ = run("--count", "6", "--seed", "5", "--json")
    batch = Batch.objects.get()
    assert json.loads(text) == {"id": str(batch.id), "game": "realms", "kind": "matchup", "status": "done",
                                "played": 6, "count": 6, "per_pairing": 6, "seed": 5, "swap_sides": False,
                                "results": batch.results}


def test_the_same_request_as_the_api_gives_the_same_results(armies, anon_client, local_runner,
                                                            django_capture_on_commit_callbacks):
    body = {"kind": "gauntlet", "subject": armies["a"], "opponents": [armies["b"], armies["a"]],
            "agents": {"a": "greedy", "b": "random"}, "count": 5, "seed": 21}
    text, _ = run("--inputs", json.dumps(body), "--json")
    with django_capture_on_commit_callbacks(execute=True):
        queued = anon_client.post(REALMS, body, format="json").json()
    local_runner.run_all()
    answered = anon_client.get(queued["url"]).json()
    assert json.loads(text)["results"] == answered["results"]
    stored = Batch.objects.get(pk=json.loads(text)["id"])
    assert stored.inputs == Batch.objects.get(pk=queued["id"]).inputs


def test_a_gauntlet_prints_a_row_per_opponent(catalogue, tmp_path):
    path = tmp_path / "study.json"
    path.write_text(json.dumps({"agents": {"a": "greedy", "b": "greedy"}}))
    text, bar = run("--kind", "gauntlet", "--a", "faction:arcane", "--opponents", "faction:shadow", "random",
                    "--count", "4", "--seed", "2", "--input", str(path))
    results = Batch.objects.get().results
    assert [o["opponent"] for o in results["opponents"]] == [0, 1]
    for label, figures in zip(("0: faction:shadow", "1: random"), results["opponents"], strict=True):
        cells = row(text, label)
        assert cells[1:7] == outcome_cells(figures)
        assert cells[9] == f"{figures['rounds']['mean']:.2f}"
    assert "8/8" in bar


def test_a_matrix_prints_its_grid_and_standings(catalogue):
    text, _ = run("--kind", "matrix", "--entrants", "faction:arcane", "faction:shadow", "faction:iron-kingdom",
                  "--count", "2", "--seed", "4")
    batch = Batch.objects.get()
    results = batch.results
    assert batch.played == 3 * 2
    cells = results["matrix"]["cells"]
    names = ["faction:arcane", "faction:shadow", "faction:iron-kingdom"]
    for i, name in enumerate(names):
        assert row(text, f"{i + 1} {name}")[1:] == ["—" if cell is None else pct(cell["win_rate"]) for cell in cells[i]]
    # The standings lead the report.
    assert text.splitlines()[2] == "Standings: each entrant's mean win rate against the others"
    assert text.splitlines()[3] == f"every match: 6 matches, {results['draws']} drawn (draws {pct(results['draws'] / 6)})"
    for rank, standing in enumerate(results["standings"], start=1):
        assert row(text, str(rank), after="Standings")[1:] == [standing["name"], pct(standing["mean_win_rate"])]


def test_a_matrix_of_factions(catalogue):
    text, _ = run("--kind", "matrix", "--factions", "--count", "1", "--seed", "4")
    results = Batch.objects.get().results
    first = results["standings"][0]
    assert row(text, "1", after="Standings")[1:] == [first["name"], pct(first["mean_win_rate"])]


def test_a_field_prints_the_top_and_bottom_rows_of_each_group(catalogue):
    text, _ = run("--kind", "field", "--count", "30", "--seed", "8")
    results = Batch.objects.get().results
    cards = results["cards"]
    assert len(cards) > 20
    assert "cards, top 10 by delta" in text and "cards, bottom 10 by delta" in text
    for rank, card in [*enumerate(cards[:10], start=1), *list(enumerate(cards, start=1))[-10:]]:
        cells = row(text, str(rank), after="cards, top 10 by delta" if rank <= 10 else "cards, bottom 10 by delta")
        assert cells[1:7] == [card["card"], str(card["appearances"]), pct(card["win_rate"]),
                                  ci(card["win_rate_ci"]), pct(card["without_win_rate"]), pts(card["delta"])]
        assert cells[7] == f"{pts(card['delta_ci']['low'])} – {pts(card['delta_ci']['high'])}"
        assert (cells[8] if len(cells) > 8 else None) == card["flag"]
    assert f"factions, all {len(results['factions'])} by delta" in text
    assert f"classes, all {len(results['classes'])} by delta" in text


def test_a_field_leads_with_its_cards_by_delta_not_a_sides_win_rate(catalogue):
    text, _ = run("--kind", "field", "--count", "30", "--seed", "8")
    results = Batch.objects.get().results
    names = dict(Character.objects.values_list("slug", "name"))
    cards = results["cards"]
    lines = text.splitlines()
    assert lines[2] == "Cards by delta: the win rate of the sides fielding one less that of the sides without it"
    assert lines[3] == f"every match: 30 matches, {results['draws']} drawn (draws {pct(results['draws'] / 30)})"
    assert "Win rate of side a" not in text
    ends = [*cards[:3], *cards[-3:]]
    for rank, card in enumerate(ends, start=1):
        assert row(text, str(rank), after="Cards: the highest and lowest deltas")[1:] == [
            names[card["card"]], pts(card["delta"]), f"{pts(card['delta_ci']['low'])} – {pts(card['delta_ci']['high'])}"]


def test_a_whatif_prints_baseline_patched_and_their_difference(armies):
    card = armies["a"]["slots"][0]["card"]
    text, _ = run("--kind", "whatif", "--inputs", json.dumps({"armies": armies}), "--patch",
                  f"{card}:atk=30,hp=99", "--count", "10", "--seed", "6")
    batch = Batch.objects.get()
    results = batch.results
    assert batch.inputs["patch"] == [{"card": card, "changes": {"atk": 30, "hp": 99}}]
    for variant in ("baseline", "patched"):
        assert row(text, variant)[1:7] == outcome_cells(results[variant])
    difference, discordant = results["difference"], results["difference"]["discordant"]
    baseline, patched = results["baseline"], results["patched"]
    # The paired difference leads the report, then both halves' outcomes with their draws.
    assert text.splitlines()[2:6] == [
        f"Patched less baseline: side a's win rate, paired by seed: {pts(difference['win_rate'])} "
        f"(95% CI {pts(difference['ci']['low'])} – {pts(difference['ci']['high'])})",
        f"baseline (side a): W {baseline['wins']} · D {baseline['draws']} · L {baseline['losses']} of 10 "
        f"(draws {pct(baseline['draws'] / 10)})",
        f"patched (side a): W {patched['wins']} · D {patched['draws']} · L {patched['losses']} of 10 "
        f"(draws {pct(patched['draws'] / 10)})",
        f"{difference['pairs']} pairs on the same seeds: won only without the patch {discordant['baseline_only']}, "
        f"only with it {discordant['patched_only']}; McNemar's exact test p = {probability(results['p_value'])}."]


def test_a_ladder_prints_a_row_per_agent(armies):
    text, _ = run("--kind", "ladder", "--levels", "random", "greedy", "--inputs", json.dumps({"armies": armies}),
                  "--count", "3", "--seed", "1")
    results = Batch.objects.get().results
    for agent in results["agents"]:
        assert row(text, agent["agent"])[1:7] == outcome_cells(agent)


PATCH = {"kind": "whatif", "count": 3}


@pytest.mark.parametrize("given, flags, body", [
    (["armies"], ["--count", "0"], {"count": 0}),
    (["armies"], ["--count", "3", "--seed", str(2**63)], {"count": 3, "seed": 2**63}),
    ([], ["--kind", "gauntlet", "--count", "3"], {"kind": "gauntlet", "count": 3}),
    (["entrants"], ["--kind", "matrix", "--count", "3"], {"kind": "matrix", "count": 3}),
    (["armies"], ["--kind", "whatif", "--patch", "nobody:atk=3", "--count", "3"],
     {**PATCH, "patch": [{"card": "nobody", "changes": {"atk": 3}}]}),
    (["armies"], ["--kind", "whatif", "--patch", "CARD:atk=31", "--count", "3"],
     {**PATCH, "patch": [{"card": "CARD", "changes": {"atk": 31}}]}),
    (["armies"], ["--count", "3", "--agents", "genius", "greedy"], {"count": 3, "agents": {"a": "genius", "b": "greedy"}}),
    ([], ["--kind", "field", "--sets", "nowhere", "--count", "3"], {"kind": "field", "count": 3,
                                                                   "pool": {"sets": ["nowhere"]}}),
    (["armies"], ["--count", "3", "--until-ci-width", "0.001"], {"count": 3, "until_ci_width": 0.001}),
])
def test_a_bad_request_fails_with_the_apis_message(armies, anon_client, given, flags, body):
    card = armies["a"]["slots"][0]["card"]
    inputs = {"armies": armies, "entrants": [armies["a"]]}
    inputs = {key: inputs[key] for key in given}
    flags = [flag.replace("CARD", card) for flag in flags]
    body = json.loads(json.dumps({"seed": 1, **inputs, **body}).replace("CARD", card))
    answer = anon_client.post(REALMS, body, format="json").json()
    with pytest.raises(CommandError) as refused:
        run("--inputs", json.dumps(inputs), "--seed", "1", *flags)
    assert str(refused.value).splitlines()[0] == answer["message"]
    for reasons in answer["fields"].values():
        assert all(reason in str(refused.value) for reason in reasons)
    assert Batch.objects.count() == 0


def test_an_illegal_army_lists_its_violations(armies, anon_client):
    armies["b"]["slots"] = armies["b"]["slots"][:5]
    answer = anon_client.post(REALMS, {"armies": armies, "count": 3}, format="json").json()
    with pytest.raises(CommandError) as refused:
        run("--inputs", json.dumps({"armies": armies}), "--count", "3")
    lines = str(refused.value).splitlines()
    assert lines[0] == answer["message"]
    assert [line.rsplit("(", 1)[1].rstrip(")") for line in lines[1:]] == [v["code"] for v in answer["violations"]]


def test_command_line_mistakes_are_command_errors(catalogue):
    with pytest.raises(CommandError, match="--opponents: '!!' is not an army code"):
        run("--kind", "gauntlet", "--opponents", "!!")
    with pytest.raises(CommandError, match="not JSON"):
        run("--inputs", "{armies")
    with pytest.raises(CommandError, match="not a JSON object"):
        run("--inputs", "[1]")
    with pytest.raises(CommandError, match="CARD:field=value"):
        run("--kind", "whatif", "--patch", "atk=3")
    with pytest.raises(CommandError, match="Echo Realms flags"):
        call_command("simulate_batch", "legends", "--opponents", "random", stdout=io.StringIO())


def test_queue_hands_the_batch_to_the_background_and_follows_it(catalogue, local_runner, monkeypatch):
    monkeypatch.setattr(local_runner, "submit", lambda job: job())  # the background plays it at once
    text, bar = run("--count", "7", "--seed", "2", "--queue", "--json")
    batch = Batch.objects.get()
    assert json.loads(text)["results"] == batch.results and batch.status == "done"
    assert "7/7" in bar


def test_queue_polls_until_the_batch_is_over(catalogue, local_runner, monkeypatch):
    from simulate.management.commands import simulate_batch

    reads = []

    def sleep(seconds):  # the background plays the batch while the command waits
        reads.append(seconds)
        local_runner.run_all()

    monkeypatch.setattr(simulate_batch.time, "sleep", sleep)
    text, bar = run("--count", "4", "--seed", "2", "--queue")
    assert reads == [simulate_batch.POLL_SECONDS]
    assert "Win rate of side a" in text and "4/4" in bar


def test_until_ci_width_stops_early_and_the_bar_ends_at_what_was_played(catalogue):
    _, bar = run("--a", "faction:arcane", "--b", "faction:shadow", "--count", "600", "--until-ci-width", "0.3",
                 "--seed", "3")
    batch = Batch.objects.get()
    assert batch.status == "done" and batch.played < 600
    assert f"{batch.played}/{batch.played}" in bar


def test_a_patch_value_is_json_or_text():
    ability = {"name": "Bolt", "choose": "enemy", "effects": [{"kind": "damage", "target": "target", "scale": 1.5}]}
    entry = patch_entry(f"ember:atk=12,position=rearguard,main_ability={json.dumps(ability)},hp=40")
    assert entry == {"card": "ember", "changes": {"atk": 12, "position": "rearguard", "main_ability": ability,
                                                  "hp": 40}}


def test_an_akin_legends_matchup_of_the_mode_flag(catalogue):
    out = io.StringIO()
    call_command("simulate_batch", "legends", "--mode", "duel", "--count", "4", "--seed", "3", "--agents", "random",
                 stdout=out, stderr=io.StringIO())
    batch = Batch.objects.get()
    results = batch.results
    assert batch.inputs["setup"]["mode"] == "duel" and batch.played == 4
    assert f"Win rate of team 0: {pct(results['win_rate'])} (95% CI {ci(results['win_rate_ci'])})" in out.getvalue()
    assert f"team 0: W {results['wins']} · D {results['draws']} · L {results['losses']} of 4" in out.getvalue()
    # Never swapped: no split by sides.
    assert "as given" not in out.getvalue()


def test_an_akin_legends_whatif_takes_the_patch_flag(catalogue):
    out = io.StringIO()
    call_command("simulate_batch", "legends", "--kind", "whatif", "--base", "field", "--mode", "duel", "--patch",
                 "ember-surge-of-torrent:copies=4", "--count", "6", "--seed", "8", stdout=out, stderr=io.StringIO())
    batch = Batch.objects.get()
    assert batch.status == "done" and batch.inputs["mode"] == "duel"
    assert batch.inputs["patch"] == [{"card": "ember-surge-of-torrent", "changes": {"copies": 4}}]
    assert row(out.getvalue(), "ember-surge-of-torrent", after="Patched cards")


@pytest.mark.django_db(transaction=True)  # the forked process reads the batch from the database
def test_processes_share_the_chunks_and_the_figures_are_those_of_one_process(catalogue, monkeypatch):
    monkeypatch.setattr(studies, "CHUNK_MATCHES", 10)  # (the forked process inherits it)
    armies = {"a": {"slots": faction_army("arcane")}, "b": {"slots": faction_army("shadow")}}

    def new_batch() -> Batch:
        return batches.create_batch(game="realms", inputs={"armies": armies}, count=80, seed=8, swap_sides=True)

    alone = batches.play_on_cores(new_batch().pk, processes=1)
    shared = new_batch()
    parent = []

    def wait_for_the_other(row: Batch) -> None:
        """After this process's first chunk, wait until the other has stored one too (so that both played)."""
        parent.append(row.pk)
        for _ in range(600):
            if row.chunk_rows.exclude(runner__contains=f":{os.getpid()}:").exists() or row.played == 80:
                return
            time.sleep(0.1)

    shared = batches.play_on_cores(shared.pk, processes=2, progress=wait_for_the_other)
    assert (shared.status, shared.played) == ("done", 80)
    assert shared.results == alone.results
    runners = list(shared.chunk_rows.values_list("runner", flat=True))
    assert len(runners) == 8 and len({runner.split(":")[1] for runner in runners}) == 2
    assert f":{os.getpid()}:" in " ".join(runners) and parent


@pytest.mark.django_db(transaction=True)
def test_a_process_killed_holding_a_chunk_loses_none_of_the_batch(catalogue, monkeypatch):
    monkeypatch.setattr(studies, "CHUNK_MATCHES", 50)  # a chunk long enough to be caught while it is played
    armies = {"a": {"slots": faction_army("tribal")}, "b": {"slots": faction_army("shadow")}}

    def new_batch() -> Batch:
        return batches.create_batch(game="realms", inputs={"armies": armies}, count=400, seed=2)

    alone = batches.play_on_cores(new_batch().pk, processes=1)
    killed: list[int] = []

    def kill_the_other_while_it_holds_a_chunk(row: Batch) -> None:
        """After this process's first chunk: the forked one killed as soon as it is seen holding a claim."""
        for _ in range(20_000):
            if killed or Batch.objects.get(pk=row.pk).status == "done":
                return
            for child in multiprocessing.active_children():
                if ChunkClaim.objects.filter(batch=row, runner__contains=f":{child.pid}:").exists():
                    os.kill(child.pid, signal.SIGKILL)
                    killed.append(child.pid)
                    return
            time.sleep(0.001)

    shared = batches.play_on_cores(new_batch().pk, processes=2, progress=kill_the_other_while_it_holds_a_chunk)
    assert killed, "the forked process was never seen holding a chunk"
    assert (shared.status, shared.played) == ("done", 400)
    assert shared.results == alone.results
    assert not ChunkClaim.objects.filter(batch=shared).exists()


def test_the_command_line_plays_on_every_core_by_default(catalogue):
    text, _ = run("--count", "6", "--seed", "5", "--json", "--processes", "2")
    assert json.loads(text)["played"] == 6  # (inside a test's transaction, on this process alone)


def test_processes_must_be_at_least_one(catalogue):
    with pytest.raises(CommandError, match="--processes: 0 is less than 1"):
        run("--count", "2", "--processes", "0")
