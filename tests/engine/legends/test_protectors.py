"""Every protector of the official set changes the match as its printed text says.

Each test plays one scenario twice with the same seed, hands and turns: once with the protector,
once with a protector that cannot touch that scenario, and checks the difference a player sees
(markers on the defenses, the points of the showdown, hand sizes, what an observation shows).
The printed text of each protector is checked against its spec.
"""

from __future__ import annotations

import json

from legends.engine.agents import default_allocation, default_heal
from legends.engine.cards import parse_catalogue
from legends.engine.game import play_legends_match
from legends.engine.protectors import describe_protector_effect, parse_protector_effect

from .helpers import FIXTURE, attacker, defense, find, of_type, official, play, rigged, teams_setup

FIRE = attacker("fire")
AIR = attacker("air")
WATER = attacker("water")
EARTH = attacker("earth")
FIRE_BOOST = find("boost", "fire")
FIRE_DEF = find("defense", "fire")
WATER_DEF = find("defense", "water")


def setup_with(team0: str, team1: str = "archivist"):
    return teams_setup(protectors=(team0, team1))


def settle(state) -> None:
    """Finish the pending showdown decisions with the default policies (as the greedy agent does)."""
    while state.phase() in ("allocate", "heal"):
        obs = state.observation(state.current_player())
        policy = default_allocation if state.phase() == "allocate" else default_heal
        state.apply(policy(obs, state.legal_actions()))


def markers(state) -> dict[str, list[str]]:
    return {d.slug: sorted(d.markers) for team in state.defenses for d in team if d.markers}


def points(state, team: int) -> dict[str, int]:
    allocation = next(e for e in of_type(state, "allocation", 1) if e["team"] == team)
    return {k: v for k, v in allocation["points"].items() if v}


def test_every_official_protector_prints_the_text_of_its_spec():
    entries = json.loads(FIXTURE.read_text(encoding="utf-8"))
    names = {e["fields"]["slug"]: e["fields"]["name"] for e in entries if e["model"] == "legends.element"}
    cards = {e["pk"]: e["fields"] for e in entries if e["model"] == "cardsdb.card"}
    protectors = [(cards[e["pk"]], e["fields"]) for e in entries if e["model"] == "legends.protector"]
    assert len(protectors) == 9
    for card, fields in protectors:
        effect = parse_protector_effect(fields["effect"], elements=set(names))
        assert card["rules_text"] == describe_protector_effect(effect, names), card["slug"]


def test_every_official_protector_has_a_test_here():
    tested = {"spy", "spring-warden", "flame-herald", "gale-rider", "tide-keeper", "stone-sentinel", "archivist",
              "wanderer", "siege-master"}
    assert set(parse_catalogue(official()).protectors) == tested


# ------------------------------------------------------------------ Spy


def _spy_round(protector: str):
    # Team 0 (counters 1 and 3). Face-down turns: t0p0 (#4), t1p0 (#5), t0p1 (#6), t1p1 (#7).
    state = rigged(setup_with(protector), {"t0p0": [FIRE, FIRE], "t1p0": [WATER, EARTH], "t0p1": [AIR, AIR],
                                           "t1p1": [EARTH, EARTH]})
    play(state, ("attack", FIRE, "fire"), ("attack", WATER, "water"), ("attack", AIR, "air"),
         ("attack", EARTH, "earth"), ("attack", FIRE, "fire"))
    assert not of_type(state, "spy")  # no opposing face-down card yet at t0p0's face-down turn
    state.apply(("attack", EARTH, "earth"))  # t1p0, face down (#5); now t0p1 decides
    return state


def test_spy_shows_its_team_one_face_down_card_of_an_opponent():
    spied, plain = _spy_round("spy"), _spy_round("wanderer")
    # "the team looks at one face-down card an opponent played this round, before its own next face-down card"
    assert [(e["team"], e["protector"], e["player"], e["seq"], e["card"], e["element"], e["visible_to"])
            for e in of_type(spied, "spy", 1)] == [(0, "spy", "t1p0", 5, EARTH, "earth", ["t0p0", "t0p1", "t1p0"])]
    assert not of_type(plain, "spy")
    for state, seen in ((spied, EARTH), (plain, None)):
        views = {pid: {v.seq: v.card.slug if v.card else None for v in state.observation(pid).plays}
                 for pid in ("t0p0", "t0p1", "t1p1")}
        assert views["t0p1"][5] == seen and views["t0p0"][5] == seen  # the whole Spy team, or nobody
        assert views["t1p1"][5] is None  # t1p0's teammate never sees it
        assert views["t0p1"][4] is None and views["t0p0"][4] == FIRE  # a teammate's card: only its owner sees it
    assert spied.observation("t0p1").spied == (5,) and spied.observation("t1p1").spied_by_opponents == (5,)
    assert plain.observation("t0p1").spied == ()
    # Once per round, for that round only.
    play(spied, ("attack", AIR, "air"), ("attack", EARTH, "earth"))
    assert len(of_type(spied, "spy", 1)) == 1
    settle(spied)
    assert spied.observation("t0p0").spied == ()


def test_spy_of_the_team_playing_second_looks_at_the_first_face_down_card():
    state = rigged(setup_with("archivist", "spy"), {"t0p0": [FIRE, WATER], "t1p0": [], "t0p1": [], "t1p1": []})
    play(state, ("attack", FIRE, "fire"), None, None, None, ("effect", WATER))
    spy = of_type(state, "spy", 1)
    assert [(e["team"], e["player"], e["seq"], e["orientation"]) for e in spy] == [(1, "t0p0", 4, "effect")]
    assert state.current_player() == "t1p0"
    assert next(v for v in state.observation("t1p0").plays if v.seq == 4).card.slug == WATER


# ------------------------------------------------------------------ Spring Warden


def _warden(protector: str, marked: tuple[str, ...]):
    state = rigged(setup_with("archivist", protector), {"t0p0": [], "t1p0": [], "t0p1": [], "t1p1": []})
    for slug in marked:
        defense(state, slug).markers = ["fire"]
    play(state, None, None, None, None, None, None, None, None)  # round 1: redraws only
    return state


def test_spring_warden_removes_a_marker_at_the_start_of_each_round():
    warden, plain = _warden("spring-warden", ("steam-wall",)), _warden("wanderer", ("steam-wall",))
    # "At the start of each round, remove 1 marker of any element from the team's defenses."
    assert markers(warden) == {} and markers(plain) == {"steam-wall": ["fire"]}
    heals = of_type(warden, "heal", 2)
    assert [(e["team"], e["via"], e["source"], e["element"], e["defense"], e["chosen_by"]) for e in heals] == [
        (1, "protector", "spring-warden", "fire", "steam-wall", "auto")]
    kinds = [e["type"] for e in warden.events()]
    assert kinds.index("heal", kinds.index("counters")) == kinds.index("round_start", kinds.index("counters")) + 1
    # Round 1 had no marker: the warden's heal is logged as having nothing to remove.
    assert [(e["removed"], e["defense"]) for e in of_type(warden, "heal", 1)] == [(False, None)]


def test_spring_warden_lets_the_team_choose_among_several_markers():
    state = rigged(setup_with("archivist", "spring-warden"), {"t0p0": [], "t1p0": [], "t0p1": [], "t1p1": []})
    defense(state, "steam-wall").markers = ["fire"]
    defense(state, "sandstorm-keep").markers = ["air"]
    play(state, None, None, None, None, None, None, None, None)
    # Round 2 starts with a choice for team 1, made by its first player in the new counter order.
    assert state.round == 2 and state.phase() == "heal" and state.current_player() == "t1p0"
    assert state.legal_actions() == [("heal", "steam-wall", "fire"), ("heal", "sandstorm-keep", "air")]
    state.apply(("heal", "sandstorm-keep", "air"))
    assert markers(state) == {"steam-wall": ["fire"]}
    heal = of_type(state, "heal", 2)[0]
    assert (heal["player"], heal["defense"], heal["chosen_by"]) == ("t1p0", "sandstorm-keep", "agent")
    assert state.phase() == "play" and state.current_player() == "t1p0"


# ------------------------------------------------------------------ Flame Herald, Gale Rider


def _first_attack(protector: str, element: str, card: str, guard: str):
    # Team 0 attacks once with the element; team 1 answers with one defense card of it.
    state = rigged(setup_with(protector), {"t0p0": [card], "t1p0": [guard], "t0p1": [], "t1p1": []})
    play(state, ("attack", card, element), ("effect", guard), None, None, None, None, None, None)
    settle(state)
    return state


def _first_attack_boost(protector: str, element: str, card: str) -> None:
    guard = find("defense", element)
    boosted, plain = _first_attack(protector, element, card, guard), _first_attack("wanderer", element, card, guard)
    # "the team's first <element> attack (in turn order) gets +1 strength": 1 + 1 - 1 defense = 1 point left.
    assert points(boosted, 0) == {element: 1} and points(plain, 0) == {}
    assert len([m for ms in markers(boosted).values() for m in ms]) == 1 and markers(plain) == {}
    boost = [e for e in of_type(boosted, "boost", 1) if e["via"] == "protector"]
    assert [(e["team"], e["source"], e["element"], e["amount"], e["attacks"]) for e in boost] == [
        (0, protector, element, 1, [0])]
    # Two attacks of the element: only the first one is boosted (3 points), still two attack cards for the cap.
    state = rigged(setup_with(protector), {"t0p0": [card], "t1p0": [], "t0p1": [card], "t1p1": []})
    play(state, ("attack", card, element), None, ("attack", card, element), None, None, None, None, None)
    strength = next(e for e in of_type(state, "strength", 1) if e["team"] == 0)
    assert (strength["points"][element], strength["attack_cards"]) == (3, 2)
    assert state.observation("t0p0").allocation.cap == 2
    # Without a matching attack it does nothing.
    other = rigged(setup_with(protector), {"t0p0": [], "t1p0": [], "t0p1": [], "t1p1": []})
    play(other, None, None, None, None, None, None, None, None)
    assert [e["attacks"] for e in of_type(other, "boost", 1) if e["via"] == "protector"] == [[]]


def test_flame_herald_boosts_the_first_fire_attack():
    _first_attack_boost("flame-herald", "fire", FIRE)


def test_gale_rider_boosts_the_first_air_attack():
    _first_attack_boost("gale-rider", "air", AIR)


# ------------------------------------------------------------------ Tide Keeper, Stone Sentinel


def _one_attack(protector: str, element: str, card: str):
    state = rigged(setup_with("archivist", protector), {"t0p0": [card], "t1p0": [], "t0p1": [], "t1p1": []})
    play(state, ("attack", card, element), None, None, None, None, None, None, None)
    settle(state)
    return state


def _cancel(protector: str, element: str, card: str) -> None:
    kept, plain = _one_attack(protector, element, card), _one_attack("wanderer", element, card)
    # "cancel 1 strength point of the opposing team's <element> attacks, like a free defense card"
    assert points(kept, 0) == {} and markers(kept) == {}
    assert points(plain, 0) == {element: 1} and len(markers(plain)) == 1
    cancels = [e for e in of_type(kept, "cancel", 1) if e["via"] == "protector"]
    assert [(e["team"], e["source"], e["element"], e["cancelled"], e["left"]) for e in cancels] == [
        (1, protector, element, 1, 0)]
    # Two attacks: one point is left, so one marker at most.
    state = rigged(setup_with("archivist", protector), {"t0p0": [card], "t1p0": [], "t0p1": [card], "t1p1": []})
    play(state, ("attack", card, element), None, ("attack", card, element), None, None, None, None, None)
    assert max(len(a[1]) for a in state.legal_actions()) == 1


def test_tide_keeper_cancels_a_water_point():
    _cancel("tide-keeper", "water", WATER)


def test_stone_sentinel_cancels_an_earth_point():
    _cancel("stone-sentinel", "earth", EARTH)


# ------------------------------------------------------------------ Archivist


def test_archivist_draws_one_card_per_player_at_round_end_up_to_eight():
    eight = [FIRE] * 2 + [AIR] * 2 + [WATER] * 2 + [EARTH] * 2

    def round_one(protector: str):
        state = rigged(setup_with("siege-master", protector),
                       {"t0p0": [], "t1p0": eight + [FIRE], "t0p1": [], "t1p1": [FIRE]})
        play(state, None, ("attack", FIRE, "fire"), None, ("attack", FIRE, "fire"), None, ("attack", AIR, "air"),
             None, None)
        settle(state)
        return state

    archivist, plain = round_one("archivist"), round_one("wanderer")
    # "each player of the team draws 1 extra card, without going above 8 cards in hand"
    # t1p0 kept 7 cards: draws 1 (to 8); t1p1 played its only card, then redrew 3: draws 1 (to 4).
    assert [len(archivist.by_pid[p].hand) for p in ("t1p0", "t1p1")] == [8, 4]
    assert [len(plain.by_pid[p].hand) for p in ("t1p0", "t1p1")] == [7, 3]
    draws = [e for e in of_type(archivist, "draw", 1) if e["reason"] == "protector"]
    assert [(e["player"], e["source"], e["count"], len(e["cards"]), e["hand"]) for e in draws] == [
        ("t1p0", "archivist", 1, 1, 8), ("t1p1", "archivist", 1, 1, 4)]
    full = rigged(setup_with("siege-master", "archivist"), {"t1p0": eight + [FIRE, FIRE], "t1p1": []})
    play(full, None, ("attack", FIRE, "fire"), None, None, None, None, None, None)
    settle(full)
    first = [e for e in of_type(full, "draw", 1) if e["reason"] == "protector"][0]
    assert (first["player"], first["count"], first["cards"], first["hand"]) == ("t1p0", 0, [], 9)


# ------------------------------------------------------------------ Wanderer


def test_wanderer_redraws_up_to_five_cards():
    hand = [FIRE, FIRE, AIR, AIR, WATER, EARTH]
    wanderer = rigged(setup_with("wanderer"), {"t0p0": hand})
    plain = rigged(setup_with("tide-keeper"), {"t0p0": hand})
    # "may discard and draw 3 to 5 cards instead of exactly 3"
    assert {a[2] for a in wanderer.legal_actions() if a[0] == "redraw"} == {3, 4, 5}
    assert {a[2] for a in plain.legal_actions() if a[0] == "redraw"} == {3}
    action = ("redraw", tuple(sorted([FIRE, FIRE, AIR, AIR, WATER])), 5)
    wanderer.apply(action)
    event = of_type(wanderer, "redraw", 1)[0]
    assert (event["size"], event["drawn"], event["hand"]) == (5, 5, 6)
    kept = [c.slug for c in wanderer.by_pid["t0p0"].hand]
    assert kept[0] == EARTH and len(kept) == 6
    # The other team (archivist) redraws three only.
    assert {a[2] for a in wanderer.legal_actions() if a[0] == "redraw"} == {3}
    short = rigged(setup_with("wanderer"), {"t0p0": [FIRE]})
    assert [a for a in short.legal_actions() if a[0] == "redraw"] == [
        ("redraw", (FIRE,), 3), ("redraw", (FIRE,), 4), ("redraw", (FIRE,), 5)]


def test_the_wanderers_text_names_every_redraw_size_it_allows():
    entries = json.loads(FIXTURE.read_text(encoding="utf-8"))
    text = next(e["fields"]["rules_text"] for e in entries if e["model"] == "cardsdb.card"
                and e["fields"]["slug"] == "wanderer")
    state = rigged(setup_with("wanderer"), {"t0p0": [FIRE, FIRE, AIR, AIR, WATER, EARTH]})
    sizes = sorted({a[2] for a in state.legal_actions() if a[0] == "redraw"})
    # Never fewer than 3 (L8), so "up to 5" would promise redraws of 1 or 2 that no player is offered.
    assert sizes == list(range(sizes[0], sizes[-1] + 1)) and sizes[0] == 3
    assert f"draw {sizes[0]} to {sizes[-1]} cards instead of exactly 3" in text


# ------------------------------------------------------------------ Siege Master


def _siege(protector: str, hands: dict, turns: tuple):
    state = rigged(setup_with(protector), hands)
    play(state, *turns)
    settle(state)
    return state


def test_siege_master_pierces_the_first_opposing_defense_card():
    # One fire attack against one fire defense card: 1 point, cancelled -- unless the defense is pierced.
    hands = {"t0p0": [FIRE], "t1p0": [FIRE_DEF], "t0p1": [], "t1p1": []}
    turns = (("attack", FIRE, "fire"), ("effect", FIRE_DEF), None, None, None, None, None, None)
    siege, plain = _siege("siege-master", hands, turns), _siege("wanderer", hands, turns)
    # "the first opposing defense card that would cancel a strength point of the team's attacks cancels nothing"
    assert points(siege, 0) == {"fire": 1} and points(plain, 0) == {}
    assert markers(siege) == {"steam-wall": ["fire"]} and markers(plain) == {}
    assert [(e["team"], e["source"], e["element"], e["player"], e["seq"]) for e in of_type(siege, "pierce", 1)] == [
        (0, "siege-master", "fire", "t1p0", 1)]
    assert [(e["cancelled"], e["pierced"], e["left"]) for e in of_type(siege, "cancel", 1)] == [(0, True, 1)]
    assert not of_type(plain, "pierce")


def test_siege_master_pierces_one_card_only_and_never_lifts_the_cap():
    # Fire attack + fire boost = 2 points against two fire defense cards: the first is pierced, the second
    # cancels one point; 1 point, 1 attack card, 1 marker. Without the Siege Master nothing is left.
    hands = {"t0p0": [FIRE], "t1p0": [FIRE_DEF], "t0p1": [FIRE_BOOST], "t1p1": [FIRE_DEF]}
    turns = (("attack", FIRE, "fire"), ("effect", FIRE_DEF), ("effect", FIRE_BOOST), ("effect", FIRE_DEF),
             None, None, None, None)
    siege, plain = _siege("siege-master", hands, turns), _siege("wanderer", hands, turns)
    assert [(e["player"], e["cancelled"], e["pierced"]) for e in of_type(siege, "cancel", 1)] == [
        ("t1p0", 0, True), ("t1p1", 1, False)]
    assert points(siege, 0) == {"fire": 1} and points(plain, 0) == {}
    # Strength 3 (attack, boost, and a pierced defense) with one attack card still places one marker (L9).
    hands = {"t0p0": [FIRE], "t1p0": [FIRE_DEF], "t0p1": [FIRE_BOOST, FIRE_BOOST], "t1p1": []}
    state = rigged(setup_with("siege-master"), hands)
    play(state, ("attack", FIRE, "fire"), ("effect", FIRE_DEF), ("effect", FIRE_BOOST), None, None, None,
         ("effect", FIRE_BOOST), None)
    assert points_now(state) == {"fire": 3}
    assert {len(a[1]) for a in state.legal_actions()} == {0, 1}
    state.apply(default_allocation(state.observation(state.current_player()), state.legal_actions()))
    allocation = next(e for e in of_type(state, "allocation", 1) if e["team"] == 0)
    assert (allocation["attack_cards"], allocation["cap"], allocation["placed"]) == (1, 1, 1)


def points_now(state) -> dict[str, int]:
    return {k: v for k, v in state.observation(state.current_player()).allocation.points.items() if v}


def test_each_protector_changes_some_seeded_matches():
    """Across seeded greedy matches, swapping a protector for another changes the outcome of some."""
    for protector in sorted(parse_catalogue(official()).protectors):
        other = "wanderer" if protector != "wanderer" else "archivist"
        opponent = "tide-keeper" if protector != "tide-keeper" else "stone-sentinel"
        changed = 0
        for seed in range(10):
            a, b = (play_legends_match(setup=teams_setup(protectors=(p, opponent)), agents=["greedy"] * 4, seed=seed,
                                       keep_log=False) for p in (protector, other))
            changed += (a.winner, a.rounds, a.survivors) != (b.winner, b.rounds, b.survivors)
        assert changed, protector
