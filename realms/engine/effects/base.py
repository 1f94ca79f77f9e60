"""What every effect kind has: its spec (parameters, validation), what it does when it resolves and,
for the kinds that stand on a unit, when it is put on and taken off (`units.Standing`), whether it
helps or harms, how the greedy agent values it, and the words it prints on the card.

Each kind is one module of this package holding one `EffectKind`; `realms.engine.effects.KINDS`
maps names to them. The spec parser, the engine, the agents and the card text all go through it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from realms.engine.selectors import Selector
from realms.engine.units import Standing, Unit
from simulate.engine.checking import Checker as Checker  # the effect kinds' parsers read their specs with it
from simulate.engine.values import read_only

if TYPE_CHECKING:
    from realms.engine.battlefield import Battlefield
    from realms.engine.effects.words import Mention, Namer
    from realms.engine.observation import UnitInfo
    from realms.engine.trigger_kinds import Trigger

KILL_BONUS: Final = 0.5
KILL: Final = 1.0 + KILL_BONUS  # the greedy value factor of a blow that defeats its target


@dataclass(frozen=True)
class SummonSpec:
    """A summoned unit's printed values."""

    name: str
    atk: int
    def_: int
    spd: int
    hp: int


@dataclass(frozen=True)
class Effect:
    """One step of an ability, applied to every unit its selector picks."""

    kind: str
    target: str
    scale: float = 0.0  # times the source's current ATK
    flat: int = 0
    max_hp_fraction: float = 0.0  # of the target's max HP (heals)
    ignore_def: bool = False
    stat: str = ""
    amount: int = 0
    duration: int = 0
    to: str = ""  # move: vanguard | rearguard | other
    line: str = ""  # summon: vanguard | rearguard | same
    count: int = 1
    unit: SummonSpec | None = None
    persists: bool = False  # R17: a lasting effect that outlives its source ("even after it falls")


class ValueContext:
    """What the greedy agent knows while valuing one ability: whose it is, the round, and the mean HP and
    threat of each side (`averages`, filled only for the kinds that read them)."""

    __slots__ = ("side", "rnd", "enemy_hp", "enemy_threat", "ally_hp", "ally_threat")

    def __init__(self, side: str, rnd: int, averages: tuple[float, float, float, float] | None) -> None:
        self.side = side
        self.rnd = rnd
        if averages is None:
            self.enemy_hp = self.enemy_threat = self.ally_hp = self.ally_threat = 0.0
        else:
            self.enemy_hp, self.enemy_threat, self.ally_hp, self.ally_threat = averages


class EffectKind(Standing):
    """One effect kind (see the module docstring); subclasses override what applies to them."""

    keys: frozenset[str] = frozenset()  # the spec's parameters besides kind and target (and persists)
    targeted = True  # its effect names its units (a `target` selector); false: it names none (summon)
    lasting = False  # stands on its units for a duration (R14, R17)
    powered = False  # its size is ⌊ATK × scale⌋ + flat (damage, heal, shield)
    reads_averages = False  # its agent value reads the sides' mean HP and threat
    reads_round = False  # its agent value reads the round (`ValueContext.rnd`)

    # Keys the log's copy of a spec always writes, default or not (`to_spec`).
    always_written: frozenset[str] = frozenset()

    def parse(self, check: Checker, data: dict[str, Any], path: str) -> dict[str, Any]:
        """The Effect fields of this kind from a spec dict (problems noted on `check`)."""
        return {}

    @property
    def spec_keys(self) -> frozenset[str]:
        """Every spec key of this kind besides kind and target: its own, and `persists` for a lasting one."""
        return self.keys | {"persists"} if self.lasting else self.keys

    def to_spec(self, eff: Effect) -> dict[str, Any]:
        """`eff` back as its canonical spec dict (defaults left out but `always_written`), as the event log
        records it (G3)."""
        data: dict[str, Any] = {"kind": eff.kind}
        if self.targeted:
            data["target"] = eff.target
        defaults = Effect(kind=eff.kind, target=eff.target)
        for key in sorted(self.spec_keys):
            value = getattr(eff, key)
            if key in self.always_written or value != getattr(defaults, key):
                data[key] = value
        return data

    def apply(self, bf: Battlefield, src: Unit, eff: Effect, targets: Sequence[Unit], via: str) -> None:
        """Resolve the effect from `src` on the units its selector picked."""
        raise NotImplementedError

    def on_enemy(self, eff: Effect, power: int, v: UnitInfo, ctx: ValueContext) -> float:
        """The greedy agent's value of this effect reaching the enemy `v` (`power`: ⌊ATK × scale⌋ + flat)."""
        return 0.0

    def on_ally(self, eff: Effect, power: int, v: UnitInfo, ctx: ValueContext) -> float:
        """The greedy agent's value of this effect reaching the ally `v`."""
        return 0.0

    def never_matters(self, eff: Effect, trigger: Trigger | None) -> tuple[str, str] | None:
        """R14: (the spec key at fault, why) when `eff` applied by an ability with `trigger` (None: a Main
        Ability, used during the actions) could never change anything; None when it can."""
        return None

    def never_matters_on_card(self, eff: Effect, cooldown: int) -> tuple[str, str] | None:
        """R14 for a whole card: (the spec key at fault, why) when `eff` on a card whose Main Ability has
        `cooldown` could never change anything; None when it can."""
        return None

    def needs_averages(self, eff: Effect) -> bool:
        """Whether the agent's value of `eff` reads the sides' mean HP and threat (`ValueContext`)."""
        return self.reads_averages

    def worth(self, eff: Effect, ctx: ValueContext) -> float:
        """The greedy agent's value of an effect that names no units (`targeted` false)."""
        return 0.0

    def words(self, eff: Effect, ref: Mention | None) -> tuple[str, bool]:
        """The effect as a clause of the card text (lower case, `ref` naming its units), and whether it
        ends in a comma phrase (realms/engine/text.py joins the clauses)."""
        raise NotImplementedError

    # The card text joins effects in a row into one clause where a kind says so ("deals ..., then ...",
    # "gives it +2 ATK and a 3-point shield"): a run starts with one effect and takes each next one that
    # `joins` it; the run's first kind says the whole clause (`clause`).

    given = False  # a clause that gives it, joined with the others given in a row to the same units
    changes_stat = False  # what it gives is a stat change (`change`): changes in a row with one duration share it
    gained = True  # given to itself, said "gains ..." (false: "gives itself ...")

    def joins(self, first: EffectKind, head: Effect, eff: Effect) -> bool:
        """Whether `eff` (of this kind) joins a clause begun by `head` (of kind `first`)."""
        return False

    def clause(self, run: list[Piece], namer: Namer) -> tuple[str, bool]:
        """The clause of a run of effects begun by this kind (lower case), and whether it ends in a comma
        phrase. Alone, its own `words`, naming its units with `namer`."""
        eff = run[0][1]
        if not self.targeted:
            namer.pause()
            return self.words(eff, None)
        return self.words(eff, namer.ref(eff.target))


# An effect with its kind, as the card text reads it.
Piece = tuple[EffectKind, Effect]


class Step:
    """One step of a compiled ability (`triggers.program`): how its selector finds units (`code`), the selector,
    the effect's kind and the effect. A value class rather than a tuple, so that the compiled engine reads its
    parts as typed attributes, with no check of their types at each step."""

    __slots__ = ("code", "sel", "kind", "eff")

    def __init__(self, code: int, sel: Selector, kind: EffectKind, eff: Effect) -> None:
        """The step of `eff`, of kind `kind`, whose units `sel` picks."""
        self.code: Final = code
        self.sel: Final = sel
        self.kind: Final = kind
        self.eff: Final = eff


read_only(Step)  # a value shared by every match that plays the ability: read-only in plain Python too
