"""Units on the battlefield and the effects standing on them: printed values, modifiers, effective stats."""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Final

from realms.engine import trigger_kinds
from realms.engine.vocabulary import VANGUARD

if TYPE_CHECKING:
    from realms.engine.battlefield import Battlefield
    from realms.engine.cards import CharacterCard
    from realms.engine.effects.base import Step
    from realms.engine.observation import EffectInfo, UnitBasics, UnitInfo
    from realms.engine.spec import Condition, FactionAbility, MainAbility

ATTACK: Final = "attack"
ABILITY: Final = "ability"

LIMIT_CODES: Final = {"none": 0, "round": 1, "battle": 2}
LIMIT_ROUND: Final = 1
LIMIT_BATTLE: Final = 2

_FRACTIONS: Final[dict[float, tuple[int, int]]] = {}


def scaled(value: int, scale: float) -> int:
    """⌊value × scale⌋, exact for the decimal scale written in the spec."""
    if not scale:
        return 0
    try:
        num, den = _FRACTIONS[scale]
    except KeyError:
        num, den = fraction(scale)
    return value * num // den


def fraction(scale: float) -> tuple[int, int]:
    """The decimal `scale` written in the spec as an exact fraction (numerator, denominator): 0 is 0 / 1."""
    if not scale:
        return 0, 1
    found = _FRACTIONS.get(scale)
    if found is None:
        exact = Fraction(repr(float(scale)))
        found = _FRACTIONS[scale] = (exact.numerator, exact.denominator)
    return found


class Standing:
    """What an effect kind does while it stands on a unit, and whether it counts as a buff or a debuff.

    Every effect kind (realms.engine.effects) is one; the instant kinds (damage, heal, ...) never
    stand, so for them these do nothing.
    """

    name = ""
    positive = False  # a buff (shield, regen too) rather than a debuff
    ongoing = False  # ticks in start phases (poison, burn, regen) instead of counting down at end phases
    has_amount = True  # it has an amount (logged in effect_applied; null for the kinds without one)
    absorbs = False  # its amount absorbs damage before HP, oldest first (R11: shields)
    # A legality hook (as Pokémon Showdown's onDisableMove, Fireplace's attack_targets): the legal actions of
    # the unit it stands on ask it (`rounds.act_legal`), through `bars_ability` and `attack_targets`.
    restricts = False
    # What it does depends on who put it on (a taunt's source is the unit to attack): such a kind is never put on
    # by hand at a table (`table.TABLE_KINDS`), where there is no source but the unit itself.
    needs_source = False

    def attach(self, u: Unit, a: Active) -> None:
        """Change the unit's values as the effect `a` starts to stand on it."""

    def detach(self, u: Unit, a: Active) -> None:
        """Undo `attach` as `a` ends."""

    def tick(self, bf: Battlefield, u: Unit, a: Active) -> None:
        """An ongoing kind's tick on `u` in a start phase (R7, R14)."""

    def bars_ability(self, u: Unit, a: Active) -> bool:
        """A restricting kind: whether `a` keeps `u` from using its Main Ability now."""
        return False

    def attack_targets(self, bf: Battlefield, u: Unit, a: Active, targets: list[Unit]) -> list[Unit]:
        """A restricting kind: the units `u` may Basic-Attack now with `a` on it, among `targets` (those R12
        allows, narrowed by the effects before it). Never empty when `targets` is not: a unit always has an
        action. `targets` is shared: return it, or a new list."""
        return targets


class Active:
    """An effect standing on a unit (a lasting kind's: buff, shield, poison, silence, ...)."""

    __slots__ = ("eid", "kind", "stat", "amount", "left", "src", "since", "persists", "impl", "until", "info")

    def __init__(
        self, eid: int, impl: Standing, stat: str, amount: int, left: int, src: str, since: int, persists: bool,
        until: int = -1,
    ) -> None:
        """A standing effect: id, kind, stat, amount, rounds (ongoing kinds: ticks) left, source id, round
        applied, whether it outlives its source (R17), and its last round (worked out from the others when
        it is put on: R14)."""
        self.eid = eid
        self.impl = impl
        self.kind = impl.name
        self.stat = stat
        self.amount = amount
        self.left = left
        self.src = src
        self.since = since
        self.persists = persists
        if until < 0:  # R14: ongoing kinds tick in rounds r+1 … r+N; the others last to the end of r+d−1
            until = since + left if impl.ongoing else (since if since > 0 else 1) + left - 1
        self.until = until
        self.info: EffectInfo | None = None  # its public snapshot, made when first asked for (it never changes
        # but for a shield's points, which drop it)

    def copy(self) -> Active:
        """An independent copy (for look-ahead states)."""
        return Active(self.eid, self.impl, self.stat, self.amount, self.left, self.src, self.since, self.persists,
                      self.until)


class Unit:
    """A character or summoned unit on the battlefield, with its current values."""

    __slots__ = (
        "uid", "side", "foe", "index", "card", "name", "faction", "character_class", "position", "summon", "line",
        "atk", "defense", "spd", "max_hp", "hp", "atk_mod", "def_mod", "spd_mod", "atk_now", "def_now", "spd_now",
        "shield", "restraints", "ongoing", "effects", "alive", "cooldown", "ready", "main", "faction_ability",
        "trigger", "limit", "condition", "main_program", "faction_program", "counts_summons", "faction_round",
        "faction_used", "turn", "acted", "attack_action", "ability_action", "snapshot", "negatives", "positives",
        "basics", "effect_infos", "choose", "reach_all",
    )

    def __init__(
        self,
        uid: str,
        side: str,
        index: int,
        line: str,
        name: str,
        atk: int,
        defense: int,
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
        self.defense = defense
        self.spd = spd
        self.max_hp = hp
        self.hp = hp
        self.atk_mod = self.def_mod = self.spd_mod = 0
        self.atk_now = atk if atk > 0 else 0
        self.def_now = defense if defense > 0 else 0
        self.spd_now = spd if spd > 0 else 0
        self.shield = self.ongoing = 0
        self.restraints = 0  # standing effects whose kind restricts its legal actions (`Standing.restricts`)
        self.negatives = self.positives = 0  # standing negative / positive effects
        self.effects: list[Active] = []
        self.alive = True
        self.faction_round = -1
        self.faction_used = False
        self.turn = -1
        self.acted = -1
        # Its Basic Attack and Main Ability actions, made once. Typed as tuples of any length: compiled, a
        # fixed-length tuple attribute is stored unboxed and made anew at each read.
        self.attack_action: tuple[str | None, ...] = (ATTACK, uid)
        self.ability_action: tuple[str | None, ...] = (ABILITY, uid)
        self.snapshot: UnitInfo | None = None  # public snapshot, rebuilt after a change
        self.basics: UnitBasics | None = None  # what never changes, as snapshots show it (made once)
        self.effect_infos: tuple[EffectInfo, ...] | None = None  # its effects as snapshots show them, until they change
        self.ready = 1
        self.main_program: tuple[Step, ...] = ()  # set by the match for characters (`triggers.program`)
        self.faction_program: tuple[Step, ...] = ()
        self.main: MainAbility | None
        self.faction_ability: FactionAbility | None
        self.condition: Condition | None
        if card is None:
            self.summon = True
            self.faction = ""
            self.character_class = "summon"
            self.position = line
            self.cooldown = 0
            self.main = None
            self.faction_ability = None
            self.trigger = 0
            self.limit = 0
            self.condition = None
            self.counts_summons = False
            self.choose: str = ""
            self.reach_all: bool = False
        else:
            fab = card.faction_ability
            self.summon = False
            self.faction = card.faction
            self.character_class = card.character_class
            self.position = card.position
            self.cooldown = card.cooldown
            self.main = card.main
            self.faction_ability = fab
            self.trigger = trigger_kinds.BY_NAME[fab.trigger].code
            self.limit = LIMIT_CODES[fab.limit]
            self.condition = None if fab.condition.is_empty() else fab.condition
            self.counts_summons = fab.include_summons
            # What its Main Ability chooses and whether it ignores the lines (R12), read at every ready decision.
            self.choose = card.main.choose
            self.reach_all = card.main.ignore_lines

    def copy(self) -> Unit:
        """An independent copy (for look-ahead states)."""
        n = Unit(self.uid, self.side, self.index, self.line, self.name, self.atk, self.defense, self.spd,
                 self.max_hp, self.card)
        n.uid = self.uid
        n.side = self.side
        n.foe = self.foe
        n.index = self.index
        n.card = self.card
        n.name = self.name
        n.faction = self.faction
        n.character_class = self.character_class
        n.position = self.position
        n.summon = self.summon
        n.line = self.line
        n.atk = self.atk
        n.defense = self.defense
        n.spd = self.spd
        n.max_hp = self.max_hp
        n.hp = self.hp
        n.atk_mod = self.atk_mod
        n.def_mod = self.def_mod
        n.spd_mod = self.spd_mod
        n.atk_now = self.atk_now
        n.def_now = self.def_now
        n.spd_now = self.spd_now
        n.shield = self.shield
        n.restraints = self.restraints
        n.ongoing = self.ongoing
        n.alive = self.alive
        n.cooldown = self.cooldown
        n.ready = self.ready
        n.main = self.main
        n.faction_ability = self.faction_ability
        n.trigger = self.trigger
        n.limit = self.limit
        n.condition = self.condition
        n.main_program = self.main_program
        n.faction_program = self.faction_program
        n.counts_summons = self.counts_summons
        n.choose = self.choose
        n.reach_all = self.reach_all
        n.faction_round = self.faction_round
        n.faction_used = self.faction_used
        n.turn = self.turn
        n.acted = self.acted
        n.attack_action = self.attack_action
        n.ability_action = self.ability_action
        n.snapshot = self.snapshot
        n.basics = self.basics
        n.effect_infos = self.effect_infos
        n.negatives = self.negatives
        n.positives = self.positives
        n.effects = [a.copy() for a in self.effects] if self.effects else []
        return n

    def in_front(self) -> bool:
        """Whether it stands in the vanguard."""
        return self.line == VANGUARD

    def shift(self, stat: str, delta: int) -> None:
        """Add a modifier to one stat and refresh its effective value (never below 0, R11)."""
        if stat == "atk":
            v = self.atk_mod = self.atk_mod + delta
            v += self.atk
            self.atk_now = v if v > 0 else 0
        elif stat == "def":
            v = self.def_mod = self.def_mod + delta
            v += self.defense
            self.def_now = v if v > 0 else 0
        else:
            v = self.spd_mod = self.spd_mod + delta
            v += self.spd
            self.spd_now = v if v > 0 else 0
