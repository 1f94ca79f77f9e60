"""The Formation Round (R6): alternating deployments, per-step legality, two armies at the end."""

from __future__ import annotations

from typing import Any

import pytest

from realms.engine.cards import CharacterCard
from realms.engine.formation import can_complete, deployment_problems, legal_deployments
from realms.engine.game import new_match
from realms.engine.vocabulary import RARITY_QUOTA
from simulate.engine.errors import IllegalAction
from simulate.engine.runner import play_match
from tests.engine.cardset import all_cards, by_slug
from tests.engine.helpers import card, of_type


def deployed(*pairs: tuple[str, str]) -> list:
    cards = by_slug()
    return [(cards[slug], line) for slug, line in pairs]


def test_a_4th_common_is_illegal() -> None:
    cards = by_slug()
    army = deployed(("iron-guardian", "vanguard"), ("stone-troll", "vanguard"), ("orc-warrior", "vanguard"))
    assert deployment_problems(army, all_cards(), cards["elven-archer"], "rearguard") == ["rarity_count"]


def test_a_2nd_legendary_is_illegal() -> None:
    cards = by_slug()
    army = deployed(("merlin-archmage-of-runes", "rearguard"))
    assert deployment_problems(army, all_cards(), cards["azrakor-lord-of-the-abyss"], "vanguard") == ["rarity_count"]


def test_a_6th_card_in_a_line_is_illegal() -> None:
    front = [card(f"v{i}", rarity=r) for i, r in enumerate(["common", "common", "common", "uncommon", "uncommon"])]
    extra = card("rare-front", rarity="rare")
    assert deployment_problems([(c, "vanguard") for c in front], [*front, extra], extra, "vanguard") == ["line_full"]


def test_a_card_outside_the_collection_is_illegal() -> None:
    cards = by_slug()
    collection = [c for c in all_cards() if c.slug != "ranger"]
    assert deployment_problems([], collection, cards["ranger"], "rearguard") == ["not_owned"]


def test_a_card_already_deployed_by_that_player_is_illegal() -> None:
    cards = by_slug()
    army = deployed(("iron-guardian", "vanguard"))
    assert deployment_problems(army, all_cards(), cards["iron-guardian"], "vanguard") == ["duplicate_card"]


def test_a_line_the_position_forbids_is_illegal() -> None:
    cards = by_slug()
    assert deployment_problems([], all_cards(), cards["merlin-archmage-of-runes"], "vanguard") == ["wrong_line"]
    assert deployment_problems([], all_cards(), cards["cutpurse"], "vanguard") == []
    assert deployment_problems([], all_cards(), cards["cutpurse"], "rearguard") == []


def test_a_step_that_leaves_the_army_impossible_to_complete_is_illegal() -> None:
    front = [card(f"c{i}", rarity="common") for i in range(3)]  # vanguard-only commons
    mage = card("m", cls="mage", rarity="common")
    u_front, u_back = card("u0", rarity="uncommon"), card("u1", cls="support", rarity="uncommon")
    rare, legend = card("r", rarity="rare"), card("l", rarity="legendary")  # both vanguard-only
    collection = [*front, mage, u_front, u_back, rare, legend]
    assert can_complete([], collection)
    army = [(front[0], "vanguard"), (front[1], "vanguard"), (u_front, "vanguard")]
    # A third vanguard common passes every quota, but then the rare and the legendary would
    # need a 6th vanguard place: R6's "impossible to complete".
    assert deployment_problems(army, collection, front[2], "vanguard") == ["cannot_complete"]
    assert deployment_problems(army, collection, mage, "rearguard") == []
    assert ("deploy", "c2", "vanguard") not in legal_deployments(army, collection)
    assert ("deploy", "m", "rearguard") in legal_deployments(army, collection)


def test_legal_deployments_respect_every_rule() -> None:
    cards = all_cards()
    army = deployed(("iron-guardian", "vanguard"), ("stone-troll", "vanguard"), ("orc-warrior", "vanguard"),
                    ("merlin-archmage-of-runes", "rearguard"))
    options = legal_deployments(army, cards)
    slugs = {slug for _, slug, _ in options}
    rarities = {c.slug: c.rarity for c in cards}
    assert slugs and all(rarities[s] in ("uncommon", "rare") for s in slugs)
    for _, slug, line in options:
        assert deployment_problems(army, cards, by_slug()[slug], line) == []


def test_formation_round_alternates_and_builds_two_legal_armies() -> None:
    cards = all_cards()
    result = play_match("realms", setup={"collections": {"a": cards, "b": cards}}, agents=["greedy", "random"],
                        seed=11, options={"first_player": "b"})
    deploys = [e for e in result.events if e["type"] == "deploy"]
    assert [e["player"] for e in deploys] == ["b", "a"] * 7
    assert result.events[0] == {"type": "formation_start", "first_player": "b"}
    check_each_collection_seen_by_its_player(result.events, cards)
    assert {e["visible_to"] == [e["player"]] for e in result.events if e["type"] == "decision" and e["round"] == 0} \
        == {True}
    start = next(e for e in result.events if e["type"] == "match_start")
    rarity = {c.slug: c.rarity for c in cards}
    position = {c.slug: c.position for c in cards}
    for side in ("a", "b"):
        check_army_is_legal_and_deployed(side, start, deploys, rarity, position)


def check_each_collection_seen_by_its_player(events: list[dict[str, Any]], cards: list[CharacterCard]) -> None:
    """G3: each collection is logged once, whole, seen only by its player."""
    for side, event in zip(("a", "b"), events[1:3], strict=True):
        assert (event["type"], event["player"], event["visible_to"]) == ("collection", side, [side])
        assert [c["card"] for c in event["cards"]] == [c.slug for c in cards]
        assert event["cards"][0] == {"card": cards[0].slug, "name": cards[0].name, "rarity": cards[0].rarity,
                                     "position": cards[0].position, "class": cards[0].character_class}


def check_army_is_legal_and_deployed(side: str, start: dict[str, Any], deploys: list[dict[str, Any]],
                                     rarity: dict[str, str], position: dict[str, str]) -> None:
    """One side's army: the rarity quotas, each card on a line its position allows, at most 5 a line,
    7 different cards, deployed in the order the log shows."""
    units = [u for u in start["units"] if u["side"] == side]
    counts = {r: sum(1 for u in units if rarity[u["card"]] == r) for r in RARITY_QUOTA}
    assert counts == RARITY_QUOTA
    assert all(position[u["card"]] in ("flex", u["line"]) for u in units)
    assert max(sum(1 for u in units if u["line"] == ln) for ln in ("vanguard", "rearguard")) <= 5
    assert len({u["card"] for u in units}) == 7
    mine = [e["card"] for e in deploys if e["player"] == side]
    assert mine == [u["card"] for u in units]


def test_formation_from_small_collections_and_illegal_deployments() -> None:
    cards = all_cards()
    mine = [c for c in cards if c.slug in {"iron-guardian", "stone-troll", "orc-warrior", "bone-knight",
                                           "cleric", "ranger", "merlin-archmage-of-runes", "cutpurse"}]
    st = new_match({"collections": {"a": mine, "b": cards}}, seed=3, options={"first_player": "a"})
    assert st.phase() == "formation" and st.current_player() == "a"
    assert {slug for _, slug, _ in st.legal_actions()} <= {c.slug for c in mine}
    with pytest.raises(IllegalAction, match="not_owned"):
        st.apply(("deploy", "arcane-sage", "rearguard"))
    with pytest.raises(IllegalAction, match="wrong_line"):
        st.apply(("deploy", "merlin-archmage-of-runes", "vanguard"))
    st.apply(("deploy", "merlin-archmage-of-runes", "rearguard"))
    assert st.current_player() == "b"
    st.apply(("deploy", "merlin-archmage-of-runes", "rearguard"))  # both players may deploy the same card
    with pytest.raises(IllegalAction, match="duplicate_card"):
        st.apply(("deploy", "merlin-archmage-of-runes", "rearguard"))
    assert [e["card"] for e in of_type(st, "deploy")] == ["merlin-archmage-of-runes"] * 2
