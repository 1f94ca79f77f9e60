"""The Echo Realms match: the rulebook's full round as an OpenSpiel-like state machine.

`RealmsState` advances through the automatic steps (start phase, attack order, end phase)
on its own and stops at each decision: a deployment (Formation Round), a Flex move (R8)
or a unit's action (R10). `legal_actions()`, `apply(action)`, `is_terminal()` and
`outcome()` are the whole interface; every random choice comes from `self.rng` (G1) and
everything that happens is appended to the event log (see docs/events.md).

Actions are small tuples:
    ("deploy", card_slug, line)     Formation Round
    ("stay", None) / ("switch", line)   Flex phase, for an Assassin
    ("attack", target_id)           Basic Attack
    ("ability", target_id | None)   Main Ability (None when the ability chooses no unit)
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from fractions import Fraction
from operator import attrgetter
from typing import Any

from realms.engine.cards import CharacterCard
from realms.engine.events import SCHEMA_VERSION
from realms.engine.formation import (
    ARMY_SIZE,
    can_complete,
    deployment_problems,
    legal_deployments,
)
from realms.engine.observation import RealmsObservation, UnitInfo, static_part
from realms.engine.spec import Effect, FactionAbility, MainAbility, SummonSpec
from simulate.engine.errors import IllegalAction, SetupError
from simulate.engine.events import EventLog
from simulate.engine.games import Outcome

PLAYERS = ("a", "b")
OTHER = {"a": "b", "b": "a"}
VANGUARD = "vanguard"
REARGUARD = "rearguard"
LINES = (VANGUARD, REARGUARD)
LINE_CAPACITY = 5

ATTACK = "attack"
ABILITY = "ability"
STAY = "stay"
SWITCH = "switch"
DEPLOY = "deploy"
STAY_ACTION = (STAY, None)
ABILITY_NO_TARGET = (ABILITY, None)

# Stages of a match.
FORMATION, START, FLEX, ACT, END, OVER = range(6)
STAGE_NAMES = ("formation", "start", "flex", "act", "end", "over")

# Where a damage, heal, move or effect came from.
VIA_BASIC = "basic"
VIA_ABILITY = "ability"
VIA_FACTION = "faction"
VIA_ONGOING = "ongoing"
VIA_FLEX = "flex"
_ACTION_VIAS = (VIA_BASIC, VIA_ABILITY)  # what an on_hit ability answers to

# Faction ability triggers as small ints on the unit (0: none).
TRIGGER_CODES = {
    "battle_start": 1,
    "round_start": 2,
    "before_action": 3,
    "after_action": 4,
    "on_hit": 5,
    "ally_defeated": 6,
    "enemy_defeated": 7,
    "round_end": 8,
}
T_BATTLE_START, T_ROUND_START, T_BEFORE, T_AFTER, T_ON_HIT, T_ALLY_DEF, T_ENEMY_DEF, T_ROUND_END = range(1, 9)
LIMIT_CODES = {"none": 0, "round": 1, "battle": 2}

NEGATIVE_KINDS = frozenset({"debuff", "poison", "burn", "silence"})
POSITIVE_KINDS = frozenset({"buff", "shield", "regen"})
ONGOING_DAMAGE = frozenset({"poison", "burn"})
MAX_TRIGGER_DEPTH = 8

_FRACTIONS: dict[float, tuple[int, int]] = {}


def scaled(value: int, scale: float) -> int:
    """⌊value × scale⌋, exact for the decimal scale written in the spec."""
    if not scale:
        return 0
    frac = _FRACTIONS.get(scale)
    if frac is None:
        exact = Fraction(repr(float(scale)))
        frac = _FRACTIONS[scale] = (exact.numerator, exact.denominator)
    return value * frac[0] // frac[1]


class Active:
    """An effect standing on a unit: buff, debuff, shield, poison, burn, regen or silence."""

    __slots__ = ("eid", "kind", "stat", "amount", "left", "src", "since")

    def __init__(self, eid: int, kind: str, stat: str, amount: int, left: int, src: str, since: int) -> None:
        """A standing effect: id, kind, stat, amount, rounds left, source id, round applied."""
        self.eid = eid
        self.kind = kind
        self.stat = stat
        self.amount = amount
        self.left = left
        self.src = src
        self.since = since

    def copy(self) -> Active:
        """An independent copy (for look-ahead states)."""
        return Active(self.eid, self.kind, self.stat, self.amount, self.left, self.src, self.since)


class Unit:
    """A character or summoned unit on the battlefield, with its current values."""

    __slots__ = (
        "uid", "side", "index", "card", "name", "faction", "cls", "position", "summon", "line",
        "atk", "df", "spd", "max_hp", "hp", "m_atk", "m_def", "m_spd", "ea", "ed", "es", "shield", "silence", "ongoing",
        "effects", "alive", "cooldown", "ready", "main", "fab", "trig", "limit", "cond",
        "fab_round", "fab_used", "turn", "acted", "act_atk", "act_abl", "pub", "neg", "pos", "fixed",
    )

    def __init__(
        self,
        uid: str,
        side: str,
        index: int,
        line: str,
        name: str,
        atk: int,
        df: int,
        spd: int,
        hp: int,
        card: CharacterCard | None = None,
    ) -> None:
        """A unit with its printed values; `card` None makes a summon (no abilities)."""
        self.uid = uid
        self.side = side
        self.index = index
        self.card = card
        self.name = name
        self.line = line
        self.atk = atk
        self.df = df
        self.spd = spd
        self.max_hp = hp
        self.hp = hp
        self.m_atk = self.m_def = self.m_spd = 0
        self.ea = atk if atk > 0 else 0
        self.ed = df if df > 0 else 0
        self.es = spd if spd > 0 else 0
        self.shield = self.silence = self.ongoing = 0
        self.neg = self.pos = 0  # standing negative / positive effects
        self.effects: list[Active] = []
        self.alive = True
        self.fab_round = -1
        self.fab_used = False
        self.turn = -1
        self.acted = -1
        self.act_atk = (ATTACK, uid)
        self.act_abl = (ABILITY, uid)
        self.pub: UnitInfo | None = None  # public snapshot, rebuilt after a change
        self.ready = 1
        if card is None:
            self.summon = True
            self.faction = ""
            self.cls = "summon"
            self.position = line
            self.cooldown = 0
            self.main: MainAbility | None = None
            self.fab: FactionAbility | None = None
            self.trig = 0
            self.limit = 0
            self.cond = None
        else:
            self.summon = False
            self.faction = card.faction
            self.cls = card.character_class
            self.position = card.position
            self.cooldown = card.cooldown
            self.main = card.main
            self.fab = card.faction_ability
            self.trig = TRIGGER_CODES[card.faction_ability.trigger]
            self.limit = LIMIT_CODES[card.faction_ability.limit]
            cond = card.faction_ability.condition
            self.cond = None if cond.is_empty() else cond
        self.fixed = static_part(self)

    def copy(self) -> Unit:
        """An independent copy (for look-ahead states)."""
        n = Unit.__new__(Unit)
        n.uid = self.uid
        n.side = self.side
        n.index = self.index
        n.card = self.card
        n.name = self.name
        n.faction = self.faction
        n.cls = self.cls
        n.position = self.position
        n.summon = self.summon
        n.line = self.line
        n.atk = self.atk
        n.df = self.df
        n.spd = self.spd
        n.max_hp = self.max_hp
        n.hp = self.hp
        n.m_atk = self.m_atk
        n.m_def = self.m_def
        n.m_spd = self.m_spd
        n.ea = self.ea
        n.ed = self.ed
        n.es = self.es
        n.shield = self.shield
        n.silence = self.silence
        n.ongoing = self.ongoing
        n.neg = self.neg
        n.pos = self.pos
        n.effects = [a.copy() for a in self.effects] if self.effects else []
        n.alive = self.alive
        n.cooldown = self.cooldown
        n.ready = self.ready
        n.main = self.main
        n.fab = self.fab
        n.trig = self.trig
        n.limit = self.limit
        n.cond = self.cond
        n.fab_round = self.fab_round
        n.fab_used = self.fab_used
        n.turn = self.turn
        n.acted = self.acted
        n.act_atk = self.act_atk
        n.act_abl = self.act_abl
        n.pub = self.pub  # snapshots are immutable: the copy may share them
        n.fixed = self.fixed
        return n

    def eff_atk(self) -> int:
        """ATK with every modifier, never below 0 (R11)."""
        return self.ea

    def eff_def(self) -> int:
        """DEF with every modifier, never below 0 (R11)."""
        return self.ed

    def eff_spd(self) -> int:
        """SPD with every modifier, never below 0 (R11)."""
        return self.es

    def restat(self) -> None:
        """Recompute the effective stats after a modifier changed (never below 0)."""
        v = self.atk + self.m_atk
        self.ea = v if v > 0 else 0
        v = self.df + self.m_def
        self.ed = v if v > 0 else 0
        v = self.spd + self.m_spd
        self.es = v if v > 0 else 0


_SPD = attrgetter("es")
_SENTINEL = Unit("-", "-", -1, "", "", 0, 0, -1, 1)  # closes the last SPD group in _sorted
_SENTINEL.es = -1


class RealmsState:
    """One Echo Realms match, from the Formation Round (optional) to its end."""

    __slots__ = (
        "options", "seed", "rng", "log", "emit", "tie_random", "max_rounds", "first", "alt",
        "stage", "round", "units", "by_id", "living", "chars", "next_num", "order", "order_spd", "idx",
        "flex_q", "fq_i", "pending", "legal", "targets", "eid", "depth", "winner", "reason", "steps",
        "death_triggers", "f_coll", "f_dep", "f_turn",
    )

    def __init__(self, options: Mapping[str, Any], seed: int, keep_log: bool = True) -> None:
        """A match before setup: options validated, its own generator, the first player drawn if needed."""
        self.options = dict(options)
        self.seed = seed
        self.rng = random.Random(seed)
        self.log: EventLog | None = EventLog() if keep_log else None
        self.emit = self.log.append if self.log is not None else None
        self.tie_random = options["tie_break"] == "random"
        self.max_rounds = options["max_rounds"]
        first = options["first_player"]
        if first not in PLAYERS:
            first = "a" if self.rng.random() < 0.5 else "b"
        self.first = first
        self.alt = first
        self.stage = START
        self.round = 0
        self.units: list[Unit] = []
        self.by_id: dict[str, Unit] = {}
        self.living: dict[str, list[Unit]] = {"a": [], "b": []}
        self.chars = {"a": 0, "b": 0}
        self.next_num = {"a": 1, "b": 1}
        self.order: list[Unit] = []
        self.order_spd: list[int] = []
        self.idx = 0
        self.flex_q: list[Unit] = []
        self.fq_i = 0
        self.pending: Unit | None = None
        self.legal: list[tuple] = []
        self.targets: list[Unit] = []  # the units behind the pending decision's legal Basic Attacks
        self.eid = 0
        self.depth = 0
        self.winner: str | None = None
        self.reason = ""
        self.steps = 0
        self.death_triggers = 0
        self.f_coll: dict[str, list[CharacterCard]] = {}
        self.f_dep: dict[str, list[tuple[CharacterCard, str]]] = {}
        self.f_turn = first

    # ------------------------------------------------------------------ setup

    def start_battle(self, armies: Mapping[str, Sequence[tuple[CharacterCard, str]]]) -> None:
        """Deploy both armies, log match_start, resolve battle_start abilities and run to the first decision."""
        problems: list[tuple[str, str]] = []
        for side in PLAYERS:
            army = armies.get(side) if isinstance(armies, Mapping) else None
            if army is None or isinstance(army, (str, bytes)) or not isinstance(army, Sequence):
                problems.append((f"armies.{side}", "must be a list of (card, line) pairs"))
                continue
            if not 1 <= len(army) <= ARMY_SIZE:
                problems.append((f"armies.{side}", f"must hold 1 to {ARMY_SIZE} cards (got {len(army)})"))
            per_line = {VANGUARD: 0, REARGUARD: 0}
            for i, entry in enumerate(army):
                if not isinstance(entry, Sequence) or len(entry) != 2:
                    problems.append((f"armies.{side}[{i}]", "must be a (card, line) pair"))
                    continue
                card, line = entry
                if not isinstance(card, CharacterCard):
                    problems.append((f"armies.{side}[{i}]", "card must be a CharacterCard"))
                if line not in LINES:
                    problems.append((f"armies.{side}[{i}]", f"line must be vanguard or rearguard (got {line!r})"))
                else:
                    per_line[line] += 1
            for line, count in per_line.items():
                if count > LINE_CAPACITY:
                    problems.append((f"armies.{side}", f"the {line} holds at most {LINE_CAPACITY} (got {count})"))
        if problems:
            raise SetupError("Bad armies: " + "; ".join(f"{p}: {r}" for p, r in problems), problems)
        for side in PLAYERS:
            for card, line in armies[side]:
                self._add_unit(side, line, card.name, card.atk, card.def_, card.spd, card.hp, card)
        if self.emit is not None:
            self.emit(
                {
                    "type": "match_start",
                    "schema": SCHEMA_VERSION,
                    "seed": self.seed,
                    "options": self.options,
                    "first_player": self.first,
                    "units": [
                        {
                            "id": u.uid,
                            "side": u.side,
                            "card": u.card.slug if u.card else None,
                            "name": u.name,
                            "class": u.cls,
                            "faction": u.faction,
                            "line": u.line,
                            "atk": u.atk,
                            "def": u.df,
                            "spd": u.spd,
                            "hp": u.hp,
                            "cooldown": u.cooldown,
                        }
                        for u in self.units
                    ],
                }
            )
        self.order, self.order_spd, _ = self._sorted(decide=False)
        self.stage = START
        for u in list(self.order):
            if u.alive and u.trig == T_BATTLE_START:
                self._fire(u, None)
        if self._check_end():
            return
        self._start_round()
        self._advance()

    def start_formation(self, collections: Mapping[str, Sequence[CharacterCard]]) -> None:
        """Open the Formation Round (R6) from two collections; players then deploy alternately."""
        problems: list[tuple[str, str]] = []
        for side in PLAYERS:
            coll = collections.get(side) if isinstance(collections, Mapping) else None
            if coll is None or isinstance(coll, (str, bytes)) or not isinstance(coll, Sequence):
                problems.append((f"collections.{side}", "must be a list of cards"))
                continue
            if not all(isinstance(c, CharacterCard) for c in coll):
                problems.append((f"collections.{side}", "must hold CharacterCard values only"))
                continue
            unique: dict[str, CharacterCard] = {}
            for card in coll:
                unique.setdefault(card.slug, card)
            self.f_coll[side] = list(unique.values())
            if not can_complete([], self.f_coll[side]):
                problems.append(
                    (f"collections.{side}", "cannot make a legal army (3 Common, 2 Uncommon, 1 Rare, 1 Legendary)")
                )
        if problems:
            raise SetupError("Bad collections: " + "; ".join(f"{p}: {r}" for p, r in problems), problems)
        self.f_dep = {"a": [], "b": []}
        self.stage = FORMATION
        self.f_turn = self.first
        if self.emit is not None:
            self.emit(
                {
                    "type": "formation_start",
                    "first_player": self.first,
                    "collections": {s: len(self.f_coll[s]) for s in PLAYERS},
                }
            )
        self.legal = legal_deployments(self.f_dep[self.f_turn], self.f_coll[self.f_turn])

    def _add_unit(
        self, side: str, line: str, name: str, atk: int, df: int, spd: int, hp: int, card: CharacterCard | None
    ) -> Unit:
        """Create a unit with the next id of its side and put it on the battlefield."""
        num = self.next_num[side]
        self.next_num[side] = num + 1
        u = Unit(f"{side}{num}", side, len(self.units), line, name, atk, df, spd, hp, card)
        self.units.append(u)
        self.by_id[u.uid] = u
        self.living[side].append(u)
        if card is not None:
            self.chars[side] += 1
            if u.trig in (T_ALLY_DEF, T_ENEMY_DEF):
                self.death_triggers += 1
        return u

    # --------------------------------------------------------- public interface

    def current_player(self) -> str | None:
        """The player who decides now ('a' or 'b'), or None when the match is over."""
        if self.stage == OVER:
            return None
        if self.stage == FORMATION:
            return self.f_turn
        return self.pending.side if self.pending is not None else None

    def legal_actions(self) -> list[tuple]:
        """The legal actions of the pending decision (a fresh list)."""
        return list(self.legal)

    def is_terminal(self) -> bool:
        """Whether the match is over."""
        return self.stage == OVER

    def phase(self) -> str:
        """The current stage: formation, start, flex, act, end or over."""
        return STAGE_NAMES[self.stage]

    def acting_unit(self) -> Unit | None:
        """The unit whose decision is pending (Flex or action), if any."""
        return self.pending if self.stage in (FLEX, ACT) else None

    def observation(self, player: str) -> RealmsObservation:
        """What `player` sees (G2): in Echo Realms the whole battlefield is public."""
        return RealmsObservation(self, player)

    def events(self) -> list[dict[str, Any]] | None:
        """The event log so far, or None when the log is off."""
        return self.log.to_list() if self.log is not None else None

    def outcome(self) -> Outcome:
        """Winner ('a', 'b' or None), reason, rounds played and the survivors of each side."""
        survivors = {
            side: [
                {
                    "id": u.uid,
                    "card": u.card.slug if u.card else None,
                    "name": u.name,
                    "hp": u.hp,
                    "max_hp": u.max_hp,
                    "summon": u.summon,
                }
                for u in self.living[side]
            ]
            for side in PLAYERS
        }
        return Outcome(winner=self.winner, reason=self.reason or "unfinished", rounds=self.round, survivors=survivors)

    def stop(self, reason: str) -> None:
        """End the match now as a draw (the runner's hard cap on actions)."""
        if self.stage != OVER:
            self._finish(None, reason)

    def apply(self, action: Any) -> None:
        """Play one action of the pending decision and run on to the next one; IllegalAction if not legal."""
        if self.stage == OVER:
            raise IllegalAction(action, [], "The match is over; no action is legal.")
        legal = self.legal
        if action not in legal:
            if isinstance(action, list) and tuple(action) in legal:
                action = tuple(action)
            else:
                raise IllegalAction(action, legal, self._illegal_message(action))
        self.steps += 1
        stage = self.stage
        if stage == ACT:
            self._act(self.pending, action)  # type: ignore[arg-type]
        elif stage == FLEX:
            u = self.pending
            if action[0] == SWITCH:
                self._move(u, action[1], VIA_FLEX, u)  # type: ignore[arg-type]
            self.fq_i += 1
            self._advance()
        else:
            self._deploy(action)

    def _illegal_message(self, action: Any) -> str:
        """Why `action` is not legal now, in words."""
        if self.stage == FORMATION and isinstance(action, tuple) and len(action) == 3 and action[0] == DEPLOY:
            p = self.f_turn
            card = next((c for c in self.f_coll[p] if c.slug == action[1]), None)
            if card is None:
                return f"Player {p} cannot deploy {action[1]!r}: not_owned."
            codes = deployment_problems(self.f_dep[p], self.f_coll[p], card, action[2])
            return f"Player {p} cannot deploy {action[1]!r} in {action[2]!r}: {', '.join(codes) or 'illegal'}."
        who = self.pending.uid if self.pending is not None else self.f_turn
        shown = ", ".join(repr(a) for a in self.legal[:12])
        return f"{action!r} is not legal for {who} ({STAGE_NAMES[self.stage]}); legal: {shown}"

    def clone(self, seed: int) -> RealmsState:
        """An independent copy without a log and with its own generator (for look-ahead agents)."""
        c = RealmsState.__new__(RealmsState)
        nus = [u.copy() for u in self.units]
        c.options = self.options
        c.seed = seed
        c.rng = random.Random(seed)
        c.log = None
        c.emit = None
        c.tie_random = self.tie_random
        c.max_rounds = self.max_rounds
        c.first = self.first
        c.alt = self.alt
        c.stage = self.stage
        c.round = self.round
        c.units = nus
        c.by_id = {u.uid: u for u in nus}
        c.living = {s: [nus[u.index] for u in units] for s, units in self.living.items()}
        c.chars = dict(self.chars)
        c.next_num = dict(self.next_num)
        c.order = [nus[u.index] for u in self.order]
        c.order_spd = list(self.order_spd)
        c.idx = self.idx
        c.flex_q = [nus[u.index] for u in self.flex_q]
        c.fq_i = self.fq_i
        c.pending = nus[self.pending.index] if self.pending is not None else None
        c.legal = list(self.legal)
        c.targets = [nus[u.index] for u in self.targets]
        c.eid = self.eid
        c.depth = 0
        c.winner = self.winner
        c.reason = self.reason
        c.steps = self.steps
        c.death_triggers = self.death_triggers
        c.f_coll = self.f_coll
        c.f_dep = {s: list(d) for s, d in self.f_dep.items()}
        c.f_turn = self.f_turn
        return c

    # -------------------------------------------------------------- formation

    def _deploy(self, action: tuple) -> None:
        """Apply a Formation Round deployment; start the battle once both armies are complete."""
        p = self.f_turn
        _, slug, line = action
        card = next(c for c in self.f_coll[p] if c.slug == slug)
        self.f_dep[p].append((card, line))
        if self.emit is not None:
            self.emit({"type": "deploy", "player": p, "card": slug, "line": line, "pick": len(self.f_dep[p])})
        other = OTHER[p]
        if len(self.f_dep[other]) < ARMY_SIZE:
            self.f_turn = other
        if len(self.f_dep["a"]) >= ARMY_SIZE and len(self.f_dep["b"]) >= ARMY_SIZE:
            self.legal = []
            self.start_battle({s: list(self.f_dep[s]) for s in PLAYERS})
            return
        self.legal = legal_deployments(self.f_dep[self.f_turn], self.f_coll[self.f_turn])
        if not self.legal:  # cannot happen while every step keeps the army completable
            raise SetupError(f"Player {self.f_turn} has no legal deployment left.", [("formation", "stuck")])

    # ----------------------------------------------------------- round flow

    def _advance(self) -> None:
        """Run the automatic steps until a decision is pending or the match is over."""
        while self.stage != OVER:
            if self.stage == FLEX:
                q = self.flex_q
                while self.fq_i < len(q):
                    u = q[self.fq_i]
                    if u.alive:
                        dest = REARGUARD if u.line == VANGUARD else VANGUARD
                        if self._line_count(u.side, dest) < LINE_CAPACITY:
                            self.pending = u
                            self.legal = [STAY_ACTION, (SWITCH, dest)]
                            return
                    self.fq_i += 1
                self._order_phase()
            order = self.order
            rnd = self.round
            while self.idx < len(order):
                u = order[self.idx]
                if u.alive:
                    if u.turn != rnd:
                        u.turn = rnd
                        if u.trig == T_BEFORE:
                            self._fire(u, None)
                            if self._check_end():
                                return
                            if not u.alive:
                                self.idx += 1
                                continue
                    self.pending = u
                    self.legal = self._act_legal(u)
                    return
                self.idx += 1
            self._end_phase()
            if self.stage == OVER:
                return
            self._start_round()

    def _act_legal(self, u: Unit) -> list[tuple]:
        """R10/R12: Basic Attack on each legal target, and the Main Ability when ready and not silenced."""
        foes = self.living[OTHER[u.side]]
        targets = ([t for t in foes if t.line == VANGUARD] or foes) if u.line == VANGUARD else foes
        self.targets = targets
        legal = [t.act_atk for t in targets]
        main = u.main
        if main is not None and u.ready <= self.round and not u.silence:
            choose = main.choose
            if choose == "enemy":
                legal.extend(t.act_abl for t in (foes if main.ignore_lines else targets))
            elif choose == "ally":
                legal.extend(t.act_abl for t in self.living[u.side])
            else:
                legal.append(ABILITY_NO_TARGET)
        return legal

    def _start_round(self) -> None:
        """Start phase (R7): ongoing effects and round_start abilities in the previous attack order."""
        self.round += 1
        rnd = self.round
        self.stage = START
        self.pending = None
        if self.emit is not None:
            self.emit({"type": "round_start", "round": rnd})
        for u in list(self.order):
            if not u.alive:
                continue
            if u.ongoing:
                self._tick(u)
            if u.alive and u.trig == T_ROUND_START:
                self._fire(u, None)
        if self._check_end():
            return
        self.flex_q = [u for u in self.order if u.alive and u.position == "flex"]
        self.fq_i = 0
        self.stage = FLEX

    def _order_phase(self) -> None:
        """R9: every living unit by current SPD, highest first, ties by the tie_break option."""
        self.order, self.order_spd, ties = self._sorted(decide=True)
        self.idx = 0
        self.stage = ACT
        if self.emit is not None:
            self.emit(
                {
                    "type": "order",
                    "round": self.round,
                    "units": [[u.uid, s] for u, s in zip(self.order, self.order_spd, strict=True)],
                    "ties": ties,
                }
            )

    def _sorted(self, decide: bool) -> tuple[list[Unit], list[int], list[list]]:
        """Living units by SPD; a tie between the players is led by a coin (random) or by alternation.

        Units of one player inside a tie keep their army order. Without `decide` (the order used
        before round 1) every tie is led by the first player and nothing is drawn.
        """
        ranked = self.living["a"] + self.living["b"]
        ranked.sort(key=_SPD, reverse=True)  # stable: player a's units first, each side in army order
        order: list[Unit] = []
        spds: list[int] = []
        ties: list[list] = []
        group_a: list[Unit] = []
        group_b: list[Unit] = []
        current = -1
        for u in ranked + [_SENTINEL]:
            s = u.es
            if s != current:
                if group_a and group_b:
                    if not decide:
                        lead = self.first
                    elif self.tie_random:
                        lead = "a" if self.rng.random() < 0.5 else "b"
                    else:
                        lead = self.alt
                        self.alt = OTHER[lead]
                    ties.append([current, lead])
                    first, second = (group_a, group_b) if lead == "a" else (group_b, group_a)
                    for k in range(max(len(first), len(second))):
                        if k < len(first):
                            order.append(first[k])
                        if k < len(second):
                            order.append(second[k])
                else:
                    order.extend(group_a or group_b)
                current = s
                group_a = []
                group_b = []
            if u.side == "a":
                group_a.append(u)
            else:
                group_b.append(u)
            spds.append(s)
        spds.pop()  # the sentinel's
        return order, spds, ties

    def _end_phase(self) -> None:
        """End phase: round_end abilities, then durations tick down and expire (R14); R16 checks."""
        self.stage = END
        self.pending = None
        for u in list(self.order):
            if u.alive and u.trig == T_ROUND_END:
                self._fire(u, None)
        for u in list(self.order):
            if u.alive and u.effects:
                u.pub = None
                for a in list(u.effects):
                    a.left -= 1
                    if a.left <= 0:
                        self._drop(u, a, "duration")
        if self.emit is not None:
            self.emit({"type": "round_end", "round": self.round})
        if self._check_end():
            return
        if self.round >= self.max_rounds:
            self._finish(None, "max_rounds")

    def _act(self, u: Unit, action: tuple) -> None:
        """R10: resolve one unit's Basic Attack or Main Ability, then its after_action ability."""
        u.acted = self.round
        kind, x = action
        if kind == ATTACK:
            t = self.by_id[x]
            a = u.ea
            self._hit(u, t, a, a, t.ed, VIA_BASIC, None)
        else:
            main = u.main
            u.ready = self.round + u.cooldown
            u.pub = None
            if self.emit is not None:
                self.emit(
                    {
                        "type": "ability_used",
                        "unit": u.uid,
                        "ability": main.name,  # type: ignore[union-attr]
                        "target": x,
                        "round": self.round,
                        "ready": u.ready,
                    }
                )
            self._run(u, main.effects, self.by_id[x] if x is not None else None, VIA_ABILITY, None)  # type: ignore[union-attr]
        if u.alive and u.trig == T_AFTER:
            self._fire(u, None)
        self.idx += 1
        if not self._check_end():
            self._advance()

    def _check_end(self) -> bool:
        """R16: a side with no character left loses; both at once is a draw."""
        chars = self.chars
        if chars["a"] and chars["b"]:
            return False
        if self.stage == OVER:
            return True
        if not chars["a"] and not chars["b"]:
            self._finish(None, "mutual_elimination")
        else:
            self._finish("b" if not chars["a"] else "a", "elimination")
        return True

    def _finish(self, winner: str | None, reason: str) -> None:
        """End the match with a winner (or None) and a reason, and log match_end."""
        self.stage = OVER
        self.winner = winner
        self.reason = reason
        self.pending = None
        self.legal = []
        if self.emit is not None:
            self.emit({"type": "match_end", "winner": winner, "reason": reason, "rounds": self.round})

    # --------------------------------------------------------------- resolution

    def _line_count(self, side: str, line: str) -> int:
        """How many living units of `side` stand in `line`."""
        n = 0
        for u in self.living[side]:
            if u.line == line:
                n += 1
        return n

    def _hit(
        self, src: Unit, tgt: Unit, atk: int | None, power: int, dfn: int | None, via: str, eid: int | None
    ) -> None:
        """One instance of damage (R11): max(1, power − DEF), shield first, then HP; defeat at 0."""
        amount = power - dfn if dfn is not None else power
        if amount < 1:
            amount = 1
        absorbed = 0
        depleted = None
        if tgt.shield > 0:
            left = amount
            for a in tgt.effects:
                if a.kind == "shield" and a.amount > 0:
                    take = a.amount if a.amount < left else left
                    a.amount -= take
                    absorbed += take
                    left -= take
                    if a.amount == 0:
                        if depleted is None:
                            depleted = [a]
                        else:
                            depleted.append(a)
                    if not left:
                        break
            tgt.shield -= absorbed
        before = tgt.hp
        after = before - amount + absorbed
        if after < 0:
            after = 0
        tgt.hp = after
        tgt.pub = None
        if self.emit is not None:
            self.emit(
                {
                    "type": "damage",
                    "src": src.uid,
                    "tgt": tgt.uid,
                    "src_line": src.line if src.alive else None,
                    "tgt_line": tgt.line,
                    "via": via,
                    "atk": atk,
                    "power": power,
                    "def": dfn,
                    "amount": amount,
                    "absorbed": absorbed,
                    "hp_before": before,
                    "hp_after": after,
                    "eid": eid,
                }
            )
        if depleted is not None:
            for a in depleted:
                self._drop(tgt, a, "depleted")
        if after == 0:
            self._defeat(tgt, src)
        elif tgt.trig == T_ON_HIT and via in _ACTION_VIAS and src.side != tgt.side:
            self._fire(tgt, src)

    def _heal(self, src: Unit, tgt: Unit, amount: int, via: str, eid: int | None) -> None:
        """Healing, never above max HP (R11)."""
        before = tgt.hp
        room = tgt.max_hp - before
        healed = amount if amount < room else room
        if healed < 0:
            healed = 0
        tgt.hp = before + healed
        tgt.pub = None
        if self.emit is not None:
            self.emit(
                {
                    "type": "heal",
                    "src": src.uid,
                    "tgt": tgt.uid,
                    "via": via,
                    "amount": amount,
                    "healed": healed,
                    "hp_before": before,
                    "hp_after": tgt.hp,
                    "eid": eid,
                }
            )

    def _defeat(self, u: Unit, by: Unit | None) -> None:
        """HP 0: removed at once, pending action lost, death triggers; the last character takes its summons (R16)."""
        u.alive = False
        u.hp = 0
        u.pub = None
        side = u.side
        self.living[side].remove(u)
        if self.emit is not None:
            self.emit(
                {
                    "type": "defeated",
                    "unit": u.uid,
                    "by": by.uid if by is not None else None,
                    "cause": "damage",
                    "lost_action": self.stage != END and u.acted != self.round,
                }
            )
        if not u.summon:
            self.chars[side] -= 1
        if self.death_triggers:
            for w in list(self.order):
                if not w.alive:
                    continue
                if (w.trig == T_ALLY_DEF and w.side == side) or (
                    w.trig == T_ENEMY_DEF and w is by and w.side != side
                ):
                    self._fire(w, None)
        if not u.summon and self.chars[side] == 0:
            for s in list(self.living[side]):
                s.alive = False
                s.pub = None
                self.living[side].remove(s)
                if self.emit is not None:
                    self.emit(
                        {
                            "type": "defeated",
                            "unit": s.uid,
                            "by": None,
                            "cause": "army_defeated",
                            "lost_action": self.stage != END and s.acted != self.round,
                        }
                    )

    def _tick(self, u: Unit) -> None:
        """R7/R14: poison and burn hit (DEF ignored, shields absorb), regeneration heals."""
        rnd = self.round
        for a in list(u.effects):
            if not u.alive:
                return
            if a.left <= 0 or a.since >= rnd:
                continue
            if a.kind in ONGOING_DAMAGE:
                self._hit(self.by_id[a.src], u, None, a.amount, None, VIA_ONGOING, a.eid)
            elif a.kind == "regen":
                self._heal(self.by_id[a.src], u, a.amount, VIA_ONGOING, a.eid)

    def _fire(self, w: Unit, attacker: Unit | None) -> None:
        """Resolve a faction ability whose trigger is met, if its limit and condition allow."""
        if w.limit:
            if w.limit == 2:
                if w.fab_used:
                    return
            elif w.fab_round == self.round:
                return
        cond = w.cond
        if cond is not None:
            if cond.line and w.line != cond.line:
                return
            if cond.hp_below and not w.hp < cond.hp_below * w.max_hp:
                return
            if cond.allies_same_faction_gte:
                same = 0
                for x in self.living[w.side]:
                    if x is not w and not x.summon and x.faction == w.faction:
                        same += 1
                if same < cond.allies_same_faction_gte:
                    return
        fab = w.fab
        if self.depth >= MAX_TRIGGER_DEPTH:
            if self.emit is not None:
                self.emit({"type": "fizzle", "src": w.uid, "effect": "trigger", "unit": None, "reason": "trigger_depth"})
            return
        w.fab_used = True
        w.fab_round = self.round
        if self.emit is not None:
            self.emit({"type": "faction_triggered", "unit": w.uid, "ability": fab.name, "trigger": fab.trigger})  # type: ignore[union-attr]
        self.depth += 1
        self._run(w, fab.effects, None, VIA_FACTION, attacker)  # type: ignore[union-attr]
        self.depth -= 1

    def _run(self, src: Unit, effects: tuple[Effect, ...], chosen: Unit | None, via: str, attacker: Unit | None) -> None:
        """Apply an ability's effects in order, each to the units its selector picks now."""
        memo: dict[str, Unit | None] | None = None
        for eff in effects:
            kind = eff.kind
            if kind == "summon":
                self._fx_summon(src, eff, via)
                continue
            sel = eff.target
            if sel in _SINGLE_SELECTORS:
                if memo is None:
                    memo = {}
                if sel in memo:
                    pick = memo[sel]
                else:
                    pick = memo[sel] = self._pick(src, sel)
                targets = [pick] if pick is not None and pick.alive else []
            else:
                targets = self._select(src, sel, chosen, attacker)
            if not targets:
                if self.emit is not None:
                    self.emit({"type": "fizzle", "src": src.uid, "effect": kind, "unit": None, "reason": "no_target"})
                continue
            _HANDLERS[kind](self, src, eff, targets, via)

    def _select(self, src: Unit, sel: str, chosen: Unit | None, attacker: Unit | None) -> list[Unit]:
        """The living units a group selector picks (docs/abilities.md)."""
        side = src.side
        if sel == "target":
            return [chosen] if chosen is not None and chosen.alive else []
        if sel == "self":
            return [src] if src.alive else []
        if sel == "all_enemies":
            return list(self.living[OTHER[side]])
        if sel == "all_allies":
            return list(self.living[side])
        if sel == "other_allies":
            return [u for u in self.living[side] if u is not src]
        if sel == "target_line":
            if chosen is None:
                return []
            line = chosen.line
            return [u for u in self.living[chosen.side] if u.line == line]
        if sel == "enemy_vanguard":
            return [u for u in self.living[OTHER[side]] if u.line == VANGUARD]
        if sel == "enemy_rearguard":
            return [u for u in self.living[OTHER[side]] if u.line == REARGUARD]
        if sel == "ally_vanguard":
            return [u for u in self.living[side] if u.line == VANGUARD]
        if sel == "ally_rearguard":
            return [u for u in self.living[side] if u.line == REARGUARD]
        if sel == "attacker":
            return [attacker] if attacker is not None and attacker.alive else []
        raise AssertionError(f"selector {sel!r} is not handled")  # pragma: no cover - spec.SELECTORS is closed

    def _pick(self, src: Unit, sel: str) -> Unit | None:
        """The one unit a single-unit selector picks; the pick holds for the rest of the ability."""
        pool = self.living[src.side] if sel.endswith("_ally") else self.living[OTHER[src.side]]
        if not pool:
            return None
        if sel == "random_ally" or sel == "random_enemy":
            return pool[self.rng.randrange(len(pool))]
        if sel == "highest_atk_enemy":
            best = pool[0]
            best_atk = best.ea
            for u in pool:
                a = u.ea
                if a > best_atk:
                    best, best_atk = u, a
            return best
        best = pool[0]  # lowest current HP; ties go to the earliest unit (pool is in army order)
        for u in pool:
            if u.hp < best.hp:
                best = u
        return best

    def _add(self, src: Unit, u: Unit, kind: str, stat: str, amount: int, duration: int, via: str) -> Active:
        """Put a lasting effect on a unit and log it (R14: until the end phase of round r + d − 1)."""
        self.eid += 1
        rnd = self.round
        a = Active(self.eid, kind, stat, amount, duration, src.uid, rnd)
        u.effects.append(a)
        u.pub = None
        if kind == "buff":
            u.pos += 1
            self._shift(u, stat, amount)
        elif kind == "debuff":
            u.neg += 1
            self._shift(u, stat, -amount)
        elif kind == "shield":
            u.pos += 1
            u.shield += amount
        elif kind == "silence":
            u.neg += 1
            u.silence += 1
        elif kind == "regen":
            u.pos += 1
            u.ongoing += 1
        else:
            u.neg += 1
            u.ongoing += 1
        if self.emit is not None:
            self.emit(
                {
                    "type": "effect_applied",
                    "eid": a.eid,
                    "unit": u.uid,
                    "kind": kind,
                    "stat": stat or None,
                    "amount": amount if kind != "silence" else None,
                    "duration": duration,
                    "until": (rnd if rnd > 0 else 1) + duration - 1,
                    "src": src.uid,
                    "via": via,
                }
            )
        return a

    @staticmethod
    def _shift(u: Unit, stat: str, delta: int) -> None:
        """Add a modifier to one stat and refresh its effective value (never below 0)."""
        if stat == "atk":
            u.m_atk += delta
            v = u.atk + u.m_atk
            u.ea = v if v > 0 else 0
        elif stat == "def":
            u.m_def += delta
            v = u.df + u.m_def
            u.ed = v if v > 0 else 0
        else:
            u.m_spd += delta
            v = u.spd + u.m_spd
            u.es = v if v > 0 else 0

    def _drop(self, u: Unit, a: Active, reason: str) -> None:
        """Remove a lasting effect and undo what it did to the unit's values."""
        u.effects.remove(a)
        u.pub = None
        kind = a.kind
        if kind == "buff":
            u.pos -= 1
            self._shift(u, a.stat, -a.amount)
        elif kind == "debuff":
            u.neg -= 1
            self._shift(u, a.stat, a.amount)
        elif kind == "shield":
            u.pos -= 1
            u.shield -= a.amount
        elif kind == "silence":
            u.neg -= 1
            u.silence -= 1
        elif kind == "regen":
            u.pos -= 1
            u.ongoing -= 1
        else:
            u.neg -= 1
            u.ongoing -= 1
        a.left = 0
        if self.emit is not None:
            self.emit({"type": "effect_expired", "eid": a.eid, "unit": u.uid, "kind": kind, "reason": reason})

    def _move(self, u: Unit, dest: str, via: str, src: Unit) -> None:
        """Change a unit's line and log it."""
        origin = u.line
        u.line = dest
        u.pub = None
        if self.emit is not None:
            self.emit({"type": "move", "unit": u.uid, "from": origin, "to": dest, "via": via, "src": src.uid})

    def _insert(self, u: Unit) -> tuple[int, bool]:
        """R15: place a new unit in the attack order by SPD (after equal SPD); whether it acts this round."""
        s = u.es
        spds = self.order_spd
        j = len(spds)
        for k, v in enumerate(spds):
            if v < s:
                j = k
                break
        self.order.insert(j, u)
        spds.insert(j, s)
        if self.stage == ACT:
            if j <= self.idx:
                self.idx += 1
                return j, False
            return j, True
        return j, self.stage in (START, FLEX)

    # ------------------------------------------------------------ effect kinds

    def _fx_damage(self, src: Unit, eff: Effect, targets: list[Unit], via: str) -> None:
        """damage: ⌊ATK × scale⌋ + flat against each target's DEF (or not, with ignore_def)."""
        ignore = eff.ignore_def
        for t in targets:
            if t.alive:
                a = src.ea  # read at each hit: an on_hit reply may have changed it
                power = scaled(a, eff.scale) + eff.flat
                if ignore:
                    self._hit(src, t, a, power, None, via, None)
                else:
                    self._hit(src, t, a, power, t.ed, via, None)

    def _fx_heal(self, src: Unit, eff: Effect, targets: list[Unit], via: str) -> None:
        """heal: ⌊ATK × scale⌋ + flat + ⌊max HP × fraction⌋, capped at max HP."""
        base = scaled(src.ea, eff.scale) + eff.flat
        frac = eff.max_hp_fraction
        for t in targets:
            if t.alive:
                self._heal(src, t, base + (scaled(t.max_hp, frac) if frac else 0), via, None)

    def _fx_shield(self, src: Unit, eff: Effect, targets: list[Unit], via: str) -> None:
        """shield: ⌊ATK × scale⌋ + flat points for a duration."""
        amount = scaled(src.ea, eff.scale) + eff.flat
        for t in targets:
            if t.alive:
                self._add(src, t, "shield", "", amount, eff.duration, via)

    def _fx_lasting(self, src: Unit, eff: Effect, targets: list[Unit], via: str) -> None:
        """buff, debuff, poison, burn, regen, silence: a lasting effect on each target."""
        for t in targets:
            if t.alive:
                self._add(src, t, eff.kind, eff.stat, eff.amount, eff.duration, via)

    def _fx_cooldown(self, src: Unit, eff: Effect, targets: list[Unit], via: str) -> None:
        """cooldown: shift each target's ready round (never before the current round)."""
        rnd = self.round
        for t in targets:
            if not t.alive:
                continue
            if t.main is None:
                if self.emit is not None:
                    self.emit({"type": "fizzle", "src": src.uid, "effect": "cooldown", "unit": t.uid, "reason": "no_ability"})
                continue
            before = t.ready
            if eff.amount > 0:
                after = (before if before > rnd else rnd) + eff.amount
            elif before <= rnd:
                after = before
            else:
                after = before + eff.amount
                if after < rnd:
                    after = rnd
            t.ready = after
            t.pub = None
            if self.emit is not None:
                self.emit(
                    {
                        "type": "cooldown",
                        "unit": t.uid,
                        "src": src.uid,
                        "amount": eff.amount,
                        "ready_before": before,
                        "ready_after": after,
                    }
                )

    def _fx_move(self, src: Unit, eff: Effect, targets: list[Unit], via: str) -> None:
        """move: to a line with room, else fizzle."""
        for t in targets:
            if not t.alive:
                continue
            dest = eff.to if eff.to != "other" else (REARGUARD if t.line == VANGUARD else VANGUARD)
            reason = ""
            if t.line == dest:
                reason = "same_line"
            elif self._line_count(t.side, dest) >= LINE_CAPACITY:
                reason = "no_room"
            if reason:
                if self.emit is not None:
                    self.emit({"type": "fizzle", "src": src.uid, "effect": "move", "unit": t.uid, "reason": reason})
                continue
            self._move(t, dest, via, src)

    def _fx_summon(self, src: Unit, eff: Effect, via: str) -> None:
        """summon: new units in the line if it has room, inserted in the attack order (R15)."""
        spec: SummonSpec = eff.unit  # type: ignore[assignment]
        side = src.side
        line = src.line if eff.line == "same" else eff.line
        for _ in range(eff.count):
            reason = ""
            if not self.chars[side]:
                reason = "army_defeated"
            elif self._line_count(side, line) >= LINE_CAPACITY:
                reason = "no_room"
            if reason:
                if self.emit is not None:
                    self.emit({"type": "fizzle", "src": src.uid, "effect": "summon", "unit": None, "reason": reason})
                return
            u = self._add_unit(side, line, spec.name, spec.atk, spec.def_, spec.spd, spec.hp, None)
            u.acted = -1
            slot, acts = self._insert(u)
            if not acts:
                u.turn = self.round  # its slot has passed: no action this round
            if self.emit is not None:
                self.emit(
                    {
                        "type": "summon",
                        "unit": u.uid,
                        "side": side,
                        "name": u.name,
                        "line": line,
                        "atk": u.atk,
                        "def": u.df,
                        "spd": u.spd,
                        "hp": u.hp,
                        "src": src.uid,
                        "slot": slot + 1,
                        "acts": acts,
                    }
                )

    def _fx_cleanse(self, src: Unit, eff: Effect, targets: list[Unit], via: str) -> None:
        """cleanse / dispel: remove every negative / positive effect from the targets."""
        removable = NEGATIVE_KINDS if eff.kind == "cleanse" else POSITIVE_KINDS
        reason = "cleansed" if eff.kind == "cleanse" else "dispelled"
        for t in targets:
            if t.alive:
                for a in [a for a in t.effects if a.kind in removable]:
                    self._drop(t, a, reason)


_SINGLE_SELECTORS = frozenset({"lowest_hp_ally", "random_ally", "random_enemy", "lowest_hp_enemy", "highest_atk_enemy"})

_HANDLERS = {
    "damage": RealmsState._fx_damage,
    "heal": RealmsState._fx_heal,
    "shield": RealmsState._fx_shield,
    "buff": RealmsState._fx_lasting,
    "debuff": RealmsState._fx_lasting,
    "poison": RealmsState._fx_lasting,
    "burn": RealmsState._fx_lasting,
    "regen": RealmsState._fx_lasting,
    "silence": RealmsState._fx_lasting,
    "cooldown": RealmsState._fx_cooldown,
    "move": RealmsState._fx_move,
    "cleanse": RealmsState._fx_cleanse,
    "dispel": RealmsState._fx_cleanse,
}
