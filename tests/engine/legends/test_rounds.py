"""Turns and rounds (L7, L8, L11, L12): counter order, faces, redraws, the duel variant, counters."""

from __future__ import annotations

import pytest

from legends.engine.game import new_match
from legends.engine.playbyplay import render_events
from simulate.engine.errors import IllegalAction, SetupError

from .helpers import attacker, designs, duel_setup, find, of_type, rigged, teams_setup

FIRE = attacker("fire")


def turns(state, round_: int) -> list[tuple]:
    return [(e["seq"], e["player"], e.get("face", "redraw")) for e in state.events()
            if e["type"] in ("turn", "redraw") and e["round"] == round_]


def test_teams_round_two_turns_each_in_counter_order_first_face_up():
    state = new_match(teams_setup(protectors=("siege-master", "wanderer")), seed=3)
    assert state.current_player() == "t0p0"
    while state.round == 1 and not state.is_terminal():
        action = next(a for a in state.legal_actions() if a[0] != "redraw")  # always play a card
        state.apply(state.legal_actions()[0] if state.phase() == "allocate" else action)
    order = ["t0p0", "t1p0", "t0p1", "t1p1"]
    assert turns(state, 1) == [(i, order[i % 4], "up" if i < 4 else "down") for i in range(8)]
    face_down = [e for e in of_type(state, "turn", 1) if e["face"] == "down"]
    assert all(e["card"] is None and e["element"] is None and e["kind"] is None for e in face_down)
    assert all(e["orientation"] in ("attack", "effect") for e in face_down)
    revealed = {e["seq"] for e in of_type(state, "reveal", 1)}
    assert revealed == {4, 5, 6, 7}
    # Teams mode draws nothing after playing: two cards played, five left.
    assert all(len(s.hand) == 5 for s in state.seats)


def test_counters_are_handed_on_one_to_two_to_three_to_four_to_one():
    state = new_match(teams_setup(counters=(1, 3, 2, 4)), seed=5)
    while state.round == 1:
        state.apply(state.legal_actions()[0])
    counters = of_type(state, "counters", 1)[0]
    assert counters["before"] == {"t0p0": 1, "t0p1": 3, "t1p0": 2, "t1p1": 4}
    # Card 1 goes to the holder of 2, ..., card 4 to the holder of 1 (L11).
    assert counters["after"] == {"t0p0": 4, "t0p1": 2, "t1p0": 1, "t1p1": 3}
    assert of_type(state, "round_start", 2)[0]["order"] == ["t1p0", "t0p1", "t1p1", "t0p0"]
    assert state.current_player() == "t1p0"


def test_teammates_never_play_one_after_the_other_in_any_round():
    state = new_match(teams_setup(counters=(2, 4, 3, 1)), seed=11, options={"max_rounds": 12})
    rounds = 0
    while not state.is_terminal():
        state.apply(state.legal_actions()[-1])  # a redraw: nobody ever loses a defense
    for event in of_type(state, "round_start"):
        rounds += 1
        teams = [pid[:2] for pid in event["order"]]
        assert all(teams[i] != teams[(i + 1) % 4] for i in range(4)), event
        assert sorted(event["counters"].values()) == [1, 2, 3, 4]
    assert rounds == 12 and state.outcome().reason == "max_rounds" and state.outcome().winner is None


def test_duel_three_cards_a_round_first_face_up_and_a_draw_after_each():
    state = new_match(duel_setup(protectors=("siege-master", "wanderer")), seed=2)
    assert [len(team) for team in state.defenses] == [2, 2]
    assert state.passes == 3
    while state.round == 1:
        legal = state.legal_actions()
        state.apply(legal[0])
    faces = [(e["seq"], e["player"], e["face"]) for e in of_type(state, "turn", 1)]
    assert faces == [(0, "t0p0", "up"), (1, "t1p0", "up"), (2, "t0p0", "down"), (3, "t1p0", "down"),
                     (4, "t0p0", "down"), (5, "t1p0", "down")]
    draws = of_type(state, "draw", 1)
    assert [(e["player"], e["reason"], len(e["cards"]), e["hand"], e["visible_to"]) for e in draws] == [
        ("t0p0", "play", 1, 7, ["t0p0"]), ("t1p0", "play", 1, 7, ["t1p0"])] * 3
    # Duel counters swap (L11).
    assert of_type(state, "counters", 1)[0]["after"] == {"t0p0": 2, "t1p0": 1}
    assert state.current_player() == "t1p0"


def test_duel_refuses_the_spy_and_never_draws_it():
    with pytest.raises(SetupError) as info:
        new_match(duel_setup(protectors=("spy", None)), seed=1)
    assert ("protector_not_allowed", "The protector 'spy' is removed from the two-player variant.") in info.value.errors
    drawn = {new_match(duel_setup(protectors=(None, None)), seed=s).protectors[t].slug for s in range(60) for t in (0, 1)}
    assert "spy" not in drawn and len(drawn) >= 6


def test_redraw_discards_three_and_draws_three_and_skips_the_turn():
    state = new_match(teams_setup(protectors=("archivist", "siege-master")), seed=9)
    seat = state.by_pid["t0p0"]
    hand = sorted(c.slug for c in seat.hand)
    redraws = [a for a in state.legal_actions() if a[0] == "redraw"]
    assert {a[2] for a in redraws} == {3} and all(len(a[1]) == 3 for a in redraws)
    assert len(redraws) == len({a[1] for a in redraws})  # each distinct choice of three cards once
    action = redraws[0]
    pile = len(state.draw)
    state.apply(action)
    event = of_type(state, "redraw", 1)[0]
    assert (event["player"], event["discarded"], event["size"], event["drawn"], event["hand"]) == (
        "t0p0", list(action[1]), 3, 3, 7)
    assert [c.slug for c in state.discard] == list(action[1])  # discards are public, on the discard pile
    assert len(state.draw) == pile - 3 and not state.plays  # no card played: the turn is skipped
    kept = list(hand)
    for slug in action[1]:
        kept.remove(slug)
    assert all(slug in [c.slug for c in seat.hand] for slug in kept)
    assert state.current_player() == "t1p0"


def test_a_short_hand_discards_everything_and_an_empty_hand_must_redraw():
    state = rigged(teams_setup(protectors=("archivist", "siege-master")), {"t0p0": [FIRE], "t1p0": []})
    assert [a for a in state.legal_actions() if a[0] == "redraw"] == [("redraw", (FIRE,), 3)]
    state.apply(("redraw", (FIRE,), 3))
    assert len(state.by_pid["t0p0"].hand) == 3
    assert state.legal_actions() == [("redraw", (), 3)]  # no card: redraw is the only turn
    state.apply(("redraw", (), 3))
    assert len(state.by_pid["t1p0"].hand) == 3


def test_legal_plays_list_each_card_once_with_each_distinct_attack_and_its_effect():
    double = next(c for c in designs().values() if c.attacks[0] == c.attacks[1])
    mixed = next(c for c in designs().values() if c.attacks[0] != c.attacks[1])
    state = rigged(teams_setup(protectors=("archivist", "siege-master")), {"t0p0": [double.slug, double.slug, mixed.slug]})
    plays = [a for a in state.legal_actions() if a[0] != "redraw"]
    assert plays == [
        ("attack", double.slug, double.attacks[0]), ("effect", double.slug),
        ("attack", mixed.slug, mixed.attacks[0]), ("attack", mixed.slug, mixed.attacks[1]), ("effect", mixed.slug),
    ]
    with pytest.raises(IllegalAction):
        state.apply(("attack", double.slug, "not-an-element"))
    with pytest.raises(IllegalAction):
        state.apply(("effect", find("healing", "fire", exclude=[double.slug, mixed.slug])))
    state.apply(["attack", mixed.slug, mixed.attacks[1]])  # JSON lists are accepted
    assert state.plays[0].element == mixed.attacks[1]


def test_an_empty_draw_pile_is_refilled_from_the_shuffled_discard_pile():
    state = new_match(teams_setup(protectors=("archivist", "siege-master")), seed=4)
    total = 72
    state.discard.extend(state.draw[:-1])
    state.draw[:] = state.draw[-1:]
    action = next(a for a in state.legal_actions() if a[0] == "redraw")
    last = state.draw[-1].slug
    discarded = [c.slug for c in state.discard]
    state.apply(action)  # draws 1, then the pile is empty: the discard pile (without the 3 discards) is shuffled in
    refill = of_type(state, "shuffle", 1)
    assert len(refill) == 1 and refill[0]["reason"] == "refill" and refill[0]["visible_to"] == []
    assert sorted(refill[0]["order"]) == sorted(discarded) and len(discarded) == total - 28 - 1
    assert [c.slug for c in state.discard] == list(action[1]) and len(state.draw) == len(discarded) - 2
    assert sum(len(s.hand) for s in state.seats) + len(state.draw) + len(state.discard) == total
    # The draw is logged in two parts around the refill: the last card of the old pile, then the new top two.
    kinds = [e["type"] for e in state.events() if e.get("round") == 1]
    assert kinds[-4:] == ["redraw", "draw", "shuffle", "draw"]
    first, second = of_type(state, "draw", 1)
    assert (first["cards"], first["count"]) == ([last], 3)
    assert (second["cards"], second["count"], second["hand"]) == (refill[0]["order"][:2], 3, 7)


# ------------------------------------------------------------------ L8 as amended: "three new ones"


def distinct(count: int) -> list[str]:
    """`count` different official designs: a slug then names one card of the test."""
    return list(designs())[:count]


def set_piles(state, draw: list[str], discard: list[str]) -> None:
    """Rig the draw pile (listed top first) and the discard pile."""
    state.draw = [designs()[slug] for slug in reversed(draw)]
    state.discard = [designs()[slug] for slug in discard]


def setup_of(mode: str, protectors=("archivist", "siege-master")):
    return (teams_setup if mode == "teams" else duel_setup)(protectors=protectors)


@pytest.mark.parametrize("mode", ["teams", "duel"])
@pytest.mark.parametrize("discard_pile", [1, 0])
def test_a_redraw_short_of_cards_draws_what_the_piles_held_before_its_discards_land(mode, discard_pile):
    a, b, c, d, x = distinct(5)
    state = rigged(setup_of(mode), {"t0p0": [a, b, c, d]})
    set_piles(state, draw=[], discard=[x][:discard_pile])
    state.apply(("redraw", tuple(sorted((a, b, c))), 3))
    # The piles held `discard_pile` card(s) before the three discards landed: that is all the player draws.
    drawn = [card for e in of_type(state, "draw", 1) for card in e["cards"]]
    assert drawn == [x][:discard_pile] and not {a, b, c} & set(drawn)
    assert [card.slug for card in state.by_pid["t0p0"].hand] == [d, *drawn]
    # The discards reach the discard pile after the draw, face up; a refill shuffled in only what was there.
    assert sorted(card.slug for card in state.discard) == sorted((a, b, c)) and not state.draw
    assert [e["order"] for e in of_type(state, "shuffle", 1)] == ([[x]] if discard_pile else [])
    event = of_type(state, "redraw", 1)[0]
    assert (event["size"], event["drawn"], event["short"], event["draw_pile"], event["discard_pile"],
            event["hand"]) == (3, discard_pile, 3 - discard_pile, 0, discard_pile, 1 + discard_pile)
    text = render_events(state.events())
    assert f"draws {discard_pile} of 3, {3 - discard_pile} short: the piles held only {discard_pile}" in text


def test_the_wanderers_larger_redraw_refills_without_its_discards():
    hand = distinct(6)
    p, q, r, s, t, u = distinct(12)[6:]
    state = rigged(setup_of("teams", ("wanderer", "archivist")), {"t0p0": hand})
    set_piles(state, draw=[p, q], discard=[r, s, t, u])
    discards = tuple(sorted(hand)[:5])
    state.apply(("redraw", discards, 5))
    # The two cards of the pile, then three of the four the discard pile held: none of the five discards.
    held = [card.slug for card in state.by_pid["t0p0"].hand]
    assert not set(discards) & set(held[1:]) and len(held) == 6
    assert [card.slug for card in state.discard] == list(discards)  # landed after the draws
    first, refill, second = (e for e in state.events()[-3:])
    assert (first["type"], first["cards"], refill["type"], second["type"]) == ("draw", [p, q], "shuffle", "draw")
    assert sorted(refill["order"]) == sorted([r, s, t, u]) and second["cards"] == refill["order"][:3]
    assert [card.slug for card in state.draw] == refill["order"][3:]
    event = of_type(state, "redraw", 1)[0]
    assert (event["drawn"], event["short"], event["draw_pile"], event["discard_pile"], event["hand"]) == (
        5, 0, 2, 4, 6)


def test_played_cards_go_to_the_discard_pile_at_the_end_of_the_round():
    state = new_match(teams_setup(protectors=("archivist", "siege-master")), seed=8)
    played = []
    while state.round == 1:
        legal = state.legal_actions()
        action = next((a for a in legal if a[0] == "effect"), legal[0])
        if action[0] == "effect":
            played.append(action[1])
        state.apply(action)
    assert sorted(c.slug for c in state.discard) == sorted(played)
    assert of_type(state, "round_end", 1)[0]["cards"] == played and len(played) == 8


def test_the_round_cap_ends_in_a_draw():
    state = new_match(teams_setup(), seed=1, options={"max_rounds": 2})
    while not state.is_terminal():
        state.apply(state.legal_actions()[-1])
    outcome = state.outcome()
    assert (outcome.winner, outcome.reason, outcome.rounds) == (None, "max_rounds", 2)
    assert of_type(state, "match_end") == [{"type": "match_end", "winner": None, "reason": "max_rounds", "rounds": 2,
                                            "visible_to": ["t0p0", "t0p1", "t1p0", "t1p1"]}]


def test_no_action_after_the_end():
    state = new_match(teams_setup(), seed=1, options={"max_rounds": 1})
    while not state.is_terminal():
        state.apply(state.legal_actions()[-1])
    assert state.legal_actions() == [] and state.current_player() is None
    with pytest.raises(IllegalAction):
        state.apply(("redraw", (), 3))
