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
from realms.engine.spec import (
    ONGOING_KINDS,
    Effect,
    FactionAbility,
    MainAbility,
    SummonSpec,
    faction_spec,
    main_spec,
)
from simulate.engine.errors import IllegalAction, SetupError
from simulate.engine.events import EventLog
from simulate.engine.games import Outcome
from simulate.engine.rng import seat_seeds

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
    "defeats_enemy": 9,
}
(
    T_BATTLE_START, T_ROUND_START, T_BEFORE, T_AFTER, T_ON_HIT, T_ALLY_DEF, T_ENEMY_DEF, T_ROUND_END, T_DEFEATS,
) = range(1, 10)
LIMIT_CODES = {"none": 0, "round": 1, "battle": 2}
_DEFEAT_TRIGGERS = frozenset({T_ALLY_DEF, T_ENEMY_DEF, T_DEFEATS})

NEGATIVE_KINDS = frozenset({"debuff", "poison", "burn", "silence"})
POSITIVE_KINDS = frozenset({"buff", "shield", "regen"})
ONGOING_DAMAGE = frozenset({"poison", "burn"})
ONGOING = frozenset(ONGOING_KINDS)
MAX_TRIGGER_DEPTH = 8

_FRACTIONS: dict[float, tuple[int, int]] = {}


def scaled(value: int, scale: float) -> int:
    """⌊value × scale⌋, exact for the decimal scale written in the spec."""
    if not scale:
        return 0
    try:
        num, den = _FRACTIONS[scale]
    except KeyError:
        exact = Fraction(repr(float(scale)))
        num, den = _FRACTIONS[scale] = (exact.numerator, exact.denominator)
    return value * num // den


# How a compiled effect step finds its units (see `compile_effects`).
SEL_TARGET, SEL_SELF, SEL_PICK, SEL_GROUP, SEL_SUMMON = range(5)
SINGLE_SELECTORS = frozenset({"lowest_hp_ally", "random_ally", "random_enemy", "lowest_hp_enemy", "highest_atk_enemy"})
RANDOM_SELECTORS = frozenset({"random_ally", "random_enemy"})
STAGE_DECISIONS = {FORMATION: "deploy", FLEX: "flex", ACT: "act"}
# One step: (selector code, selector, handler, effect); the handler is a RealmsState._fx_* function.
Step = tuple[int, str, Any, Effect]
_PROGRAMS: dict[int, tuple[tuple[Effect, ...], tuple[Step, ...]]] = {}


def compile_effects(effects: tuple[Effect, ...]) -> tuple[Step, ...]:
    """An ability's effects as steps, so that running them needs no string dispatch (cached by identity)."""
    entry = _PROGRAMS.get(id(effects))
    if entry is not None and entry[0] is effects:
        return entry[1]
    steps: list[Step] = []
    for eff in effects:
        sel = eff.target
        if eff.kind == "summon":
            code = SEL_SUMMON
        elif sel == "target":
            code = SEL_TARGET
        elif sel == "self":
            code = SEL_SELF
        elif sel in SINGLE_SELECTORS:
            code = SEL_PICK
        else:
            code = SEL_GROUP
        steps.append((code, sel, _HANDLERS.get(eff.kind), eff))
    if len(_PROGRAMS) >= 4096:
        _PROGRAMS.clear()
    _PROGRAMS[id(effects)] = (effects, tuple(steps))  # holding `effects` keeps its id unique
    return _PROGRAMS[id(effects)][1]


_CARD_VALUES: dict[int, tuple[CharacterCard, tuple]] = {}


def card_values(card: CharacterCard) -> tuple:
    """What a unit takes from its card: faction, class, position, cooldown, both abilities, trigger and
    limit codes, condition (None when empty) and both compiled programs (cached by identity)."""
    entry = _CARD_VALUES.get(id(card))
    if entry is not None and entry[0] is card:
        return entry[1]
    fab = card.faction_ability
    values = (
        card.faction, card.character_class, card.position, card.cooldown, card.main, fab,
        TRIGGER_CODES[fab.trigger], LIMIT_CODES[fab.limit], None if fab.condition.is_empty() else fab.condition,
        compile_effects(card.main.effects), compile_effects(fab.effects), fab.include_summons,
    )
    if len(_CARD_VALUES) >= 4096:
        _CARD_VALUES.clear()
    _CARD_VALUES[id(card)] = (card, values)  # holding `card` keeps its id unique
    return values


def unit_card(u: Unit) -> dict[str, Any]:
    """A unit's full card as match_start logs it (G3): printed values and both ability specs."""
    card = u.card
    return {
        "id": u.uid,
        "side": u.side,
        "card": card.slug if card else None,
        "name": u.name,
        "rarity": card.rarity if card else None,
        "position": u.position,
        "class": u.cls,
        "faction": u.faction,
        "line": u.line,
        "atk": u.atk,
        "def": u.df,
        "spd": u.spd,
        "hp": u.hp,
        "cooldown": u.cooldown,
        "main_ability": main_spec(card.main) if card else None,
        "faction_ability": faction_spec(card.faction_ability) if card else None,
    }


class Active:
    """An effect standing on a unit: buff, debuff, shield, poison, burn, regen or silence."""

    __slots__ = ("eid", "kind", "stat", "amount", "left", "src", "since", "persists")

    def __init__(
        self, eid: int, kind: str, stat: str, amount: int, left: int, src: str, since: int, persists: bool = False
    ) -> None:
        """A standing effect: id, kind, stat, amount, rounds (ongoing kinds: ticks) left, source id, round
        applied, and whether it outlives its source (R17)."""
        self.eid = eid
        self.kind = kind
        self.stat = stat
        self.amount = amount
        self.left = left
        self.src = src
        self.since = since
        self.persists = persists

    def copy(self) -> Active:
        """An independent copy (for look-ahead states)."""
        return Active(self.eid, self.kind, self.stat, self.amount, self.left, self.src, self.since, self.persists)


class Unit:
    """A character or summoned unit on the battlefield, with its current values."""

    __slots__ = (
        "uid", "side", "foe", "index", "card", "name", "faction", "cls", "position", "summon", "line",
        "atk", "df", "spd", "max_hp", "hp", "m_atk", "m_def", "m_spd", "ea", "ed", "es", "shield", "silence", "ongoing",
        "effects", "alive", "cooldown", "ready", "main", "fab", "trig", "limit", "cond", "main_prog", "fab_prog",
        "fab_round", "fab_used", "turn", "acted", "act_atk", "act_abl", "pub", "neg", "pos", "fixed",
        "counts_summons",
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
        self.foe = "b" if side == "a" else "a"
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
            self.main_prog: tuple[Step, ...] = ()
            self.fab_prog: tuple[Step, ...] = ()
            self.counts_summons = False
        else:
            self.summon = False
            (
                self.faction, self.cls, self.position, self.cooldown, self.main, self.fab,
                self.trig, self.limit, self.cond, self.main_prog, self.fab_prog, self.counts_summons,
            ) = card_values(card)
        self.fixed = static_part(self)

    def copy(self) -> Unit:
        """An independent copy (for look-ahead states)."""
        n = Unit.__new__(Unit)
        n.uid = self.uid
        n.side = self.side
        n.foe = self.foe
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
        n.main_prog = self.main_prog
        n.fab_prog = self.fab_prog
        n.counts_summons = self.counts_summons
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
# Per side, cached until a unit of it falls, arrives or moves: [targets within a vanguard unit's
# reach, their Basic Attacks, every living unit, their Basic Attacks, Main Ability actions on the
# former, on the latter (these two None until first needed)].
TargetLists = list[Any]


class RealmsState:
    """One Echo Realms match, from the Formation Round (optional) to its end."""

    __slots__ = (
        "options", "seed", "rng", "log", "emit", "tie_random", "max_rounds", "first", "alt",
        "stage", "round", "units", "by_id", "living", "chars", "next_num", "order", "order_spd", "idx",
        "flex_q", "fq_i", "pending", "legal", "targets", "eid", "depth", "winner", "reason", "steps",
        "armed", "ongoing", "flex_units", "factions", "f_coll", "f_dep", "f_turn", "tcache", "views",
        "agent_names", "agent_seeds", "uses", "use",
    )

    def __init__(
        self, options: Mapping[str, Any], seed: int, keep_log: bool = True, agents: Mapping[str, str] | None = None
    ) -> None:
        """A match before setup: options validated, its own generator, the first player drawn if needed,
        then a seed for each player's agent (G2)."""
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
        self.agent_names = dict(agents or {})
        self.agent_seeds = seat_seeds(self.rng, PLAYERS)
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
        self.armed = [0] * 10  # living characters per faction-ability trigger code: 0 lets a scan be skipped
        self.uses = 0  # ability uses so far: each Main Ability or faction ability use gets the next id (G3)
        self.use: int | None = None  # the ability use now resolving, named by every effect it causes
        self.ongoing = 0  # poison, burn and regeneration effects standing (on any unit, fallen ones too)
        self.flex_units = 0  # Flex-position units ever fielded: none means no Flex phase to scan
        self.factions: dict[str, dict[str, int]] = {"a": {}, "b": {}}  # living characters per faction
        self.f_coll: dict[str, list[CharacterCard]] = {}
        self.f_dep: dict[str, list[tuple[CharacterCard, str]]] = {}
        self.f_turn = first
        self.tcache: dict[str, TargetLists | None] = {"a": None, "b": None}
        self.views: dict[str, RealmsObservation] = {}

    # ------------------------------------------------------------------ setup

    def start_battle(self, armies: Mapping[str, Sequence[tuple[CharacterCard, str]]]) -> None:
        """Deploy both armies, log match_start, resolve battle_start abilities and run to the first decision."""
        problems: list[tuple[str, str]] = []
        for side in PLAYERS:
            army = armies.get(side) if type(armies) is dict or isinstance(armies, Mapping) else None
            # Plain lists and tuples first: the abstract-class checks are slow and this runs per match.
            if army is None or (
                type(army) is not list and (isinstance(army, (str, bytes)) or not isinstance(army, Sequence))
            ):
                problems.append((f"armies.{side}", "must be a list of (card, line) pairs"))
                continue
            if not 1 <= len(army) <= ARMY_SIZE:
                problems.append((f"armies.{side}", f"must hold 1 to {ARMY_SIZE} cards (got {len(army)})"))
            per_line = {VANGUARD: 0, REARGUARD: 0}
            for i, entry in enumerate(army):
                if (type(entry) is not tuple and not isinstance(entry, Sequence)) or len(entry) != 2:
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
                    "agents": {p: {"agent": self.agent_names.get(p), "seed": self.agent_seeds[p]} for p in PLAYERS},
                    "units": [unit_card(u) for u in self.units],
                }
            )
        self.stage = START
        self._build_order("battle_start")  # R7: the battle-start abilities resolve in an order built as R9's
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
        self.tcache[side] = None
        if card is not None:
            self.chars[side] += 1
            count = self.factions[side]
            count[u.faction] = count.get(u.faction, 0) + 1
            self.armed[u.trig] += 1
            if u.position == "flex":
                self.flex_units += 1
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

    def play_decision(self, agents: Mapping[str, Any]) -> None:
        """The runner's step: the pending decision taken by its player's agent (`agents` maps a player to
        a function of observation and legal actions) and applied; a single legal action is applied without asking."""
        legal = self.legal
        if len(legal) == 1:
            action = legal[0]
        elif not legal:
            raise IllegalAction(None, [], "The match is over; no action is legal.")
        else:
            player = self.f_turn if self.stage == FORMATION else self.pending.side  # type: ignore[union-attr]
            action = agents[player](self.observation(player), list(legal))
            if action not in legal:
                self.apply(action)  # converts a list action, or raises IllegalAction
                return
        if self.stage == ACT:  # `apply` without the checks just made
            if self.emit is not None:
                self._log_decision(action)
            self.steps += 1
            self._act(self.pending, action)  # type: ignore[arg-type]
        else:
            self.apply(action)

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
        try:
            return self.views[player]
        except KeyError:  # a view holds no values of its own: one per player serves every decision
            view = self.views[player] = RealmsObservation(self, player)
            return view

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
        legal = self.legal
        if action not in legal:  # (nothing is legal once the match is over)
            if self.stage == OVER:
                raise IllegalAction(action, [], "The match is over; no action is legal.")
            if isinstance(action, list) and tuple(action) in legal:
                action = tuple(action)
            else:
                raise IllegalAction(action, legal, self._illegal_message(action))
        if self.emit is not None:
            self._log_decision(action)
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

    def _log_decision(self, action: tuple) -> None:
        """G3: the decision offered (every legal action) and the action taken."""
        stage = self.stage
        self.emit(  # type: ignore[misc]
            {
                "type": "decision",
                "round": self.round,
                "stage": STAGE_DECISIONS[stage],
                "player": self.f_turn if stage == FORMATION else self.pending.side,  # type: ignore[union-attr]
                "unit": None if stage == FORMATION else self.pending.uid,  # type: ignore[union-attr]
                "legal": [list(a) for a in self.legal],
                "action": list(action),
            }
        )

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
        c.agent_names = self.agent_names
        c.agent_seeds = self.agent_seeds
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
        c.uses = self.uses
        c.use = None
        c.winner = self.winner
        c.reason = self.reason
        c.steps = self.steps
        c.armed = list(self.armed)
        c.ongoing = self.ongoing
        c.flex_units = self.flex_units
        c.factions = {s: dict(f) for s, f in self.factions.items()}
        c.f_coll = self.f_coll
        c.f_dep = {s: list(d) for s, d in self.f_dep.items()}
        c.f_turn = self.f_turn
        c.tcache = {"a": None, "b": None}
        c.views = {}
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
                            self.targets = []  # attack targets exist only at an action decision
                            return
                    self.fq_i += 1
                self._order_phase()
            order = self.order
            rnd = self.round
            idx = self.idx
            while idx < len(order):
                u = order[idx]
                if u.alive:
                    if u.turn != rnd:
                        u.turn = rnd
                        if u.trig == T_BEFORE:
                            self._fire(u, None)  # may summon into the order: idx is re-read
                            if self._check_end():
                                return
                            idx = self.idx
                            if not u.alive:
                                idx += 1
                                self.idx = idx
                                continue
                    self.pending = u
                    self.legal = self._act_legal(u)
                    return
                idx += 1
                self.idx = idx
            self._end_phase()
            if self.stage == OVER:
                return
            self._start_round()

    def _act_legal(self, u: Unit) -> list[tuple]:
        """R10/R12: Basic Attack on each legal target, and the Main Ability when ready and not silenced."""
        foes = self.tcache[u.foe] or self._target_lists(u.foe)
        front = u.line == VANGUARD
        if front:
            self.targets, legal = foes[0], foes[1]
        else:
            self.targets, legal = foes[2], foes[3]
        main = u.main
        if main is not None and u.ready <= self.round and not u.silence:
            choose = main.choose
            if choose == "enemy":
                i = 4 if front and not main.ignore_lines else 5
                return legal + (foes[i] or self._ability_lists(foes)[i])
            if choose == "ally":
                own = self.tcache[u.side] or self._target_lists(u.side)
                return legal + (own[5] or self._ability_lists(own)[5])
            return legal + [ABILITY_NO_TARGET]
        return legal  # a shared list: never changed in place

    def _target_lists(self, side: str) -> TargetLists:
        """R12 for units aiming at `side`: the targets from the vanguard (its vanguard while it holds
        anyone, else everyone) and from the rearguard (everyone), with their Basic Attack actions;
        the Main Ability actions on them come when first needed (`_ability_lists`)."""
        every = list(self.living[side])
        front = [t for t in every if t.line == VANGUARD] or every
        lists: TargetLists = [front, [t.act_atk for t in front], every, [t.act_atk for t in every], None, None]
        self.tcache[side] = lists
        return lists

    @staticmethod
    def _ability_lists(lists: TargetLists) -> TargetLists:
        """Fill in the Main Ability actions on the units of `lists` (see `_target_lists`)."""
        lists[4] = [t.act_abl for t in lists[0]]
        lists[5] = [t.act_abl for t in lists[2]]
        return lists

    def _start_round(self) -> None:
        """Start phase (R7): ongoing effects and round_start abilities in the previous attack order."""
        self.round += 1
        rnd = self.round
        self.stage = START
        self.pending = None
        if self.emit is not None:
            self.emit({"type": "round_start", "round": rnd})
        if rnd == 1:
            self._build_order("start")  # R7: from the current SPD, battle-start effects included
        if self.ongoing or self.armed[T_ROUND_START]:
            for u in list(self.order):
                if u.ongoing and u.alive:
                    self._tick(u)
                if u.trig == T_ROUND_START and u.alive:
                    self._fire(u, None)
            if self._check_end():
                return
        self.flex_q = [u for u in self.order if u.position == "flex" and u.alive] if self.flex_units else []
        self.fq_i = 0
        self.stage = FLEX

    def _order_phase(self) -> None:
        """R9: every living unit by current SPD, highest first, ties by the tie_break option."""
        self._build_order("act")
        self.idx = 0
        self.stage = ACT

    def _build_order(self, phase: str) -> None:
        """An attack order as R9 builds one, logged with what it is for: the battle-start abilities,
        round 1's start phase (R7) or a round's actions."""
        self.order, self.order_spd, ties = self._sorted()
        if self.emit is not None:
            self.emit(
                {
                    "type": "order",
                    "round": self.round,
                    "phase": phase,
                    "units": [[u.uid, s] for u, s in zip(self.order, self.order_spd, strict=True)],
                    "ties": ties,
                }
            )

    def _sorted(self) -> tuple[list[Unit], list[int], list[list]]:
        """Living units by SPD; a tie between the players is led by a coin (random) or by alternation.

        Units of one player inside a tie keep their army order (R9).
        """
        living_a, living_b = self.living["a"], self.living["b"]
        ranked = living_a + living_b
        ranked.sort(key=_SPD, reverse=True)  # stable: player a's units first, each side in army order
        spds = [u.es for u in ranked]
        ties: list[list] = []
        # Only an SPD both players field makes a tie between them; any other group stays as sorted.
        shared = {u.es for u in living_a}.intersection([u.es for u in living_b])
        if shared:
            for s in sorted(shared, reverse=True):  # from the fastest, as the coins are drawn
                i = spds.index(s)
                j = i + spds.count(s)
                k = i + 1  # player a's units of the group come first, then b's
                while ranked[k].side == "a":
                    k += 1
                if self.tie_random:
                    lead = "a" if self.rng.random() < 0.5 else "b"
                else:
                    lead = self.alt
                    self.alt = OTHER[lead]
                ties.append([s, lead])
                first, second = (ranked[i:k], ranked[k:j]) if lead == "a" else (ranked[k:j], ranked[i:k])
                n1, n2 = len(first), len(second)
                merged: list[Unit] = []
                for m in range(n1 if n1 > n2 else n2):
                    if m < n1:
                        merged.append(first[m])
                    if m < n2:
                        merged.append(second[m])
                ranked[i:j] = merged
        return ranked, spds, ties

    def _end_phase(self) -> None:
        """End phase: round_end abilities, then durations tick down and expire (R14); R16 checks."""
        self.stage = END
        self.pending = None
        if self.armed[T_ROUND_END]:
            for u in list(self.order):
                if u.trig == T_ROUND_END and u.alive:
                    self._fire(u, None)
        for u in self.order:  # expiries never change the order
            if u.alive and u.effects:
                expired = None
                for a in u.effects:
                    if a.kind in ONGOING:  # R14: these end after their last tick, in a start phase
                        continue
                    a.left -= 1
                    if a.left <= 0:
                        if expired is None:
                            expired = [a]
                        else:
                            expired.append(a)
                if expired is not None:
                    for a in expired:
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
            if t.shield or t.trig == T_ON_HIT or self.emit is not None:
                self._hit(u, t, a, a, t.ed, VIA_BASIC, None)
            else:  # the usual Basic Attack, inlined: no shield, no log, no on_hit reply
                amount = a - t.ed
                after = t.hp - (amount if amount > 1 else 1)
                if after > 0:
                    t.hp = after
                    t.pub = None
                else:
                    self._hit(u, t, a, a, t.ed, VIA_BASIC, None)
        else:
            main = u.main
            u.ready = self.round + u.cooldown
            u.pub = None
            self.uses += 1
            self.use = self.uses
            if self.emit is not None:
                self.emit(
                    {
                        "type": "ability_used",
                        "use": self.use,
                        "unit": u.uid,
                        "ability": main.name,  # type: ignore[union-attr]
                        "target": x,
                        "round": self.round,
                        "ready": u.ready,
                    }
                )
            self._run(u, u.main_prog, self.by_id[x] if x is not None else None, VIA_ABILITY, None, main.ignore_lines)  # type: ignore[union-attr]
            self.use = None
        if u.trig == T_AFTER and u.alive:
            self._fire(u, None)
        self.idx += 1
        chars = self.chars
        if chars["a"] and chars["b"]:  # R16 holds no surprise: go on to the next decision
            self._advance()
        else:
            self._check_end()

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
        self.targets = []
        self.views = {}  # the views refer back to this state: let it go without the cycle collector
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
                    "use": self.use,
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
                    "use": self.use,
                }
            )

    def _defeat(self, u: Unit, by: Unit | None) -> None:
        """HP 0: removed at once, pending action lost, its effects end (R17), defeat triggers (R18);
        the last character takes its summons with it (R16)."""
        u.alive = False
        u.hp = 0
        u.pub = None
        side = u.side
        if self.emit is not None:
            self.emit(
                {
                    "type": "defeated",
                    "unit": u.uid,
                    "by": by.uid if by is not None else None,
                    "cause": "damage",
                    "lost_action": self._loses_action(u),
                    "use": self.use,
                }
            )
        self.living[side].remove(u)
        self.tcache[side] = None
        self._end_effects_of(u)
        armed = self.armed
        if not u.summon:
            self.chars[side] -= 1
            self.factions[side][u.faction] -= 1
            armed[u.trig] -= 1
        if armed[T_ALLY_DEF] or armed[T_ENEMY_DEF] or armed[T_DEFEATS]:
            character = not u.summon
            for w in list(self.order):
                trig = w.trig
                if (
                    trig in _DEFEAT_TRIGGERS
                    and w.alive
                    and (character or w.counts_summons)
                    and (w.side == side if trig == T_ALLY_DEF else w.side != side and (trig == T_ENEMY_DEF or w is by))
                ):
                    self._fire(w, None)
        if not u.summon and self.chars[side] == 0:
            for s in list(self.living[side]):
                s.alive = False
                s.pub = None
                if self.emit is not None:
                    self.emit(
                        {
                            "type": "defeated",
                            "unit": s.uid,
                            "by": None,
                            "cause": "army_defeated",
                            "lost_action": self._loses_action(s),
                            "use": self.use,
                        }
                    )
                self.living[side].remove(s)
                self.tcache[side] = None
                self._end_effects_of(s)

    def _loses_action(self, u: Unit) -> bool:
        """Whether a unit falling now had an action still to come this round (R10): not once it acted, not
        in the end phase, not for a unit whose slot in this round's order has passed."""
        if self.stage == END or u.acted == self.round:
            return False
        if self.stage == ACT:
            return self.order.index(u) >= self.idx
        return True

    def _end_effects_of(self, u: Unit) -> None:
        """R17: the effects standing on a fallen unit end with it, and those it put on others end at once
        unless they persist."""
        for a in list(u.effects):
            self._drop(u, a, "unit_defeated")
        uid = u.uid
        for side in PLAYERS:
            for v in self.living[side]:
                if v.effects:
                    for a in [a for a in v.effects if a.src == uid and not a.persists]:
                        self._drop(v, a, "source_defeated", u, None)

    def _tick(self, u: Unit) -> None:
        """R7/R14: poison and burn hit (DEF ignored, shields absorb), regeneration heals; an ongoing effect
        applied in round r ticks in rounds r+1 … r+N and ends right after its last tick."""
        rnd = self.round
        for a in list(u.effects):
            if not u.alive:
                return
            if a.left <= 0 or a.since >= rnd or a.kind not in ONGOING:
                continue
            a.left -= 1
            if a.kind == "regen":
                self._heal(self.by_id[a.src], u, a.amount, VIA_ONGOING, a.eid)
            else:
                self._hit(self.by_id[a.src], u, None, a.amount, None, VIA_ONGOING, a.eid)
            if a.left == 0 and u.alive:
                self._drop(u, a, "duration")

    def _fire(self, w: Unit, attacker: Unit | None) -> None:
        """Resolve a faction ability whose trigger is met, if its limit and condition allow."""
        limit = w.limit
        if limit:
            if limit == 2:
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
            # The other living characters of its faction (w is a living character itself).
            if cond.allies_same_faction_gte and self.factions[w.side][w.faction] - 1 < cond.allies_same_faction_gte:
                return
        fab = w.fab
        if self.depth >= MAX_TRIGGER_DEPTH:
            if self.emit is not None:
                self.emit(
                    {
                        "type": "fizzle", "src": w.uid, "effect": "trigger", "unit": None, "reason": "trigger_depth",
                        "via": VIA_FACTION, "use": self.use,
                    }
                )
            return
        w.fab_used = True
        w.fab_round = self.round
        outer = self.use
        self.uses += 1
        self.use = self.uses
        if self.emit is not None:
            self.emit(
                {
                    "type": "faction_triggered",
                    "use": self.use,
                    "cause": outer,
                    "unit": w.uid,
                    "ability": fab.name,  # type: ignore[union-attr]
                    "trigger": fab.trigger,  # type: ignore[union-attr]
                }
            )
        self.depth += 1
        self._run(w, w.fab_prog, None, VIA_FACTION, attacker, False)
        self.depth -= 1
        self.use = outer

    def _run(
        self, src: Unit, program: tuple[Step, ...], chosen: Unit | None, via: str, attacker: Unit | None, reach_all: bool
    ) -> None:
        """Apply an ability's effects in order, each to the units its selector picks now. A source that
        falls midway stops there (R10): what is left fizzles. `reach_all`: single-enemy picks ignore R12."""
        memo: dict[str, Unit | None] | None = None
        for code, sel, handler, eff in program:
            if not src.alive:
                if self.emit is not None:
                    self._fizzle(src, eff.kind, None, "source_defeated", via)
                continue
            if code == SEL_TARGET:
                if chosen is not None and chosen.alive:
                    handler(self, src, eff, (chosen,), via)
                    continue
            elif code == SEL_SELF:
                if src.alive:
                    handler(self, src, eff, (src,), via)
                    continue
            elif code == SEL_SUMMON:
                self._fx_summon(src, eff, via)
                continue
            elif code == SEL_PICK:
                if memo is None:
                    memo = {}
                if sel in memo:
                    pick = memo[sel]
                else:
                    pick = memo[sel] = self._pick(src, sel, reach_all)
                if pick is not None and pick.alive:
                    handler(self, src, eff, (pick,), via)
                    continue
            else:
                targets = self._select(src, sel, chosen, attacker)
                if targets:
                    handler(self, src, eff, targets, via)
                    continue
            if self.emit is not None:
                self._fizzle(src, eff.kind, None, "no_target", via)

    def _fizzle(self, src: Unit, effect: str, unit: Unit | None, reason: str, via: str) -> None:
        """Log an effect that did nothing, with the ability use it belonged to (G3)."""
        self.emit(  # type: ignore[misc]
            {
                "type": "fizzle",
                "src": src.uid,
                "effect": effect,
                "unit": unit.uid if unit is not None else None,
                "reason": reason,
                "via": via,
                "use": self.use,
            }
        )

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

    def _pick(self, src: Unit, sel: str, reach_all: bool) -> Unit | None:
        """The one unit a single-unit selector picks; the pick holds for the rest of the ability.

        An enemy pick obeys R12 like a chosen target: from the vanguard it reaches only the enemy
        vanguard while that holds anyone, unless the ability ignores lines (`reach_all`).
        """
        if sel.endswith("_ally"):
            pool = self.living[src.side]
        else:
            pool = self.living[src.foe]
            if not reach_all and src.line == VANGUARD:
                pool = self._reach(src.foe)
        pick = self._choose_from(pool, sel)
        if self.emit is not None:
            self.emit(
                {
                    "type": "pick",
                    "src": src.uid,
                    "selector": sel,
                    "pool": [u.uid for u in pool],
                    "unit": pick.uid if pick is not None else None,
                    "random": sel in RANDOM_SELECTORS,
                    "use": self.use,
                }
            )
        return pick

    def _reach(self, side: str) -> list[Unit]:
        """R12: the units of `side` a vanguard unit may aim at (its vanguard while it holds anyone)."""
        return (self.tcache[side] or self._target_lists(side))[0]

    def _choose_from(self, pool: list[Unit], sel: str) -> Unit | None:
        """The unit a single-unit selector takes from `pool` (in army order): a seeded draw, the highest
        effective ATK or the lowest current HP, ties to the earliest."""
        if not pool:
            return None
        if sel in RANDOM_SELECTORS:
            return pool[self.rng.randrange(len(pool))]
        if sel == "highest_atk_enemy":
            best = pool[0]
            best_atk = best.ea
            for u in pool:
                a = u.ea
                if a > best_atk:
                    best, best_atk = u, a
            return best
        best = pool[0]
        for u in pool:
            if u.hp < best.hp:
                best = u
        return best

    def _add(
        self, src: Unit, u: Unit, kind: str, stat: str, amount: int, duration: int, via: str, persists: bool
    ) -> Active:
        """Put a lasting effect on a unit and log it (R14)."""
        self.eid += 1
        rnd = self.round
        a = Active(self.eid, kind, stat, amount, duration, src.uid, rnd, persists)
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
            self.ongoing += 1
        else:
            u.neg += 1
            u.ongoing += 1
            self.ongoing += 1
        if self.emit is not None:
            self._log_effect(src, u, a, via)
        return a

    def _log_effect(self, src: Unit, u: Unit, a: Active, via: str) -> None:
        """Log a lasting effect just put on `u` with the last round it is active (R14): applied in round r
        (0 before round 1), an ongoing effect ticks in rounds r+1 … r+N; any other lasts until the end
        phase of round r + d − 1, counting from round 1 when applied before it."""
        rnd = a.since
        until = rnd + a.left if a.kind in ONGOING else (rnd if rnd > 0 else 1) + a.left - 1
        self.emit(  # type: ignore[misc]
            {
                "type": "effect_applied",
                "eid": a.eid,
                "unit": u.uid,
                "kind": a.kind,
                "stat": a.stat or None,
                "amount": a.amount if a.kind != "silence" else None,
                "duration": a.left,
                "until": until,
                "persists": a.persists,
                "src": src.uid,
                "via": via,
                "use": self.use,
            }
        )

    @staticmethod
    def _shift(u: Unit, stat: str, delta: int) -> None:
        """Add a modifier to one stat and refresh its effective value (never below 0)."""
        if stat == "atk":
            v = u.m_atk = u.m_atk + delta
            v += u.atk
            u.ea = v if v > 0 else 0
        elif stat == "def":
            v = u.m_def = u.m_def + delta
            v += u.df
            u.ed = v if v > 0 else 0
        else:
            v = u.m_spd = u.m_spd + delta
            v += u.spd
            u.es = v if v > 0 else 0

    def _drop(self, u: Unit, a: Active, reason: str, by: Unit | None = None, via: str | None = None) -> None:
        """Remove a lasting effect and undo what it did to the unit's values; `by` and `via` name what removed
        it (a cleanse or dispel, or the fall of its source)."""
        u.effects.remove(a)
        u.pub = None
        kind = a.kind
        if kind == "buff" or kind == "debuff":
            if kind == "buff":
                u.pos -= 1
                delta = -a.amount
            else:
                u.neg -= 1
                delta = a.amount
            self._shift(u, a.stat, delta)
        elif kind == "shield":
            u.pos -= 1
            u.shield -= a.amount
        elif kind == "silence":
            u.neg -= 1
            u.silence -= 1
        elif kind == "regen":
            u.pos -= 1
            u.ongoing -= 1
            self.ongoing -= 1
        else:
            u.neg -= 1
            u.ongoing -= 1
            self.ongoing -= 1
        a.left = 0
        if self.emit is not None:
            self.emit(
                {
                    "type": "effect_expired",
                    "eid": a.eid,
                    "unit": u.uid,
                    "kind": kind,
                    "reason": reason,
                    "src": by.uid if by is not None else None,
                    "via": via,
                    "use": self.use if by is not None and via is not None else None,
                }
            )

    def _move(self, u: Unit, dest: str, via: str, src: Unit) -> None:
        """Change a unit's line and log it."""
        origin = u.line
        u.line = dest
        u.pub = None
        self.tcache[u.side] = None
        if self.emit is not None:
            self.emit(
                {"type": "move", "unit": u.uid, "from": origin, "to": dest, "via": via, "src": src.uid, "use": self.use}
            )

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
            if not src.alive:  # R10: fallen to a reply midway
                break
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
                self._add(src, t, "shield", "", amount, eff.duration, via, eff.persists)

    def _fx_stat(self, src: Unit, eff: Effect, targets: Sequence[Unit], via: str) -> None:
        """buff, debuff: a lasting modifier of ATK, DEF or SPD on each target (`_add`, specialised)."""
        kind, stat, amount, duration = eff.kind, eff.stat, eff.amount, eff.duration
        delta = amount if kind == "buff" else -amount
        for t in targets:
            if t.alive:
                self.eid += 1
                a = Active(self.eid, kind, stat, amount, duration, src.uid, self.round, eff.persists)
                t.effects.append(a)
                t.pub = None
                if delta > 0:
                    t.pos += 1
                else:
                    t.neg += 1
                if stat == "atk":
                    v = t.m_atk = t.m_atk + delta
                    v += t.atk
                    t.ea = v if v > 0 else 0
                elif stat == "def":
                    v = t.m_def = t.m_def + delta
                    v += t.df
                    t.ed = v if v > 0 else 0
                else:
                    v = t.m_spd = t.m_spd + delta
                    v += t.spd
                    t.es = v if v > 0 else 0
                if self.emit is not None:
                    self._log_effect(src, t, a, via)

    def _fx_lasting(self, src: Unit, eff: Effect, targets: list[Unit], via: str) -> None:
        """buff, debuff, poison, burn, regen, silence: a lasting effect on each target."""
        for t in targets:
            if t.alive:
                self._add(src, t, eff.kind, eff.stat, eff.amount, eff.duration, via, eff.persists)

    def _fx_cooldown(self, src: Unit, eff: Effect, targets: list[Unit], via: str) -> None:
        """cooldown: shift each target's ready round (never before the current round)."""
        rnd = self.round
        for t in targets:
            if not t.alive:
                continue
            if t.main is None:
                if self.emit is not None:
                    self._fizzle(src, "cooldown", t, "no_ability", via)
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
                        "via": via,
                        "use": self.use,
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
                    self._fizzle(src, "move", t, reason, via)
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
                    self._fizzle(src, "summon", None, reason, via)
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
                        "via": via,
                        "use": self.use,
                    }
                )

    def _fx_cleanse(self, src: Unit, eff: Effect, targets: list[Unit], via: str) -> None:
        """cleanse / dispel: remove every negative / positive effect from the targets."""
        removable = NEGATIVE_KINDS if eff.kind == "cleanse" else POSITIVE_KINDS
        reason = "cleansed" if eff.kind == "cleanse" else "dispelled"
        for t in targets:
            if t.alive:
                for a in [a for a in t.effects if a.kind in removable]:
                    self._drop(t, a, reason, src, via)


_HANDLERS = {
    "damage": RealmsState._fx_damage,
    "heal": RealmsState._fx_heal,
    "shield": RealmsState._fx_shield,
    "buff": RealmsState._fx_stat,
    "debuff": RealmsState._fx_stat,
    "poison": RealmsState._fx_lasting,
    "burn": RealmsState._fx_lasting,
    "regen": RealmsState._fx_lasting,
    "silence": RealmsState._fx_lasting,
    "cooldown": RealmsState._fx_cooldown,
    "move": RealmsState._fx_move,
    "cleanse": RealmsState._fx_cleanse,
    "dispel": RealmsState._fx_cleanse,
}
