"""The auditor catches each way a log can break a rule: real engine logs, corrupted one rule at a time.

Every mutation below takes real logs (starter-set matches, stress-pool matches, a mutual elimination),
finds the first place where it applies, breaks one rule there and checks that the auditor (a) passes
the log as logged and (b) flags the corrupted one with a message naming the rule.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Iterator
from functools import cache
from typing import Any

import pytest

from realms.engine.formation import random_army
from realms.engine.setup import ArmySetup, FormationSetup
from simulate.engine.runner import play_match
from tests.engine.audit import Auditor, audit
from tests.engine.helpers import battle, card, main
from tests.engine.test_playouts import starter_cards, stress_cards
from tests.engine.test_table_changes import table_logs

Events = list[dict[str, Any]]
Log = tuple[str, Events, dict[str, Any]]  # label, events, audit options


@cache
def logs() -> tuple[Log, ...]:
    """Real logs: starter-set matches (both tie-breaks, every agent pairing, Formation Rounds), stress-pool
    matches (summons, persisting effects, deaths in one's own action) and a mutual elimination."""
    out: list[Log] = []
    rng = random.Random(2718)
    pairings = [["greedy", "greedy"], ["random", "greedy"], ["greedy", "random"], ["random", "random"]]
    for pool, cards_of, count in (("starter", starter_cards, 40), ("stress", stress_cards, 30)):
        cards = list(cards_of())
        for k in range(count):
            options = {"tie_break": ("alternate", "random")[k % 2], "max_rounds": (50, 50, 6)[k % 3]}
            setup: Any = FormationSetup(a=cards, b=cards) if k % 5 == 4 else ArmySetup(
                a=random_army(cards, rng), b=random_army(cards, rng))
            result = play_match("realms", setup=setup, agents=pairings[k % 4], seed=31 * k + 7, options=options)
            out.append((f"{pool}-{k}", result.events, {}))  # type: ignore[arg-type]
    strike_then_fall = main({"kind": "damage", "target": "target", "flat": 50, "ignore_def": True},
                            {"kind": "damage", "target": "self", "flat": 50, "ignore_def": True})
    st = battle([card("x", hp=5, spd=9, main=strike_then_fall)], [card("y", hp=5)])
    st.apply(("ability", "b1"))
    out.append(("mutual", st.events(), {"full_armies": False, "card_text": False}))  # type: ignore[arg-type]
    # Summons tied on SPD with enemy units, under both tie-breaks (R15); an ability cutting every ally's
    # cooldown, its user's included, while it resolves (R13).
    imps = main({"kind": "summon", "unit": {"name": "Imp", "atk": 2, "def": 0, "spd": 5, "hp": 6}, "line": "same"},
                choose="none")
    rune = main({"kind": "damage", "target": "target", "flat": 2, "ignore_def": True},
                {"kind": "cooldown", "target": "all_allies", "amount": -1})
    for tie_break in ("random", "alternate"):
        for seed in range(3):
            st = battle([card("caller", spd=9, cooldown=1, main=imps), card("runes", spd=4, hp=60, main=rune),
                         card("ally", spd=5, hp=60)], [card("t1", spd=5, hp=60), card("t2", spd=5, hp=60)],
                        seed=seed, tie_break=tie_break, max_rounds=6)
            while not st.is_terminal():
                legal = st.legal_actions()
                st.apply(next((a for a in legal if a[0] == "ability"), legal[0]))
            out.append((f"ties-{tie_break}-{seed}", st.events(), {"full_armies": False, "card_text": False}))
    # A taunt (no official card taunts): the taunted unit's Basic Attacks narrowed to its taunter (R12).
    taunt = main({"kind": "taunt", "target": "target", "duration": 2})
    for seed in range(2):
        st = battle([card("taunter", cls="support", position="vanguard", spd=9, hp=60, main=taunt),
                     card("weak", spd=1, hp=30)], [card("brute", spd=5, hp=60), card("other", spd=4, hp=40)],
                    seed=seed, max_rounds=6)
        while not st.is_terminal():
            legal = st.legal_actions()
            st.apply(next((a for a in legal if a[0] == "ability"), legal[-1]))
        out.append((f"taunt-{seed}", st.events(), {"full_armies": False, "card_text": False}))
    # Games with changes made at a table: HP by hand (falls included), free effects put on and taken off.
    out.extend((f"table-{seed}", events, {}) for seed, events in table_logs()[:6])
    return tuple(out)


class Seen:
    """What the log has shown so far (a plain tracker used to aim the corruptions, not an auditor)."""

    def __init__(self) -> None:
        self.units: dict[str, dict[str, Any]] = {}
        self.round = 0
        self.options: dict[str, Any] = {}
        self.effects: dict[int, dict[str, Any]] = {}
        self.gone: dict[int, dict[str, Any]] = {}

    def update(self, e: dict[str, Any]) -> None:
        t = e["type"]
        if t == "match_start":
            self.options = e["options"]
            for u in e["units"]:
                fab = u["faction_ability"]
                self.units[u["id"]] = {
                    "side": u["side"], "line": u["line"], "alive": True, "summon": False, "hp": u["hp"], "ready": 1,
                    "silences": set(), "trigger": fab["trigger"], "fab": fab, "main": u["main_ability"], "card": u,
                }
        elif t == "summon":
            self.units[e["unit"]] = {
                "side": e["side"], "line": e["line"], "alive": True, "summon": True, "hp": e["hp"], "ready": 1,
                "silences": set(), "trigger": None, "fab": None, "main": None, "card": None,
            }
        elif t == "move":
            self.units[e["unit"]]["line"] = e["to"]
        elif t == "defeated":
            self.units[e["unit"]]["alive"] = False
        elif t in ("damage", "heal"):
            self.units[e["tgt"]]["hp"] = e["hp_after"]
        elif t == "effect_applied":
            self.effects[e["eid"]] = e
            if e["kind"] == "silence":
                self.units[e["unit"]]["silences"].add(e["eid"])
        elif t == "effect_expired":
            self.gone[e["eid"]] = e
            self.units[e["unit"]]["silences"].discard(e["eid"])
        elif t == "cooldown_started" or t == "cooldown":
            self.units[e["unit"]]["ready"] = e["ready_after"]
        elif t == "round_start":
            self.round = e["round"]

    def living(self, side: str, line: str | None = None) -> list[str]:
        return [k for k, u in self.units.items() if u["alive"] and u["side"] == side and line in (None, u["line"])]


def walk(events: Events) -> Iterator[tuple[int, dict[str, Any], Seen]]:
    """Each event with what the log showed before it."""
    seen = Seen()
    for i, e in enumerate(events):
        yield i, e, seen
        seen.update(e)


def after_defeat(events: Events, i: int) -> int:
    """The index right after a `defeated` event and the expiries that come with it."""
    j = i + 1
    while j < len(events) and events[j]["type"] == "effect_expired" and events[j]["reason"] in (
            "unit_defeated", "source_defeated"):
        j += 1
    return j


def foe(side: str) -> str:
    return "b" if side == "a" else "a"


# ----------------------------------------------------------------------------- the mutations
# Each takes a real log and returns it corrupted (a copy), or None when the log has no place for it.

Mutation = Callable[[Events], "Events | None"]
MUTATIONS: dict[str, tuple[str, Mutation]] = {}


def mutation(name: str, rule: str) -> Callable[[Mutation], Mutation]:
    def register(fn: Mutation) -> Mutation:
        MUTATIONS[name] = (rule, fn)
        return fn
    return register


@mutation("damage amount off by one", "R11")
def _damage_off_by_one(events: Events) -> Events | None:
    for i, e, _ in walk(events):
        if e["type"] == "damage" and e["via"] == "ability" and e["absorbed"] == 0 and e["hp_after"] > 1:
            ev = copy.deepcopy(events)
            ev[i]["amount"] += 1
            ev[i]["hp_after"] -= 1
            return ev
    return None


@mutation("scaled damage rounded instead of floored", "R11")
def _power_rounded(events: Events) -> Events | None:
    for i, e, _ in walk(events):
        if e["type"] == "damage" and e["via"] == "ability" and e["def"] is not None and e["absorbed"] == 0 \
                and e["hp_after"] > 1 and e["power"] - e["def"] >= 1:
            ev = copy.deepcopy(events)
            ev[i]["power"] += 1
            ev[i]["amount"] += 1
            ev[i]["hp_after"] -= 1
            return ev
    return None


@mutation("DEF read without its modifiers", "R11")
def _def_unmodified(events: Events) -> Events | None:
    for i, e, seen in walk(events):
        if e["type"] == "damage" and e["via"] == "basic" and e["def"] is not None:
            printed = seen.units[e["tgt"]]["card"]
            if printed is not None and printed["def"] != e["def"]:
                ev = copy.deepcopy(events)
                ev[i]["def"] = printed["def"]
                return ev
    return None


@mutation("HP chain broken", "R11")
def _hp_chain(events: Events) -> Events | None:
    for i, e, _ in walk(events):
        if e["type"] == "damage" and e["hp_after"] > 0 and e["hp_before"] > 1:
            ev = copy.deepcopy(events)
            ev[i]["hp_before"] -= 1
            ev[i]["hp_after"] -= 1
            return ev
    return None


@mutation("shield absorbs one point too few", "R11")
def _shield(events: Events) -> Events | None:
    for i, e, _ in walk(events):
        if e["type"] == "damage" and e["absorbed"] > 0 and e["hp_after"] > 1:
            ev = copy.deepcopy(events)
            ev[i]["absorbed"] -= 1
            ev[i]["hp_after"] -= 1
            return ev
    return None


@mutation("heal above max HP", "R11")
def _overheal(events: Events) -> Events | None:
    for i, e, _ in walk(events):
        if e["type"] == "heal" and e["healed"] < e["amount"]:
            ev = copy.deepcopy(events)
            ev[i]["healed"] += 1
            ev[i]["hp_after"] += 1
            return ev
    return None


@mutation("a defeat with HP left", "R11")
def _defeat_with_hp(events: Events) -> Events | None:
    for i, e, _ in walk(events):
        if e["type"] == "damage" and e["hp_after"] == 0 and events[i + 1]["type"] == "defeated":
            ev = copy.deepcopy(events)
            ev[i]["hp_after"] = 1
            return ev
    return None


@mutation("wrong until", "R14")
def _until(events: Events) -> Events | None:
    for i, e, _ in walk(events):
        if e["type"] == "effect_applied" and e["kind"] in ("buff", "debuff", "shield", "silence"):
            ev = copy.deepcopy(events)
            ev[i]["until"] += 1
            return ev
    return None


@mutation("poison until one round short", "R14")
def _ongoing_until(events: Events) -> Events | None:
    for i, e, _ in walk(events):
        if e["type"] == "effect_applied" and e["kind"] in ("poison", "burn"):
            ev = copy.deepcopy(events)
            ev[i]["until"] -= 1
            return ev
    return None


def _tick_like(tick: dict[str, Any], hp: int) -> dict[str, Any]:
    extra = dict(tick)
    extra["hp_before"] = hp
    extra["hp_after"] = max(0, hp - tick["amount"])
    extra["absorbed"] = 0
    return extra


@mutation("an extra poison tick after the last one", "R14")
def _extra_tick(events: Events) -> Events | None:
    last: dict[int, dict[str, Any]] = {}
    for i, e, seen in walk(events):
        if e["type"] == "damage" and e["via"] == "ongoing":
            nxt = events[i + 1]
            if nxt["type"] == "effect_expired" and nxt["eid"] == e["eid"] and nxt["reason"] == "duration":
                last[e["eid"]] = e
        if e["type"] == "round_start" and e["round"] >= 2:
            for tick in last.values():
                u = seen.units[tick["tgt"]]
                if u["alive"] and u["hp"] > tick["amount"]:
                    ev = copy.deepcopy(events)
                    ev.insert(i + 1, _tick_like(tick, u["hp"]))
                    return ev
    return None


@mutation("an effect of a fallen source still ticking", "R17")
def _tick_from_fallen(events: Events) -> Events | None:
    ended: dict[int, dict[str, Any]] = {}
    for i, e, seen in walk(events):
        if e["type"] == "effect_expired" and e["reason"] == "source_defeated" and e["kind"] in ("poison", "burn"):
            ended[e["eid"]] = e
        if e["type"] == "round_start" and e["round"] >= 2:
            for eid, gone in ended.items():
                u = seen.units[gone["unit"]]
                applied = seen.effects[eid]
                if u["alive"] and u["hp"] > applied["amount"]:
                    tick = {"type": "damage", "src": applied["src"], "tgt": gone["unit"], "src_line": None,
                            "tgt_line": u["line"], "via": "ongoing", "atk": None, "power": applied["amount"],
                            "def": None, "amount": applied["amount"], "absorbed": 0, "hp_before": u["hp"],
                            "hp_after": u["hp"] - applied["amount"], "eid": eid, "use": None}
                    ev = copy.deepcopy(events)
                    ev.insert(i + 1, tick)
                    return ev
    return None


@mutation("a missing source_defeated expiry", "R17")
def _missing_source_expiry(events: Events) -> Events | None:
    for i, e, _ in walk(events):
        if e["type"] == "effect_expired" and e["reason"] == "source_defeated":
            return events[:i] + events[i + 1:]
    return None


@mutation("a missing unit_defeated expiry", "R17")
def _missing_unit_expiry(events: Events) -> Events | None:
    for i, e, _ in walk(events):
        if e["type"] == "effect_expired" and e["reason"] == "unit_defeated":
            return events[:i] + events[i + 1:]
    return None


@mutation("an effect said to persist that does not", "R17")
def _persists(events: Events) -> Events | None:
    for i, e, _ in walk(events):
        if e["type"] == "effect_applied" and not e["persists"]:
            ev = copy.deepcopy(events)
            ev[i]["persists"] = True
            return ev
    return None


@mutation("a vanguard pick reaching a screened rearguard", "R12")
def _screened_pick(events: Events) -> Events | None:
    for i, e, seen in walk(events):
        if e["type"] == "pick" and not e["selector"].endswith("_ally") and seen.units[e["src"]]["line"] == "vanguard":
            side = foe(seen.units[e["src"]]["side"])
            rear = seen.living(side, "rearguard")
            if rear and seen.living(side, "vanguard"):
                ev = copy.deepcopy(events)
                ev[i]["pool"] = seen.living(side)
                ev[i]["unit"] = rear[0]
                return ev
    return None


@mutation("a lowest-HP pick that is not the lowest", "R12")
def _lowest_pick(events: Events) -> Events | None:
    for i, e, _ in walk(events):
        if e["type"] == "pick" and e["selector"].startswith("lowest_hp") and len(e["pool"]) >= 2:
            ev = copy.deepcopy(events)
            ev[i]["unit"] = next(u for u in e["pool"] if u != e["unit"])
            return ev
    return None


@mutation("a random pick that is not the seeded draw", "G1")
def _random_pick(events: Events) -> Events | None:
    for i, e, _ in walk(events):
        if e["type"] == "pick" and e["random"] and len(e["pool"]) >= 2:
            ev = copy.deepcopy(events)
            ev[i]["unit"] = next(u for u in e["pool"] if u != e["unit"])
            return ev
    return None


def _act_decisions(events: Events) -> Iterator[tuple[int, dict[str, Any], Seen]]:
    for i, e, seen in walk(events):
        if e["type"] == "decision" and e["stage"] == "act":
            yield i, e, seen


@mutation("an action not among the legal ones", "R10")
def _illegal_action(events: Events) -> Events | None:
    for i, e, seen in _act_decisions(events):
        allies = [u for u in seen.living(e["player"]) if u != e["unit"]]
        if allies and e["action"][0] == "attack" and events[i + 1]["type"] == "damage":
            ev = copy.deepcopy(events)
            ev[i]["action"] = ["attack", allies[0]]
            ev[i + 1]["tgt"] = allies[0]
            return ev
    return None


@mutation("a legal list missing a target", "R12")
def _legal_missing(events: Events) -> Events | None:
    for i, e, _ in _act_decisions(events):
        attacks = [a for a in e["legal"] if a[0] == "attack" and a != e["action"]]
        if attacks:
            ev = copy.deepcopy(events)
            ev[i]["legal"].remove(attacks[0])
            return ev
    return None


@mutation("a screened rearguard offered to a vanguard attacker", "R12")
def _legal_screened(events: Events) -> Events | None:
    for i, e, seen in _act_decisions(events):
        side = foe(e["player"])
        rear = seen.living(side, "rearguard")
        if seen.units[e["unit"]]["line"] == "vanguard" and rear and seen.living(side, "vanguard"):
            ev = copy.deepcopy(events)
            ev[i]["legal"].insert(0, ["attack", rear[0]])
            return ev
    return None


def _ability_entry(u: dict[str, Any], seen: Seen, player: str) -> list[Any]:
    choose = u["main"]["choose"]
    if choose == "none":
        return ["ability", None]
    return ["ability", (seen.living(foe(player)) if choose == "enemy" else seen.living(player))[0]]


@mutation("the Main Ability offered on cooldown", "R13")
def _ability_on_cooldown(events: Events) -> Events | None:
    for i, e, seen in _act_decisions(events):
        u = seen.units[e["unit"]]
        if u["main"] is not None and u["ready"] > seen.round and not u["silences"]:
            ev = copy.deepcopy(events)
            ev[i]["legal"].append(_ability_entry(u, seen, e["player"]))
            return ev
    return None


@mutation("the Main Ability offered to a silenced unit", "R10")
def _ability_silenced(events: Events) -> Events | None:
    for i, e, seen in _act_decisions(events):
        u = seen.units[e["unit"]]
        if u["main"] is not None and u["ready"] <= seen.round and u["silences"]:
            ev = copy.deepcopy(events)
            ev[i]["legal"].append(_ability_entry(u, seen, e["player"]))
            return ev
    return None


@mutation("a Basic Attack offered past a taunt", "R12")
def _attack_past_taunt(events: Events) -> Events | None:
    for i, e, seen in _act_decisions(events):
        taunters = [x["src"] for eid, x in seen.effects.items()
                    if x["kind"] == "taunt" and x["unit"] == e["unit"] and eid not in seen.gone]
        attacks = [a[1] for a in e["legal"] if a[0] == "attack"]
        others = [uid for uid in seen.living(foe(e["player"])) if uid not in attacks]
        if taunters and attacks == taunters[:1] and others:
            ev = copy.deepcopy(events)
            ev[i]["legal"].insert(0, ["attack", others[0]])
            return ev
    return None


@mutation("a ready Main Ability not offered", "R13")
def _ability_missing(events: Events) -> Events | None:
    for i, e, _ in _act_decisions(events):
        if e["action"][0] == "attack" and any(a[0] == "ability" for a in e["legal"]):
            ev = copy.deepcopy(events)
            ev[i]["legal"] = [a for a in e["legal"] if a[0] != "ability"]
            return ev
    return None


@mutation("a unit acting twice", "R10")
def _acts_twice(events: Events) -> Events | None:
    for i, e, _ in _act_decisions(events):
        nxt = events[i + 1]
        if e["action"][0] == "attack" and nxt["type"] == "damage" and nxt["hp_after"] > 0 \
                and events[i + 2]["type"] == "decision":
            again = dict(nxt, hp_before=nxt["hp_after"], hp_after=max(1, nxt["hp_after"] - nxt["amount"]))
            ev = copy.deepcopy(events)
            ev[i + 2:i + 2] = [copy.deepcopy(e), again]
            return ev
    return None


@mutation("a living unit skipping its turn", "R10")
def _skipped(events: Events) -> Events | None:
    for i, e, _ in _act_decisions(events):
        if e["action"][0] == "attack" and events[i + 1]["type"] == "damage" and events[i + 2]["type"] == "decision" \
                and events[i + 1]["hp_after"] > 0:
            return events[:i] + events[i + 2:]
    return None


@mutation("a defeat trigger firing for a summon", "R18")
def _trigger_for_summon(events: Events) -> Events | None:
    for i, e, seen in walk(events):
        if e["type"] == "defeated" and e["cause"] == "damage" and seen.units[e["unit"]]["summon"]:
            side = seen.units[e["unit"]]["side"]
            for uid in seen.living(side):
                u = seen.units[uid]
                if uid != e["unit"] and u["trigger"] == "ally_defeated" and not u["fab"].get("include_summons"):
                    fired = {"type": "faction_triggered", "use": 10_000, "cause": e["use"], "unit": uid,
                             "ability": u["fab"]["name"], "trigger": "ally_defeated"}
                    ev = copy.deepcopy(events)
                    ev.insert(after_defeat(events, i), fired)
                    return ev
    return None


@mutation("a missing defeat trigger", "R18")
def _missing_trigger(events: Events) -> Events | None:
    for i, e, _ in walk(events):
        if e["type"] == "faction_triggered" and e["trigger"] in ("ally_defeated", "enemy_defeated"):
            return events[:i] + events[i + 1:]
    return None


@mutation("a once-per-battle trigger firing twice", "R18")
def _battle_limit(events: Events) -> Events | None:
    fired: dict[str, dict[str, Any]] = {}
    for i, e, seen in walk(events):
        if e["type"] == "faction_triggered" and e["trigger"] == "ally_defeated" \
                and seen.units[e["unit"]]["fab"].get("limit") == "battle":
            fired[e["unit"]] = e
        elif e["type"] == "defeated" and e["cause"] == "damage" and not seen.units[e["unit"]]["summon"]:
            for uid, first in fired.items():
                u = seen.units[uid]
                if u["alive"] and uid != e["unit"] and u["side"] == seen.units[e["unit"]]["side"]:
                    ev = copy.deepcopy(events)
                    ev.insert(after_defeat(events, i), dict(first, use=10_000, cause=e["use"]))
                    return ev
    return None


@mutation("a defeat credited to the wrong unit", "R18")
def _wrong_by(events: Events) -> Events | None:
    for i, e, seen in walk(events):
        if e["type"] == "defeated" and e["cause"] == "damage" and e["by"] is not None:
            others = [u for u in seen.living(seen.units[e["by"]]["side"]) if u != e["by"]]
            if others:
                ev = copy.deepcopy(events)
                ev[i]["by"] = others[0]
                return ev
    return None


@mutation("lost_action wrong", "R10")
def _lost_action(events: Events) -> Events | None:
    for i, e, _ in walk(events):
        if e["type"] == "defeated":
            ev = copy.deepcopy(events)
            ev[i]["lost_action"] = not e["lost_action"]
            return ev
    return None


@mutation("an effect after its source fell in its own action", "R10")
def _effect_after_fall(events: Events) -> Events | None:
    for i, e, seen in walk(events):
        if e["type"] == "fizzle" and e["reason"] == "source_defeated" and e["use"] is not None:
            side = foe(seen.units[e["src"]]["side"])
            targets = seen.living(side)
            if targets:
                t = seen.units[targets[0]]
                hit = {"type": "damage", "src": e["src"], "tgt": targets[0], "src_line": None, "tgt_line": t["line"],
                       "via": e["via"], "atk": 5, "power": 5, "def": 0, "amount": 5, "absorbed": 0,
                       "hp_before": t["hp"], "hp_after": max(0, t["hp"] - 5), "eid": None, "use": e["use"]}
                ev = copy.deepcopy(events)
                ev[i] = hit
                return ev
    return None


@mutation("wrong winner", "R16")
def _winner(events: Events) -> Events | None:
    e = events[-1]
    if e["type"] == "match_end" and e["winner"] is not None:
        ev = copy.deepcopy(events)
        ev[-1]["winner"] = foe(e["winner"])
        return ev
    return None


@mutation("a draw by mutual elimination declared a win", "R16")
def _draw_as_win(events: Events) -> Events | None:
    e = events[-1]
    if e["type"] == "match_end" and e["reason"] == "mutual_elimination":
        ev = copy.deepcopy(events)
        ev[-1].update(winner="a", reason="elimination")
        return ev
    return None


@mutation("max_rounds reached without the draw", "R16")
def _max_rounds(events: Events) -> Events | None:
    e = events[-1]
    if e["type"] == "match_end" and e["reason"] == "max_rounds":
        ev = copy.deepcopy(events)
        ev[-1].update(winner="a", reason="elimination")
        return ev
    return None


@mutation("play going on past max_actions", "R16")
def _past_max_actions(events: Events) -> Events | None:
    decisions = sum(1 for e in events if e["type"] == "decision")
    if decisions > 20 and events[-1]["reason"] != "max_actions":
        ev = copy.deepcopy(events)
        start = next(e for e in ev if e["type"] == "match_start")
        start["options"] = dict(start["options"], max_actions=decisions - 5)
        return ev
    return None


@mutation("an event after match_end", "R16")
def _after_end(events: Events) -> Events | None:
    ev = copy.deepcopy(events)
    ev.append({"type": "round_start", "round": ev[-1]["rounds"] + 1})
    return ev


def _orders(events: Events, tie_break: str | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    for i, e, seen in walk(events):
        if e["type"] == "order" and (tie_break is None or seen.options.get("tie_break") == tie_break):
            yield i, e


def _relead(order: dict[str, Any], k: int) -> dict[str, Any]:
    """The order with its k-th tie led by the other player (the tied units merged again)."""
    out = copy.deepcopy(order)
    spd, lead = out["ties"][k]
    new = "b" if lead == "a" else "a"
    out["ties"][k][1] = new
    group = [x for x in out["units"] if x[1] == spd]
    first = [x for x in group if x[0][0] == new]
    second = [x for x in group if x[0][0] != new]
    merged = [x for pair in zip(first, second, strict=False) for x in pair]
    n = min(len(first), len(second))
    merged += first[n:] + second[n:]
    start = out["units"].index(group[0])
    out["units"][start:start + len(group)] = merged
    return out


@mutation("a tie led by the wrong player under alternate", "R9")
def _tie_alternate(events: Events) -> Events | None:
    for i, e in _orders(events, "alternate"):
        if e["ties"]:
            ev = copy.deepcopy(events)
            ev[i] = _relead(e, 0)
            return ev
    return None


@mutation("a tie coin that is not the seeded one", "G1")
def _tie_random(events: Events) -> Events | None:
    for i, e in _orders(events, "random"):
        if e["ties"]:
            ev = copy.deepcopy(events)
            ev[i] = _relead(e, 0)
            return ev
    return None


@mutation("an order with a wrong SPD", "R9")
def _order_spd(events: Events) -> Events | None:
    for i, _ in _orders(events):
        ev = copy.deepcopy(events)
        ev[i]["units"][-1][1] += 1
        return ev
    return None


@mutation("an order missing a living unit", "R9")
def _order_missing(events: Events) -> Events | None:
    for i, _ in _orders(events):
        ev = copy.deepcopy(events)
        del ev[i]["units"][-1]
        return ev
    return None


@mutation("an order not by SPD", "R9")
def _order_unsorted(events: Events) -> Events | None:
    for i, e in _orders(events):
        units = e["units"]
        k = next((k for k in range(len(units) - 1) if units[k][1] > units[k + 1][1]), None)
        if k is not None:
            ev = copy.deepcopy(events)
            ev[i]["units"][k], ev[i]["units"][k + 1] = ev[i]["units"][k + 1], ev[i]["units"][k]
            return ev
    return None


@mutation("a start phase out of order", "R7")
def _start_phase_swap(events: Events) -> Events | None:
    for i, e, _ in walk(events):
        if e["type"] == "round_start" and e["round"] >= 2:
            blocks, j = [], i + 1
            while j < len(events) and events[j]["type"] == "faction_triggered" and events[j]["trigger"] == "round_start":
                k = j + 1
                while k < len(events) and events[k].get("use") == events[j]["use"]:
                    k += 1
                blocks.append((j, k))
                j = k
            for (a0, a1), (b0, b1) in zip(blocks, blocks[1:], strict=False):
                if events[a0]["unit"] != events[b0]["unit"]:
                    ev = copy.deepcopy(events)
                    ev[a0:b1] = ev[b0:b1] + ev[a0:a1]
                    return ev
    return None


@mutation("a summon in the wrong slot", "R15")
def _summon_slot(events: Events) -> Events | None:
    for i, e, _ in walk(events):
        if e["type"] == "summon":
            ev = copy.deepcopy(events)
            ev[i]["slot"] += 1
            return ev
    return None


def _summon_ties(events: Events, tie_break: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """The summons tied with enemy units, in logs of the given tie_break option."""
    options = next(e for e in events if e["type"] == "match_start")["options"]
    if options["tie_break"] == tie_break:
        for i, e in enumerate(events):
            if e["type"] == "summon" and e["tie"] is not None:
                yield i, e


def _flip_summon_tie(events: Events, tie_break: str) -> Events | None:
    """The first summon tie of a log of that tie_break option, led by the other player."""
    for i, e in _summon_ties(events, tie_break):
        ev = copy.deepcopy(events)
        ev[i]["tie"][1] = foe(e["tie"][1])
        return ev
    return None


@mutation("a summon tie led by the wrong player under alternate", "R15")
def _summon_tie_alternate(events: Events) -> Events | None:
    return _flip_summon_tie(events, "alternate")


@mutation("a summon tie coin that is not the seeded one", "R15")
def _summon_tie_random(events: Events) -> Events | None:
    return _flip_summon_tie(events, "random")


@mutation("a summon tied with enemy units put after them without a tie", "R15")
def _summon_always_last(events: Events) -> Events | None:
    for tie_break in ("random", "alternate"):
        for i, e in _summon_ties(events, tie_break):
            if e["tie"][1] == e["side"]:  # it went before the enemy units; "summons go last" would not
                ev = copy.deepcopy(events)
                ev[i]["tie"] = None
                return ev
    return None


@mutation("a summon acting although its slot has passed", "R15")
def _summon_acts(events: Events) -> Events | None:
    for i, e, _ in walk(events):
        if e["type"] == "summon":
            ev = copy.deepcopy(events)
            ev[i]["acts"] = not e["acts"]
            return ev
    return None


@mutation("a Flex decision not offered", "R8")
def _flex_missing(events: Events) -> Events | None:
    for i, e, _ in walk(events):
        if e["type"] == "decision" and e["stage"] == "flex" and e["action"][0] == "stay":
            return events[:i] + events[i + 1:]
    return None


@mutation("a Flex decision without the switch", "R8")
def _flex_legal(events: Events) -> Events | None:
    for i, e, _ in walk(events):
        if e["type"] == "decision" and e["stage"] == "flex" and e["action"][0] == "stay":
            ev = copy.deepcopy(events)
            ev[i]["legal"] = [["stay", None]]
            return ev
    return None


@mutation("ready not round + cooldown", "R13")
def _ready(events: Events) -> Events | None:
    for i, e, _ in walk(events):
        if e["type"] == "cooldown_started":
            ev = copy.deepcopy(events)
            ev[i]["ready_after"] += 1
            return ev
    return None


@mutation("a cooldown started before its ability resolved", "R13")
def _cooldown_first(events: Events) -> Events | None:
    for i, e, _ in walk(events):
        if e["type"] == "cooldown_started":
            k = max(j for j in range(i) if events[j]["type"] == "ability_used" and events[j]["use"] == e["use"])
            if k + 1 < i:  # the use had events of its own: the cooldown moves before them
                return events[: k + 1] + [events[i]] + events[k + 1: i] + events[i + 1:]
    return None


@mutation("a cut made while the ability resolved shortening its own new cooldown", "R13")
def _cut_own_use(events: Events) -> Events | None:
    for i, e, _ in walk(events):
        if e["type"] == "cooldown_started":
            k = max(j for j in range(i) if events[j]["type"] == "ability_used" and events[j]["use"] == e["use"])
            cuts = [x["amount"] for x in events[k + 1: i] if x["type"] == "cooldown" and x["unit"] == e["unit"]
                    and x["amount"] < 0]
            if cuts:  # as a cooldown set first and then cut would read
                ev = copy.deepcopy(events)
                ev[i]["ready_after"] = max(e["round"], e["ready_after"] + sum(cuts))
                return ev
    return None


@mutation("a cooldown started for a unit that fell in its own action", "R13")
def _cooldown_of_fallen(events: Events) -> Events | None:
    for i, e, _ in walk(events):
        if e["type"] == "fizzle" and e["reason"] == "source_defeated" and e["via"] == "ability":
            j = i
            while j + 1 < len(events) and events[j + 1]["type"] == "fizzle" and events[j + 1]["use"] == e["use"]:
                j += 1
            started = {"type": "cooldown_started", "unit": e["src"], "use": e["use"], "round": 0, "cooldown": 1,
                       "ready_before": 1, "ready_after": 2}
            return events[: j + 1] + [started] + events[j + 1:]
    return None

@mutation("a cooldown shift gone wrong", "R13")
def _cooldown(events: Events) -> Events | None:
    for i, e, _ in walk(events):
        if e["type"] == "cooldown":
            ev = copy.deepcopy(events)
            ev[i]["ready_after"] += 1
            return ev
    return None


@mutation("an effect under another ability use", "G3")
def _use(events: Events) -> Events | None:
    for i, e, _ in walk(events):
        if e["type"] == "effect_applied" and e["use"] is not None and e["use"] > 1:
            ev = copy.deepcopy(events)
            ev[i]["use"] -= 1
            return ev
    return None


@mutation("an event missing a field", "G3")
def _schema(events: Events) -> Events | None:
    for i, e, _ in walk(events):
        if e["type"] == "damage":
            ev = copy.deepcopy(events)
            del ev[i]["eid"]
            return ev
    return None


@mutation("a missing end-of-duration expiry", "R14")
def _missing_expiry(events: Events) -> Events | None:
    for i, e, _ in walk(events):
        if e["type"] == "effect_expired" and e["reason"] == "duration" and e["kind"] not in ("poison", "burn", "regen"):
            return events[:i] + events[i + 1:]
    return None


@mutation("'every ally' leaving the unit itself out", "R19")
def _every_ally(events: Events) -> Events | None:
    # The unit's own effect must be the last of its use: left out earlier, the next ally's would come out of turn.
    for i, e, seen in walk(events):
        if e["type"] == "ability_used":
            effects = seen.units[e["unit"]]["main"]["effects"]
            if effects[0].get("target") == "all_allies" and effects[0]["kind"] in ("buff", "shield"):
                own = None
                for j in range(i + 1, len(events)):
                    x = events[j]
                    if x["type"] == "effect_applied" and x["use"] == e["use"]:
                        own = j if x["unit"] == e["unit"] else None
                    if x["type"] == "decision":
                        break
                if own is not None:
                    return events[:own] + events[own + 1:]
    return None


@mutation("a mage in the vanguard", "R3")
def _mage_in_front(events: Events) -> Events | None:
    for i, e, _ in walk(events):
        if e["type"] == "match_start":
            for k, u in enumerate(e["units"]):
                if u["class"] == "mage":
                    ev = copy.deepcopy(events)
                    ev[i]["units"][k]["line"] = "vanguard"
                    return ev
    return None


@mutation("an army with two Legendary cards", "R1")
def _two_legendaries(events: Events) -> Events | None:
    for i, e, _ in walk(events):
        if e["type"] == "match_start" and not any(x["type"] == "deploy" for x in events[:i]):
            k = next(k for k, u in enumerate(e["units"]) if u["rarity"] == "common")
            ev = copy.deepcopy(events)
            ev[i]["units"][k]["rarity"] = "legendary"
            return ev
    return None


@mutation("a second Legendary deployed in the Formation Round", "R6")
def _formation_legendary(events: Events) -> Events | None:
    legendary: dict[str, str] = {}
    cards = next(e for e in events if e["type"] == "match_start")["units"]
    rarity = {u["card"]: u["rarity"] for u in cards}
    for i, e, _ in walk(events):
        if e["type"] == "deploy" and rarity.get(e["card"]) == "legendary":
            legendary[e["player"]] = e["card"]
        if e["type"] == "decision" and e["stage"] == "deploy" and e["player"] in legendary:
            other = _another_legendary(cards, legendary[e["player"]])
            if other is not None:
                return _deploy_instead(events, i, other, next(u["line"] for u in cards if u["card"] == other))
    return None


def _another_legendary(cards: list[dict[str, Any]], deployed: str) -> str | None:
    """A legendary card of the match other than the one a player deployed already."""
    return next((u["card"] for u in cards if u["rarity"] == "legendary" and u["card"] != deployed), None)


def _deploy_instead(events: Events, i: int, card: str, line: str) -> Events:
    """The log with decision `i` offering and taking the deployment of `card` in `line`."""
    ev = copy.deepcopy(events)
    ev[i]["legal"].append(["deploy", card, line])
    ev[i]["action"] = ["deploy", card, line]
    ev[i + 1].update(card=card, line=line)
    return ev


@mutation("a deployment offered from outside the collection", "R4")
def _formation_not_owned(events: Events) -> Events | None:
    for i, e, _ in walk(events):
        if e["type"] == "collection":
            d = next(k for k in range(i, len(events)) if events[k]["type"] == "decision"
                     and events[k]["player"] == e["player"])
            offered = events[d]["legal"][0][1]
            ev = copy.deepcopy(events)
            ev[i]["cards"] = [c for c in e["cards"] if c["card"] != offered]
            return ev
    return None


@mutation("a legal deployment withheld", "R6")
def _formation_withheld(events: Events) -> Events | None:
    for i, e, _ in walk(events):
        if e["type"] == "decision" and e["stage"] == "deploy" and len(e["legal"]) > 1:
            ev = copy.deepcopy(events)
            ev[i]["legal"] = [a for a in e["legal"] if a != e["action"]][1:] + [e["action"]]
            return ev
    return None


@mutation("a card deployed from a collection that lists it otherwise", "R4")
def _formation_other_card(events: Events) -> Events | None:
    for i, e, _ in walk(events):
        if e["type"] == "collection":
            deployed = {x["card"] for x in events if x["type"] == "deploy" and x["player"] == e["player"]}
            k = next(k for k, c in enumerate(e["cards"]) if c["card"] in deployed)
            ev = copy.deepcopy(events)
            ev[i]["cards"][k]["name"] += " (another)"
            return ev
    return None


@mutation("a collection shown to the other player", "G3")
def _collection_public(events: Events) -> Events | None:
    for i, e, _ in walk(events):
        if e["type"] == "collection":
            ev = copy.deepcopy(events)
            ev[i]["visible_to"] = ["a", "b"]
            return ev
    return None


@mutation("a deployment decision shown to the other player", "G3")
def _deploy_decision_public(events: Events) -> Events | None:
    for i, e, _ in walk(events):
        if e["type"] == "decision" and e["stage"] == "deploy":
            ev = copy.deepcopy(events)
            ev[i]["visible_to"] = ["a", "b"]
            return ev
    return None


@mutation("a deployment out of turn", "R6")
def _formation_turn(events: Events) -> Events | None:
    for i, e, _ in walk(events):
        if e["type"] == "decision" and e["stage"] == "deploy" and i > 2:
            ev = copy.deepcopy(events)
            ev[i]["player"] = foe(e["player"])
            return ev
    return None


@mutation("an agent seed not drawn from the match generator", "G2")
def _agent_seed(events: Events) -> Events | None:
    for i, e, _ in walk(events):
        if e["type"] == "seeds":
            ev = copy.deepcopy(events)
            ev[i]["agent_seeds"]["b"] += 1
            return ev
    return None


@mutation("the seeds shown to a player", "G2")
def _seeds_public(events: Events) -> Events | None:
    for i, e, _ in walk(events):
        if e["type"] == "seeds":
            ev = copy.deepcopy(events)
            ev[i]["visible_to"] = ["a"]
            return ev
    return None


@mutation("HP raised by hand above max HP", "R11")
def _table_overheal(events: Events) -> Events | None:
    for i, e, _ in walk(events):
        if e["type"] == "table_change" and e["change"] == "hp" and e["amount"] > 0 and e["hp_after"] > 0:
            ev = copy.deepcopy(events)
            ev[i]["hp_after"] = e["hp_before"] + e["amount"] + 1
            return ev
    return None


@mutation("a unit brought to 0 HP by hand not falling", "R11")
def _table_fall_missing(events: Events) -> Events | None:
    for i, e, _ in walk(events):
        if e["type"] == "table_change" and e["hp_after"] == 0 and events[i + 1]["type"] == "defeated":
            ev = copy.deepcopy(events)
            del ev[i + 1:after_defeat(events, i + 1)]
            return ev
    return None


@mutation("a fall by hand logged as damage", "R11")
def _table_fall_cause(events: Events) -> Events | None:
    for i, e, _ in walk(events):
        if e["type"] == "defeated" and e["cause"] == "table":
            ev = copy.deepcopy(events)
            ev[i]["cause"] = "damage"
            return ev
    return None


@mutation("an effect put on at the table lasting a round longer", "R14")
def _table_effect_until(events: Events) -> Events | None:
    for i, e, _ in walk(events):
        if e["type"] == "table_change" and e["change"] == "effect":
            ev = copy.deepcopy(events)
            ev[i + 1]["until"] += 1
            return ev
    return None


@mutation("an effect taken off at the table still standing", "R14")
def _table_removal_missing(events: Events) -> Events | None:
    for i, e, _ in walk(events):
        if e["type"] == "table_change" and e["change"] == "remove":
            ev = copy.deepcopy(events)
            del ev[i + 1]
            return ev
    return None


# ----------------------------------------------------------------------------- the tests


def corrupted(name: str) -> tuple[str, Events, dict[str, Any]]:
    """The first real log the mutation applies to, corrupted."""
    _, fn = MUTATIONS[name]
    for label, events, options in logs():
        bad = fn(events)
        if bad is not None:
            return label, bad, options
    raise AssertionError(f"no log has a place for the mutation {name!r}")


def test_every_real_log_passes_the_audit() -> None:
    for label, events, options in logs():
        auditor = Auditor(events, **options)
        assert auditor.run() == [], label
        assert auditor.checks > len(events)


def test_there_are_many_distinct_mutations() -> None:
    assert len(MUTATIONS) >= 40
    assert len({rule for rule, _ in MUTATIONS.values()}) >= 15


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_the_auditor_flags_each_corruption_naming_the_rule(name: str) -> None:
    rule, _ = MUTATIONS[name]
    label, events, options = corrupted(name)
    problems = audit(events, **options)
    assert len(problems) == 1, (name, label)
    assert rule in problems[0], (name, label, problems[0])
