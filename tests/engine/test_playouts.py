"""Seeded playouts: thousands of matches, every log replayed by the independent auditor (tests/engine/audit.py).

The official starter set is played with every agent pairing (random, greedy, search), both tie_break
options, Formation Rounds and short max_rounds / max_actions caps; the test card set and a variant of the
starter set (effects that outlive their source, triggers that count summons, picks that ignore lines)
cover what the starter set never does. Matches are played by `play_match`, or driven step by step with
each seat's agent on its own generator (G2), never the match generator.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from realms.engine.cards import CharacterCard, card_from_dict, cards_from_fixture
from realms.engine.effects import LASTING_KINDS
from realms.engine.events import EVENT_FIELDS
from realms.engine.formation import random_army
from realms.engine.game import new_match
from realms.engine.setup import ArmySetup, FormationSetup
from realms.engine.spec import DEFEAT_TRIGGERS, ENEMY_PICKS, faction_spec, main_spec
from realms.engine.state import RealmsState
from realms.engine.text import faction_text, main_text
from simulate.engine.agents import get_agent
from simulate.engine.events import schema_problems
from simulate.engine.runner import play_match
from tests.engine.audit import Auditor
from tests.engine.cardset import all_cards

STARTER = Path(__file__).resolve().parents[2] / "fixtures" / "realms_starter.json"
PAIRINGS = [("random", "random"), ("random", "greedy"), ("greedy", "random"), ("greedy", "greedy")]
TIE_BREAKS = ("random", "alternate")


@cache
def starter_cards() -> tuple[CharacterCard, ...]:
    """The official starter set."""
    return tuple(cards_from_fixture(json.loads(STARTER.read_text())))


@cache
def cardset_cards() -> tuple[CharacterCard, ...]:
    """The test card set (placeholder texts: audited without the card-text checks)."""
    return tuple(all_cards())


def _card_dict(c: CharacterCard, main: dict[str, Any], fab: dict[str, Any]) -> dict[str, Any]:
    return {
        "slug": c.slug, "name": c.name, "faction": c.faction, "class": c.character_class, "position": c.position,
        "rarity": c.rarity, "atk": c.atk, "def": c.def_, "spd": c.spd, "hp": c.hp, "cooldown": c.cooldown,
        "main_ability": main, "faction_ability": fab,
    }


@cache
def variant_cards() -> tuple[CharacterCard, ...]:
    """The starter set with what it never uses: every other card's lasting effects persist (R17), every
    defeat trigger counts summons (R18), enemy-choosing abilities with an enemy pick ignore lines (R12);
    texts regenerated so that they say so."""
    out = []
    for i, c in enumerate(starter_cards()):
        main, fab = main_spec(c.main), faction_spec(c.faction_ability)
        if i % 2 == 0:
            for eff in main["effects"] + fab["effects"]:
                if eff["kind"] in LASTING_KINDS:
                    eff["persists"] = True
        if fab["trigger"] in DEFEAT_TRIGGERS:
            fab["include_summons"] = True
        if main["choose"] == "enemy" and any(e.get("target") in ENEMY_PICKS for e in main["effects"]):
            main["ignore_lines"] = True
        out.append(with_texts(_card_dict(c, main, fab)))
    return tuple(out)


def with_texts(data: dict[str, Any]) -> CharacterCard:
    """A card whose two texts are generated from its specs (so that they say what the specs do)."""
    parsed = card_from_dict(data)
    data["main_ability"]["text"] = main_text(parsed.main)
    data["faction_ability"]["text"] = faction_text(parsed.faction_ability, parsed.faction.replace("-", " ").title())
    return card_from_dict(data)


def _stress(slug: str, rarity: str, cls: str, position: str, stats: tuple[int, int, int, int, int],
            choose: str, main: list[dict[str, Any]], trigger: str, fab: list[dict[str, Any]], **extra: Any) -> CharacterCard:
    atk, df, spd, hp, cooldown = stats
    m: dict[str, Any] = {"name": f"{slug} main", "text": "-", "choose": choose, "effects": main}
    if extra.get("ignore_lines"):
        m["ignore_lines"] = True
    f: dict[str, Any] = {"name": f"{slug} faction", "text": "-", "trigger": trigger, "effects": fab,
                         "limit": extra.get("limit", "none")}
    if extra.get("condition"):
        f["condition"] = extra["condition"]
    if extra.get("include_summons"):
        f["include_summons"] = True
    return with_texts({"slug": slug, "name": slug.replace("-", " ").title(), "faction": "shadow", "class": cls,
                       "position": position, "rarity": rarity, "atk": atk, "def": df, "spd": spd, "hp": hp,
                       "cooldown": cooldown, "main_ability": m, "faction_ability": f})


def _dmg(target: str, **params: Any) -> dict[str, Any]:
    return {"kind": "damage", "target": target, **params}


IMP = {"name": "Imp", "atk": 3, "def": 0, "spd": 7, "hp": 3}


@cache
def stress_cards() -> tuple[CharacterCard, ...]:
    """Cards that push the engine into its corners: chains of defeat triggers (trigger depth), replies that
    fell the attacker mid-ability (R10), summons in every phase and into full lines (R15), end-phase
    defeats, persisting effects of fallen sources (R17), summon-counting triggers (R18), self-hits after
    the last enemy fell (mutual elimination, R16), battle-start cooldowns, silences and moves."""
    return (
        _stress("chain-reaper", "common", "mage", "rearguard", (8, 1, 6, 10, 1), "none",
                [_dmg("all_enemies", flat=2, ignore_def=True),
                 {"kind": "poison", "target": "all_enemies", "amount": 2, "duration": 2, "persists": True}],
                "enemy_defeated", [_dmg("all_enemies", flat=3, ignore_def=True)], include_summons=True),
        _stress("thorn-wall", "common", "tank", "vanguard", (3, 4, 2, 18, 2), "none",
                [{"kind": "summon", "line": "same", "count": 3, "unit": IMP}],
                "on_hit", [_dmg("attacker", flat=4, ignore_def=True)]),
        _stress("martyr", "common", "support", "rearguard", (2, 0, 5, 8, 1), "ally",
                [{"kind": "heal", "target": "target", "flat": 3},
                 {"kind": "regen", "target": "target", "amount": 2, "duration": 2, "persists": True}],
                "ally_defeated", [{"kind": "summon", "line": "vanguard", "count": 2, "unit": IMP}], include_summons=True,
                limit="round"),  # without a limit, two martyrs' acting imps feed each other for ever
        _stress("blood-mage", "common", "mage", "rearguard", (9, 0, 7, 7, 1), "enemy",
                [_dmg("target", scale=1.3), _dmg("self", flat=4, ignore_def=True),
                 {"kind": "burn", "target": "target", "amount": 2, "duration": 3}],
                "before_action", [_dmg("self", flat=2, ignore_def=True),
                                  {"kind": "buff", "target": "self", "stat": "atk", "amount": 2, "duration": 1}]),
        _stress("imp-lord", "common", "warrior", "vanguard", (5, 2, 7, 12, 2), "enemy",
                [_dmg("target", scale=0.7), _dmg("random_enemy", scale=0.7), _dmg("highest_atk_enemy", scale=0.7)],
                "round_end", [_dmg("all_enemies", flat=2, ignore_def=True),
                              {"kind": "summon", "line": "same", "count": 1, "unit": IMP}], ignore_lines=True),
        _stress("night-blade", "uncommon", "assassin", "flex", (9, 1, 9, 9, 2), "enemy",
                [_dmg("target", scale=1.1), {"kind": "silence", "target": "target", "duration": 2},
                 {"kind": "move", "target": "target", "to": "other"}],
                "defeats_enemy", [{"kind": "cooldown", "target": "self", "amount": -2},
                                  _dmg("lowest_hp_enemy", flat=3, ignore_def=True)], include_summons=True),
        _stress("hexer", "uncommon", "support", "vanguard", (4, 2, 4, 14, 2), "none",
                [{"kind": "cooldown", "target": "all_enemies", "amount": 2},
                 {"kind": "debuff", "target": "all_enemies", "stat": "spd", "amount": 3, "duration": 2, "persists": True}],
                "battle_start", [{"kind": "silence", "target": "highest_atk_enemy", "duration": 1},
                                 {"kind": "cooldown", "target": "all_enemies", "amount": 1},
                                 {"kind": "move", "target": "enemy_rearguard", "to": "vanguard"},
                                 _dmg("all_enemies", flat=1, ignore_def=True)]),
        _stress("bulwark", "uncommon", "tank", "vanguard", (2, 6, 1, 26, 2), "none",
                [{"kind": "shield", "target": "all_allies", "flat": 3, "duration": 2, "persists": True},
                 {"kind": "dispel", "target": "all_enemies"}],
                "on_hit", [{"kind": "shield", "target": "self", "flat": 2, "duration": 1},
                           {"kind": "debuff", "target": "attacker", "stat": "atk", "amount": 3, "duration": 1}],
                condition={"hp_below": 0.6}, limit="round"),
        _stress("storm-caller", "rare", "archer", "rearguard", (7, 1, 8, 11, 2), "enemy",
                [_dmg("target_line", scale=0.9), {"kind": "move", "target": "target", "to": "rearguard"},
                 _dmg("target", flat=2)],
                "round_start", [_dmg("random_enemy", flat=2, ignore_def=True),
                                {"kind": "buff", "target": "all_allies", "stat": "spd", "amount": 1, "duration": 1}]),
        _stress("grave-lord", "rare", "warrior", "vanguard", (6, 3, 5, 20, 3), "none",
                [{"kind": "summon", "line": "rearguard", "count": 2, "unit": IMP}, {"kind": "cleanse", "target": "all_allies"}],
                "ally_defeated", [_dmg("all_enemies", flat=2, ignore_def=True),
                                  {"kind": "heal", "target": "lowest_hp_ally", "flat": 2}]),
        _stress("sapper", "rare", "support", "rearguard", (3, 1, 6, 12, 1), "enemy",
                [{"kind": "poison", "target": "target_line", "amount": 3, "duration": 1},
                 {"kind": "burn", "target": "target", "amount": 1, "duration": 2, "persists": True}],
                "enemy_defeated", [_dmg("all_enemies", flat=1, ignore_def=True)], include_summons=True),
        _stress("abyss-king", "legendary", "tank", "vanguard", (6, 5, 3, 30, 3), "none",
                [_dmg("all_enemies", scale=0.8), {"kind": "poison", "target": "all_enemies", "amount": 1, "duration": 3}],
                "enemy_defeated", [_dmg("random_enemy", flat=2, ignore_def=True)], limit="round"),
        _stress("lich", "legendary", "mage", "rearguard", (10, 1, 6, 14, 2), "enemy",
                [_dmg("target", scale=1.5), {"kind": "cooldown", "target": "target", "amount": 1}],
                "round_end", [{"kind": "poison", "target": "all_enemies", "amount": 1, "duration": 2},
                              _dmg("lowest_hp_enemy", flat=2, ignore_def=True)]),
        _stress("swift-knife", "legendary", "assassin", "flex", (8, 2, 10, 12, 1), "none",
                [_dmg("lowest_hp_enemy", scale=1.0), _dmg("highest_atk_enemy", scale=0.5), _dmg("lowest_hp_enemy", flat=2)],
                "after_action", [{"kind": "move", "target": "self", "to": "other"}, _dmg("self", flat=1, ignore_def=True)]),
    )


POOLS = {"starter": starter_cards, "test": cardset_cards, "variant": variant_cards, "stress": stress_cards}
TOTALS: Counter[str] = Counter()  # matches, events and checks audited in this process, and the rule paths taken


def audited(events: list[dict[str, Any]], pool: str, label: Any) -> Auditor:
    """The log checked against the schema and replayed by the auditor, which must find nothing."""
    assert not schema_problems(events, EVENT_FIELDS), label
    auditor = Auditor(events, card_text=pool != "test")
    problems = auditor.run()
    assert problems == [], (label, problems)
    TOTALS.update(matches=1, events=len(events), checks=auditor.checks)
    TOTALS.update(auditor.counts)
    return auditor


def options_for(rng: random.Random, tie_break: str) -> dict[str, Any]:
    """Match options: the tie-break under test, a first player, and now and then short caps."""
    options: dict[str, Any] = {
        "tie_break": tie_break,
        "max_rounds": rng.choice([3, 8, 20, 50, 50]),
        "first_player": rng.choice(["random", "a", "b"]),
    }
    if rng.random() < 0.04:
        options["max_actions"] = rng.randrange(20, 120)
    return options


def play_batch(pool: str, pairing: tuple[str, str], tie_break: str, count: int, seed0: int,
               formation_every: int = 0) -> dict[str, int]:
    """`count` audited matches; how they ended."""
    cards = list(POOLS[pool]())
    rng = random.Random(seed0)
    reasons: dict[str, int] = {}
    for k in range(count):
        seed = seed0 * 10_000 + k
        options = options_for(rng, tie_break)
        if formation_every and k % formation_every == 0:
            setup: Any = FormationSetup(a=cards, b=cards)
        else:
            setup = ArmySetup(a=random_army(cards, rng), b=random_army(cards, rng))
        result = play_match("realms", setup=setup, agents=list(pairing), seed=seed, options=options)
        audited(result.events, pool, (pool, pairing, seed, options))  # type: ignore[arg-type]
        assert result.rounds <= options["max_rounds"]
        reasons[result.reason] = reasons.get(result.reason, 0) + 1
    assert set(reasons) <= {"elimination", "mutual_elimination", "max_rounds", "max_actions"}
    return reasons


@pytest.mark.parametrize("chunk", range(3))
@pytest.mark.parametrize("tie_break", TIE_BREAKS)
@pytest.mark.parametrize("pairing", PAIRINGS, ids="-".join)
def test_starter_set_playouts_break_no_rule(pairing: tuple[str, str], tie_break: str, chunk: int) -> None:
    seed0 = 100 + 10 * PAIRINGS.index(pairing) + 5 * TIE_BREAKS.index(tie_break) + chunk
    reasons = play_batch("starter", pairing, tie_break, 230, seed0, formation_every=6)
    assert reasons.get("elimination", 0) > 0


@pytest.mark.parametrize("tie_break", TIE_BREAKS)
@pytest.mark.parametrize("pool", ["test", "variant", "stress"])
@pytest.mark.parametrize("pairing", PAIRINGS, ids="-".join)
def test_other_card_pools_break_no_rule(pairing: tuple[str, str], pool: str, tie_break: str) -> None:
    seed0 = 500 + 100 * ("test", "variant", "stress").index(pool) + 10 * PAIRINGS.index(pairing) + TIE_BREAKS.index(tie_break)
    play_batch(pool, pairing, tie_break, 90, seed0, formation_every=10)


SEARCH_PAIRINGS = [("search", "greedy"), ("greedy", "search"), ("search", "random"), ("random", "search")]


@pytest.mark.parametrize("tie_break", TIE_BREAKS)
@pytest.mark.parametrize("pairing", SEARCH_PAIRINGS, ids="-".join)
def test_search_playouts_break_no_rule(pairing: tuple[str, str], tie_break: str) -> None:
    seed0 = 900 + 10 * SEARCH_PAIRINGS.index(pairing) + 5 * TIE_BREAKS.index(tie_break)
    play_batch("starter", pairing, tie_break, 3 if "random" in pairing else 2, seed0, formation_every=3)


def check_decision(st: RealmsState) -> None:
    """Invariants of the state itself at every decision (the log is audited separately)."""
    for u in st.units:
        assert 0 <= u.hp <= u.max_hp
        assert u.alive == (u in st.living[u.side])
        if u.alive:
            assert u.hp > 0
            assert u.atk_now >= 0 and u.def_now >= 0 and u.spd_now >= 0
    for side in ("a", "b"):
        for line in ("vanguard", "rearguard"):
            assert sum(1 for u in st.living[side] if u.line == line) <= 5
    assert st.legal_actions()
    if st.phase() == "act":
        actor = st.acting_unit()
        assert actor is not None and actor.alive


def drive(st: RealmsState, names: tuple[str, str], cap: int = 5000) -> int:
    """Play a state to the end with each seat's agent on its own generator (G2); the decisions taken."""
    agents = {"a": get_agent(names[0], "realms"), "b": get_agent(names[1], "realms")}
    seat_rngs = {p: random.Random(s) for p, s in st.agent_seeds.items()}  # never the match generator
    steps = 0
    while not st.is_terminal():
        check_decision(st)
        legal = st.legal_actions()
        player = st.current_player()
        st.apply(agents[player].act(st.observation(player), legal, seat_rngs[player]) if len(legal) > 1 else legal[0])
        steps += 1
        assert steps < cap, "a match did not end"
    return steps


@pytest.mark.parametrize("tie_break", TIE_BREAKS)
def test_driven_states_keep_their_invariants_and_logs(tie_break: str) -> None:
    cards = list(starter_cards())
    rng = random.Random(77 + TIE_BREAKS.index(tie_break))
    for seed in range(120):
        names = PAIRINGS[seed % len(PAIRINGS)]
        options: dict[str, Any] = {"tie_break": tie_break, "max_rounds": rng.choice([5, 20, 50])}
        if seed % 8 == 0:
            st = new_match({"collections": {"a": cards, "b": cards}}, seed=seed, options=options)
        else:
            st = new_match({"armies": {"a": random_army(cards, rng), "b": random_army(cards, rng)}}, seed=seed,
                           options=options)
        decisions = drive(st, names)
        events = st.events()
        auditor = audited(events, "starter", (names, seed, options))  # type: ignore[arg-type]
        assert auditor.decisions == decisions
        assert st.outcome().rounds <= options["max_rounds"]


@pytest.mark.parametrize("pool", ["starter", "stress"])
def test_a_match_without_its_log_ends_the_same(pool: str) -> None:
    """The audited log is the match that is played: without a log (the engine's fast paths) it ends alike."""
    cards = list(POOLS[pool]())
    rng = random.Random(41)
    for seed in range(60):
        setup = ArmySetup(a=random_army(cards, rng), b=random_army(cards, rng))
        options = {"tie_break": TIE_BREAKS[seed % 2]}
        pairing = list(PAIRINGS[seed % len(PAIRINGS)])
        logged = play_match("realms", setup=setup, agents=pairing, seed=seed, options=options)
        bare = play_match("realms", setup=setup, agents=pairing, seed=seed, options=options, keep_log=False)
        assert bare.events is None
        assert (bare.winner, bare.reason, bare.rounds, bare.actions, bare.survivors) == (
            logged.winner, logged.reason, logged.rounds, logged.actions, logged.survivors), (pool, seed)
