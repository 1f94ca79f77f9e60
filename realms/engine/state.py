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

Where each rule lives: units.py (units, effects standing on them, stats), battlefield.py (the
match's data and its small steps), order.py (R7, R9, R15), combat.py (R10, R11, R16–R18),
triggers.py (abilities resolving, R12 picks), rounds.py (the round loop), effects/ (one module
per effect kind).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from realms.engine import order, rounds, table, triggers
from realms.engine.battlefield import (
    ACT,
    FLEX,
    FORMATION,
    OVER,
    STAGE_NAMES,
    START,
    VIA_FLEX,
    Action,
    Battlefield,
)
from realms.engine.cards import CharacterCard
from realms.engine.effects import KINDS
from realms.engine.events import SCHEMA_VERSION
from realms.engine.formation import DEPLOY, can_complete, deployment_problems, legal_deployments
from realms.engine.observation import Lookahead, RealmsObservation, UnitInfo, observe
from realms.engine.spec import faction_spec, main_spec
from realms.engine.trigger_kinds import BATTLE_START
from realms.engine.units import Active, Unit
from realms.engine.vocabulary import (
    ARMY_SIZE,
    LINE_CAPACITY,
    LINES,
    OTHER,
    PLAYERS,
    QUOTA_WORDS,
    REARGUARD,
    VANGUARD,
)
from simulate.engine.deciders import observes
from simulate.engine.errors import IllegalAction, SetupError
from simulate.engine.events import EventLog
from simulate.engine.games import Outcome

STAGE_DECISIONS: Final = {FORMATION: "deploy", FLEX: "flex", ACT: "act"}
Decider = Callable[[RealmsObservation | None, list[Action]], Any]


_SPECS: Final[dict[int, tuple[CharacterCard, dict[str, Any], dict[str, Any]]]] = {}


def ability_specs(card: CharacterCard) -> tuple[dict[str, Any], dict[str, Any]]:
    """A card's two ability specs as the log writes them (worked out once per card; never changed)."""
    entry = _SPECS.get(id(card))
    if entry is None or entry[0] is not card:
        if len(_SPECS) >= 4096:
            _SPECS.clear()
        entry = _SPECS[id(card)] = (card, main_spec(card.main), faction_spec(card.faction_ability))
    return entry[1], entry[2]


def unit_card(u: Unit) -> dict[str, Any]:
    """A unit's full card as match_start logs it (G3): printed values and both ability specs."""
    card = u.card
    main, faction = ability_specs(card) if card is not None else (None, None)
    return {
        "id": u.uid,
        "side": u.side,
        "card": card.slug if card else None,
        "name": u.name,
        "rarity": card.rarity if card else None,
        "position": u.position,
        "class": u.character_class,
        "faction": u.faction,
        "line": u.line,
        "atk": u.atk,
        "def": u.defense,
        "spd": u.spd,
        "hp": u.hp,
        "cooldown": u.cooldown,
        "main_ability": main,
        "faction_ability": faction,
    }


class RealmsState(Battlefield):
    """One Echo Realms match, from the Formation Round (optional) to its end."""

    __slots__ = ()

    def fire(self, w: Unit, attacker: Unit | None) -> None:
        """Resolve `w`'s faction ability (triggers.fire)."""
        triggers.fire(self, w, attacker)

    # ------------------------------------------------------------------ setup

    def start_battle(self, armies: Mapping[str, Sequence[tuple[CharacterCard, str]]]) -> None:
        """Deploy both armies, log match_start, resolve battle_start abilities and run to the first decision."""
        problems = army_problems(armies)
        if problems:
            raise SetupError("Bad armies: " + "; ".join(f"{p}: {r}" for p, r in problems), problems)
        for side in PLAYERS:
            for card, line in armies[side]:
                u = self.add_unit(side, line, card.name, card.atk, card.def_, card.spd, card.hp, card)
                u.main_program = triggers.program(card.main.effects)
                u.faction_program = triggers.program(card.faction_ability.effects)
        if self.record is not None:
            self.record(("match_start", SCHEMA_VERSION, self.options, self.first,
                         {p: self.agent_names.get(p) for p in PLAYERS}, [unit_card(u) for u in self.units]))
            # G2: the match seed replays every coin and an agent's seed predicts that agent, so they are logged
            # apart from the public setup, for no seat (G3: the log is read after the match).
            self.record(("seeds", self.seed, dict(self.agent_seeds), ()))
        self.stage = START
        order.build(self, "battle_start")  # R7: the battle-start abilities resolve in an order built as R9's
        for u in list(self.order):
            if u.alive and u.trigger == BATTLE_START:
                triggers.fire(self, u, None)
        if rounds.check_end(self):
            return
        rounds.start_round(self)
        rounds.advance(self)

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
            self.collections[side] = list(unique.values())
            if not can_complete([], self.collections[side]):
                problems.append(
                    (f"collections.{side}", f"cannot make a legal army ({QUOTA_WORDS})")
                )
        if problems:
            raise SetupError("Bad collections: " + "; ".join(f"{p}: {r}" for p, r in problems), problems)
        self.deployed = {"a": [], "b": []}
        self.stage = FORMATION
        self.deploying = self.first
        if self.record is not None:  # G3: what each player could deploy, seen by that player only
            self.record(("formation_start", self.first))
            for side in PLAYERS:
                self.record(("collection", side, [collection_card(c) for c in self.collections[side]], (side,)))
        self.legal = list(legal_deployments(self.deployed[self.deploying], self.collections[self.deploying]))

    # --------------------------------------------------------- public interface

    def current_player(self) -> str | None:
        """The player who decides now ('a' or 'b'), or None when the match is over."""
        if self.stage == OVER:
            return None
        if self.stage == FORMATION:
            return self.deploying
        return self.pending.side if self.pending is not None else None

    def legal_actions(self) -> list[Action]:
        """The legal actions of the pending decision (a fresh list)."""
        return list(self.legal)

    def play_decision(self, agents: Mapping[str, Decider]) -> None:
        """The runner's step: the pending decision taken by its player's agent (`agents` maps a player to
        a function of observation and legal actions) and applied; a single legal action is applied without asking."""
        legal = self.legal
        if len(legal) == 1:
            action = legal[0]
        elif not legal:
            raise IllegalAction(None, [], "The match is over; no action is legal.")
        else:
            player = self.current_player()
            assert player is not None
            decide = agents[player]
            action = decide(self.observation(player) if observes(decide) else None, list(legal))
            if not offered(action, legal):
                self.apply(action)  # converts a list action, or raises IllegalAction
                return
        pending = self.pending
        if self.stage == ACT and pending is not None:  # `apply` without the checks just made
            if self.record is not None:
                self.log_decision(action)
            self.steps += 1
            rounds.act(self, pending, action)
        else:
            self.apply(action)

    def table_change(self, change: Any) -> None:
        """A change made at a table while a decision is pending (`table.apply_change`)."""
        table.apply_change(self, change)

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
        """What `player` sees now (G2): the whole battlefield, which is public, and its own collection."""
        return observe(self, player, STAGE_NAMES[self.stage], LOOKAHEAD)

    def events(self) -> list[dict[str, Any]] | None:
        """The event log so far, or None when the log is off."""
        return self.log.to_list() if self.log is not None else None

    def event_log(self) -> EventLog | None:
        """The log as recorded (its events are made into dicts when read), or None when it is off."""
        return self.log

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
        return Outcome(winner=self.winner, reason=self.reason or "unfinished", rounds=self.round, survivors=survivors,
                       first=self.first)

    def stop(self, reason: str) -> None:
        """End the match now as a draw (the runner's hard cap on actions)."""
        if self.stage != OVER:
            rounds.finish(self, None, reason)

    def apply(self, action: Any) -> None:
        """Play one action of the pending decision and run on to the next one; IllegalAction if not legal."""
        legal = self.legal
        if not offered(action, legal):  # (nothing is legal once the match is over)
            if self.stage == OVER:
                raise IllegalAction(action, [], "The match is over; no action is legal.")
            if isinstance(action, list) and tuple(action) in legal:
                action = tuple(action)
            else:
                raise IllegalAction(action, list(legal), self._illegal_message(action))
        if self.record is not None:
            self.log_decision(action)
        self.steps += 1
        stage = self.stage
        u = self.pending
        if stage == ACT and u is not None:
            rounds.act(self, u, action)
        elif stage == FLEX and u is not None:
            if action[0] == rounds.SWITCH:
                self.move(u, action[1], VIA_FLEX, u)
            self.flex_index += 1
            rounds.advance(self)
        else:
            self._deploy(action)

    def log_decision(self, action: Action) -> None:
        """G3: the decision offered (every legal action) and the action taken."""
        stage = self.stage
        pending = self.pending
        player = self.deploying if stage == FORMATION or pending is None else pending.side
        # The legal actions by reference: `self.legal` is always replaced, never changed in place, and the log
        # turns the tuples into lists when it is read.
        self.record(  # type: ignore[misc]
            ("decision", self.round, STAGE_DECISIONS[stage], player,
             None if stage == FORMATION or pending is None else pending.uid, self.legal, action,
             # A deployment decision offers the player's collection, which the other player never sees.
             (player,) if stage == FORMATION else PLAYERS)
        )

    def _illegal_message(self, action: Any) -> str:
        """Why `action` is not legal now, in words."""
        if self.stage == FORMATION and isinstance(action, tuple) and len(action) == 3 and action[0] == DEPLOY:
            p = self.deploying
            card = next((c for c in self.collections[p] if c.slug == action[1]), None)
            if card is None:
                return f"Player {p} cannot deploy {action[1]!r}: not_owned."
            codes = deployment_problems(self.deployed[p], self.collections[p], card, action[2])
            return f"Player {p} cannot deploy {action[1]!r} in {action[2]!r}: {', '.join(codes) or 'illegal'}."
        who = self.pending.uid if self.pending is not None else self.deploying
        shown = ", ".join(repr(a) for a in self.legal[:12])
        return f"{action!r} is not legal for {who} ({STAGE_NAMES[self.stage]}); legal: {shown}"

    def clone(self, seed: int) -> RealmsState:
        """An independent copy without a log and with its own generator (for look-ahead agents)."""
        c = RealmsState(self.options, seed, keep_log=False, agents=self.agent_names)
        nus = [u.copy() for u in self.units]
        c.rng = random.Random(seed)  # as new: the constructor's own draws are not the copy's
        c.agent_seeds = self.agent_seeds
        c.tie_random = self.tie_random
        c.max_rounds = self.max_rounds
        c.first = self.first
        c.alternate_lead = self.alternate_lead
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
        c.flex_queue = [nus[u.index] for u in self.flex_queue]
        c.flex_index = self.flex_index
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
        c.collections = self.collections
        c.deployed = {s: list(d) for s, d in self.deployed.items()}
        c.deploying = self.deploying
        c.target_cache = {"a": None, "b": None}
        return c

    # -------------------------------------------------------------- formation

    def _deploy(self, action: Action) -> None:
        """Apply a Formation Round deployment; start the battle once both armies are complete."""
        p = self.deploying
        _, slug, line = action
        card = next(c for c in self.collections[p] if c.slug == slug)
        self.deployed[p].append((card, line))
        if self.record is not None:
            self.record(("deploy", p, slug, line, len(self.deployed[p])))
        other = OTHER[p]
        if len(self.deployed[other]) < ARMY_SIZE:
            self.deploying = other
        if len(self.deployed["a"]) >= ARMY_SIZE and len(self.deployed["b"]) >= ARMY_SIZE:
            self.legal = []
            self.start_battle({s: list(self.deployed[s]) for s in PLAYERS})
            return
        self.legal = list(legal_deployments(self.deployed[self.deploying], self.collections[self.deploying]))
        if not self.legal:  # cannot happen while every step keeps the army completable
            raise SetupError(f"Player {self.deploying} has no legal deployment left.", [("formation", "stuck")])


def offered(action: Any, legal: list[Action]) -> bool:
    """Whether `action` is one of the `legal` actions: by identity first (agents answer with an action they were
    handed, which this finds without comparing tuples), then by value."""
    for a in legal:
        if a is action:
            return True
    return action in legal


def army_problems(armies: Any) -> list[tuple[str, str]]:
    """What keeps two armies from starting a battle, as (path, reason) pairs (legality is checked elsewhere)."""
    problems: list[tuple[str, str]] = []
    for side in PLAYERS:
        army = armies.get(side) if isinstance(armies, Mapping) else None
        # Plain lists and tuples first: the abstract-class checks are slow and this runs per match.
        if army is None or (
            type(army) is not list and (isinstance(army, (str, bytes)) or not isinstance(army, Sequence))
        ):
            problems.append((f"armies.{side}", "must be a list of (card, line) pairs"))
            continue
        if not 1 <= len(army) <= ARMY_SIZE:
            problems.append((f"armies.{side}", f"must hold 1 to {ARMY_SIZE} cards (got {len(army)})"))
        problems += _entry_problems(side, army)
    return problems


def _entry_problems(side: str, army: Sequence[Any]) -> list[tuple[str, str]]:
    """What is wrong with the (card, line) pairs of one army, and lines over capacity."""
    problems: list[tuple[str, str]] = []
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
    return problems


def collection_card(card: CharacterCard) -> dict[str, Any]:
    """A collection card as `collection` logs it: what the Formation Round's rules read of it (R4, R6)."""
    return {"card": card.slug, "name": card.name, "rarity": card.rarity, "position": card.position,
            "class": card.character_class}


def lookahead(obs: RealmsObservation, seed: int) -> RealmsState:
    """A look-ahead match from what `obs` shows, without log, with a generator seeded with `seed` (G2).

    Only the observation is read. After the Formation Round everything a match holds is public but its
    generator, so the copy plays on as the match would with that generator: every unit from its snapshot
    (card, line, HP, readiness, faction-ability limits, standing effects), the attack order and whose
    decision it is. In the Formation Round the other player's collection is unknown: the copy lends it
    the cards this player knows of, its own collection, besides what it has deployed.
    """
    if obs.phase not in ("formation", "flex", "act"):
        raise ValueError("A look-ahead match starts at a decision: a deployment, a Flex move or an action.")
    options = {"tie_break": obs.tie_break, "max_rounds": obs.max_rounds, "first_player": obs.first_player}
    world = RealmsState(options, seed, keep_log=False)
    world.rng = random.Random(seed)  # as new: the constructor's own draws are not the copy's
    world.alternate_lead = obs.tie_lead
    if obs.phase == "formation":
        return _formation_lookahead(world, obs)
    world.round = obs.round
    for v in obs.units:
        _field(world, v)
    world.eid = max([e.eid for v in obs.units for e in v.effects], default=0)
    world.order = [world.by_id[uid] for uid, _ in obs.order]
    world.order_spd = [spd for _, spd in obs.order]
    actor = obs.actor
    assert actor is not None  # a Flex move or an action has its unit
    pending = world.pending = world.by_id[actor.uid]
    if obs.phase == "act":
        _at_action(world, obs, pending)
    else:
        world.stage = FLEX
        world.flex_queue = [u for u in world.order if u.position == "flex" and u.alive]
        world.flex_index = obs.flex_done
        world.legal = [rounds.STAY_ACTION, (rounds.SWITCH, REARGUARD if pending.line == VANGUARD else VANGUARD)]
    return world


# The look-ahead builder observations hand over, as a Final (compiled, read without a lookup in the globals).
LOOKAHEAD: Final[Lookahead] = lookahead


def _at_action(world: RealmsState, obs: RealmsObservation, pending: Unit) -> None:
    """A look-ahead match at the action of `pending`: the units before it in the order have acted."""
    rnd = obs.round
    world.stage = ACT
    world.idx = obs.acting
    for k, u in enumerate(world.order[: obs.acting + 1]):
        u.turn = rnd  # their turns have come (the acting unit's before_action ability included)
        if k < obs.acting:
            u.acted = rnd
    world.legal = rounds.act_legal(world, pending)


def _field(world: RealmsState, v: UnitInfo) -> None:
    """Put a unit on a look-ahead battlefield as its snapshot shows it (units enter in their original order,
    so each gets its own id back)."""
    card = v.character
    u = world.add_unit(v.side, v.line, v.name, v.base_atk, v.base_def, v.base_spd, v.max_hp, card)
    u.position = v.position  # a summon's is the line it arrived in, which a push or pull may since have left
    if card is not None:
        u.main_program = triggers.program(card.main.effects)
        u.faction_program = triggers.program(card.faction_ability.effects)
    u.hp = v.hp
    u.ready = v.ready_round
    u.faction_round = v.faction_round
    u.faction_used = v.faction_used
    for e in v.effects:
        world.stand(u, Active(e.eid, KINDS[e.kind], e.stat, e.amount, e.left(world.round), e.src, e.since,
                              e.persists, e.until))
    if not v.alive:
        u.alive = False
        world.withdraw(u)


def _formation_lookahead(world: RealmsState, obs: RealmsObservation) -> RealmsState:
    """The Formation Round as `obs` shows it, the other player's unknown collection lent this player's own."""
    me, other = obs.player, obs.opponent
    deployed = {"a": list(obs.deployed("a")), "b": list(obs.deployed("b"))}
    theirs = {c.slug for c, _ in deployed[other]}
    world.collections = {
        me: list(obs.own_collection),
        other: [c for c, _ in deployed[other]] + [c for c in obs.own_collection if c.slug not in theirs],
    }
    if not can_complete(deployed[other], world.collections[other]):
        raise ValueError("The cards this player knows of cannot complete the other player's army.")
    world.deployed = deployed
    world.stage = FORMATION
    first, second = obs.first_player, OTHER[obs.first_player]
    done_first, done_second = len(deployed[first]), len(deployed[second])
    if done_first >= ARMY_SIZE:
        world.deploying = second
    elif done_second >= ARMY_SIZE:
        world.deploying = first
    else:  # deployment alternates from the first player (R6)
        world.deploying = first if done_first == done_second else second
    world.legal = list(legal_deployments(deployed[world.deploying], world.collections[world.deploying]))
    return world
