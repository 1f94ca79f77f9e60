"""What an Echo Realms player sees (G2): immutable snapshots built by the engine, never the state.

Everything on an Echo Realms battlefield is public, so a player's observation shows every
unit; agents still read it only through `UnitInfo` snapshots (frozen tuples, rebuilt by the
engine only after a unit changed). `sandbox()` hands a look-ahead agent an independent copy
of the match to play forward: the battlefield being public, that copy is exactly what the
player knows (a game with hidden information samples the hidden part instead).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from realms.engine.spec import FactionAbility, MainAbility

if TYPE_CHECKING:
    from realms.engine.cards import CharacterCard
    from realms.engine.state import RealmsState
    from realms.engine.units import Unit


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
    debuffs: int  # standing negative effects (debuff, poison, burn, silence); details: observation.effects()
    buffs: int  # standing positive effects (buff, shield, regen)


_new = tuple.__new__


def snapshot(u: Unit) -> UnitInfo:
    """The unit's current snapshot (cached until the unit changes)."""
    info = u.snapshot
    if info is None:
        info = u.snapshot = _new(
            UnitInfo,
            u.static + (
                u.line, u.alive, u.hp, u.shield, u.atk_now, u.def_now, u.spd_now, u.ready, u.silence > 0,
                u.negatives, u.positives,
            ),
        )
    return info


class RealmsObservation:
    """One player's view of the match at a decision."""

    __slots__ = ("_st", "player")

    def __init__(self, state: RealmsState, player: str) -> None:
        """The observation of `player` over `state` (read through snapshots only)."""
        self._st = state
        self.player = player

    @property
    def round(self) -> int:
        """The current round (0 during the Formation Round)."""
        return self._st.round

    @property
    def phase(self) -> str:
        """formation, flex, act (decisions) or over."""
        return self._st.phase()

    @property
    def max_rounds(self) -> int:
        """The round cap of the match (R16)."""
        return self._st.max_rounds

    @property
    def actor(self) -> UnitInfo | None:
        """The unit whose decision this is (Flex or action)."""
        u = self._st.pending  # set at Flex and action decisions only
        return (u.snapshot or snapshot(u)) if u is not None else None

    def actor_and_targets(self) -> tuple[UnitInfo | None, list[UnitInfo]]:
        """`actor` and `attack_targets()` in one call (what every action decision reads first)."""
        st = self._st
        u = st.pending
        return (u.snapshot or snapshot(u)) if u is not None else None, [t.snapshot or snapshot(t) for t in st.targets]

    def allies(self) -> list[UnitInfo]:
        """The player's living units, in army order."""
        return [u.snapshot or snapshot(u) for u in self._st.living[self.player]]

    def enemies(self) -> list[UnitInfo]:
        """The opponent's living units, in army order."""
        return [u.snapshot or snapshot(u) for u in self._st.living["b" if self.player == "a" else "a"]]

    def attack_targets(self) -> list[UnitInfo]:
        """The units the acting unit may Basic-Attack now (R12), in the order of the legal actions."""
        return [u.snapshot or snapshot(u) for u in self._st.targets]  # empty unless at an action decision

    def unit(self, uid: str) -> UnitInfo:
        """Any unit (living or not) by id."""
        return snapshot(self._st.by_id[uid])

    def effects(self, uid: str) -> tuple[tuple[str, str, int, int], ...]:
        """The effects standing on a unit: (kind, stat, amount, rounds left), oldest first."""
        return tuple((a.kind, a.stat, a.amount, a.left) for a in self._st.by_id[uid].effects)

    def attack_order(self) -> list[tuple[str, int]]:
        """This round's attack order so far: (unit id, SPD used), summons included."""
        st = self._st
        return list(zip((u.uid for u in st.order), st.order_spd, strict=True))

    def collection(self) -> list[CharacterCard]:
        """Formation Round: the cards this player may still deploy."""
        st = self._st
        used = {c.slug for c, _ in st.deployed.get(self.player, [])}
        return [c for c in st.collections.get(self.player, []) if c.slug not in used]

    def deployed(self, player: str | None = None) -> list[tuple[CharacterCard, str]]:
        """Formation Round: the (card, line) pairs a player has deployed so far (default: this player)."""
        return list(self._st.deployed.get(player or self.player, []))

    def sandbox(self, seed: int) -> Any:
        """An independent copy of the match, without log, with its own generator, to play forward."""
        return self._st.clone(seed)
