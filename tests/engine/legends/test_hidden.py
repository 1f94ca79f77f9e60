"""G2 and L13: an observation holds the player's own hand, public cards, face-down plays as
orientation only and what a Spy revealed to its team; never another player's hidden card."""

from __future__ import annotations

import copy
import random
from collections import Counter
from typing import Any

import pytest

from legends.engine.agents import SearchAgent
from legends.engine.game import new_match, play_legends_match
from legends.engine.observation import LegendsObservation
from legends.engine.showdown import Defense, Play
from legends.engine.state import LegendsState
from legends.engine.table import Seat

from .helpers import duel_setup, official, teams_setup


def unique_catalogue() -> dict[str, Any]:
    """The official catalogue with one copy of each design: a slug then names one physical card."""
    cat = copy.deepcopy(official())
    for card in cat["deck"]:
        card["copies"] = 1
    return cat


def strings(value: Any) -> set[str]:
    """Every string inside plain data."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(strings(k) | strings(v) for k, v in value.items())) if value else set()
    if isinstance(value, (list, tuple)):
        return set().union(*(strings(v) for v in value)) if value else set()
    return set()


def hidden_from(state: LegendsState, pid: str) -> set[str]:
    """The cards `pid` may not see: other hands (teammates too), the draw pile, and other players'
    face-down cards of this round that no Spy showed its team."""
    team = state.by_pid[pid].team
    out = {c.slug for s in state.seats if s.pid != pid for c in s.hand}
    out |= {c.slug for c in state.draw}
    if state.phase() == "play":
        out |= {p.card.slug for p in state.plays if not p.face_up and p.pid != pid and p.seq not in state.known[team]}
    return out


def _setups() -> list[dict[str, Any]]:
    out = []
    for protectors in (("spy", "archivist"), ("wanderer", "spy"), (None, None)):
        setup = teams_setup(protectors=protectors, defenses=(None, None))
        setup["catalogue"] = unique_catalogue()
        out.append(setup)
    duel = duel_setup(protectors=(None, None), defenses=(None, None))
    duel["catalogue"] = unique_catalogue()
    out.append(duel)
    return out


def _revealed(state: LegendsState) -> dict[int, list[dict[str, Any]]]:
    """Every round's cards as the log shows them once revealed (face-up turns and showdown reveals)."""
    out: dict[int, list[dict[str, Any]]] = {}
    for e in state.events():
        if (e["type"] == "turn" and e["face"] == "up") or e["type"] == "reveal":
            out.setdefault(e["round"], []).append({
                "seq": e["seq"], "player": e["player"], "team": e["team"], "face_up": e["type"] == "turn",
                "orientation": e["orientation"], "card": e["card"], "element": e["element"]})
    for plays in out.values():
        plays.sort(key=lambda v: v["seq"])
    return out


@pytest.mark.parametrize("setup_index", range(4))
def test_no_observation_ever_shows_a_card_hidden_from_its_player(setup_index):
    setup = _setups()[setup_index]
    spied = 0
    for seed in range(6):
        state = new_match(setup, seed=seed, options={"max_rounds": 8})
        rng = random.Random(seed)
        revealed: dict[int, list] = {}
        while not state.is_terminal():
            for seat in state.seats:
                obs = state.observation(seat.pid)
                data = obs.to_dict()
                # Last round's cards were all revealed at its showdown: public history (a card seen
                # then may since have been reshuffled into the draw pile and drawn).
                assert data.pop("last_plays") == revealed.get(state.round - 1, [])
                seen = strings(data)
                leaked = seen & hidden_from(state, seat.pid)
                assert not leaked, (seat.pid, leaked)
                assert [c.slug for c in obs.hand] == [c.slug for c in seat.hand]
                for view in obs.plays:
                    if view.card is not None and not view.face_up and view.player != seat.pid and state.phase() == "play":
                        assert view.seq in state.known[seat.team]  # only a Spy shows it
                        spied += 1
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
            revealed = _revealed(state)
    if setup_index < 2:
        assert spied > 0  # the Spy setups did reveal cards, and only to the Spy team


def test_an_observation_does_not_change_when_hidden_cards_do():
    state = new_match(teams_setup(protectors=("archivist", "siege-master")), seed=21)
    play_up_to_two_face_down_effects(state)
    assert state.current_player() == "t0p1"
    before = state.observation("t0p1")
    rng_before = random.Random(5)
    choice_before = SearchAgent(determinisations=3, max_candidates=3).act(before, state.legal_actions(), rng_before)

    other = with_hidden_cards_changed(state)
    after = other.observation("t0p1")
    assert after.to_dict() == before.to_dict()
    assert after.unseen() == before.unseen()
    choice_after = SearchAgent(determinisations=3, max_candidates=3).act(after, other.legal_actions(), random.Random(5))
    assert choice_after == choice_before
    check_same_sandboxes(before, after)


def play_up_to_two_face_down_effects(state: LegendsState) -> None:
    """Face-up turns, then t0p0 plays face down as an effect and t1p0 face down too: t0p1 decides now."""
    for _ in range(4):
        state.apply(next(a for a in state.legal_actions() if a[0] != "redraw"))
    state.apply(next(a for a in state.legal_actions() if a[0] == "effect"))
    state.apply(next(a for a in state.legal_actions() if a[0] == "effect"))


def with_hidden_cards_changed(state: LegendsState) -> LegendsState:
    """A copy of the match where t0p0's face-down card and t1p1's hand differ: what t0p1 cannot see."""
    other = state.clone(0)
    teammate_play = next(p for p in other.plays if p.pid == "t0p0" and not p.face_up)
    swap = other.draw.pop()
    other.draw.append(teammate_play.card)
    teammate_play.card, teammate_play.element = swap, swap.element  # the teammate's hidden card changes
    opp = other.by_pid["t1p1"]
    opp.hand[0], other.draw[0] = other.draw[0], opp.hand[0]  # so does an opponent's hand
    other.legal = None
    return other


def check_same_sandboxes(before: LegendsObservation, after: LegendsObservation) -> None:
    """The two observations, sandboxed with one seed, deal the same hands and the same pile."""
    a, b = before.sandbox(99), after.sandbox(99)
    assert [[c.slug for c in s.hand] for s in a.seats] == [[c.slug for c in s.hand] for s in b.seats]
    assert [c.slug for c in a.draw] == [c.slug for c in b.draw]


def test_an_observation_reaches_no_part_of_the_match_state():
    state = new_match(teams_setup(protectors=("spy", "archivist")), seed=4)
    for _ in range(6):
        state.apply(state.legal_actions()[0])
    obs = state.observation("t0p1")
    assert isinstance(obs, LegendsObservation)
    seen: set[int] = set()

    def walk(value: Any) -> None:
        if id(value) in seen or isinstance(value, (str, int, float, bool, type(None))):
            return
        seen.add(id(value))
        assert not isinstance(value, (LegendsState, Seat, Defense, Play, random.Random)), type(value)
        assert not isinstance(value, list), "observations hold immutable tuples only"
        if isinstance(value, dict):
            for k, v in value.items():
                walk(k)
                walk(v)
        elif isinstance(value, (tuple, set, frozenset)):
            for v in value:
                walk(v)
        else:
            for name in getattr(type(value), "__slots__", ()):
                if hasattr(value, name):
                    walk(getattr(value, name))
            for v in getattr(value, "__dict__", {}).values():
                walk(v)

    walk(obs)
    assert len(seen) > 50


def test_a_sandbox_keeps_what_is_seen_and_samples_only_the_unseen_cards():
    state = new_match(teams_setup(protectors=("archivist", "siege-master")), seed=33)
    for _ in range(6):
        state.apply(state.legal_actions()[0])
    obs = state.observation(state.current_player())
    sim = obs.sandbox(1)
    check_sandbox_keeps_what_is_seen(obs, sim)
    sampled = sampled_cards(obs, sim)
    assert Counter(sampled) == Counter(c.slug for c in obs.unseen())
    assert Counter(c.slug for c in obs.unseen()) != Counter(c.slug for c in state.draw)  # hands are in it too
    # A sandbox plays on like a match.
    while not sim.is_terminal() and sim.round < obs.round + 2:
        sim.apply(sim.legal_actions()[0])
    assert sim.round >= obs.round + 1 or sim.is_terminal()
    assert state.events()[-1]["type"] != "match_end"  # the real match is untouched


def check_sandbox_keeps_what_is_seen(obs: LegendsObservation, sim: LegendsState) -> None:
    """The sandbox keeps the seat's own hand, every hand's size, the piles' sizes, the discards and markers."""
    me = sim.by_pid[obs.player]
    assert [c.slug for c in me.hand] == [c.slug for c in obs.hand]
    assert [len(s.hand) for s in sim.seats] == [p.hand_size for p in obs.players]
    assert len(sim.draw) == obs.draw_pile and [c.slug for c in sim.discard] == [c.slug for c in obs.discard]
    assert [[(d.slug, tuple(d.markers)) for d in t] for t in sim.defenses] == [
        [(d.slug, d.markers) for d in t] for t in obs.defenses]


def sampled_cards(obs: LegendsObservation, sim: LegendsState) -> list[str]:
    """The cards the sandbox sampled (other hands, the pile, hidden plays, each played as it could be);
    the plays the seat saw are kept."""
    sampled = [c.slug for s in sim.seats if s.pid != obs.player for c in s.hand] + [c.slug for c in sim.draw]
    visible = {v.seq for v in obs.plays if v.card is not None}
    for p in sim.plays:
        if p.seq not in visible:
            sampled.append(p.card.slug)
            assert p.orientation == "effect" or p.element in p.card.attacks
        else:
            assert p.card.slug == next(v.card.slug for v in obs.plays if v.seq == p.seq)
    return sampled


def test_no_sandbox_at_an_allocation():
    state = new_match(teams_setup(), seed=3)
    while state.phase() != "allocate":
        state.apply(next((a for a in state.legal_actions() if a[0] == "attack"), state.legal_actions()[0]))
    with pytest.raises(ValueError):
        state.observation(state.current_player()).sandbox(1)


# ------------------------------------------------------------------ the seeds in the log (G2, G3)


def seed_keys(value: Any) -> set[str]:
    """Every key naming a seed inside plain data (`seed`, `agent_seeds`, ...)."""
    if isinstance(value, dict):
        own = {k for k in value if isinstance(k, str) and "seed" in k}
        return own.union(*(seed_keys(v) for v in value.values()))
    if isinstance(value, (list, tuple)):
        return set().union(*(seed_keys(v) for v in value))
    return set()


@pytest.mark.parametrize("mode", ["teams", "duel"])
def test_the_seeds_are_logged_for_no_seat_and_the_public_setup_for_every_seat(mode):
    # The match seed replays every shuffle (every hidden card); an agent's seed predicts that agent (G2).
    setup = teams_setup(protectors=("spy", None)) if mode == "teams" else duel_setup(protectors=(None, None))
    seats = ["t0p0", "t0p1", "t1p0", "t1p1"] if mode == "teams" else ["t0p0", "t1p0"]
    result = play_legends_match(setup=setup, agents=["greedy", "random", "search", "random"][:len(seats)], seed=31,
                                options={"max_rounds": 2})
    events = result.events
    holding = [e for e in events if seed_keys(e)]
    assert [(e["type"], e["seed"], sorted(e["agent_seeds"]), e["visible_to"]) for e in holding] == [
        ("seeds", 31, seats, [])]
    for seat in seats:
        seen = [e for e in events if seat in e["visible_to"]]  # the log as that seat could see it
        assert not set().union(*(seed_keys(e) for e in seen)), seat
        start = seen[0]
        assert start["type"] == "match_start" and start["visible_to"] == seats
        assert [p["id"] for t in start["teams"] for p in t["players"]] == seats and start["mode"] == mode
