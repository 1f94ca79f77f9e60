"""`manage.py simulate`: a readable play-by-play, reproducible from its seed."""

import io

import pytest
from django.core.management import CommandError, call_command

from simulate.models import Match

pytestmark = pytest.mark.django_db


def run(*args) -> str:
    out = io.StringIO()
    call_command("simulate", "realms", *args, stdout=out)
    return out.getvalue()


def test_prints_who_hits_whom_and_the_result(catalogue):
    text = run("--a", "faction:arcane", "--b", "faction:shadow", "--seed", "4")
    assert text.startswith("Match start (tie break random")  # the seeds are logged apart, for no player
    assert "Seeds (seen by no player): match 4, agents a " in text
    assert " takes " in text and "HP " in text and "is defeated" in text
    assert "Result: " in text and text.rstrip().endswith("Seed 4.")


def test_same_seed_same_play_by_play(catalogue):
    assert run("--seed", "11") == run("--seed", "11")
    assert run("--seed", "11") != run("--seed", "12")


def test_formation_and_save(catalogue):
    text = run("--a", "formation", "--b", "formation", "--seed", "2", "--agents", "greedy", "random", "--save")
    assert "deploys" in text and Match.objects.count() == 1


def test_bad_input_is_a_command_error(catalogue):
    with pytest.raises(CommandError, match="not an army code"):
        run("--a", "!!", "--seed", "1")
    with pytest.raises(CommandError, match="No legal army"):
        run("--a", "faction:nowhere", "--seed", "1")
    with pytest.raises(CommandError, match="agent"):
        run("--agents", "genius", "greedy", "--seed", "1")


def run_legends(*args) -> str:
    out = io.StringIO()
    call_command("simulate", "legends", *args, stdout=out)
    return out.getvalue()


def test_legends_play_by_play_in_both_modes(catalogue):
    duel = run_legends("--mode", "duel", "--seed", "3")
    assert duel.startswith("Akin Legends, duel mode (") and "  seeds (seen by no seat): match 3; " in duel
    assert "Showdown of round 1" in duel and "Result: " in duel
    teams = run_legends("--seed", "3", "--agents", "greedy", "random", "greedy", "random")
    assert "teams mode" in teams and teams == run_legends("--seed", "3", "--agents", "greedy", "random",
                                                          "greedy", "random")


def test_one_agent_name_plays_every_legends_seat(catalogue):
    out = io.StringIO()
    call_command("simulate", "legends", "--agents", "random", "--seed", "2", "--json", stdout=out)
    import json

    assert set(json.loads(out.getvalue())["agents"].values()) == {"random"}


def test_legends_bad_agents_are_a_command_error(catalogue):
    with pytest.raises(CommandError, match="agents"):
        run_legends("--agents", "greedy", "greedy", "--seed", "1")
