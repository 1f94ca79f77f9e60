"""Every protector of the official set executes in a match, at its hook, with its numbers."""

from __future__ import annotations

from legends.engine.cards import parse_catalogue

from .helpers import attacker, defense, find, of_type, official, play, rigged, teams_setup

FIRE = attacker("fire")
AIR = attacker("air")
WATER = attacker("water")
EARTH = attacker("earth")
FIRE_BOOST = find("boost", "fire")


def setup_with(team0: str, team1: str = "archivist"):
    return teams_setup(protectors=(team0, team1))


def test_spy_looks_at_one_opposing_face_down_card_before_its_next_face_down_turn():
    # Team 0 (counters 1 and 3) holds the Spy. Face-down turns: t0p0 (#4), t1p0 (#5), t0p1 (#6), t1p1 (#7).
    state = rigged(setup_with("spy"), {"t0p0": [FIRE, FIRE], "t1p0": [WATER, EARTH], "t0p1": [AIR, AIR],
                                       "t1p1": [EARTH, EARTH]})
    play(state, ("attack", FIRE, "fire"), ("attack", WATER, "water"), ("attack", AIR, "air"),
         ("attack", EARTH, "earth"), ("attack", FIRE, "fire"))
    assert not of_type(state, "spy")  # no opposing face-down card yet at t0p0's face-down turn
    state.apply(("attack", EARTH, "earth"))  # t1p0, face down (#5)
    spy = of_type(state, "spy", 1)
    assert [(e["team"], e["protector"], e["player"], e["seq"], e["card"], e["element"]) for e in spy] == [
        (0, "spy", "t1p0", 5, EARTH, "earth")]
    # What each player observes of #5 (t1p0's card) and #4 (t0p0's card) now, at t0p1's turn.
    seen = {pid: {v.seq: v.card.slug if v.card else None for v in state.observation(pid).plays}
            for pid in ("t0p0", "t0p1", "t1p0", "t1p1")}
    assert seen["t0p1"][5] == EARTH and seen["t0p0"][5] == EARTH  # the whole Spy team
    assert seen["t1p1"][5] is None  # t1p0's teammate does not see it
    assert seen["t1p0"][5] == EARTH  # its owner does
    assert seen["t0p1"][4] is None and seen["t1p0"][4] is None and seen["t1p1"][4] is None
    assert state.observation("t0p1").spied == (5,) and state.observation("t1p1").spied_by_opponents == (5,)
    play(state, ("attack", AIR, "air"), ("attack", EARTH, "earth"))
    assert len(of_type(state, "spy", 1)) == 1  # once per round
    while state.phase() == "allocate":
        state.apply(state.legal_actions()[-1])
    assert state.observation("t0p0").spied == ()  # the look lasts for its round


def test_spy_of_the_team_playing_second_looks_at_the_first_face_down_card():
    state = rigged(setup_with("archivist", "spy"), {"t0p0": [FIRE, WATER], "t1p0": [], "t0p1": [], "t1p1": []})
    play(state, ("attack", FIRE, "fire"), None, None, None, ("effect", WATER))
    spy = of_type(state, "spy", 1)
    assert [(e["team"], e["player"], e["seq"], e["orientation"]) for e in spy] == [(1, "t0p0", 4, "effect")]
    assert state.current_player() == "t1p0"
    assert next(v for v in state.observation("t1p0").plays if v.seq == 4).card.slug == WATER


def test_spring_warden_removes_one_marker_at_the_start_of_each_round():
    state = rigged(setup_with("archivist", "spring-warden"), {"t0p0": [FIRE], "t1p0": [], "t0p1": [], "t1p1": []})
    play(state, ("attack", FIRE, "fire"), None, None, None, None, None, None, None)
    state.apply(("allocate", (("steam-wall", "fire"),)))
    heals = of_type(state, "heal", 2)
    assert [(e["team"], e["via"], e["source"], e["element"], e["defense"], e["round"]) for e in heals] == [
        (1, "protector", "spring-warden", "fire", "steam-wall", 2)]
    assert defense(state, "steam-wall").markers == []
    kinds = [e["type"] for e in state.events()]
    assert kinds.index("heal") == kinds.index("round_start", kinds.index("counters")) + 1  # right at round start


def _first_attack_boost(protector: str, element: str, card: str) -> None:
    state = rigged(setup_with(protector), {"t0p0": [card], "t1p0": [], "t0p1": [card], "t1p1": []})
    play(state, ("attack", card, element), None, ("attack", card, element), None, None, None, None, None)
    boost = [e for e in of_type(state, "boost", 1) if e["via"] == "protector"]
    assert [(e["team"], e["source"], e["element"], e["amount"], e["attacks"]) for e in boost] == [
        (0, protector, element, 1, [0])]  # the first attack in turn order only
    assert next(e for e in of_type(state, "strength", 1) if e["team"] == 0)["points"][element] == 3
    # Without a matching attack it does nothing.
    other = rigged(setup_with(protector), {"t0p0": [], "t1p0": [], "t0p1": [], "t1p1": []})
    play(other, None, None, None, None, None, None, None, None)
    assert [e["attacks"] for e in of_type(other, "boost", 1) if e["via"] == "protector"] == [[]]


def test_flame_herald_boosts_the_first_fire_attack():
    _first_attack_boost("flame-herald", "fire", FIRE)


def test_gale_rider_boosts_the_first_air_attack():
    _first_attack_boost("gale-rider", "air", AIR)


def _cancel(protector: str, element: str, card: str) -> None:
    # Team 1's protector cancels one point of team 0's attacks of its element: 2 attacks -> 1 point left.
    state = rigged(setup_with("archivist", protector), {"t0p0": [card], "t1p0": [], "t0p1": [card], "t1p1": []})
    play(state, ("attack", card, element), None, ("attack", card, element), None, None, None, None, None)
    cancels = [e for e in of_type(state, "cancel", 1) if e["via"] == "protector"]
    assert [(e["team"], e["source"], e["element"], e["cancelled"], e["left"]) for e in cancels] == [
        (1, protector, element, 1, 1)]
    while state.phase() == "allocate":
        legal = state.legal_actions()
        assert max(len(a[1]) for a in legal) == 1
        state.apply(legal[-1])
    allocation = next(e for e in of_type(state, "allocation", 1) if e["team"] == 0)
    assert allocation["points"][element] == 1


def test_tide_keeper_cancels_a_water_point():
    _cancel("tide-keeper", "water", WATER)


def test_stone_sentinel_cancels_an_earth_point():
    _cancel("stone-sentinel", "earth", EARTH)


def test_archivist_draws_one_card_per_player_at_round_end_up_to_eight():
    eight = [FIRE] * 2 + [AIR] * 2 + [WATER] * 2 + [EARTH] * 2
    state = rigged(setup_with("siege-master", "archivist"),
                   {"t0p0": [], "t1p0": eight + [FIRE], "t0p1": [], "t1p1": [FIRE]})
    play(state, None, ("attack", FIRE, "fire"), None, ("attack", FIRE, "fire"), None, ("attack", AIR, "air"),
         None, None)
    while state.phase() == "allocate":
        state.apply(state.legal_actions()[0])
    draws = of_type(state, "draw", 1)
    # t1p0 kept 7 cards: draws 1 (to 8); t1p1 played its only card, then redrew 3: draws 1 (to 4).
    assert [(e["player"], e["reason"], e["count"], e["drawn"], e["hand"]) for e in draws] == [
        ("t1p0", "protector", 1, 1, 8), ("t1p1", "protector", 1, 1, 4)]
    full = rigged(setup_with("siege-master", "archivist"), {"t1p0": eight + [FIRE, FIRE], "t1p1": []})
    play(full, None, ("attack", FIRE, "fire"), None, None, None, None, None, None)
    while full.phase() == "allocate":
        full.apply(full.legal_actions()[0])
    assert [(e["player"], e["count"], e["hand"]) for e in of_type(full, "draw", 1)][0] == ("t1p0", 0, 9)


def test_wanderer_redraws_up_to_five_cards():
    state = rigged(setup_with("wanderer"), {"t0p0": [FIRE, FIRE, AIR, AIR, WATER, EARTH]})
    sizes = {a[2] for a in state.legal_actions() if a[0] == "redraw"}
    assert sizes == {3, 4, 5}
    action = ("redraw", tuple(sorted([FIRE, FIRE, AIR, AIR, WATER])), 5)
    assert action in state.legal_actions()
    state.apply(action)
    event = of_type(state, "redraw", 1)[0]
    assert (event["size"], event["drawn"], event["hand"]) == (5, 5, 6)
    # The other team (archivist) redraws three only.
    assert {a[2] for a in state.legal_actions() if a[0] == "redraw"} == {3}
    short = rigged(setup_with("wanderer"), {"t0p0": [FIRE]})
    assert [a for a in short.legal_actions() if a[0] == "redraw"] == [
        ("redraw", (FIRE,), 3), ("redraw", (FIRE,), 4), ("redraw", (FIRE,), 5)]


def test_siege_master_places_one_more_marker_than_attack_cards():
    # One fire attack + one fire boost = 2 points; cap 1 + 1 = 2: both fire defenses get a marker.
    state = rigged(setup_with("siege-master"), {"t0p0": [FIRE], "t1p0": [], "t0p1": [FIRE_BOOST], "t1p1": []})
    play(state, ("attack", FIRE, "fire"), None, ("effect", FIRE_BOOST), None, None, None, None, None)
    both = ("allocate", (("steam-wall", "fire"), ("magma-rampart", "fire")))
    assert both in state.legal_actions()
    state.apply(both)
    allocation = next(e for e in of_type(state, "allocation", 1) if e["team"] == 0)
    assert (allocation["attack_cards"], allocation["extra"], allocation["cap"], allocation["placed"]) == (1, 1, 2, 2)
    # Strength still bounds it: one attack alone gives one marker.
    alone = rigged(setup_with("siege-master"), {"t0p0": [FIRE], "t1p0": [], "t0p1": [], "t1p1": []})
    play(alone, ("attack", FIRE, "fire"), None, None, None, None, None, None, None)
    assert max(len(a[1]) for a in alone.legal_actions()) == 1


def test_every_official_protector_has_a_test_here():
    tested = {"spy", "spring-warden", "flame-herald", "gale-rider", "tide-keeper", "stone-sentinel", "archivist",
              "wanderer", "siege-master"}
    assert set(parse_catalogue(official()).protectors) == tested
