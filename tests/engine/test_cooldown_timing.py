"""R13: a Main Ability enters its cooldown only once its use has resolved, so a cut made while it resolves
(its own effect on every ally, a trigger set off by a kill it makes) finds no cooldown to shorten; the same
cut shortens a cooldown already running from an earlier use. Five official cards, each both ways."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from realms.engine.cards import CharacterCard, cards_from_fixture
from realms.engine.state import RealmsState
from tests.engine.helpers import acting, attack, battle, card, of_type, use

ROOT = Path(__file__).resolve().parents[2]
STARTER = {c.slug: c for c in cards_from_fixture(json.loads((ROOT / "fixtures" / "realms_starter.json").read_text()))}
DUMMY: dict[str, Any] = {"cls": "tank", "atk": 1, "df": 0, "spd": 1, "hp": 40}


def official(slug: str) -> CharacterCard:
    return STARTER[slug]


def until_turn(st: RealmsState, uid: str) -> None:
    """Play on (Flex: stay; actions: the first Basic Attack) until `uid` is to act."""
    while not (st.phase() == "act" and acting(st) == uid):
        legal = st.legal_actions()
        st.apply(legal[0])


def ability_offered(st: RealmsState, uid: str) -> bool:
    until_turn(st, uid)
    return any(a[0] == "ability" for a in st.legal_actions())


def started(st: RealmsState, uid: str) -> dict[str, Any]:
    """The last cooldown_started of a unit."""
    return [e for e in of_type(st, "cooldown_started") if e["unit"] == uid][-1]


def own_use_logged_in_order(st: RealmsState, uid: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The cut on `uid` made while its last ability use resolved, and the cooldown that use then entered: the
    cut changed nothing, and the cooldown comes after every event of the use and of what it set off."""
    events = st.events()
    begun = max(i for i, e in enumerate(events) if e["type"] == "ability_used" and e["unit"] == uid)
    number = events[begun]["use"]
    end = next(i for i in range(begun, len(events)) if events[i]["type"] == "cooldown_started")
    cut = next(e for e in events[begun:end] if e["type"] == "cooldown" and e["unit"] == uid)
    assert cut["amount"] < 0 and cut["ready_before"] == cut["ready_after"] <= events[begun]["round"]
    caused = {number} | {e["use"] for e in events[begun:end] if e["type"] == "faction_triggered"}
    assert all(e.get("use") not in caused for e in events[end + 1:] if e["type"] != "ability_used")
    return cut, events[end]


def test_goblin_hexscribe_quickening_glyph_on_itself_waits_its_full_cooldown() -> None:
    st = battle([official("goblin-hexscribe")], [card("t", **DUMMY)])
    use(st, "a1")  # Quickening Glyph on itself, round 1
    _, cooldown = own_use_logged_in_order(st, "a1")
    assert (cooldown["round"], cooldown["cooldown"], cooldown["ready_after"]) == (1, 2, 3)
    assert not ability_offered(st, "a1") and st.round == 2
    attack(st, "b1")
    assert ability_offered(st, "a1") and st.round == 3


def test_goblin_hexscribe_quickening_glyph_cuts_an_allys_running_cooldown() -> None:
    fast = card("fast", spd=9, cooldown=3)
    st = battle([fast, official("goblin-hexscribe")], [card("t", **DUMMY)])
    use(st, "b1")  # round 1: the ally's ability, ready again in round 4
    assert started(st, "a1")["ready_after"] == 4
    use(st, "a1")  # then the Glyph on it: two rounds sooner
    cut = of_type(st, "cooldown")[-1]
    assert (cut["unit"], cut["amount"], cut["ready_before"], cut["ready_after"]) == ("a1", -2, 4, 2)
    assert ability_offered(st, "a1") and st.round == 2


def test_runekeeper_sage_time_rune_comes_back_in_round_four() -> None:
    st = battle([official("runekeeper-sage")], [card("t", **DUMMY)])
    use(st, None)  # Time Rune, round 1: every ally's cooldown, its own included, cut while it resolves
    _, cooldown = own_use_logged_in_order(st, "a1")
    assert cooldown["ready_after"] == 4
    for rnd in (2, 3):
        assert not ability_offered(st, "a1") and st.round == rnd
        attack(st, "b1")
    assert ability_offered(st, "a1") and st.round == 4


def test_runekeeper_sage_time_rune_cuts_the_running_cooldowns_of_allies() -> None:
    fast = card("fast", spd=9, cooldown=3)
    st = battle([fast, official("runekeeper-sage")], [card("t", **DUMMY)])
    use(st, "b1")  # round 1: ready again in round 4
    use(st, None)  # Time Rune: one round sooner
    cut = next(e for e in of_type(st, "cooldown") if e["unit"] == "a1")
    assert (cut["ready_before"], cut["ready_after"]) == (4, 3)
    assert not ability_offered(st, "a1") and st.round == 2
    attack(st, "b1")
    assert ability_offered(st, "a1") and st.round == 3


def test_vampire_nightstalker_kill_with_silent_kill_keeps_its_whole_cooldown() -> None:
    victims = [card("w1", hp=5, df=0, spd=2), card("w2", hp=8, df=0, spd=2), card("t", **DUMMY)]
    st = battle([(official("vampire-nightstalker"), "vanguard")], victims)
    until_turn(st, "a1")
    use(st, "b1")  # Silent Kill defeats b1: Thrill of the Kill fires while the ability resolves
    trigger = of_type(st, "faction_triggered")[-1]
    assert (trigger["unit"], trigger["trigger"]) == ("a1", "defeats_enemy")
    _, cooldown = own_use_logged_in_order(st, "a1")
    assert cooldown["ready_after"] == 3
    assert not ability_offered(st, "a1") and st.round == 2
    # A kill by a Basic Attack while the cooldown runs: Thrill of the Kill shortens it by 2 (to this round).
    attack(st, "b2")
    cut = of_type(st, "cooldown")[-1]
    assert (cut["unit"], cut["ready_before"], cut["ready_after"]) == ("a1", 3, 2)


# Two cards whose faction ability cuts cooldowns when an enemy is defeated: Spark of Insight (its own) and
# Mana Siphon (every ally's, its own included).
ON_ENEMY_DEFEATED = ["apprentice-runecaster", "runic-archer"]


@pytest.mark.parametrize("slug", ON_ENEMY_DEFEATED)
def test_a_kill_by_its_own_ability_leaves_the_new_cooldown_whole(slug: str) -> None:
    st = battle([official(slug)], [card("w", hp=5, df=0, spd=2), card("t", **DUMMY)])
    use(st, "b1")  # the ability defeats b1: the faction ability fires while the ability resolves
    trigger = of_type(st, "faction_triggered")[-1]
    assert (trigger["unit"], trigger["trigger"]) == ("a1", "enemy_defeated")
    _, cooldown = own_use_logged_in_order(st, "a1")
    assert cooldown["ready_after"] == 3
    assert not ability_offered(st, "a1") and st.round == 2


@pytest.mark.parametrize("slug", ON_ENEMY_DEFEATED)
def test_a_kill_while_the_cooldown_runs_cuts_it(slug: str) -> None:
    killer = card("killer", atk=20, spd=4)
    st = battle([official(slug), killer], [card("w", hp=5, df=0, spd=2), card("t", **DUMMY)])
    use(st, "b2")  # round 1: the ability on the dummy, no kill: ready again in round 3
    assert started(st, "a1")["ready_after"] == 3
    attack(st, "b1")  # the ally's kill: the faction ability brings the cooldown one round sooner
    cut = next(e for e in of_type(st, "cooldown") if e["unit"] == "a1")
    assert (cut["ready_before"], cut["ready_after"]) == (3, 2)
    assert ability_offered(st, "a1") and st.round == 2


def test_a_delay_put_on_an_ability_while_it_resolves_stands_and_its_cooldown_runs_on_from_it() -> None:
    """Binding Runes answers a hit by delaying the attacker's ability; hit by that ability itself, the delay
    stands and the cooldown is counted from it (a card turned a quarter, then turned its cooldown further)."""
    st = battle([card("caster", spd=9, cooldown=2)], [official("runeforged-warden")])
    use(st, "b1")
    delay = of_type(st, "cooldown")[-1]
    assert (delay["unit"], delay["amount"], delay["ready_before"], delay["ready_after"]) == ("a1", 1, 1, 2)
    assert (started(st, "a1")["ready_before"], started(st, "a1")["ready_after"]) == (2, 4)
