"""Every game plugs into the shared core through the declared protocol, and the Django side of
simulate names no game: each game app registers its own matches."""

import re
from pathlib import Path

import pytest

from simulate import services
from simulate.engine.games import GAMES, GameRules, GameState, Observation, get_game, missing_members
from tests.factories import faction_army
from tests.simulate.test_legends_matches_api import DUEL

pytestmark = pytest.mark.django_db

SIMULATE = Path(services.__file__).resolve().parent
GAME_NAMES = re.compile(r"realms|legends|echo realms|akin legends", re.IGNORECASE)


def request_for(game: str) -> dict:
    if game == "realms":
        return {"armies": {"a": {"slots": faction_army("arcane")}, "b": {"slots": faction_army("shadow")}}}
    return {"setup": DUEL}


def test_every_engine_game_has_its_matches_registered():
    assert set(services.GAME_MATCHES) == set(GAMES)
    for game, matches in services.GAME_MATCHES.items():
        assert matches.game == game and len(matches.sides) == 2


@pytest.mark.parametrize("game", sorted(GAMES))
def test_rules_states_and_observations_follow_the_protocol(catalogue, game):
    rules = get_game(game)
    assert missing_members(rules, GameRules) == [] and rules.name == game
    prepared = services.prepare_match(game=game, inputs=request_for(game))
    state = rules.new_state(prepared.setup, prepared.options, 7, True)
    assert missing_members(state, GameState) == [] and not state.is_terminal()
    player = state.current_player()
    assert player in rules.players and state.legal_actions()
    observation = state.observation(player)
    assert missing_members(observation, Observation) == []
    sandbox = observation.sandbox(11)
    assert missing_members(sandbox, GameState) == [] and sandbox.events() is None
    assert sandbox.current_player() == player


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_clone_plays_on_without_touching_its_match(catalogue, game):
    rules = get_game(game)
    prepared = services.prepare_match(game=game, inputs=request_for(game))
    state = rules.new_state(prepared.setup, prepared.options, 7, True)
    before = (state.current_player(), list(state.legal_actions()), len(state.events()))
    clone = state.clone(3)
    assert missing_members(clone, GameState) == [] and clone.events() is None
    for _ in range(5):
        if clone.is_terminal():
            break
        clone.apply(clone.legal_actions()[0])
    assert (state.current_player(), list(state.legal_actions()), len(state.events())) == before


def test_the_django_side_of_simulate_names_no_game():
    """Services, selectors, models, tasks, the API and the command are the same for every game."""
    files = [path for path in SIMULATE.rglob("*.py") if not {"engine", "migrations"} & set(path.parts)]
    named = {str(path.relative_to(SIMULATE)): GAME_NAMES.findall(path.read_text()) for path in files}
    assert files and not {path: names for path, names in named.items() if names}


def test_the_protocol_module_names_games_only_in_its_registry():
    games = (SIMULATE / "engine" / "games.py").read_text()
    assert GAME_NAMES.findall(games) == [name for game in GAMES for name in (game, game)]
