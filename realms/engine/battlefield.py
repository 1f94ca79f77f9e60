"""The battlefield: every unit, who stands where, the attack order, the log, and the small steps that
change them (a unit arriving, a line change, an effect put on or taken off, a heal, a fizzle).

The rules that use these steps live in their own modules (combat, triggers, order, rounds); the
match itself (`state.RealmsState`) is a `Battlefield` with the public interface on top.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final

from realms.engine import trigger_kinds
from realms.engine.events import EVENT_FIELDS
from realms.engine.units import Active, Standing, Unit
from realms.engine.vocabulary import PLAYERS, VANGUARD
from simulate.engine.events import EventLog
from simulate.engine.rng import seat_seeds

if TYPE_CHECKING:
    from realms.engine.cards import CharacterCard

# Stages of a match. Rule constants are Final: compiled, each use is the value itself, not a lookup.
FORMATION: Final = 0
START: Final = 1
FLEX: Final = 2
ACT: Final = 3
END: Final = 4
OVER: Final = 5
# Typed as a tuple of any length: compiled, a Final tuple of a fixed length is made anew at each use.
STAGE_NAMES: Final[tuple[str, ...]] = ("formation", "start", "flex", "act", "end", "over")

# Where a damage, heal, move or effect came from.
VIA_BASIC: Final = "basic"
VIA_ABILITY: Final = "ability"
VIA_FACTION: Final = "faction"
VIA_ONGOING: Final = "ongoing"
VIA_FLEX: Final = "flex"

# Per side, cached until a unit of it falls, arrives or moves: [targets within a vanguard unit's
# reach, their Basic Attacks, every living unit, their Basic Attacks, Main Ability actions on the
# former, on the latter, then the whole legal actions of a ready unit aiming at this side (`rounds.ready_legal`:
# from the vanguard with its ability on the former, on the latter, from the rearguard, and with an ability on no
# unit from the vanguard, from the rearguard)]; all but the first four None until first needed.
TargetLists = list[Any]
TARGET_LIST_SLOTS: Final = 11
Action = tuple[Any, ...]
# An event as the log records it: (type, value, ...) in the order of the type's fields (events.EVENT_FIELDS).
Record = tuple[Any, ...]


class Battlefield:
    """The match's data and its elementary steps; `fire` (a faction ability) is the match's own."""

    __slots__ = (
        "options", "seed", "rng", "log", "record", "tie_random", "max_rounds", "first", "alternate_lead",
        "stage", "round", "units", "by_id", "living", "chars", "next_num", "order", "order_spd", "idx",
        "flex_queue", "flex_index", "pending", "legal", "targets", "eid", "depth", "winner", "reason", "steps",
        "armed", "ongoing", "flex_units", "factions", "collections", "deployed", "deploying", "target_cache",
        "order_view", "agent_names", "agent_seeds", "uses", "use",
    )

    def __init__(
        self, options: Mapping[str, Any], seed: int, keep_log: bool = True, agents: Mapping[str, str] | None = None
    ) -> None:
        """A match before setup: options validated, its own generator, the first player drawn if needed,
        then a seed for each player's agent (G2)."""
        self.options = dict(options)
        self.seed = seed
        self.rng = random.Random(seed)
        self.log: EventLog | None = EventLog(EVENT_FIELDS) if keep_log else None
        # The log's way in for compact records (None: no log): one tuple per event, its type then the values
        # of its documented fields in order (events.EVENT_FIELDS), made into the dict only when read.
        self.record: Callable[[Record], None] | None = self.log.record if self.log is not None else None
        self.tie_random: bool = options["tie_break"] == "random"
        self.max_rounds: int = options["max_rounds"]
        first = options["first_player"]
        if first not in PLAYERS:
            first = "a" if self.rng.random() < 0.5 else "b"
        self.first: str = first
        self.alternate_lead: str = first
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
        self.order_view: tuple[tuple[str, int], ...] | None = None  # `order` as observations show it, once asked
        self.idx = 0
        self.flex_queue: list[Unit] = []
        self.flex_index = 0
        self.pending: Unit | None = None
        self.legal: list[Action] = []
        self.targets: list[Unit] = []  # the units behind the pending decision's legal Basic Attacks
        self.eid = 0
        self.depth = 0
        self.winner: str | None = None
        self.reason = ""
        self.steps = 0
        self.armed = [0] * trigger_kinds.SLOTS  # living characters per faction-ability trigger code: 0 lets a scan be skipped
        self.uses = 0  # ability uses so far: each Main Ability or faction ability use gets the next id (G3)
        self.use: int | None = None  # the ability use now resolving, named by every effect it causes
        self.ongoing = 0  # poison, burn and regeneration effects standing
        self.flex_units = 0  # Flex-position units ever fielded: none means no Flex phase to scan
        self.factions: dict[str, dict[str, int]] = {"a": {}, "b": {}}  # living characters per faction
        self.collections: dict[str, list[CharacterCard]] = {}
        self.deployed: dict[str, list[tuple[CharacterCard, str]]] = {}
        self.deploying: str = first
        self.target_cache: dict[str, TargetLists | None] = {"a": None, "b": None}

    def fire(self, w: Unit, attacker: Unit | None) -> None:
        """Resolve `w`'s faction ability now, if its limit and condition allow (see `triggers.fire`)."""
        raise NotImplementedError

    # ------------------------------------------------------------ units and lines

    def add_unit(
        self, side: str, line: str, name: str, atk: int, defense: int, spd: int, hp: int, card: CharacterCard | None
    ) -> Unit:
        """Create a unit with the next id of its side and put it on the battlefield."""
        num = self.next_num[side]
        self.next_num[side] = num + 1
        u = Unit(f"{side}{num}", side, len(self.units), line, name, atk, defense, spd, hp, card)
        self.units.append(u)
        self.by_id[u.uid] = u
        self.living[side].append(u)
        self.target_cache[side] = None
        if card is not None:
            self.chars[side] += 1
            count = self.factions[side]
            count[u.faction] = count.get(u.faction, 0) + 1
            self.armed[u.trigger] += 1
            if u.position == "flex":
                self.flex_units += 1
        return u

    def withdraw(self, u: Unit) -> None:
        """Take a fallen unit off the battlefield: out of its side's living units and of the counts."""
        side = u.side
        self.living[side].remove(u)
        self.target_cache[side] = None
        if not u.summon:
            self.chars[side] -= 1
            self.factions[side][u.faction] -= 1
            self.armed[u.trigger] -= 1

    def line_count(self, side: str, line: str) -> int:
        """How many living units of `side` stand in `line`."""
        n = 0
        for u in self.living[side]:
            if u.line == line:
                n += 1
        return n

    def target_lists(self, side: str) -> TargetLists:
        """R12 for units aiming at `side`: the targets from the vanguard (its vanguard while it holds
        anyone, else everyone) and from the rearguard (everyone), with their Basic Attack actions;
        the Main Ability actions on them come when first needed (`ability_lists`)."""
        lists = self.target_cache[side]
        if lists is not None:
            return lists
        every = list(self.living[side])
        front = [t for t in every if t.line == VANGUARD] or every
        lists = [None] * TARGET_LIST_SLOTS
        lists[0] = front
        lists[1] = [t.attack_action for t in front]
        lists[2] = every
        lists[3] = [t.attack_action for t in every]
        self.target_cache[side] = lists
        return lists

    @staticmethod
    def ability_lists(lists: TargetLists) -> TargetLists:
        """Fill in the Main Ability actions on the units of `lists` (see `target_lists`)."""
        lists[4] = [t.ability_action for t in lists[0]]
        lists[5] = [t.ability_action for t in lists[2]]
        return lists

    def reach(self, side: str) -> list[Unit]:
        """R12: the units of `side` a vanguard unit may aim at (its vanguard while it holds anyone)."""
        lists: list[Unit] = self.target_lists(side)[0]
        return lists

    def move(self, u: Unit, dest: str, via: str, src: Unit) -> None:
        """Change a unit's line and log it."""
        origin = u.line
        u.line = dest
        u.snapshot = None
        self.target_cache[u.side] = None
        if self.record is not None:
            self.record(("move", u.uid, origin, dest, via, src.uid, self.use))

    # ------------------------------------------------------------ lasting effects

    def add_effect(
        self, src: Unit, u: Unit, impl: Standing, stat: str, amount: int, duration: int, via: str, persists: bool
    ) -> Active:
        """Put a lasting effect on a unit and log it (R14)."""
        self.eid += 1
        a = Active(self.eid, impl, stat, amount, duration, src.uid, self.round, persists)
        self.stand(u, a)
        if self.record is not None:
            self.log_effect(src, u, a, via)
        return a

    def stand(self, u: Unit, a: Active) -> None:
        """Put the effect `a` on `u`: its change to the unit's values, and the counts of what stands."""
        u.effects.append(a)
        u.snapshot = u.effect_infos = None
        impl = a.impl
        if impl.positive:
            u.positives += 1
        else:
            u.negatives += 1
        if impl.ongoing:
            u.ongoing += 1
            self.ongoing += 1
        if impl.restricts:
            u.restraints += 1
        impl.attach(u, a)

    def log_effect(self, src: Unit, u: Unit, a: Active, via: str) -> None:
        """Log a lasting effect just put on `u` with the last round it is active (R14): applied in round r
        (0 before round 1), an ongoing effect ticks in rounds r+1 … r+N; any other lasts until the end
        phase of round r + d − 1, counting from round 1 when applied before it."""
        self.record(  # type: ignore[misc]
            ("effect_applied", a.eid, u.uid, a.kind, a.stat or None, a.amount if a.impl.has_amount else None, a.left,
             a.until, a.persists, src.uid, via, self.use)
        )

    def drop_effect(self, u: Unit, a: Active, reason: str, by: Unit | None = None, via: str | None = None) -> None:
        """Remove a lasting effect and undo what it did to the unit's values; `by` and `via` name what removed
        it (a cleanse or dispel, or the fall of its source)."""
        u.effects.remove(a)
        u.snapshot = u.effect_infos = None
        impl = a.impl
        if impl.positive:
            u.positives -= 1
        else:
            u.negatives -= 1
        if impl.ongoing:
            u.ongoing -= 1
            self.ongoing -= 1
        if impl.restricts:
            u.restraints -= 1
        impl.detach(u, a)
        kind = a.kind
        a.left = 0
        if self.record is not None:
            self.record(
                ("effect_expired", a.eid, u.uid, kind, reason, by.uid if by is not None else None, via,
                 self.use if by is not None and via is not None else None)
            )

    # ------------------------------------------------------------ small outcomes

    def heal(self, src: Unit, tgt: Unit, amount: int, via: str, eid: int | None) -> None:
        """Healing, never above max HP (R11)."""
        before = tgt.hp
        room = tgt.max_hp - before
        healed = amount if amount < room else room
        if healed < 0:
            healed = 0
        tgt.hp = before + healed
        tgt.snapshot = None
        if self.record is not None:
            self.record(("heal", src.uid, tgt.uid, via, amount, healed, before, tgt.hp, eid, self.use))

    def fizzle(self, src: Unit, effect: str, unit: Unit | None, reason: str, via: str) -> None:
        """Log an effect that did nothing, with the ability use it belonged to (G3); only with the log on."""
        self.record(  # type: ignore[misc]
            ("fizzle", src.uid, effect, unit.uid if unit is not None else None, reason, via, self.use)
        )

