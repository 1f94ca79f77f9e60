"""What an Echo Realms player sees (G2): a value built by the engine at each decision, never the state.

Everything on an Echo Realms battlefield is public (every unit, its values, the effects standing on
it, the attack order); only the Formation Round hides something: each player's collection, which
the other player never sees. An observation holds that public part as immutable values (unit
snapshots, tuples, frozen cards) and the player's own collection, and keeps no reference to the
match: nothing reachable from it (the match, its units, its generator, the other collection) can
be read or changed through it.

`sandbox(seed)` builds a look-ahead match from the observation alone, with a generator of its own
(`lookahead`, which the match hands over, does it). After the Formation Round it plays exactly as
the match would; during it, the other player's collection is unknown, so the look-ahead gives it
the cards this player knows of (its own collection) besides what it has deployed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

from realms.engine.effects import ONGOING_KINDS
from realms.engine.order import order_view
from realms.engine.spec import FactionAbility, MainAbility
from simulate.engine.values import read_only

if TYPE_CHECKING:
    from realms.engine.battlefield import Battlefield
    from realms.engine.cards import CharacterCard
    from realms.engine.state import RealmsState
    from realms.engine.units import Active, Unit


class EffectInfo:
    """A lasting effect standing on a unit, as the Army Sheet records it (a value: it never changes)."""

    __slots__ = ("eid", "kind", "stat", "amount", "until", "src", "since", "persists")

    def __init__(self, a: Active) -> None:
        """The snapshot of the effect `a`."""
        self.eid: Final = a.eid
        self.kind: Final = a.kind  # its effect kind (a lasting one: buff, shield, poison, silence, ...)
        self.stat: Final = a.stat  # atk, def or spd for a buff or debuff; "" otherwise
        self.amount: Final = a.amount  # stat change, shield points left, damage or healing per tick; 0: none
        self.until: Final = a.until  # its last round (R14): to that round's end phase, or an ongoing kind's last tick
        self.src: Final = a.src  # the unit that applied it
        self.since: Final = a.since  # the round it was applied (0: before round 1)
        self.persists: Final = a.persists  # it outlives its source (R17)

    def left(self, rnd: int) -> int:
        """Rounds it has left at a decision of round `rnd` (poison, burn, regeneration: ticks left)."""
        return self.until - rnd if self.kind in ONGOING_KINDS else self.until - rnd + 1

    def to_dict(self) -> dict[str, Any]:
        """The effect as plain JSON-friendly data."""
        return {"eid": self.eid, "kind": self.kind, "stat": self.stat, "amount": self.amount, "until": self.until,
                "src": self.src, "since": self.since, "persists": self.persists}


class UnitBasics:
    """What never changes for a unit (a value, made once per unit and shared by all its snapshots)."""

    __slots__ = (
        "uid", "side", "name", "card", "summon", "character_class", "faction", "position", "base_atk", "base_def",
        "base_spd", "max_hp", "cooldown", "main", "faction_ability", "character",
    )

    def __init__(self, u: Unit) -> None:
        """The unchanging values of the unit `u`."""
        card = u.card
        self.uid: Final = u.uid
        self.side: Final = u.side
        self.name: Final = u.name
        self.card: Final = card.slug if card is not None else None  # card slug; None for a summon
        self.summon: Final = u.summon
        self.character_class: Final = u.character_class  # tank, warrior, mage, archer, assassin, support, "summon"
        self.faction: Final = u.faction
        self.position: Final = u.position  # printed position: vanguard, rearguard or flex
        self.base_atk: Final = u.atk
        self.base_def: Final = u.defense
        self.base_spd: Final = u.spd
        self.max_hp: Final = u.max_hp
        self.cooldown: Final = u.cooldown
        self.main: Final[MainAbility | None] = u.main
        self.faction_ability: Final[FactionAbility | None] = u.faction_ability
        self.character: Final = card  # the whole printed card (every deployed card is face up); None for a summon


class UnitInfo:
    """A unit's public values at one moment (a value: it never changes); stats are effective (every modifier
    applied, never below 0). What never changes for the unit is in `basics`, also read as its own names."""

    __slots__ = (
        "basics", "line", "alive", "hp", "shield", "atk", "def_", "spd", "ready_round", "silenced", "debuffs",
        "buffs", "effects", "faction_round", "faction_used",
    )

    def __init__(self, u: Unit, basics: UnitBasics, effects: tuple[EffectInfo, ...]) -> None:
        """The snapshot of the unit `u` now, with its basics and its standing effects' snapshots."""
        self.basics: Final = basics
        self.line: Final = u.line
        self.alive: Final = u.alive
        self.hp: Final = u.hp
        self.shield: Final = u.shield
        self.atk: Final = u.atk_now
        self.def_: Final = u.def_now
        self.spd: Final = u.spd_now
        self.ready_round: Final = u.ready  # first round the main ability can be used (R13)
        self.silenced: Final = u.restraints > 0 and ability_barred(u)  # a standing effect bars its Main Ability
        self.debuffs: Final = u.negatives  # standing negative effects (debuff, poison, burn, silence, ...)
        self.buffs: Final = u.positives  # standing positive effects (buff, shield, regen)
        self.effects: Final = effects  # every effect standing on it, oldest first
        self.faction_round: Final = u.faction_round  # the last round its faction ability fired (-1: never)
        self.faction_used: Final = u.faction_used  # it has fired at least once (a once-per-battle limit is spent)

    @property
    def uid(self) -> str:
        return self.basics.uid

    @property
    def side(self) -> str:
        return self.basics.side

    @property
    def name(self) -> str:
        return self.basics.name

    @property
    def card(self) -> str | None:
        return self.basics.card

    @property
    def summon(self) -> bool:
        return self.basics.summon

    @property
    def character_class(self) -> str:
        return self.basics.character_class

    @property
    def faction(self) -> str:
        return self.basics.faction

    @property
    def position(self) -> str:
        return self.basics.position

    @property
    def base_atk(self) -> int:
        return self.basics.base_atk

    @property
    def base_def(self) -> int:
        return self.basics.base_def

    @property
    def base_spd(self) -> int:
        return self.basics.base_spd

    @property
    def max_hp(self) -> int:
        return self.basics.max_hp

    @property
    def cooldown(self) -> int:
        return self.basics.cooldown

    @property
    def main(self) -> MainAbility | None:
        return self.basics.main

    @property
    def faction_ability(self) -> FactionAbility | None:
        return self.basics.faction_ability

    @property
    def character(self) -> CharacterCard | None:
        return self.basics.character


def ability_barred(u: Unit) -> bool:
    """Whether a standing effect keeps `u` from using its Main Ability (its kind's `bars_ability`)."""
    return any(a.impl.restricts and a.impl.bars_ability(u, a) for a in u.effects)


read_only(EffectInfo)
read_only(UnitBasics)
read_only(UnitInfo)

# How a look-ahead match is built from an observation: the match making an observation hands it over,
# so that what a player sees needs nothing of the match to play on.
Lookahead = Callable[["RealmsObservation", int], "RealmsState"]


def effect_info(a: Active) -> EffectInfo:
    """An effect's snapshot (kept on it until a shield's points change)."""
    info = a.info = EffectInfo(a)
    return info


def snapshot(u: Unit) -> UnitInfo:
    """The unit's current snapshot (kept on the unit until it changes; its basics and its effects' snapshots are
    kept until those change)."""
    info = u.snapshot
    if info is None:
        effects = u.effect_infos
        if effects is None:
            # tuple(<generator over a list>): compiled, the tuple is made at its length, with no list between.
            effects = u.effect_infos = tuple(a.info or effect_info(a) for a in u.effects) if u.effects else ()
        info = u.snapshot = UnitInfo(u, u.basics or basics_of(u), effects)
    return info


def basics_of(u: Unit) -> UnitBasics:
    """The unit's unchanging values (made once)."""
    basics = u.basics = UnitBasics(u)
    return basics


# The observation's fields, in the order the constructor takes them.
OBSERVATION_FIELDS = (
    "player", "round", "phase", "max_rounds", "tie_break", "first_player", "tie_lead", "actor", "targets", "units",
    "order", "acting", "flex_done", "own_collection", "deployments", "lookahead",
)


class RealmsObservation:
    """One player's view of the match at a decision: values only (snapshots, tuples, frozen cards).

    A value class rather than a named tuple so that the compiled engine makes it and reads it at native
    speed (it is made at every decision); its attributes are read-only, and it holds nothing of the match.
    """

    __slots__ = OBSERVATION_FIELDS

    def __init__(
        self, player: str, round: int, phase: str, max_rounds: int, tie_break: str, first_player: str, tie_lead: str,
        actor: UnitInfo | None, targets: tuple[UnitInfo, ...], units: tuple[UnitInfo, ...],
        order: tuple[tuple[str, int], ...], acting: int, flex_done: int, own_collection: tuple[CharacterCard, ...],
        deployments: tuple[tuple[tuple[CharacterCard, str], ...], ...], lookahead: Lookahead,
    ) -> None:
        """An observation from its values (`observe` makes them)."""
        self.player: Final = player
        self.round: Final = round  # 0 during the Formation Round and the battle-start abilities
        self.phase: Final = phase  # formation, flex or act at a decision (start, end or over otherwise)
        self.max_rounds: Final = max_rounds  # the round cap of the match (R16)
        self.tie_break: Final = tie_break  # the tie_break option (R9)
        self.first_player: Final = first_player  # the first player (R6, R9)
        self.tie_lead: Final = tie_lead  # with tie_break alternate, the player who leads the next tie between the players
        self.actor: Final = actor  # the unit whose decision this is (Flex or action)
        self.targets: Final = targets  # the units behind the legal Basic Attacks, in their order
        self.units: Final = units  # every unit fielded so far, fallen ones included, in the order they entered
        self.order: Final = order  # this round's attack order so far: (unit id, SPD used), summons included
        self.acting: Final = acting  # the acting unit's place in `order` (0 outside the action stage)
        self.flex_done: Final = flex_done  # Flex stage: how many of the round's Flex units have had their turn (0 outside it)
        self.own_collection: Final = own_collection  # Formation Round: this player's whole collection, in its order
        self.deployments: Final = deployments  # Formation Round: the (card, line) pairs of a, then of b
        self.lookahead: Final = lookahead

    def replaced(self, **changes: Any) -> RealmsObservation:
        """A copy with some values changed (for tools and tests)."""
        values = {name: getattr(self, name) for name in OBSERVATION_FIELDS}
        values.update(changes)
        return RealmsObservation(**values)

    @property
    def opponent(self) -> str:
        """The other player."""
        return "b" if self.player == "a" else "a"

    def actor_and_targets(self) -> tuple[UnitInfo | None, tuple[UnitInfo, ...]]:
        """`actor` and `targets` in one call (what every action decision reads first)."""
        return self.actor, self.targets

    def attack_targets(self) -> list[UnitInfo]:
        """The units the acting unit may Basic-Attack now (R12), in the order of the legal actions."""
        return list(self.targets)

    def allies(self) -> list[UnitInfo]:
        """The player's living units, in army order (summons after the army, in the order they entered)."""
        player = self.player
        return [v for v in self.units if v.alive and v.side == player]

    def enemies(self) -> list[UnitInfo]:
        """The opponent's living units, in army order."""
        player = self.player
        return [v for v in self.units if v.alive and v.side != player]

    def unit(self, uid: str) -> UnitInfo:
        """Any unit (living or not) by id; KeyError for an id no unit has."""
        for v in self.units:
            if v.uid == uid:
                return v
        raise KeyError(uid)

    def effects(self, uid: str) -> tuple[tuple[str, str, int, int], ...]:
        """The effects standing on a unit: (kind, stat, amount, rounds left), oldest first."""
        rnd = self.round
        return tuple((e.kind, e.stat, e.amount, e.left(rnd)) for e in self.unit(uid).effects)

    def attack_order(self) -> list[tuple[str, int]]:
        """This round's attack order so far: (unit id, SPD used), summons included."""
        return list(self.order)

    def collection(self) -> list[CharacterCard]:
        """Formation Round: the cards this player may still deploy (its collection less what it deployed)."""
        used = {c.slug for c, _ in self.deployments[0 if self.player == "a" else 1]} if self.deployments else set()
        return [c for c in self.own_collection if c.slug not in used]

    def deployed(self, player: str | None = None) -> list[tuple[CharacterCard, str]]:
        """Formation Round: the (card, line) pairs a player has deployed so far (default: this player)."""
        who = player or self.player
        return list(self.deployments[0 if who == "a" else 1]) if self.deployments else []

    def sandbox(self, seed: int) -> RealmsState:
        """A look-ahead match built from this observation only, without log, with its own generator."""
        return self.lookahead(self, seed)

    def to_dict(self) -> dict[str, Any]:
        """The observation as plain JSON-friendly data (cards by slug)."""
        return {
            "player": self.player, "round": self.round, "phase": self.phase, "max_rounds": self.max_rounds,
            "tie_break": self.tie_break, "first_player": self.first_player, "tie_lead": self.tie_lead,
            "actor": self.actor.uid if self.actor is not None else None,
            "targets": [v.uid for v in self.targets], "units": [unit_dict(v) for v in self.units],
            "order": [list(x) for x in self.order], "acting": self.acting, "flex_done": self.flex_done,
            "collection": [c.slug for c in self.own_collection],
            "deployed": [[[c.slug, line] for c, line in side] for side in self.deployments],
        }


read_only(RealmsObservation)


def unit_dict(v: UnitInfo) -> dict[str, Any]:
    """A unit's public values as plain JSON-friendly data."""
    return {
        "id": v.uid, "side": v.side, "name": v.name, "card": v.card, "summon": v.summon,
        "class": v.character_class, "faction": v.faction, "position": v.position, "line": v.line,
        "alive": v.alive, "hp": v.hp, "max_hp": v.max_hp, "shield": v.shield, "atk": v.atk, "def": v.def_,
        "spd": v.spd, "cooldown": v.cooldown, "ready_round": v.ready_round, "silenced": v.silenced,
        "effects": [e.to_dict() for e in v.effects], "faction_round": v.faction_round,
        "faction_used": v.faction_used,
    }


NO_DEPLOYMENTS: Final[tuple[tuple[tuple[CharacterCard, str], ...], ...]] = ()


def observe(bf: Battlefield, player: str, phase: str, lookahead: Lookahead) -> RealmsObservation:
    """The observation of `player` now (G2); `lookahead` builds its sandboxes."""
    pending = bf.pending
    units = bf.units
    infos = tuple(u.snapshot or snapshot(u) for u in units)  # made at its length (see `snapshot`)
    collection: tuple[CharacterCard, ...] = ()
    deployments = NO_DEPLOYMENTS
    if phase == "formation":
        collection = tuple(bf.collections.get(player, ()))
        deployments = (tuple(bf.deployed.get("a", ())), tuple(bf.deployed.get("b", ())))
    order = bf.order_view
    if order is None:
        order = bf.order_view = order_view(bf.order, bf.order_spd)  # once per attack order
    targets = bf.targets
    return RealmsObservation(
        player, bf.round, phase, bf.max_rounds, "random" if bf.tie_random else "alternate", bf.first,
        bf.alternate_lead, infos[pending.index] if pending is not None else None,
        tuple(infos[t.index] for t in targets) if targets else (), infos, order,
        # The counters of the action and Flex stages, as documented: 0 outside their stage (the battlefield
        # keeps its last values until the next round needs them).
        bf.idx if phase == "act" else 0, bf.flex_index if phase == "flex" else 0,
        collection, deployments, lookahead,
    )
