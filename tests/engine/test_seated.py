"""Matches with people at some seats (simulate.engine.seated): a person is asked exactly where an agent would be,
from the same legal actions; the recorded moves replay the match, and `play_match` with each person's seat
scripted from its moves gives the very same event log from the same seed."""

from __future__ import annotations

import random
from typing import Any

import pytest

from realms.engine.formation import random_army
from simulate.engine.errors import IllegalAction
from simulate.engine.runner import play_match
from simulate.engine.seated import PERSON, Diverged, as_json, check_move, resume, scripted_agents
from tests.engine.cardset import all_cards
from tests.engine.legends.helpers import duel_setup, teams_setup


def realms_setup(seed: int) -> dict[str, Any]:
    cards = all_cards()
    rng = random.Random(seed)
    return {"armies": {side: random_army(cards, rng) for side in ("a", "b")}}


def play_out(game: str, setup: Any, seats: dict[str, str], seed: int, pick: random.Random) -> tuple[list, Any]:
    """Every person's decision taken at random among the legal actions, each time after a resumption from the
    moves alone (as a service answering one request at a time would); the moves and the last resumption."""
    moves: list = []
    while True:
        resumed = resume(game, setup=setup, options={}, seed=seed, seats=seats, moves=moves, agents=True)
        assert resumed.moves[:len(moves)] == moves  # the agents chose again what they chose before
        moves = resumed.moves
        if resumed.over:
            return moves, resumed
        assert seats[resumed.waiting] == PERSON
        legal = resumed.state.legal_actions()
        assert len(legal) > 1  # a single legal action is never asked
        chosen = check_move(resumed, resumed.waiting, as_json(legal[pick.randrange(len(legal))]))
        moves.append((resumed.waiting, as_json(chosen)))


@pytest.mark.parametrize(("game", "setup", "seats"), [
    ("realms", realms_setup(3), {"a": PERSON, "b": "greedy"}),
    ("realms", realms_setup(4), {"a": PERSON, "b": PERSON}),
    ("legends", duel_setup(), {"t0p0": PERSON, "t1p0": "greedy"}),
    ("legends", teams_setup(), {"t0p0": PERSON, "t0p1": "greedy", "t1p0": PERSON, "t1p1": "random"}),
])
def test_a_match_with_people_replays_from_its_seed_and_moves(game, setup, seats):
    moves, resumed = play_out(game, setup, seats, seed=11, pick=random.Random(5))
    people = [player for player, name in seats.items() if name == PERSON]
    assert any(player in people for player, _ in moves)  # the people decided something
    # The recorded moves alone, no agent asked, reach the same end with the same log.
    again = resume(game, setup=setup, options={}, seed=11, seats=seats, moves=moves)
    assert again.over and again.state.event_log().to_list() == resumed.state.event_log().to_list()
    # The runner, each person's seat scripted from its moves: the very same match.
    result = play_match(game, setup=setup, agents=scripted_agents(seats, moves), seed=11)
    assert result.events == resumed.state.event_log().to_list()
    outcome = resumed.state.outcome()
    assert (result.winner, result.reason, result.rounds) == (outcome.winner, outcome.reason, outcome.rounds)
    assert result.agents == seats


def test_moves_stop_at_the_first_decision_with_none_left_and_wrong_moves_are_refused():
    setup = realms_setup(8)
    seats = {"a": PERSON, "b": "greedy"}
    first = resume("realms", setup=setup, options={}, seed=2, seats=seats, moves=[], agents=True)
    assert first.waiting == "a" and all(player == "b" for player, _ in first.moves)
    # Without the agents, the same moves stop at the same decision.
    assert resume("realms", setup=setup, options={}, seed=2, seats=seats, moves=first.moves).waiting == "a"
    legal = first.state.legal_actions()
    with pytest.raises(IllegalAction, match="not this seat's turn"):
        check_move(first, "b", as_json(legal[0]))
    with pytest.raises(IllegalAction) as refused:
        check_move(first, "a", ["attack", "nobody"])
    assert refused.value.legal == [as_json(action) for action in legal]
    # Another player's move where a decides, or an illegal one, is not this match's.
    with pytest.raises(Diverged):
        resume("realms", setup=setup, options={}, seed=2, seats=seats, moves=[*first.moves, ("b", as_json(legal[0]))])
    with pytest.raises(Diverged):
        resume("realms", setup=setup, options={}, seed=2, seats=seats, moves=[*first.moves, ("a", ["attack", "x"])])
    # An agent's recorded move that it would not choose is found out when the agents decide again.
    moves, _ = play_out("realms", setup, seats, seed=2, pick=random.Random(1))
    for index, (player, action) in enumerate(moves):
        before = resume("realms", setup=setup, options={}, seed=2, seats=seats, moves=moves[:index])
        others = [as_json(a) for a in before.state.legal_actions() if as_json(a) != action]
        if player == "b" and others:
            break
    else:
        pytest.fail("the agent never had a choice")
    tampered = [*moves[:index], ("b", others[0]), *moves[index + 1:]]
    with pytest.raises(Diverged, match="agent chose"):
        resume("realms", setup=setup, options={}, seed=2, seats=seats, moves=tampered, agents=True)
