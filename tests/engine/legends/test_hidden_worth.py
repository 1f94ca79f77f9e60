"""Hidden information is worth something in Akin Legends: the same look-ahead wins more of the decisive duels when
it looks ahead in copies of the match itself than when it samples the cards its player cannot see (G2). The
figure is docs/simulate.md's "worth of hidden information"."""

import pytest

from simulate.engine.stats import wilson
from tests.engine.legends.hidden_worth import LookAhead, duel

DUELS = 240


@pytest.mark.strength
def test_seeing_every_hand_and_face_down_card_wins_more_than_the_fair_look_ahead():
    seeing_wins = fair_wins = 0
    for seed in range(DUELS):
        seeing = seed % 2  # each team sees everything in every second duel
        winner = duel(seed, seeing, LookAhead())
        seeing_wins += winner == str(seeing)
        fair_wins += winner == str(1 - seeing)
    low, _ = wilson(seeing_wins, seeing_wins + fair_wins)
    assert low > 0.5, (seeing_wins, fair_wins)
