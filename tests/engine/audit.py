"""An independent auditor of Echo Realms event logs (schema 3).

It replays a match from its log alone, with its own implementation of the rulebook and the
rulings (R1–R19, G1–G3), and never imports the engine: the cards come from `match_start`
(full card and both ability specs), the choices from the log (`decision` actions, and the
random picks and tie coins, which it also redraws from the match seed). From those it works
out what must happen and checks that the log says exactly that, event by event:

- match_start / Formation Round: ids, lines and printed positions (R2, R3), the army
  quotas (R1), each player's collection (seen by that player only), every offered deployment
  legal and from that collection, every legal one offered (R4, R6), the deployed cards as the
  collection lists them, the first-player coin and the seats' agent seeds (G1, G2);
- every `order` (R7, R9): exactly the living units, their effective SPD, highest first,
  ties inside one player in army order, ties between players alternating from the leader,
  the leader by the `alternate` sequence (across every order built) or the seeded coin;
- the start phase (R7, R14): per unit in the previous round's order (summons at their slot),
  its ongoing ticks (exactly N, in rounds r+1…r+N, removed after the last), then its
  round_start ability; Flex decisions iff the other line has room (R8);
- every decision (R10, R12, R13): one per living unit per round, the legal list exactly
  right (Basic Attack targets by R12, narrowed to the taunter by a taunt standing on the unit while the
  taunter is within reach, the Main Ability iff ready ≤ round and not silenced,
  its targets by R12 unless ignore_lines, allies for choose ally), the action among them;
- every ability use: the effects of its spec in order, each on the units its selector
  names, picks with their R12 pool and rule, damage = max(1, ⌊ATK_eff × scale⌋ + flat −
  DEF_eff) (or without DEF), shields oldest first, heals capped (R11), lasting effects with
  their `until` (R14), cooldown shifts, moves, summons with room, slot, `acts` and their tie
  with enemy units settled by tie_break (R15), cleanse/dispel, fizzles with their reason; then,
  after the last effect and trigger of the use (after_action included), the cooldown it enters
  (R13: ready = round + cooldown, or that much after a delay put on it meanwhile; a cut made
  while it resolved shortens nothing);
- every defeat: lost_action (R10), the immediate and complete end of what the unit applied
  (source_defeated, unless persists) and of what stood on it (R17), its pending effects
  fizzled (R10), every defeat trigger due and only those (R18: conditions, limits,
  characters unless include_summons, defeats_enemy for `by` only), summons leaving with the
  army (R16);
- the end phase (R14): round_end abilities, then exactly the effects whose `until` is this
  round expire; the end of the match (R16: elimination, draw, max_rounds, max_actions);
- every event's `use` is the open ability use of its source, `cause` the enclosing use (G3),
  and every event has exactly the schema-3 fields. Two readings of the schema: expiries other
  than cleanse/dispel carry `use` null (they come from no ability: a duration, a depleted shield,
  a defeat), and a `trigger_depth` fizzle, whose ability never opened a use of its own, carries
  the enclosing use (which belongs to another unit when the chain crossed units).

`audit(events)` returns the problems found (at most one per log: replay stops at the first),
each message naming the rule, e.g. "R11 #123 damage: amount 6, expected 5 ...".
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

PLAYERS = ("a", "b")
OTHER = {"a": "b", "b": "a"}
VANGUARD, REARGUARD = "vanguard", "rearguard"
LINES = (VANGUARD, REARGUARD)
LINE_CAP = 5
ARMY_SIZE = 7
QUOTA = {"common": 3, "uncommon": 2, "rare": 1, "legendary": 1}
CLASS_POSITIONS = {
    "tank": {VANGUARD},
    "warrior": {VANGUARD, REARGUARD},
    "mage": {REARGUARD},
    "archer": {REARGUARD},
    "assassin": {"flex"},
    "support": {VANGUARD, REARGUARD},
}
ONGOING = frozenset({"poison", "burn", "regen"})
LASTING = frozenset({"shield", "buff", "debuff", "poison", "burn", "regen", "silence", "taunt"})
NEGATIVE = frozenset({"debuff", "poison", "burn", "silence", "taunt"})
NO_AMOUNT = frozenset({"silence", "taunt"})  # lasting kinds logged without an amount
POSITIVE = frozenset({"buff", "shield", "regen"})
SINGLE = frozenset({"lowest_hp_ally", "random_ally", "random_enemy", "lowest_hp_enemy", "highest_atk_enemy"})
RANDOM_PICKS = frozenset({"random_ally", "random_enemy"})
DEFEAT_TRIGGERS = frozenset({"ally_defeated", "enemy_defeated", "defeats_enemy"})
ACTION_VIAS = frozenset({"basic", "ability"})
MAX_DEPTH = 8
SEED_BITS = 63

FIELDS: dict[str, frozenset[str]] = {
    k: frozenset(("type", *v))
    for k, v in {
        "formation_start": ("first_player",),
        "collection": ("player", "cards", "visible_to"),
        "deploy": ("player", "card", "line", "pick"),
        "match_start": ("schema", "options", "first_player", "agents", "units"),
        "seeds": ("seed", "agent_seeds", "visible_to"),
        "decision": ("round", "stage", "player", "unit", "legal", "action", "visible_to"),
        "round_start": ("round",),
        "move": ("unit", "from", "to", "via", "src", "use"),
        "order": ("round", "phase", "units", "ties"),
        "pick": ("src", "selector", "pool", "unit", "random", "use"),
        "damage": ("src", "tgt", "src_line", "tgt_line", "via", "atk", "power", "def", "amount", "absorbed",
                   "hp_before", "hp_after", "eid", "use"),
        "heal": ("src", "tgt", "via", "amount", "healed", "hp_before", "hp_after", "eid", "use"),
        "effect_applied": ("eid", "unit", "kind", "stat", "amount", "duration", "until", "persists", "src", "via",
                           "use"),
        "effect_expired": ("eid", "unit", "kind", "reason", "src", "via", "use"),
        "ability_used": ("use", "unit", "ability", "target", "round"),
        "cooldown_started": ("unit", "use", "round", "cooldown", "ready_before", "ready_after"),
        "faction_triggered": ("use", "cause", "unit", "ability", "trigger"),
        "cooldown": ("unit", "src", "amount", "ready_before", "ready_after", "via", "use"),
        "summon": ("unit", "side", "name", "line", "atk", "def", "spd", "hp", "src", "slot", "acts", "tie", "via",
                   "use"),
        "fizzle": ("src", "effect", "unit", "reason", "via", "use"),
        "defeated": ("unit", "by", "cause", "lost_action", "use"),
        "round_end": ("round",),
        "match_end": ("winner", "reason", "rounds"),
        "table_change": ("round", "change", "unit", "amount", "hp_before", "hp_after", "eid"),
    }.items()
}
COLLECTION_CARD_FIELDS = frozenset(("card", "name", "rarity", "position", "class"))
UNIT_FIELDS = frozenset((
    "id", "side", "card", "name", "rarity", "position", "class", "faction", "line", "atk", "def", "spd", "hp",
    "cooldown", "main_ability", "faction_ability",
))

# What an event of these types breaks where the rules do not call for it (`Auditor._hint`).
NOT_DUE = {
    "decision": "R10/R8: a decision not due (a unit acting twice, out of order or after its defeat)",
    "match_end": "R16: the match ends too early",
    "order": "R9: an order not due",
    "summon": "R15: a summon not due",
    "cooldown_started": "R13: a cooldown started before its ability has resolved, or not due",
    "defeated": "R11/R16: a defeat not due",
}
# The auditor's own reading of the group selectors: (whose units, only that line, leaves out the unit itself).
GROUPS = {
    "all_enemies": ("foes", None, False),
    "all_allies": ("own", None, False),  # R19: the unit itself included
    "other_allies": ("own", None, True),
    "enemy_vanguard": ("foes", VANGUARD, False),
    "enemy_rearguard": ("foes", REARGUARD, False),
    "ally_vanguard": ("own", VANGUARD, False),
    "ally_rearguard": ("own", REARGUARD, False),
}

_EXACT: dict[float, Fraction] = {}


def exact(x: float) -> Fraction:
    """A spec's decimal number as written (0.7 is 7/10, not the binary float)."""
    f = _EXACT.get(x)
    if f is None:
        f = _EXACT[x] = Fraction(repr(float(x)))
    return f


def scaled(value: int, scale: float) -> int:
    """⌊value × scale⌋ with the decimal scale taken exactly."""
    if not scale:
        return 0
    f = exact(scale)
    return value * f.numerator // f.denominator


class Violation(Exception):
    """A rule the log shows broken."""

    def __init__(self, rule: str, index: int, etype: str, text: str) -> None:
        self.rule = rule
        self.index = index
        super().__init__(f"{rule} #{index} {etype}: {text}")


class Eff:
    """A lasting effect standing on a unit."""

    __slots__ = ("eid", "unit", "kind", "stat", "amount", "until", "src", "persists", "since", "ticks")

    def __init__(self, eid: int, unit: str, kind: str, stat: str | None, amount: int, until: int, src: str,
                 persists: bool, since: int, ticks: int) -> None:
        self.eid = eid
        self.unit = unit
        self.kind = kind
        self.stat = stat
        self.amount = amount
        self.until = until
        self.src = src
        self.persists = persists
        self.since = since
        self.ticks = ticks


class Unit:
    """A unit as the auditor replays it."""

    __slots__ = (
        "uid", "side", "summon", "name", "cls", "position", "faction", "rarity", "cooldown", "main", "fab",
        "trigger", "line", "base", "max_hp", "hp", "alive", "effects", "ready", "fab_round", "fab_used",
        "before_round", "to_act", "card",
    )

    def __init__(self, uid: str, side: str, line: str, atk: int, df: int, spd: int, hp: int,
                 card: dict[str, Any] | None = None, name: str = "") -> None:
        self.uid = uid
        self.side = side
        self.summon = card is None
        self.card = card
        self.line = line
        self.base = {"atk": atk, "def": df, "spd": spd}
        self.max_hp = hp
        self.hp = hp
        self.alive = True
        self.effects: dict[int, Eff] = {}  # in the order applied
        self.ready = 1
        self.fab_round: int | None = None
        self.fab_used = False
        self.before_round = -1
        self.to_act = True
        if card is None:
            self.name = name
            self.cls = "summon"
            self.position = line
            self.faction = None
            self.rarity = None
            self.cooldown = 0
            self.main = None
            self.fab = None
            self.trigger = None
        else:
            self.name = card["name"]
            self.cls = card["class"]
            self.position = card["position"]
            self.faction = card["faction"]
            self.rarity = card["rarity"]
            self.cooldown = card["cooldown"]
            self.main = card["main_ability"]
            self.fab = card["faction_ability"]
            self.trigger = self.fab["trigger"] if self.fab else None

    def stat(self, name: str) -> int:
        """The effective stat: printed value plus buffs minus debuffs, never below 0 (R11)."""
        v = self.base[name]
        for e in self.effects.values():
            if e.stat == name:
                if e.kind == "buff":
                    v += e.amount
                elif e.kind == "debuff":
                    v -= e.amount
        return v if v > 0 else 0

    def silenced(self) -> bool:
        return any(e.kind == "silence" for e in self.effects.values())


def _show(e: dict[str, Any] | None) -> str:
    if e is None:
        return "the end of the log"
    parts = [f"{k}={e[k]!r}" for k in ("unit", "src", "tgt", "via", "reason", "trigger", "stage", "phase", "eid")
             if k in e and e[k] is not None]
    return f"{e['type']}({', '.join(parts)})"


class Auditor:
    """Replays one event log; `problems` lists what breaks the rules (`run()` fills it)."""

    def __init__(self, events: list[dict[str, Any]], *, full_armies: bool = True, replay_rng: bool = True,
                 card_text: bool = True) -> None:
        self.ev = events
        self.card_text = card_text
        self.n = len(events)
        self.i = 0
        self.full_armies = full_armies
        self.replay_rng = replay_rng
        self.checks = 0
        self.problems: list[str] = []
        self.units: dict[str, Unit] = {}
        self.living: dict[str, list[Unit]] = {"a": [], "b": []}
        self.chars = {"a": 0, "b": 0}
        self.next_num = {"a": 1, "b": 1}
        self.order: list[Unit] = []
        self.order_spd: list[int] = []
        self.idx = 0
        self.round = 0
        self.stage = "start"
        self.uses = 0
        self.use: int | None = None
        self.use_owner: dict[int, str] = {}
        self.depth = 0
        self.last_eid = 0
        self.ended_by_source: set[int] = set()
        self.gone_eids: dict[int, str] = {}
        self.decisions = 0
        self.rng: random.Random | None = None
        self.options: dict[str, Any] = {}
        self.first = "a"
        self.alt = "a"
        self.sel = ""
        self.counts: Counter[str] = Counter()  # how often each rule path was taken (coverage figures)
        self.collections: dict[str, dict[str, dict[str, Any]]] = {}  # Formation Round: each player's cards by slug

    # ------------------------------------------------------------------ running

    def run(self) -> list[str]:
        """Audit the whole log; the problems found (empty when the log keeps every rule)."""
        try:
            self._schema()
            self._header()
            self._battle()
            if self.i < self.n:
                self._fail("R16", "an event after match_end", self.i)
        except Violation as v:
            self.problems.append(str(v))
        return self.problems

    def _fail(self, rule: str, text: str, index: int | None = None) -> None:
        i = self.i - 1 if index is None else index
        etype = self.ev[i]["type"] if 0 <= i < self.n else "end"
        raise Violation(rule, i, etype, text)

    def _ok(self, cond: object, rule: str, text: str, index: int | None = None) -> None:
        self.checks += 1
        if not cond:
            self._fail(rule, text, index)

    def _eq(self, e: dict[str, Any], field: str, expected: Any, rule: str, why: str = "") -> None:
        self.checks += 1
        if e[field] != expected:
            self._fail(rule, f"{field} {e[field]!r}, expected {expected!r}{why}")

    def _peek(self) -> dict[str, Any] | None:
        return self.ev[self.i] if self.i < self.n else None

    def _take(self, etype: str, rule: str, what: str, **ident: Any) -> dict[str, Any]:
        """The next event, which must be the one the rules call for next: of type `etype`, and naming the
        units `ident` gives (an event of that type about other units is an event not due here)."""
        self.checks += 1
        e = self._peek()
        if e is None or e["type"] != etype or any(e.get(k) != v for k, v in ident.items()):
            self._fail(rule, f"expected {what}; found {_show(e)}{self._hint(e)}", self.i)
        self.i += 1
        return e  # type: ignore[return-value]

    def _hint(self, e: dict[str, Any] | None) -> str:
        """Which rule an event the rules do not call for here would break."""
        if e is None:
            return ""
        notes = self._use_notes(e) + self._event_notes(e)
        return f" [{'; '.join(notes)}]" if notes else ""

    def _use_notes(self, e: dict[str, Any]) -> list[str]:
        """G3, R10: an event of a use whose source has fallen, or of a use that is not the open one."""
        use = e.get("use")
        if use is None or e["type"] in ("ability_used", "faction_triggered"):
            return []
        owner = self.use_owner.get(use)
        if owner is not None and not self.units[owner].alive:
            return [f"R10: use {use} goes on after its source {owner} fell"]
        if use != self.use:
            return [f"G3: use {use} is not the open use {self.use}"]
        return []

    def _event_notes(self, e: dict[str, Any]) -> list[str]:
        """The rule an event of its type breaks where it is not due."""
        t = e["type"]
        via = e.get("via")
        if t == "damage" and via == "ongoing":
            eid = e.get("eid")
            if eid in self.ended_by_source:
                return [f"R17: effect {eid} ticks after its source fell"]
            if eid in self.gone_eids:
                return [f"R14: effect {eid} ticks after it ended ({self.gone_eids[eid]})"]
            return ["R14/R7: an ongoing tick not due here"]
        if t == "heal" and via == "ongoing":
            return ["R14/R7: a regeneration tick not due here"]
        if t == "faction_triggered":
            if e.get("trigger") in DEFEAT_TRIGGERS:
                return ["R18: a defeat trigger that is not due (summon, side, by, condition or limit)"]
            return [f"a {e.get('trigger')} trigger not due (its trigger, condition or limit)"]
        if t == "damage" and via == "basic":
            return ["R10: a Basic Attack without its decision"]
        if t == "effect_expired":
            if e.get("reason") == "source_defeated":
                return ["R17: a source_defeated expiry not due"]
            return ["R14/R17: an expiry not due"]
        note = NOT_DUE.get(t)
        return [note] if note else []

    # ------------------------------------------------------------------ schema

    def _schema(self) -> None:
        for i, e in enumerate(self.ev):
            self.checks += 1
            t = e.get("type")
            fields = FIELDS.get(t)  # type: ignore[arg-type]
            if fields is None:
                self._fail("G3", f"unknown event type {t!r}", i)
            if fields != e.keys():
                missing = sorted(fields - e.keys())
                extra = sorted(e.keys() - fields)
                self._fail("G3", f"fields: missing {missing}, unknown {extra}", i)

    # ------------------------------------------------------------------ header

    def _header(self) -> None:
        start = next((k for k, e in enumerate(self.ev) if e["type"] == "match_start"), None)
        if start is None:
            if self.n and self.ev[-1]["type"] == "match_end" and self.ev[0]["type"] == "formation_start":
                self._formation(None)  # stopped during the Formation Round
                return
            self._fail("G3", "the log has no match_start", 0)
        ms = self.ev[start]  # type: ignore[index]
        seeds = self.ev[start + 1] if start + 1 < self.n else {}  # type: ignore[operator]
        self._ok(seeds.get("type") == "seeds", "G2", "match_start must be followed by the seeds", start)
        self._match_options(ms, seeds, start)  # type: ignore[arg-type]
        deployed = None
        if self.ev[0]["type"] == "formation_start":
            deployed = self._formation(ms)
            if deployed is None:
                return
        e = self._take("match_start", "G3", "match_start")
        self._take("seeds", "G2", "the seeds, right after match_start")
        self._units(e, deployed)

    def _match_options(self, ms: dict[str, Any], seeds: dict[str, Any], index: int) -> None:
        self._ok(ms["schema"] == 3, "G3", f"schema {ms['schema']!r}, expected 3", index)
        opts = ms["options"]
        self._ok(isinstance(opts, dict) and {"tie_break", "max_rounds", "max_actions", "first_player"} <= set(opts),
                 "G3", "options must give tie_break, max_rounds, max_actions and first_player", index)
        self.options = opts
        self._ok(opts["tie_break"] in ("random", "alternate"), "R9", f"tie_break {opts['tie_break']!r}", index)
        self._ok(isinstance(opts["max_rounds"], int) and opts["max_rounds"] >= 1, "R16", "max_rounds", index)
        first = ms["first_player"]
        self._ok(first in PLAYERS, "R6", f"first_player {first!r}", index)
        if opts["first_player"] in PLAYERS:
            self._ok(first == opts["first_player"], "R6", "first_player differs from the option", index)
        self.first = self.alt = first
        agents = ms["agents"]
        self._ok(isinstance(agents, dict) and set(agents) == set(PLAYERS), "G3", "agents must name a's and b's", index)
        seeded = seeds["agent_seeds"]
        self._ok(seeds["visible_to"] == [], "G2", "the seeds must be seen by no player (they replay every draw)",
                 index + 1)
        self._ok(isinstance(seeded, dict) and set(seeded) == set(PLAYERS), "G2",
                 "agent_seeds must give a's and b's", index + 1)
        if self.replay_rng:
            self._ok(isinstance(seeds["seed"], int), "G1", "the match seed must be an integer", index + 1)
            rng = self.rng = random.Random(seeds["seed"])
            if opts["first_player"] not in PLAYERS:
                coin = "a" if rng.random() < 0.5 else "b"
                self._ok(first == coin, "G1", f"first_player {first!r} is not the seeded coin {coin!r}", index)
            for p in PLAYERS:
                seed = rng.getrandbits(SEED_BITS)
                self._ok(seeded[p] == seed, "G2", f"agent seed of {p} is not drawn from the match generator",
                         index + 1)

    def _formation(self, ms: dict[str, Any] | None) -> list[list[tuple[str, str]]] | None:
        """R6, R4: alternate deployments, each legal and from the player's own collection (listed at the start,
        seen by that player only, G3), and every legal deployment offered, none withheld."""
        fs = self._take("formation_start", "R6", "formation_start")
        if ms is not None:
            self._eq(fs, "first_player", ms["first_player"], "R6", " (match_start)")
        first = fs["first_player"]
        self._ok(first in PLAYERS, "R6", f"first player {first!r}")
        for side in PLAYERS:
            self._collection(side)
        deployed: dict[str, list[tuple[str, str]]] = {"a": [], "b": []}
        turn = first
        while len(deployed["a"]) < ARMY_SIZE or len(deployed["b"]) < ARMY_SIZE:
            if self._max_actions_stop():
                return None
            self._deployment(turn, deployed[turn])
            if len(deployed[OTHER[turn]]) < ARMY_SIZE:
                turn = OTHER[turn]
        if ms is None:
            self._fail("G3", "the Formation Round ended without match_start", self.i)
        return [deployed["a"], deployed["b"]]

    def _collection(self, side: str) -> None:
        """G3: a player's collection, seen by that player only; each card once, its rarity and position (R1, R3)."""
        c = self._take("collection", "G3", f"player {side}'s collection", player=side)
        self._eq(c, "visible_to", [side], "G3", " (a collection is seen by its own player only)")
        cards: dict[str, dict[str, Any]] = {}
        for card in c["cards"]:
            self._ok(isinstance(card, dict) and set(card) == COLLECTION_CARD_FIELDS, "G3",
                     f"collection card fields {sorted(card) if isinstance(card, dict) else card!r}")
            slug = card["card"]
            self._ok(slug not in cards, "R6", f"player {side}'s collection lists {slug!r} twice")
            self._ok(card["rarity"] in QUOTA, "R1", f"{slug} rarity {card['rarity']!r}")
            allowed = CLASS_POSITIONS.get(card["class"])
            self._ok(allowed is not None and card["position"] in allowed, "R3",
                     f"{slug} class {card['class']!r} printed {card['position']!r}")
            cards[slug] = card
        self.collections[side] = cards

    def _deployment(self, turn: str, mine: list[tuple[str, str]]) -> None:
        """R6: one deployment decision of `turn` (every legal deployment offered, none other) and its deploy."""
        d = self._take("decision", "R6", f"the deployment decision of {turn}")
        self.decisions += 1
        self.counts["deployment"] += 1
        self._eq(d, "round", 0, "R6")
        self._eq(d, "stage", "deploy", "R6")
        self._eq(d, "player", turn, "R6", " (deployment alternates, R6)")
        self._eq(d, "unit", None, "R6")
        self._eq(d, "visible_to", [turn], "G3", " (a deployment decision offers the player's own collection)")
        legal = [tuple(a) for a in d["legal"]]
        self._ok(len(set(legal)) == len(legal), "R6", "a deployment offered twice")
        self._check_offers(turn, legal, mine)
        action = tuple(d["action"])
        self._ok(action in legal, "R6", f"action {d['action']} is not among the legal deployments")
        dep = self._take("deploy", "R6", "the deploy event")
        self._eq(dep, "player", turn, "R6")
        self._eq(dep, "card", action[1], "R6")
        self._eq(dep, "line", action[2], "R6")
        self._eq(dep, "pick", len(mine) + 1, "R6")
        mine.append((action[1], action[2]))

    def _check_offers(self, turn: str, legal: list[tuple[Any, ...]], mine: list[tuple[str, str]]) -> None:
        """R4, R6: each offered deployment legal, from the collection, completable; each legal one offered."""
        owned = self.collections[turn]
        for a in legal:
            self._ok(len(a) == 3 and a[0] == "deploy", "R6", f"{list(a)} is not a deployment")
            self._ok(a[1] in owned, "R4", f"offered {list(a)}: {a[1]!r} is not in player {turn}'s collection")
            problem = self._deploy_problem(mine, a[1], a[2], owned)
            self._ok(problem is None, "R6", f"offered {list(a)} is illegal: {problem}")
            self._ok(self._completable(mine + [(a[1], a[2])], set(owned), owned), "R6",
                     f"offered {list(a)} leaves an army that the collection can no longer complete")
        for slug in owned:
            if any(s == slug for s, _ in mine):
                continue
            for line in LINES:
                if (self._deploy_problem(mine, slug, line, owned) is None
                        and self._completable(mine + [(slug, line)], set(owned), owned)):
                    self._ok(("deploy", slug, line) in legal, "R6",
                             f"legal deployment ['deploy', {slug!r}, {line!r}] not offered")

    @staticmethod
    def _deploy_problem(mine: list[tuple[str, str]], slug: str, line: str, cards: dict[str, dict[str, Any]]) -> str | None:
        if len(mine) >= ARMY_SIZE:
            return "army_size"
        if line not in LINES:
            return "wrong_line"
        if any(s == slug for s, _ in mine):
            return "duplicate_card"
        if sum(1 for _, ln in mine if ln == line) >= LINE_CAP:
            return "line_full"
        card = cards.get(slug)
        if card is not None:
            if card["position"] != "flex" and card["position"] != line:
                return "wrong_line"
            if sum(1 for s, _ in mine if cards[s]["rarity"] == card["rarity"]) >= QUOTA[card["rarity"]]:
                return "rarity_count"
        return None

    @staticmethod
    def _completable(mine: list[tuple[str, str]], owned: set[str], cards: dict[str, dict[str, Any]]) -> bool:
        """Whether the army can still be completed from the owned cards (the collection the log lists)."""
        used = {s for s, _ in mine}
        cap = {VANGUARD: LINE_CAP, REARGUARD: LINE_CAP}
        need = dict(QUOTA)
        for s, ln in mine:
            cap[ln] -= 1
            need[cards[s]["rarity"]] -= 1
        if min(need.values()) < 0 or min(cap.values()) < 0:
            return False
        lo_sum = hi_sum = rem_sum = flex_sum = 0
        for rarity, k in need.items():
            pos = [cards[s]["position"] for s in owned if s in cards and s not in used and cards[s]["rarity"] == rarity]
            n_v, n_r, n_f = pos.count(VANGUARD), pos.count(REARGUARD), pos.count("flex")
            z = min(k, n_f)
            rem = k - z
            lo, hi = max(0, rem - n_r), min(n_v, rem)
            if lo > hi:
                return False
            lo_sum += lo
            hi_sum += hi
            rem_sum += rem
            flex_sum += z
        x_lo, x_hi = max(lo_sum, rem_sum - cap[REARGUARD]), min(hi_sum, cap[VANGUARD])
        return x_lo <= x_hi and flex_sum <= cap[VANGUARD] + cap[REARGUARD] - rem_sum

    def _units(self, e: dict[str, Any], deployed: list[list[tuple[str, str]]] | None) -> None:
        """match_start's units: ids in army order, full cards (G3), legal lines (R2, R3), the army (R1)."""
        per_side: dict[str, list[dict[str, Any]]] = {"a": [], "b": []}
        for u in e["units"]:
            self._ok(isinstance(u, dict) and set(u) == UNIT_FIELDS, "G3",
                     f"unit fields {sorted(u) if isinstance(u, dict) else u!r}")
            self._ok(u["side"] in PLAYERS, "G3", f"side {u['side']!r}")
            per_side[u["side"]].append(u)
        self._ok(e["units"] == per_side["a"] + per_side["b"], "G3", "units must list player a's army, then b's")
        for side in PLAYERS:
            army = per_side[side]
            self._ok(army, "R16", f"player {side} has no unit")
            for k, u in enumerate(army, 1):
                self._unit_card(side, k, u)
            self._army(side, army, deployed)

    def _unit_card(self, side: str, k: int, u: dict[str, Any]) -> None:
        """One unit of match_start: its id (army order), line and position (R2, R3), class, rarity, printed
        values and both specs (G3), its card text; then it stands on the battlefield."""
        uid = u["id"]
        self._ok(uid == f"{side}{k}", "G3", f"unit id {uid!r}, expected {side}{k} (army order)")
        self._ok(u["line"] in LINES, "R2", f"{uid} stands in {u['line']!r}")
        self._ok(u["position"] in ("vanguard", "rearguard", "flex"), "R3", f"{uid} position {u['position']!r}")
        self._ok(u["position"] == "flex" or u["position"] == u["line"], "R3",
                 f"{uid} printed {u['position']} stands in the {u['line']}")
        allowed = CLASS_POSITIONS.get(u["class"])
        self._ok(allowed is not None and u["position"] in allowed, "R3",
                 f"{uid} class {u['class']!r} printed {u['position']!r}")
        self._ok(u["rarity"] in QUOTA, "R1", f"{uid} rarity {u['rarity']!r}")
        for k2 in ("atk", "def", "spd"):
            self._ok(isinstance(u[k2], int) and u[k2] >= 0, "G3", f"{uid} {k2} {u[k2]!r}")
        self._ok(isinstance(u["hp"], int) and u["hp"] >= 1, "G3", f"{uid} hp {u['hp']!r}")
        self._ok(u["cooldown"] in (1, 2, 3), "R13", f"{uid} cooldown {u['cooldown']!r}")
        self._specs(uid, u["main_ability"], u["faction_ability"])
        unit = Unit(uid, side, u["line"], u["atk"], u["def"], u["spd"], u["hp"], card=u)
        self.units[uid] = unit
        self.living[side].append(unit)
        self.chars[side] += 1
        self.next_num[side] = k + 1

    def _specs(self, uid: str, main: Any, fab: Any) -> None:
        """A unit's two ability specs as the log writes them (G3, R12, R18) and their card texts."""
        self._ok(isinstance(main, dict) and main.get("choose") in ("enemy", "ally", "none")
                 and isinstance(main.get("effects"), list), "G3", f"{uid} main_ability spec")
        self._ok(isinstance(fab, dict) and isinstance(fab.get("trigger"), str)
                 and isinstance(fab.get("effects"), list), "G3", f"{uid} faction_ability spec")
        self._ok(not main.get("ignore_lines") or main["choose"] == "enemy", "R12",
                 f"{uid}: ignore_lines without an enemy to choose")
        self._ok(not fab.get("include_summons") or fab["trigger"] in DEFEAT_TRIGGERS, "R18",
                 f"{uid}: include_summons on a {fab['trigger']} trigger")
        if self.card_text:
            self._text_agrees(uid, main)
            self._text_agrees(uid, fab)

    def _army(self, side: str, army: list[dict[str, Any]], deployed: list[list[tuple[str, str]]] | None) -> None:
        """One side's army: lines within capacity (R2), the quotas (R1), what it deployed (R6) from its own
        collection (R4)."""
        for line in LINES:
            self._ok(sum(1 for u in army if u["line"] == line) <= LINE_CAP, "R2",
                     f"player {side} has more than {LINE_CAP} in the {line}")
        if self.full_armies:
            self._ok(len(army) == ARMY_SIZE, "R1", f"player {side} fields {len(army)} cards, not {ARMY_SIZE}")
            for rarity, k in QUOTA.items():
                got = sum(1 for u in army if u["rarity"] == rarity)
                self._ok(got == k, "R1", f"player {side} has {got} {rarity} cards, not {k}")
            slugs = [u["card"] for u in army]
            self._ok(len(set(slugs)) == len(slugs), "R1", f"player {side} fields a card twice")
        if deployed is not None:
            fielded = [(u["card"], u["line"]) for u in army]
            self._ok(fielded == deployed[PLAYERS.index(side)], "R6",
                     f"player {side}'s army is not what it deployed")
            owned = self.collections[side]
            for u in army:
                listed = owned[u["card"]]
                self._ok(all(listed[k] == u[k] for k in ("name", "rarity", "position", "class")), "R4",
                         f"{u['id']} is not the card its collection lists as {u['card']!r}")

    def _text_agrees(self, uid: str, spec: dict[str, Any]) -> None:
        """The card text says what the spec does (R12, R14, R17, R18): reaching past the Vanguard, limits,
        durations, effects outliving their source, triggers counting summoned units."""
        text = spec.get("text", "").lower()
        name = spec.get("name")
        self._ok(("ignoring the vanguard" in text) == bool(spec.get("ignore_lines")), "R12",
                 f"{uid} {name!r}: ignore_lines and the words 'ignoring the Vanguard' must go together")
        limit = spec.get("limit", "none")
        self._ok(("once per battle" in text) == (limit == "battle") and ("once per round" in text) == (limit == "round"),
                 "R18", f"{uid} {name!r}: limit {limit!r} and the text disagree")
        for eff in spec["effects"]:
            if eff["kind"] in LASTING:
                d = eff.get("duration")
                self._ok(re.search(rf"for {d} rounds?\b", text) is not None, "R14",
                         f"{uid} {name!r}: the text does not say its {eff['kind']} lasts {d} round(s)")
            if eff.get("persists"):
                self._ok("after it falls" in text or "beyond its death" in text, "R17",
                         f"{uid} {name!r}: a persisting {eff['kind']} whose text does not say it outlives its source")
        if spec.get("include_summons"):
            self._ok("unit" in text, "R18", f"{uid} {name!r}: counts summons but its text does not say 'unit'")

    # ------------------------------------------------------------------ rounds

    def _battle(self) -> None:
        if not self.units:  # stopped in the Formation Round
            return
        self.stage = "start"
        self.round = 0
        self._build_order("battle_start")
        for u in list(self.order):
            if u.alive and u.trigger == "battle_start":
                self._fire(u, None, "R7")
        if self._check_end():
            return
        while True:
            if self._start_phase():
                return
            if self._flex_phase():
                return
            self._build_order("act")
            self.stage = "act"
            if self._act_phase():
                return
            if self._end_phase():
                return

    def _start_phase(self) -> bool:
        self.round += 1
        self.stage = "start"
        e = self._take("round_start", "R7", f"round_start of round {self.round}")
        self._eq(e, "round", self.round, "R7")
        for u in self._all_living():
            u.to_act = True
        if self.round == 1:
            self._build_order("start")
        for u in list(self.order):
            if u.alive and any(x.kind in ONGOING for x in u.effects.values()):
                self._ticks(u)
            if u.alive and u.trigger == "round_start":
                self._fire(u, None, "R7")
        if self._check_end():
            return True
        self.stage = "flex"
        return False

    def _ticks(self, u: Unit) -> None:
        """R14: each ongoing effect applied before this round and with ticks left hits or heals once."""
        for x in list(u.effects.values()):
            if not u.alive:
                return
            if x.kind not in ONGOING or x.since >= self.round or x.ticks <= 0 or x.eid not in u.effects:
                continue
            x.ticks -= 1
            self.counts["tick"] += 1
            if not self.units[x.src].alive:
                self.counts["tick from a fallen source (persists)"] += 1
            self._ok(self.round <= x.until, "R14", f"effect {x.eid} ticks in round {self.round} after its until {x.until}",
                     self.i)
            src = self.units[x.src]
            if x.kind == "regen":
                self._heal(src, u, x.amount, "ongoing", x.eid, "R14")
            else:
                self._hit(src, u, None, x.amount, None, "ongoing", x.eid, "R14")
            if x.ticks == 0 and u.alive:
                self._expire_batch([(u, x, "duration", None)], "R14", f"effect {x.eid} after its last tick")

    def _flex_phase(self) -> bool:
        for u in [u for u in self.order if u.position == "flex" and u.alive]:
            if not u.alive:
                continue
            dest = REARGUARD if u.line == VANGUARD else VANGUARD
            if self._count(u.side, dest) >= LINE_CAP:
                continue
            if self._max_actions_stop():
                return True
            if self._table_changes():
                if self._check_end():
                    return True
                if not u.alive or self._count(u.side, dest) >= LINE_CAP:
                    continue
            d = self._take("decision", "R8", f"the Flex decision of {u.uid} (the {dest} has room)", unit=u.uid)
            self.decisions += 1
            self._eq(d, "round", self.round, "R8")
            self._eq(d, "stage", "flex", "R8")
            self._eq(d, "player", u.side, "R8")
            self._eq(d, "unit", u.uid, "R8")
            self._eq(d, "legal", [["stay", None], ["switch", dest]], "R8")
            self._eq(d, "visible_to", ["a", "b"], "G3", " (the battlefield is public)")
            self._ok(d["action"] in d["legal"], "R8", f"action {d['action']} is not among the legal ones")
            self.counts["flex decision"] += 1
            if d["action"][0] == "switch":
                self.counts["flex switch"] += 1
                m = self._take("move", "R8", f"{u.uid}'s Flex move", unit=u.uid)
                self._move_fields(m, u, dest, "flex", u, None, "R8")
                u.line = dest
        return False

    def _act_phase(self) -> bool:
        self.idx = 0
        while self.idx < len(self.order):
            u = self.order[self.idx]
            if not u.alive:
                self.idx += 1
                continue
            if u.before_round != self.round:
                u.before_round = self.round
                if u.trigger == "before_action":
                    self._fire(u, None, "R10")
                    if self._check_end():
                        return True
                    if not u.alive:
                        self.counts["fell before its action (own trigger)"] += 1
                        self.idx += 1
                        continue
            if self._max_actions_stop():
                return True
            if self._table_changes():
                if self._check_end():
                    return True
                if not u.alive:
                    self.idx += 1
                    continue
            self._ok(u.to_act, "R10", f"{u.uid} reached in the order without an action to come", self.i)
            d = self._take("decision", "R10", f"the action decision of {u.uid} (its turn in the order)", unit=u.uid)
            self.decisions += 1
            self.counts["act decision"] += 1
            self._eq(d, "round", self.round, "R10")
            self._eq(d, "stage", "act", "R10")
            self._eq(d, "unit", u.uid, "R10", " (each living unit acts once, in order)")
            self._eq(d, "player", u.side, "R10")
            self._eq(d, "visible_to", ["a", "b"], "G3", " (the battlefield is public)")
            self._check_legal(u, d)
            action = d["action"]
            self._ok(action in d["legal"], "R10", f"action {action} is not among the legal ones")
            self._act(u, action)
            self.idx += 1
            if not (self.chars["a"] and self.chars["b"]):
                self._check_end()
                return True
        return False

    def _end_phase(self) -> bool:
        self.stage = "end"
        for u in self._all_living():
            u.to_act = False
        for u in list(self.order):
            if u.alive and u.trigger == "round_end":
                self._fire(u, None, "R14")
        due = [(u, x, "duration", None) for u in self.order if u.alive
               for x in u.effects.values() if x.kind not in ONGOING and x.until <= self.round]
        self._expire_batch(due, "R14", f"the effects ending in round {self.round}'s end phase")
        e = self._take("round_end", "R14", f"round_end of round {self.round}")
        self._eq(e, "round", self.round, "R14")
        if self._check_end():
            return True
        if self.round >= self.options["max_rounds"]:
            self.counts["end: max_rounds"] += 1
            m = self._take("match_end", "R16", f"the draw at max_rounds {self.options['max_rounds']}")
            self._eq(m, "winner", None, "R16")
            self._eq(m, "reason", "max_rounds", "R16")
            self._eq(m, "rounds", self.round, "R16")
            return True
        return False

    def _check_end(self) -> bool:
        """R16: a side without characters loses; both at once is a draw."""
        a, b = self.chars["a"], self.chars["b"]
        if a and b:
            return False
        winner = None if not a and not b else ("a" if a else "b")
        reason = "mutual_elimination" if winner is None else "elimination"
        self.counts[f"end: {reason}"] += 1
        m = self._take("match_end", "R16", f"match_end ({reason}, winner {winner})")
        self._eq(m, "winner", winner, "R16")
        self._eq(m, "reason", reason, "R16")
        self._eq(m, "rounds", self.round, "R16")
        return True

    def _max_actions_stop(self) -> bool:
        """R16's hard cap: after max_actions decisions the match stops as a draw, and never goes on."""
        e = self._peek()
        if e is None or e["type"] != "match_end" or e["reason"] != "max_actions":
            cap = self.options.get("max_actions")
            self._ok(cap is None or self.decisions < cap, "R16",
                     f"{self.decisions} decisions taken (max_actions {cap}) and play goes on", self.i)
            return False
        self.i += 1
        self.counts["end: max_actions"] += 1
        self._ok(self.decisions == self.options.get("max_actions", self.decisions), "R16",
                 f"stopped for max_actions after {self.decisions} decisions (max_actions {self.options['max_actions']})")
        self._eq(e, "winner", None, "R16")
        self._eq(e, "rounds", self.round, "R16")
        return True

    # ------------------------------------------------------------------ changes made at a table

    def _table_changes(self) -> bool:
        """The changes players made at a table while this decision was pending, each with exactly what it causes
        (realms.engine.table); whether there was any."""
        changed = False
        while (e := self._peek()) is not None and e["type"] == "table_change":
            self.i += 1
            changed = True
            self._eq(e, "round", self.round, "G3")
            u = self.units.get(e["unit"])
            self._ok(u is not None and u.alive, "G3", f"a table change on {e['unit']!r}, not a living unit")
            assert u is not None
            self.counts[f"table change: {e['change']}"] += 1
            if e["change"] == "hp":
                self._table_hp(e, u)
            elif e["change"] == "effect":
                self._table_effect(e, u)
            else:
                self._eq(e, "change", "remove", "G3", " (hp, effect or remove)")
                self._table_removal(e, u)
            if not (self.chars["a"] and self.chars["b"]):
                break
        return changed

    def _table_hp(self, e: dict[str, Any], u: Unit) -> None:
        """HP set by hand moves by its amount, within 0 and max HP (R11); at 0 the unit falls."""
        delta = e["amount"]
        self._ok(isinstance(delta, int) and delta != 0, "G3", f"an HP change of {delta!r}")
        self._eq(e, "hp_before", u.hp, "R11")
        after = min(u.max_hp, max(0, u.hp + delta))
        self._eq(e, "hp_after", after, "R11", f" (HP {u.hp} {delta:+d}, within 0 and max HP {u.max_hp})")
        self._eq(e, "eid", None, "G3")
        u.hp = after
        if after == 0:
            self._defeat(u, None, "table")

    def _table_effect(self, e: dict[str, Any], u: Unit) -> None:
        """A lasting effect put on by hand: the next effect, from the unit itself, via the table (R14)."""
        self._eq(e, "eid", self.last_eid + 1, "G3")
        for field in ("amount", "hp_before", "hp_after"):
            self._eq(e, field, None, "G3")
        nxt = self._peek()
        self._ok(nxt is not None and nxt["type"] == "effect_applied", "R14",
                 f"expected the effect put on {u.uid} at the table; found {_show(nxt)}", self.i)
        assert nxt is not None
        self._ok(nxt["kind"] in LASTING, "R14", f"a {nxt['kind']} put on at the table is not a lasting effect",
                 self.i)
        self._apply(u, u, nxt["kind"], nxt["stat"], nxt["amount"], nxt["duration"], "table", False)

    def _table_removal(self, e: dict[str, Any], u: Unit) -> None:
        """An effect standing on the unit taken off by hand: it expires now, removed via the table."""
        for field in ("amount", "hp_before", "hp_after"):
            self._eq(e, field, None, "G3")
        x = u.effects.get(e["eid"])
        self._ok(x is not None, "R14", f"effect {e['eid']!r} taken off {u.uid}, on which it does not stand")
        assert x is not None
        self._expire_batch([(u, x, "removed", u)], "R14", f"effect {x.eid} taken off at the table", "table")

    # ------------------------------------------------------------------ orders

    def _all_living(self) -> list[Unit]:
        return self.living["a"] + self.living["b"]

    def _build_order(self, phase: str) -> None:
        """R9 (and R7 for battle_start/start): the order by effective SPD with the tie rules."""
        e = self._take("order", "R9", f"the {phase} order of round {self.round}")
        self.counts[f"order {phase}"] += 1
        self._eq(e, "round", self.round, "R9")
        self._eq(e, "phase", phase, "R9")
        living = self._all_living()
        spd = {u.uid: u.stat("spd") for u in living}
        logged = e["units"]
        ids = [x[0] for x in logged]
        self._ok(sorted(ids) == sorted(spd), "R9",
                 f"the order lists {sorted(ids)}, the living units are {sorted(spd)}")
        self._ok(len(set(ids)) == len(ids), "R9", "a unit listed twice")
        for uid, s in logged:
            self._ok(s == spd[uid], "R9", f"{uid} ordered at SPD {s}, its effective SPD is {spd[uid]}")
        ranked = sorted(living, key=lambda u: -spd[u.uid])  # stable: a's units first, each in army order
        shared = sorted({spd[u.uid] for u in self.living["a"]} & {spd[u.uid] for u in self.living["b"]}, reverse=True)
        logged_ties = e["ties"]
        self._ok(isinstance(logged_ties, list) and [t[0] for t in logged_ties] == shared, "R9",
                 f"ties {logged_ties}, the SPD values both players field are {shared}")
        ties = []
        for k, s in enumerate(shared):
            lead = self._order_tie_lead(s, logged_ties[k][1])
            ties.append([s, lead])
            self.counts[f"tie ({self.options['tie_break']})"] += 1
            self._merge_tie(ranked, [u for u in ranked if spd[u.uid] == s], lead)
        expected = [[u.uid, spd[u.uid]] for u in ranked]
        self._ok(logged == expected, "R9", f"order {logged}, expected {expected} (ties {ties})")
        self.order = ranked
        self.order_spd = [spd[u.uid] for u in ranked]

    def _order_tie_lead(self, s: int, logged: Any) -> str:
        """R9: the leader of the tie between the players at SPD `s`: the alternation's next, or the logged one,
        which must be the seeded coin's (G1)."""
        if self.options["tie_break"] == "alternate":
            lead = self.alt
            self.alt = OTHER[lead]
            self._ok(logged == lead, "R9", f"the tie at SPD {s} is led by {logged!r}; alternation gives {lead!r}")
            return lead
        self._ok(logged in PLAYERS, "R9", f"tie leader {logged!r}")
        if self.rng is not None:
            coin = "a" if self.rng.random() < 0.5 else "b"
            self._ok(logged == coin, "G1", f"the tie at SPD {s} is led by {logged!r}, the seeded coin says {coin!r}")
        return logged  # type: ignore[no-any-return]

    @staticmethod
    def _merge_tie(ranked: list[Unit], group: list[Unit], lead: str) -> None:
        """R9: the units of a tie between the players alternate in `ranked`, the leader's first, each side's
        in its own order."""
        lead_units = [u for u in group if u.side == lead]
        other_units = [u for u in group if u.side != lead]
        merged = []
        for m in range(max(len(lead_units), len(other_units))):
            if m < len(lead_units):
                merged.append(lead_units[m])
            if m < len(other_units):
                merged.append(other_units[m])
        start = ranked.index(group[0])
        ranked[start:start + len(group)] = merged

    def _count(self, side: str, line: str) -> int:
        return sum(1 for u in self.living[side] if u.line == line)

    # ------------------------------------------------------------------ decisions and actions

    def _check_legal(self, u: Unit, d: dict[str, Any]) -> None:
        """R12 Basic Attack targets; the Main Ability iff ready ≤ round and not silenced (R10, R13)."""
        foes = self.living[OTHER[u.side]]
        front = [t for t in foes if t.line == VANGUARD] or foes
        reach = front if u.line == VANGUARD else foes
        legal = [tuple(a) for a in d["legal"]]
        self._ok(len(set(legal)) == len(legal), "R10", "an action offered twice")
        attacks = {a[1] for a in legal if a[0] == "attack"}
        abilities = {a[1] for a in legal if a[0] == "ability"}
        self._ok(all(a[0] in ("attack", "ability") and len(a) == 2 for a in legal), "R10", f"legal {d['legal']}")
        aims = self._taunted(u, reach)
        want = {t.uid for t in aims}
        if attacks != want:
            self._fail("R12", f"Basic Attack targets {sorted(attacks)}, expected {sorted(want)} "
                              f"({u.uid} in the {u.line}{', taunted' if aims is not reach else ''})")
        self._check_ability(u, abilities, foes, reach)

    def _check_ability(self, u: Unit, abilities: set[Any], foes: list[Unit], reach: list[Unit]) -> None:
        """The Main Ability offered iff ready and not silenced (R10, R13), on the units R12 lets it choose."""
        main = u.main
        if main is None:
            self._ok(not abilities, "R10", f"{u.uid} is a summon: it has no Main Ability to offer")
            return
        ready = u.ready <= self.round
        silenced = u.silenced()
        if not ready or silenced:
            if abilities:
                rule = "R10" if ready else "R13"
                why = "it is silenced" if ready else f"it is ready only in round {u.ready}"
                self._fail(rule, f"the Main Ability is offered to {u.uid} though {why}")
            return
        choose = main["choose"]
        if choose == "enemy":
            pool = foes if main.get("ignore_lines") else reach
            want_abl = {t.uid for t in pool}
        elif choose == "ally":
            want_abl = {t.uid for t in self.living[u.side]}
        else:
            want_abl = {None}
        if not abilities:
            self._fail("R13", f"the Main Ability of {u.uid} is not offered though ready (round {u.ready}) "
                              "and not silenced")
        if abilities != want_abl:
            self._fail("R12", f"Main Ability targets {sorted(abilities, key=str)}, expected "
                              f"{sorted(want_abl, key=str)} (choose {choose}, {u.uid} in the {u.line}"
                              f"{', ignore_lines' if main.get('ignore_lines') else ''})")

    def _taunted(self, u: Unit, reach: list[Unit]) -> list[Unit]:
        """A taunt standing on `u` narrows its Basic Attack targets to its taunter while that one is within
        reach (the oldest such taunt decides); otherwise they stay R12's."""
        for x in u.effects.values():  # in the order applied
            if x.kind == "taunt":
                taunter = self.units.get(x.src)
                if taunter is not None and taunter.alive and taunter in reach:
                    self.counts["Basic Attacks narrowed by a taunt"] += 1
                    return [taunter]
        return reach

    def _act(self, u: Unit, action: list[Any]) -> None:
        u.to_act = False
        kind, x = action
        if kind == "attack":
            t = self.units[x]
            a = u.stat("atk")
            self._hit(u, t, a, a, t.stat("def"), "basic", None, "R10")
        else:
            self.uses += 1
            self.use = self.uses
            self.use_owner[self.use] = u.uid
            self.counts["main ability use"] += 1
            e = self._take("ability_used", "R10", f"{u.uid}'s ability_used", unit=u.uid)
            self._eq(e, "use", self.use, "G3", " (uses are numbered in order)")
            self._eq(e, "unit", u.uid, "R10")
            self._eq(e, "ability", u.main["name"], "G3")  # type: ignore[index]
            self._eq(e, "target", x, "R10")
            self._eq(e, "round", self.round, "R13")
            use = self.use
            main = u.main
            chosen = self.units[x] if x is not None else None
            self._run(u, main["effects"], chosen, "ability", None, bool(main.get("ignore_lines")))  # type: ignore[index]
            self.use = None
            if u.trigger == "after_action" and u.alive:
                self._fire(u, None, "R10")
            if u.alive:
                self._cooldown_starts(u, use)
            return
        if u.trigger == "after_action" and u.alive:
            self._fire(u, None, "R10")

    def _cooldown_starts(self, u: Unit, use: int) -> None:
        """R13: once its use has resolved (every effect, every trigger it set off, its after_action ability),
        the Main Ability enters its cooldown: ready in round + cooldown, or that much after a delay put on the
        ready ability meanwhile; a cut made meanwhile found no cooldown to shorten."""
        rnd = self.round
        e = self._take("cooldown_started", "R13", f"{u.uid}'s cooldown, after its ability has resolved", unit=u.uid)
        self.counts["cooldown started" + (" after a delay" if u.ready > rnd else "")] += 1
        self._eq(e, "use", use, "G3", " (the ability use)")
        self._eq(e, "round", rnd, "R13")
        self._eq(e, "cooldown", u.cooldown, "R13", " (the printed cooldown)")
        self._eq(e, "ready_before", u.ready, "R13")
        expected = max(u.ready, rnd) + u.cooldown
        self._eq(e, "ready_after", expected, "R13", f" (round {rnd} + cooldown {u.cooldown}, after any delay)")
        u.ready = expected

    # ------------------------------------------------------------------ abilities

    def _may_fire(self, w: Unit) -> bool:
        """Whether the limit (once per round or battle) and the condition of `w`'s faction ability allow it."""
        fab = w.fab
        limit = fab.get("limit", "none")  # type: ignore[union-attr]
        if limit == "battle" and w.fab_used:
            return False
        if limit == "round" and w.fab_round == self.round:
            return False
        cond = fab.get("condition") or {}  # type: ignore[union-attr]
        if cond.get("line") and w.line != cond["line"]:
            return False
        if cond.get("hp_below") and not w.hp < exact(cond["hp_below"]) * w.max_hp:
            return False
        n = cond.get("allies_same_faction_gte", 0)
        return not (n and sum(1 for v in self.living[w.side]
                              if v is not w and not v.summon and v.faction == w.faction) < n)

    def _fire(self, w: Unit, attacker: Unit | None, rule: str) -> None:
        """A faction ability whose trigger happened: fires iff its limit and condition allow."""
        fab = w.fab
        if not self._may_fire(w):
            return
        if self.depth >= MAX_DEPTH:
            self.counts["fizzle trigger_depth"] += 1
            f = self._take("fizzle", "G3", f"{w.uid}'s trigger_depth fizzle", src=w.uid)
            self._fizzle_fields(f, w, "trigger", None, "trigger_depth", "faction")
            return
        w.fab_used = True
        w.fab_round = self.round
        outer = self.use
        self.uses += 1
        self.use = self.uses
        self.use_owner[self.use] = w.uid
        trig = fab["trigger"]  # type: ignore[index]
        self.counts[f"trigger {trig}"] += 1
        rule = "R18" if trig in DEFEAT_TRIGGERS else rule
        e = self._take("faction_triggered", rule, f"{w.uid}'s {trig} ability {fab['name']!r}",  # type: ignore[index]
                       unit=w.uid, trigger=trig)
        self._eq(e, "unit", w.uid, rule)
        self._eq(e, "trigger", trig, rule)
        self._eq(e, "use", self.use, "G3", " (uses are numbered in order)")
        self._eq(e, "cause", outer, "G3", " (the use during which it fired)")
        self._eq(e, "ability", fab["name"], "G3")  # type: ignore[index]
        self.depth += 1
        self._run(w, fab["effects"], None, "faction", attacker, False)  # type: ignore[index]
        self.depth -= 1
        self.use = outer

    def _run(self, src: Unit, effects: list[dict[str, Any]], chosen: Unit | None, via: str,
             attacker: Unit | None, reach_all: bool) -> None:
        """An ability's effects in order; a source fallen midway has the rest fizzle (R10)."""
        memo: dict[str, Unit | None] = {}
        for eff in effects:
            kind = eff["kind"]
            if not src.alive:
                f = self._take("fizzle", "R10", f"the fizzle of {src.uid}'s {kind} (its source fell)", src=src.uid)
                self._fizzle_fields(f, src, kind, None, "source_defeated", via)
                continue
            if kind == "summon":
                self._summon(src, eff, via)
                continue
            sel = eff["target"]
            if sel == "target":
                targets = [chosen] if chosen is not None and chosen.alive else []
            elif sel == "self":
                targets = [src]
            elif sel in SINGLE:
                if sel not in memo:
                    memo[sel] = self._pick(src, sel, reach_all)
                p = memo[sel]
                targets = [p] if p is not None and p.alive else []
            else:
                targets = self._select(src, sel, chosen, attacker)
            if not targets:
                f = self._take("fizzle", "R12", f"the no_target fizzle of {src.uid}'s {kind} ({sel})", src=src.uid)
                self._fizzle_fields(f, src, kind, None, "no_target", via)
                continue
            self.sel = sel
            getattr(self, "_fx_" + kind)(src, eff, targets, via)
            self.sel = ""

    def _select(self, src: Unit, sel: str, chosen: Unit | None, attacker: Unit | None) -> list[Unit]:
        if sel in GROUPS:
            whose, line, others = GROUPS[sel]
            pool = self.living[src.side] if whose == "own" else self.living[OTHER[src.side]]
            return [u for u in pool if (line is None or u.line == line) and not (others and u is src)]
        if sel == "target_line":
            if chosen is None:
                return []
            return [u for u in self.living[chosen.side] if u.line == chosen.line]
        if sel == "attacker":
            return [attacker] if attacker is not None and attacker.alive else []
        self._fail("G3", f"unknown selector {sel!r} in {src.uid}'s spec", self.i)
        return []

    def _pick(self, src: Unit, sel: str, reach_all: bool) -> Unit | None:
        """R12: a single-unit pick, from the vanguard only the enemy vanguard while it stands (unless a main
        ability ignores lines); lowest HP / highest ATK ties to the earliest, random by the seeded draw."""
        ally = sel.endswith("_ally")
        pool = self._pick_pool(src, ally, reach_all)
        e = self._take("pick", "R12", f"{src.uid}'s {sel} pick", src=src.uid)
        self._eq(e, "src", src.uid, "R12")
        self._eq(e, "selector", sel, "R12")
        self._eq(e, "use", self.use, "G3", f" (the open use of {src.uid})")
        self._eq(e, "random", sel in RANDOM_PICKS, "G3")
        ids = [u.uid for u in pool]
        self.counts[f"pick {sel}"] += 1
        if not ally and len(pool) < len(self.living[OTHER[src.side]]):
            self.counts["pick screened to the enemy vanguard (R12)"] += 1
        if reach_all and src.line == VANGUARD and not ally:
            self.counts["pick from the vanguard ignoring lines"] += 1
        self._eq(e, "pool", ids, "R12", f" ({src.uid} in the {src.line}"
                 f"{', ignore_lines' if reach_all else ''}; the pool is every living "
                 f"{'ally' if ally else 'enemy within reach'} in army order)")
        if not pool:
            self._eq(e, "unit", None, "R12")
            return None
        if sel in RANDOM_PICKS:
            return self._random_pick(e, ids)
        best, why = self._best_pick(sel, pool)
        self._eq(e, "unit", best.uid, "R12", why)
        return best

    def _pick_pool(self, src: Unit, ally: bool, reach_all: bool) -> list[Unit]:
        """R12: every living ally, or every living enemy within reach (from the vanguard, the enemy vanguard
        while it holds anyone, unless the ability ignores lines), in army order."""
        if ally:
            return list(self.living[src.side])
        pool = list(self.living[OTHER[src.side]])
        if not reach_all and src.line == VANGUARD:
            pool = [u for u in pool if u.line == VANGUARD] or pool
        return pool

    def _random_pick(self, e: dict[str, Any], ids: list[str]) -> Unit:
        """G1: a random pick is one of the pool, the match generator's draw."""
        uid = e["unit"]
        self._ok(uid in ids, "R12", f"random pick {uid!r} is not in the pool")
        if self.rng is not None:
            drawn = ids[self.rng.randrange(len(ids))]
            self._ok(uid == drawn, "G1", f"random pick {uid!r}, the seeded draw gives {drawn!r}")
        return self.units[uid]

    @staticmethod
    def _best_pick(sel: str, pool: list[Unit]) -> tuple[Unit, str]:
        """The highest effective ATK or the lowest current HP, ties to the earliest; and the rule in words."""
        best = pool[0]
        if sel == "highest_atk_enemy":
            for u in pool:
                if u.stat("atk") > best.stat("atk"):
                    best = u
            return best, " (highest effective ATK, ties to the earliest)"
        for u in pool:
            if u.hp < best.hp:
                best = u
        return best, " (lowest current HP, ties to the earliest)"

    def _r19(self, src: Unit, t: Unit) -> str:
        return " [R19: 'every ally' includes the unit itself]" if t is src and self.sel == "all_allies" else ""

    def _fizzle_fields(self, f: dict[str, Any], src: Unit, effect: str, unit: Unit | None, reason: str, via: str) -> None:
        self.counts[f"fizzle {reason}"] += 1
        rule = "R10" if reason == "source_defeated" else ("R15" if effect == "summon" else "G3")
        self._eq(f, "src", src.uid, rule)
        self._eq(f, "effect", effect, rule)
        self._eq(f, "reason", reason, rule)
        self._eq(f, "unit", unit.uid if unit is not None else None, rule)
        self._eq(f, "via", via, rule)
        self._eq(f, "use", self.use, "G3", f" (the open use of {src.uid})")

    # ------------------------------------------------------------------ effect kinds

    def _fx_damage(self, src: Unit, eff: dict[str, Any], targets: list[Unit], via: str) -> None:
        ignore = eff.get("ignore_def", False)
        for t in targets:
            if not src.alive:  # R10: fallen to a reply midway, the rest does nothing
                break
            if t.alive:
                a = src.stat("atk")
                power = scaled(a, eff.get("scale", 0)) + eff.get("flat", 0)
                self._hit(src, t, a, power, None if ignore else t.stat("def"), via, None, "R11")

    def _fx_heal(self, src: Unit, eff: dict[str, Any], targets: list[Unit], via: str) -> None:
        base = scaled(src.stat("atk"), eff.get("scale", 0)) + eff.get("flat", 0)
        frac = eff.get("max_hp_fraction", 0)
        for t in targets:
            if t.alive:
                self._heal(src, t, base + scaled(t.max_hp, frac), via, None, "R11")

    def _fx_shield(self, src: Unit, eff: dict[str, Any], targets: list[Unit], via: str) -> None:
        amount = scaled(src.stat("atk"), eff.get("scale", 0)) + eff.get("flat", 0)
        for t in targets:
            if t.alive:
                self._apply(src, t, "shield", None, amount, eff["duration"], via, eff.get("persists", False))

    def _fx_lasting(self, src: Unit, eff: dict[str, Any], targets: list[Unit], via: str) -> None:
        kind = eff["kind"]
        stat = eff.get("stat") if kind in ("buff", "debuff") else None
        amount = eff.get("amount", 0) if kind not in NO_AMOUNT else None
        for t in targets:
            if t.alive:
                self._apply(src, t, kind, stat, amount, eff["duration"], via, eff.get("persists", False))

    _fx_buff = _fx_debuff = _fx_poison = _fx_burn = _fx_regen = _fx_silence = _fx_taunt = _fx_lasting

    def _fx_cooldown(self, src: Unit, eff: dict[str, Any], targets: list[Unit], via: str) -> None:
        rnd = self.round
        k = eff["amount"]
        for t in targets:
            if not t.alive:
                continue
            if t.main is None:
                f = self._take("fizzle", "R13", f"the no_ability fizzle of {src.uid}'s cooldown on {t.uid}", src=src.uid)
                self._fizzle_fields(f, src, "cooldown", t, "no_ability", via)
                continue
            before = t.ready
            if k > 0:
                after = max(before, rnd) + k
            elif before <= rnd:
                after = before
            else:
                after = max(rnd, before + k)
            e = self._take("cooldown", "R13", f"{src.uid}'s cooldown shift on {t.uid}", src=src.uid)
            self._eq(e, "unit", t.uid, "R13")
            self._eq(e, "src", src.uid, "G3")
            self._eq(e, "amount", k, "R13")
            self._eq(e, "ready_before", before, "R13")
            self._eq(e, "ready_after", after, "R13", f" (shift {k:+d} in round {rnd}, never before the round)")
            self._eq(e, "via", via, "G3")
            self._eq(e, "use", self.use, "G3", f" (the open use of {src.uid})")
            t.ready = after

    def _fx_move(self, src: Unit, eff: dict[str, Any], targets: list[Unit], via: str) -> None:
        for t in targets:
            if not t.alive:
                continue
            dest = eff["to"] if eff["to"] != "other" else (REARGUARD if t.line == VANGUARD else VANGUARD)
            reason = "same_line" if t.line == dest else ("no_room" if self._count(t.side, dest) >= LINE_CAP else "")
            if reason:
                f = self._take("fizzle", "R2", f"the {reason} fizzle of {src.uid}'s move on {t.uid}", src=src.uid)
                self._fizzle_fields(f, src, "move", t, reason, via)
                continue
            m = self._take("move", "R2", f"{src.uid}'s move of {t.uid} to the {dest}", src=src.uid)
            self._move_fields(m, t, dest, via, src, self.use, "R2")
            t.line = dest

    def _move_fields(self, m: dict[str, Any], t: Unit, dest: str, via: str, src: Unit, use: int | None, rule: str) -> None:
        self._eq(m, "unit", t.uid, rule)
        self._eq(m, "from", t.line, rule)
        self._eq(m, "to", dest, rule)
        self._eq(m, "via", via, rule)
        self._eq(m, "src", src.uid, rule)
        self._eq(m, "use", use, "G3", " (the open use)")

    def _fx_cleanse(self, src: Unit, eff: dict[str, Any], targets: list[Unit], via: str) -> None:
        removable = NEGATIVE if eff["kind"] == "cleanse" else POSITIVE
        reason = "cleansed" if eff["kind"] == "cleanse" else "dispelled"
        for t in targets:
            if t.alive:
                gone = [(t, x, reason, src) for x in t.effects.values() if x.kind in removable]
                self._expire_batch(gone, "R14", f"the effects {src.uid}'s {eff['kind']} removes from {t.uid}", via)

    _fx_dispel = _fx_cleanse

    def _summon(self, src: Unit, eff: dict[str, Any], via: str) -> None:
        """R15: each summoned unit needs room, takes its slot after the units of equal or higher SPD, and acts
        this round iff that slot comes after the unit now acting."""
        spec = eff["unit"]
        side = src.side
        line = src.line if eff.get("line", "same") == "same" else eff["line"]
        for _ in range(eff.get("count", 1)):
            reason = "army_defeated" if not self.chars[side] else ("no_room" if self._count(side, line) >= LINE_CAP else "")
            if reason:
                f = self._take("fizzle", "R15", f"the {reason} fizzle of {src.uid}'s summon", src=src.uid)
                self._fizzle_fields(f, src, "summon", None, reason, via)
                return
            uid = f"{side}{self.next_num[side]}"
            self.next_num[side] += 1
            u = Unit(uid, side, line, spec["atk"], spec["def"], spec["spd"], spec["hp"], name=spec["name"])
            j, tie = self._summon_slot(u)
            if self.stage == "act":
                acts = j > self.idx
                if not acts:
                    self.idx += 1
            else:
                acts = self.stage in ("start", "flex")
            self.order.insert(j, u)
            self.order_spd.insert(j, u.base["spd"])
            e = self._take("summon", "R15", f"{src.uid}'s summon of {uid}", src=src.uid)
            self._eq(e, "unit", uid, "R15", " (summons continue the side's numbering)")
            self._eq(e, "side", side, "R15")
            self._eq(e, "line", line, "R15")
            for k, v in (("name", spec["name"]), ("atk", spec["atk"]), ("def", spec["def"]), ("spd", spec["spd"]),
                         ("hp", spec["hp"])):
                self._eq(e, k, v, "R15", " (the spec's unit)")
            self._eq(e, "src", src.uid, "R15")
            self._eq(e, "tie", tie, "R15", " (a tie with enemy units at its SPD is settled by tie_break)")
            self._eq(e, "slot", j + 1, "R15", " (after the units of higher SPD and its own side's at its SPD; "
                                              "before or after the enemy's there as the tie says)")
            self._eq(e, "acts", acts, "R15", " (it acts iff its slot comes after the unit now acting)")
            self._eq(e, "via", via, "G3")
            self._eq(e, "use", self.use, "G3", f" (the open use of {src.uid})")
            u.to_act = acts
            self.counts[f"summon ({self.stage}, acts {acts})"] += 1
            self.units[uid] = u
            self.living[side].append(u)

    def _summon_slot(self, u: Unit) -> tuple[int, list[Any] | None]:
        """R15: a summon's place in the order. At its SPD it follows every unit of its own side (army cards,
        then earlier summons); living enemy units there that would follow it make a tie between the players,
        led as R9 leads one (the seeded coin or the alternation): led by its side it goes before them."""
        s = u.base["spd"]
        low, end = self._summon_span(u.side, s)
        rivals = [k for k in range(low, end) if self.order[k].alive]
        if not rivals:
            self.counts["summon at its SPD without a tie"] += 1
            return end, None
        nxt = self._peek()
        logged = nxt.get("tie") if nxt is not None and nxt["type"] == "summon" else None
        lead = self._tie_lead(s, logged[1] if isinstance(logged, list) and len(logged) == 2 else None)
        self._ok(lead in PLAYERS, "R9", f"tie leader {lead!r}")
        self.counts[f"summon tied with enemy units ({self.options['tie_break']}), led by its "
                    f"{'side' if lead == u.side else 'enemy'}"] += 1
        return (low if lead == u.side else end), [s, lead]

    def _summon_span(self, side: str, s: int) -> tuple[int, int]:
        """R15: where a unit of `side` at SPD `s` may go in the order: after its own side's units at that SPD
        (`low`), and at the latest after every unit at that SPD (`end`)."""
        spds = self.order_spd
        group = [k for k, v in enumerate(spds) if v == s]
        start = next((k for k, v in enumerate(spds) if v <= s), len(spds))
        end = group[-1] + 1 if group else start
        own = [k for k in group if self.order[k].side == side]
        low = own[-1] + 1 if own else start
        return low, end

    def _tie_lead(self, s: int, logged: Any = None) -> str:
        """The leader of a tie between the players at SPD `s` (R9): the next of the alternation, or the seeded
        coin (taken from the log when the generator is not replayed)."""
        if self.options["tie_break"] == "alternate":
            lead = self.alt
            self.alt = OTHER[lead]
            return lead
        if self.rng is not None:
            return "a" if self.rng.random() < 0.5 else "b"
        return logged  # type: ignore[no-any-return]

    def _apply(self, src: Unit, t: Unit, kind: str, stat: str | None, amount: int | None, duration: int, via: str,
               persists: bool) -> None:
        """A lasting effect with the last round it is active (R14)."""
        e = self._take("effect_applied", "R14", f"{src.uid}'s {kind} on {t.uid}{self._r19(src, t)}", src=src.uid)
        eid = e["eid"]
        self._ok(isinstance(eid, int) and eid > self.last_eid, "G3", f"eid {eid!r} is not new")
        self.last_eid = eid
        self._eq(e, "unit", t.uid, "R14")
        self._eq(e, "kind", kind, "R14")
        self._eq(e, "stat", stat, "R14")
        self._eq(e, "amount", amount, "R11" if kind == "shield" else "R14")
        self._eq(e, "duration", duration, "R14")
        r = self.round
        until = r + duration if kind in ONGOING else max(r, 1) + duration - 1
        self._eq(e, "until", until, "R14", f" (applied in round {r} for {duration})")
        self._eq(e, "persists", persists, "R17", " (the spec's persists)")
        self._eq(e, "src", src.uid, "G3")
        self._eq(e, "via", via, "G3")
        self._eq(e, "use", self.use, "G3", f" (the open use of {src.uid})")
        t.effects[eid] = Eff(eid, t.uid, kind, stat, amount or 0, until, src.uid, persists, r,
                             duration if kind in ONGOING else 0)

    def _expire_batch(self, due: Sequence[tuple[Unit, Eff, str, Unit | None]], rule: str, what: str,
                      via: str | None = None) -> None:
        """Exactly these effects end now (in any order)."""
        pending = {x.eid: (u, x, reason, by) for u, x, reason, by in due}
        while pending:
            e = self._peek()
            if e is None or e["type"] != "effect_expired" or e["eid"] not in pending:
                eids = sorted(pending)
                first = pending[eids[0]]
                r = "R17" if first[2] in ("source_defeated", "unit_defeated") else rule
                self._fail(r, f"expected the expiry of effect(s) {eids} ({what}: {first[2]}); found {_show(e)}"
                              f"{self._hint(e)}", self.i)
            self.i += 1
            self.checks += 1
            u, x, reason, by = pending.pop(e["eid"])  # type: ignore[index]
            self.counts[f"expiry {reason}"] += 1
            r = "R17" if reason in ("source_defeated", "unit_defeated") else rule
            self._eq(e, "unit", u.uid, r)
            self._eq(e, "kind", x.kind, r)
            self._eq(e, "reason", reason, r)
            self._eq(e, "src", by.uid if by is not None else None, r)
            cleanse = reason in ("cleansed", "dispelled", "removed")
            self._eq(e, "via", via if cleanse else None, "G3")
            self._eq(e, "use", self.use if cleanse else None, "G3")
            del u.effects[x.eid]
            self.gone_eids[x.eid] = reason
            if reason == "source_defeated":
                self.ended_by_source.add(x.eid)

    # ------------------------------------------------------------------ damage, heals, defeats

    def _hit(self, src: Unit, tgt: Unit, atk: int | None, power: int, dfn: int | None, via: str, eid: int | None,
             rule: str) -> None:
        """R11: max(1, power − DEF) (or max(1, power)), shields oldest first, then HP; 0 HP is a defeat."""
        amount = max(1, power - dfn) if dfn is not None else max(1, power)
        absorbed, depleted = self._absorb(tgt, amount)
        before = tgt.hp
        after = max(0, before - amount + absorbed)
        e = self._take("damage", rule, f"{src.uid}'s {via} damage to {tgt.uid}{self._r19(src, tgt)}",
                       src=src.uid, via=via, eid=eid)
        self._eq(e, "src", src.uid, rule)
        self._eq(e, "tgt", tgt.uid, rule)
        self._eq(e, "via", via, rule)
        self._eq(e, "eid", eid, "R14" if via == "ongoing" else "G3")
        self._eq(e, "use", self.use, "G3", f" (the open use of {src.uid})")
        self._eq(e, "src_line", src.line if src.alive else None, "R12")
        self._eq(e, "tgt_line", tgt.line, "R12")
        self._eq(e, "atk", atk, "R11", f" ({src.uid}'s effective ATK)")
        self._eq(e, "power", power, "R11", " (⌊ATK × scale⌋ + flat, the scale taken exactly)")
        self._eq(e, "def", dfn, "R11", f" ({tgt.uid}'s effective DEF, null when ignored)")
        self._eq(e, "amount", amount, "R11", f" (max(1, {power} − {dfn if dfn is not None else 0}))")
        self._eq(e, "hp_before", before, "R11", " (the HP chain)")
        self._eq(e, "absorbed", absorbed, "R11", " (shields absorb first, oldest first)")
        self._eq(e, "hp_after", after, "R11", f" (max(0, {before} − {amount} + {absorbed}))")
        tgt.hp = after
        if absorbed:
            self.counts["damage absorbed by a shield"] += 1
        if depleted:
            self._expire_batch([(tgt, x, "depleted", None) for x in depleted], "R11", "the shields used up")
        if after == 0:
            self._defeat(tgt, src)
        elif tgt.trigger == "on_hit" and via in ACTION_VIAS and src.side != tgt.side:
            self._fire(tgt, src, "R10")

    @staticmethod
    def _absorb(tgt: Unit, amount: int) -> tuple[int, list[Eff]]:
        """R11: shields take the damage first, oldest first: what they absorb, and those used up."""
        absorbed, left, depleted = 0, amount, []
        for x in tgt.effects.values():
            if x.kind == "shield" and x.amount > 0:
                take = min(x.amount, left)
                x.amount -= take
                absorbed += take
                left -= take
                if x.amount == 0:
                    depleted.append(x)
                if not left:
                    break
        return absorbed, depleted

    def _heal(self, src: Unit, tgt: Unit, amount: int, via: str, eid: int | None, rule: str) -> None:
        healed = max(0, min(amount, tgt.max_hp - tgt.hp))
        e = self._take("heal", rule, f"{src.uid}'s {via} heal of {tgt.uid}{self._r19(src, tgt)}",
                       src=src.uid, via=via, eid=eid)
        self._eq(e, "src", src.uid, rule)
        self._eq(e, "tgt", tgt.uid, rule)
        self._eq(e, "via", via, rule)
        self._eq(e, "eid", eid, "R14" if via == "ongoing" else "G3")
        self._eq(e, "use", self.use, "G3", f" (the open use of {src.uid})")
        self._eq(e, "amount", amount, "R11", " (⌊ATK × scale⌋ + flat + ⌊max HP × fraction⌋)")
        self._eq(e, "hp_before", tgt.hp, "R11", " (the HP chain)")
        self._eq(e, "healed", healed, "R11", f" (capped at max HP {tgt.max_hp})")
        self._eq(e, "hp_after", tgt.hp + healed, "R11")
        tgt.hp += healed

    def _defeat(self, u: Unit, by: Unit | None, cause: str = "damage") -> None:
        """HP 0 (by damage, or set at a table): out at once; R17 expiries; R18 triggers; the last character takes
        its summons (R16)."""
        self.counts["defeat" + (" of a summon" if u.summon else "")] += 1
        if u.to_act:
            self.counts["defeat losing its action"] += 1
        if self.use is not None and self.use_owner.get(self.use) == u.uid:
            self.counts["defeat during its own ability use (R10)"] += 1
        e = self._take("defeated", "R11", f"the defeat of {u.uid} (0 HP)", unit=u.uid)
        self._eq(e, "unit", u.uid, "R11")
        self._eq(e, "cause", cause, "R11")
        self._eq(e, "by", by.uid if by is not None else None, "R18", " (the source of the damage)")
        self._eq(e, "lost_action", u.to_act, "R10", " (whether it still had an action to come this round)")
        self._eq(e, "use", self.use, "G3")
        self._remove(u)
        side = u.side
        if not u.summon:
            self.chars[side] -= 1
        self._defeat_triggers(u, by)
        if not u.summon and not self.chars[side]:
            self._army_leaves(side)

    def _defeat_triggers(self, u: Unit, by: Unit | None) -> None:
        """R18: every defeat trigger the fall of `u` sets off, and only those, in the attack order."""
        side = u.side
        for w in list(self.order):
            trig = w.trigger
            if trig not in DEFEAT_TRIGGERS or not w.alive:
                continue
            if u.summon and not w.fab.get("include_summons"):  # type: ignore[union-attr]
                continue
            if (trig == "ally_defeated" and w.side == side) or (trig == "enemy_defeated" and w.side != side) or (
                    trig == "defeats_enemy" and w is by and w.side != side):
                if u.summon:
                    self.counts["defeat trigger due for a summon (include_summons)"] += 1
                self._fire(w, None, "R18")

    def _army_leaves(self, side: str) -> None:
        """R16: the last character of `side` has fallen: its summons leave with it."""
        for s in list(self.living[side]):
            self.counts["summon leaving with its army"] += 1
            d = self._take("defeated", "R16", f"{s.uid} leaving with its army", unit=s.uid)
            self._eq(d, "unit", s.uid, "R16")
            self._eq(d, "cause", "army_defeated", "R16")
            self._eq(d, "by", None, "R16")
            self._eq(d, "lost_action", s.to_act, "R10")
            self._eq(d, "use", self.use, "G3")
            self._remove(s)

    def _remove(self, u: Unit) -> None:
        """Off the battlefield; what stood on it and what it applied to others end now (R17)."""
        u.alive = False
        u.hp = 0
        u.to_act = False
        self.living[u.side].remove(u)
        due: list[tuple[Unit, Eff, str, Unit | None]] = [(u, x, "unit_defeated", None) for x in u.effects.values()]
        for side in PLAYERS:
            for v in self.living[side]:
                for x in v.effects.values():
                    if x.src == u.uid:
                        if x.persists:
                            self.counts["effect outliving its fallen source (persists)"] += 1
                        else:
                            due.append((v, x, "source_defeated", u))
        self._expire_batch(due, "R17", f"the effects ending with {u.uid}")


def audit(events: list[dict[str, Any]], *, full_armies: bool = True, replay_rng: bool = True,
          card_text: bool = True) -> list[str]:
    """Every rule the log shows broken (empty when the log is consistent with the rules).

    `full_armies`: armies must be legal 7-card armies (R1); `replay_rng`: random picks, tie coins,
    the first-player coin and the agent seeds must be the match generator's draws (G1, G2);
    `card_text`: card texts must say what their specs do (off for test cards with placeholder texts).
    """
    return Auditor(events, full_armies=full_armies, replay_rng=replay_rng, card_text=card_text).run()
