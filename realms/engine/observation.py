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
from typing import TYPE_CHECKING, Any, NamedTuple

from realms.engine.effects import ONGOING_KINDS
from realms.engine.spec import FactionAbility, MainAbility

if TYPE_CHECKING:
    from realms.engine.battlefield import Battlefield
    from realms.engine.cards import CharacterCard
    from realms.engine.state import RealmsState
    from realms.engine.units import Active, Unit


class EffectInfo(NamedTuple):
    """A lasting effect standing on a unit, as the Army Sheet records it."""

    eid: int
    kind: str  # buff, debuff, shield, poison, burn, regen, silence
    stat: str  # atk, def or spd for a buff or debuff; "" otherwise
    amount: int  # stat change, shield points left, damage or healing per tick; 0 for a silence
    until: int  # its last round (R14): to that round's end phase, or an ongoing kind's last tick
    src: str  # the unit that applied it
    since: int  # the round it was applied (0: before round 1)
    persists: bool  # it outlives its source (R17)

    def left(self, rnd: int) -> int:
        """Rounds it has left at a decision of round `rnd` (poison, burn, regeneration: ticks left)."""
        return self.until - rnd if self.kind in ONGOING_KINDS else self.until - rnd + 1


class UnitInfo(NamedTuple):
    """A unit's public values at one moment; stats are effective (every modifier applied, never below 0)."""

    # What never changes for a unit.
    uid: str
    side: str
    name: str
    card: str | None  # card slug; None for a summon
    summon: bool
    character_class: str  # tank, warrior, mage, archer, assassin, support, or "summon"
    faction: str
    position: str  # printed position: vanguard, rearguard or flex
    base_atk: int
    base_def: int
    base_spd: int
    max_hp: int
    cooldown: int
    main: MainAbility | None
    faction_ability: FactionAbility | None
    character: CharacterCard | None  # the whole printed card (every deployed card is face up); None for a summon
    # What changes during the battle.
    line: str
    alive: bool
    hp: int
    shield: int
    atk: int
    def_: int
    spd: int
    ready_round: int  # first round the main ability can be used (R13)
    silenced: bool
    debuffs: int  # standing negative effects (debuff, poison, burn, silence)
    buffs: int  # standing positive effects (buff, shield, regen)
    effects: tuple[EffectInfo, ...]  # every effect standing on it, oldest first
    faction_round: int  # the last round its faction ability fired (-1: never)
    faction_used: bool  # its faction ability has fired at least once (a once-per-battle limit is spent)


# How a look-ahead match is built from an observation: the match making an observation hands it over,
# so that what a player sees needs nothing of the match to play on.
Lookahead = Callable[["RealmsObservation", int], "RealmsState"]

_new = tuple.__new__


def effect_info(a: Active) -> EffectInfo:
    """An effect's snapshot (kept on it until a shield's points change)."""
    info = a.info = _new(EffectInfo, (a.eid, a.kind, a.stat, a.amount, a.until, a.src, a.since, a.persists))
    return info


def snapshot(u: Unit) -> UnitInfo:
    """The unit's current snapshot (kept on the unit until it changes)."""
    info = u.snapshot
    if info is None:
        effects = tuple([a.info or effect_info(a) for a in u.effects]) if u.effects else ()
        info = u.snapshot = _new(
            UnitInfo,
            u.static + (
                u.line, u.alive, u.hp, u.shield, u.atk_now, u.def_now, u.spd_now, u.ready, u.silence > 0,
                u.negatives, u.positives, effects, u.faction_round, u.faction_used,
            ),
        )
    return info


# The observation's fields, in the order the constructor takes them.
OBSERVATION_FIELDS = (
    "player", "round", "phase", "max_rounds", "tie_break", "first_player", "tie_lead", "actor", "targets", "units",
    "order", "acting", "flex_done", "own_collection", "deployments", "lookahead",
)


class RealmsObservation:
    """One player's view of the match at a decision: values only (snapshots, tuples, frozen cards).

    A plain class rather than a named tuple so that the compiled engine builds it and reads it at native
    speed (it is made at every decision); it holds nothing of the match, so whatever its holder does to it
    changes nothing else.
    """

    __slots__ = OBSERVATION_FIELDS

    def __init__(
        self, player: str, round: int, phase: str, max_rounds: int, tie_break: str, first_player: str, tie_lead: str,
        actor: UnitInfo | None, targets: tuple[UnitInfo, ...], units: tuple[UnitInfo, ...],
        order: tuple[tuple[str, int], ...], acting: int, flex_done: int, own_collection: tuple[CharacterCard, ...],
        deployments: tuple[tuple[tuple[CharacterCard, str], ...], ...], lookahead: Lookahead,
    ) -> None:
        """An observation from its values (`observe` makes them)."""
        self.player = player
        self.round = round  # 0 during the Formation Round and the battle-start abilities
        self.phase = phase  # formation, flex or act at a decision (start, end or over otherwise)
        self.max_rounds = max_rounds  # the round cap of the match (R16)
        self.tie_break = tie_break  # the tie_break option (R9)
        self.first_player = first_player  # the first player (R6, R9)
        self.tie_lead = tie_lead  # with tie_break alternate, the player who leads the next tie between the players
        self.actor = actor  # the unit whose decision this is (Flex or action)
        self.targets = targets  # the units behind the legal Basic Attacks, in their order
        self.units = units  # every unit fielded so far, fallen ones included, in the order they entered
        self.order = order  # this round's attack order so far: (unit id, SPD used), summons included
        self.acting = acting  # the acting unit's place in `order` (0 outside the action stage)
        self.flex_done = flex_done  # Flex stage: how many of the round's Flex units have had their turn
        self.own_collection = own_collection  # Formation Round: this player's whole collection, in its order
        self.deployments = deployments  # Formation Round: the (card, line) pairs of a, then of b
        self.lookahead = lookahead

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


def unit_dict(v: UnitInfo) -> dict[str, Any]:
    """A unit's public values as plain JSON-friendly data."""
    return {
        "id": v.uid, "side": v.side, "name": v.name, "card": v.card, "summon": v.summon,
        "class": v.character_class, "faction": v.faction, "position": v.position, "line": v.line,
        "alive": v.alive, "hp": v.hp, "max_hp": v.max_hp, "shield": v.shield, "atk": v.atk, "def": v.def_,
        "spd": v.spd, "cooldown": v.cooldown, "ready_round": v.ready_round, "silenced": v.silenced,
        "effects": [e._asdict() for e in v.effects], "faction_round": v.faction_round,
        "faction_used": v.faction_used,
    }


NO_DEPLOYMENTS: tuple[tuple[tuple[CharacterCard, str], ...], ...] = ()


def observe(bf: Battlefield, player: str, phase: str, lookahead: Lookahead) -> RealmsObservation:
    """The observation of `player` now (G2); `lookahead` builds its sandboxes."""
    pending = bf.pending
    units = bf.units
    infos = tuple([u.snapshot or snapshot(u) for u in units])
    collection: tuple[CharacterCard, ...] = ()
    deployments = NO_DEPLOYMENTS
    if phase == "formation":
        collection = tuple(bf.collections.get(player, ()))
        deployments = (tuple(bf.deployed.get("a", ())), tuple(bf.deployed.get("b", ())))
    order = bf.order_view
    if order is None:
        order = bf.order_view = tuple(zip([u.uid for u in bf.order], bf.order_spd, strict=True))
    targets = bf.targets
    return RealmsObservation(
        player, bf.round, phase, bf.max_rounds, "random" if bf.tie_random else "alternate", bf.first,
        bf.alternate_lead, infos[pending.index] if pending is not None else None,
        tuple([infos[t.index] for t in targets]) if targets else (), infos, order, bf.idx, bf.flex_index,
        collection, deployments, lookahead,
    )
