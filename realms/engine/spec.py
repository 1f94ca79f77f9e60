"""The ability spec: card behaviour as data, validated here and executed by the engine.

A main ability is a dict
    {"name", "text", "choose": "enemy" | "ally" | "none", "ignore_lines": bool, "effects": [...]}
and a faction ability is a dict
    {"name", "text", "trigger", "condition": {...}, "limit": "none" | "round" | "battle", "effects": [...]}.
Each effect has a `kind`, a `target` selector and the parameters of its kind. See
docs/abilities.md for the full reference.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

STATS = ("atk", "def", "spd")
LINES = ("vanguard", "rearguard")

TRIGGERS = (
    "battle_start",
    "round_start",
    "before_action",
    "after_action",
    "on_hit",
    "ally_defeated",
    "enemy_defeated",
    "defeats_enemy",
    "round_end",
)
# R18: triggers about a defeat; they count characters unless the ability says "unit" (`include_summons`).
DEFEAT_TRIGGERS = ("ally_defeated", "enemy_defeated", "defeats_enemy")
# Triggers that resolve before an attack order is built in their round (R7, R9): an SPD change made
# there counts in that round's order; made anywhere else it counts from the next order on.
BEFORE_ORDER_TRIGGERS = ("battle_start", "round_start")
# Single-enemy picks, which obey R12 like a chosen target.
ENEMY_PICKS = ("random_enemy", "lowest_hp_enemy", "highest_atk_enemy")

# Selectors usable by every ability; "target" needs a chosen unit, "attacker" an on_hit trigger.
SELECTORS = (
    "target",
    "self",
    "all_allies",
    "other_allies",
    "lowest_hp_ally",
    "random_ally",
    "all_enemies",
    "random_enemy",
    "lowest_hp_enemy",
    "highest_atk_enemy",
    "enemy_vanguard",
    "enemy_rearguard",
    "target_line",
    "ally_vanguard",
    "ally_rearguard",
    "attacker",
)

ONGOING_KINDS = ("poison", "burn", "regen")
# Effects that stand on a unit for a duration; R17 ends them when their source falls unless `persists`.
LASTING_KINDS = ("shield", "buff", "debuff", "poison", "burn", "regen", "silence")
EFFECT_KINDS = (
    "damage",
    "heal",
    "shield",
    "buff",
    "debuff",
    "poison",
    "burn",
    "regen",
    "silence",
    "cooldown",
    "move",
    "summon",
    "cleanse",
    "dispel",
)

MAX_DURATION = 5
MAX_AMOUNT = 50
MAX_SCALE = 5.0
MAX_EFFECTS = 6


class SpecError(ValueError):
    """An ability spec that cannot be executed; `errors` lists (path, reason) pairs."""

    def __init__(self, errors: list[tuple[str, str]]):
        self.errors = errors
        super().__init__("; ".join(f"{path}: {reason}" for path, reason in errors))


@dataclass(frozen=True)
class SummonSpec:
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


@dataclass(frozen=True)
class Condition:
    allies_same_faction_gte: int = 0
    line: str = ""
    hp_below: float = 0.0  # fraction of max HP; 0 = no condition

    def is_empty(self) -> bool:
        return not (self.allies_same_faction_gte or self.line or self.hp_below)


@dataclass(frozen=True)
class MainAbility:
    name: str
    text: str
    choose: str
    effects: tuple[Effect, ...]
    ignore_lines: bool = False


@dataclass(frozen=True)
class FactionAbility:
    name: str
    text: str
    trigger: str
    effects: tuple[Effect, ...]
    condition: Condition = field(default_factory=Condition)
    limit: str = "none"  # none | round | battle
    include_summons: bool = False  # R18: a defeat trigger that also counts summoned units


class _Checker:
    """Collects every problem of a spec instead of stopping at the first."""

    def __init__(self) -> None:
        self.errors: list[tuple[str, str]] = []

    def fail(self, path: str, reason: str) -> None:
        self.errors.append((path, reason))

    def obj(self, value: Any, path: str) -> dict | None:
        if not isinstance(value, dict):
            self.fail(path, "must be an object")
            return None
        return value

    def text(self, data: dict, key: str, path: str, required: bool = True, max_len: int = 400) -> str:
        value = data.get(key)
        if value is None:
            if required:
                self.fail(f"{path}.{key}", "is required")
            return ""
        if not isinstance(value, str) or not value.strip():
            self.fail(f"{path}.{key}", "must be a non-empty string")
            return ""
        if len(value) > max_len:
            self.fail(f"{path}.{key}", f"must be at most {max_len} characters")
        return value

    def choice(self, data: dict, key: str, options: tuple[str, ...], path: str, default: str | None = None) -> str:
        value = data.get(key, default)
        if value is None:
            self.fail(f"{path}.{key}", "is required")
            return ""
        if value not in options:
            self.fail(f"{path}.{key}", f"must be one of {', '.join(options)} (got {value!r})")
            return ""
        return value

    def integer(self, data: dict, key: str, path: str, low: int, high: int, default: int | None = None) -> int:
        value = data.get(key, default)
        if value is None:
            self.fail(f"{path}.{key}", "is required")
            return 0
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(f"{path}.{key}", "must be an integer")
            return 0
        if not low <= value <= high:
            self.fail(f"{path}.{key}", f"must be between {low} and {high}")
        return value

    def number(self, data: dict, key: str, path: str, low: float, high: float) -> float:
        value = data.get(key, 0)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            self.fail(f"{path}.{key}", "must be a number")
            return 0.0
        if not low <= value <= high:
            self.fail(f"{path}.{key}", f"must be between {low} and {high}")
        return float(value)

    def boolean(self, data: dict, key: str, path: str) -> bool:
        value = data.get(key, False)
        if not isinstance(value, bool):
            self.fail(f"{path}.{key}", "must be true or false")
            return False
        return value

    def unknown_keys(self, data: dict, allowed: set[str], path: str) -> None:
        for key in sorted(set(data) - allowed):
            self.fail(f"{path}.{key}", "is not a known field")


_COMMON_EFFECT_KEYS = {"kind", "target"}
_KIND_KEYS: dict[str, set[str]] = {
    "damage": {"scale", "flat", "ignore_def"},
    "heal": {"scale", "flat", "max_hp_fraction"},
    "shield": {"scale", "flat", "duration"},
    "buff": {"stat", "amount", "duration"},
    "debuff": {"stat", "amount", "duration"},
    "poison": {"amount", "duration"},
    "burn": {"amount", "duration"},
    "regen": {"amount", "duration"},
    "silence": {"duration"},
    "cooldown": {"amount"},
    "move": {"to"},
    "summon": {"unit", "line", "count"},
    "cleanse": set(),
    "dispel": set(),
}


def _parse_effect(check: _Checker, raw: Any, path: str, choose: str, trigger: str | None) -> Effect | None:
    data = check.obj(raw, path)
    if data is None:
        return None
    kind = check.choice(data, "kind", EFFECT_KINDS, path)
    if not kind:
        return None
    check.unknown_keys(data, _COMMON_EFFECT_KEYS | _KIND_KEYS[kind] | ({"persists"} if kind in LASTING_KINDS else set()), path)
    target = "self"
    if kind != "summon":
        target = check.choice(data, "target", SELECTORS, path)
        if target in ("target", "target_line") and choose == "none":
            check.fail(f"{path}.target", f"{target!r} needs a chosen unit (set choose to enemy or ally)")
        if target == "target_line" and choose == "ally":
            check.fail(f"{path}.target", "'target_line' needs an enemy to be chosen")
        if target == "attacker" and trigger != "on_hit":
            check.fail(f"{path}.target", "'attacker' is only known to an on_hit trigger")
    elif "target" in data:
        check.fail(f"{path}.target", "a summon has no target")

    params: dict[str, Any] = {}
    if kind in LASTING_KINDS:
        params["persists"] = check.boolean(data, "persists", path)
    if kind in ("damage", "heal", "shield"):
        params["scale"] = check.number(data, "scale", path, 0, MAX_SCALE)
        params["flat"] = check.integer(data, "flat", path, 0, MAX_AMOUNT, default=0)
        if kind == "heal":
            params["max_hp_fraction"] = check.number(data, "max_hp_fraction", path, 0, 1)
        if not (params["scale"] or params["flat"] or params.get("max_hp_fraction")):
            check.fail(path, f"a {kind} needs a positive scale, flat or max_hp_fraction")
        if kind == "damage":
            params["ignore_def"] = check.boolean(data, "ignore_def", path)
        if kind == "shield":
            params["duration"] = check.integer(data, "duration", path, 1, MAX_DURATION)
    elif kind in ("buff", "debuff"):
        params["stat"] = check.choice(data, "stat", STATS, path)
        params["amount"] = check.integer(data, "amount", path, 1, MAX_AMOUNT)
        params["duration"] = check.integer(data, "duration", path, 1, MAX_DURATION)
    elif kind in ONGOING_KINDS:
        params["amount"] = check.integer(data, "amount", path, 1, MAX_AMOUNT)
        params["duration"] = check.integer(data, "duration", path, 1, MAX_DURATION)
    elif kind == "silence":
        params["duration"] = check.integer(data, "duration", path, 1, MAX_DURATION)
    elif kind == "cooldown":
        amount = check.integer(data, "amount", path, -3, 3)
        if amount == 0:
            check.fail(f"{path}.amount", "must not be 0")
        params["amount"] = amount
    elif kind == "move":
        params["to"] = check.choice(data, "to", ("vanguard", "rearguard", "other"), path)
    elif kind == "summon":
        params["line"] = check.choice(data, "line", ("vanguard", "rearguard", "same"), path, default="same")
        params["count"] = check.integer(data, "count", path, 1, 3, default=1)
        unit = check.obj(data.get("unit"), f"{path}.unit")
        if unit is not None:
            upath = f"{path}.unit"
            check.unknown_keys(unit, {"name", "atk", "def", "spd", "hp"}, upath)
            params["unit"] = SummonSpec(
                name=check.text(unit, "name", upath, max_len=60),
                atk=check.integer(unit, "atk", upath, 0, 30),
                def_=check.integer(unit, "def", upath, 0, 30),
                spd=check.integer(unit, "spd", upath, 0, 30),
                hp=check.integer(unit, "hp", upath, 1, 99),
            )
    return Effect(kind=kind, target=target, **params)


def _parse_effects(check: _Checker, data: dict, path: str, choose: str, trigger: str | None) -> tuple[Effect, ...]:
    raw = data.get("effects")
    if not isinstance(raw, list) or not raw:
        check.fail(f"{path}.effects", "must be a non-empty list")
        return ()
    if len(raw) > MAX_EFFECTS:
        check.fail(f"{path}.effects", f"must hold at most {MAX_EFFECTS} effects")
    parsed: list[Effect] = []
    for i, item in enumerate(raw):
        effect = _parse_effect(check, item, f"{path}.effects[{i}]", choose, trigger)
        if effect is not None:
            reason = never_matters(effect, trigger)
            if reason:
                check.fail(f"{path}.effects[{i}].duration", reason)
            parsed.append(effect)
    return tuple(parsed)


def never_matters(effect: Effect, trigger: str | None) -> str:
    """R14: why a lasting effect could never change anything when applied from this trigger (None: a
    main ability, used during the actions), or "" when it can.

    The end phase counts durations down right after its round_end abilities, so a 1-round effect
    applied there is gone before anything reads it; an SPD change made after the round's order is
    built counts only in later orders; a 1-round silence on an attacker in the middle of its action,
    or on a unit that has just acted, ends before that unit's next chance to use its ability.
    """
    if effect.kind not in LASTING_KINDS or effect.duration != 1 or effect.kind in ONGOING_KINDS:
        return ""
    if trigger == "round_end":
        return "a 1-round effect applied at the end of a round expires in that same end phase: give it 2 rounds or more"
    if effect.kind in ("buff", "debuff") and effect.stat == "spd" and trigger not in BEFORE_ORDER_TRIGGERS:
        return (
            "a 1-round SPD change applied after the attack order is built expires before any order uses it: "
            "give it 2 rounds or more"
        )
    if effect.kind == "silence" and (
        (trigger == "on_hit" and effect.target == "attacker") or (trigger == "after_action" and effect.target == "self")
    ):
        return "a 1-round silence on a unit that has already acted this round never stops anything: give it 2 rounds or more"
    return ""


def parse_main_ability(raw: Any, path: str = "main_ability") -> MainAbility:
    """Validate a main ability spec and return it as a frozen value; raise SpecError listing every problem."""
    check = _Checker()
    data = check.obj(raw, path)
    if data is None:
        raise SpecError(check.errors)
    check.unknown_keys(data, {"name", "text", "choose", "ignore_lines", "effects"}, path)
    name = check.text(data, "name", path, max_len=80)
    text = check.text(data, "text", path)
    choose = check.choice(data, "choose", ("enemy", "ally", "none"), path)
    ignore_lines = check.boolean(data, "ignore_lines", path)
    if ignore_lines and choose != "enemy":
        check.fail(f"{path}.ignore_lines", "only applies when an enemy is chosen")
    effects = _parse_effects(check, data, path, choose or "none", None)
    if check.errors:
        raise SpecError(check.errors)
    return MainAbility(name=name, text=text, choose=choose, effects=effects, ignore_lines=ignore_lines)


def parse_faction_ability(raw: Any, path: str = "faction_ability") -> FactionAbility:
    """Validate a faction ability spec and return it as a frozen value; raise SpecError listing every problem."""
    check = _Checker()
    data = check.obj(raw, path)
    if data is None:
        raise SpecError(check.errors)
    check.unknown_keys(data, {"name", "text", "trigger", "condition", "limit", "include_summons", "effects"}, path)
    name = check.text(data, "name", path, max_len=80)
    text = check.text(data, "text", path)
    trigger = check.choice(data, "trigger", TRIGGERS, path)
    limit = check.choice(data, "limit", ("none", "round", "battle"), path, default="none")
    include_summons = check.boolean(data, "include_summons", path)
    if include_summons and trigger not in DEFEAT_TRIGGERS:
        check.fail(f"{path}.include_summons", f"only applies to the triggers {', '.join(DEFEAT_TRIGGERS)}")
    condition = Condition()
    if "condition" in data:
        cpath = f"{path}.condition"
        cond = check.obj(data["condition"], cpath)
        if cond is not None:
            check.unknown_keys(cond, {"allies_same_faction_gte", "line", "hp_below"}, cpath)
            line = cond.get("line", "")
            if line and line not in LINES:
                check.fail(f"{cpath}.line", f"must be one of {', '.join(LINES)} (got {line!r})")
            condition = Condition(
                allies_same_faction_gte=check.integer(cond, "allies_same_faction_gte", cpath, 0, 6, default=0),
                line=line if line in LINES else "",
                hp_below=check.number(cond, "hp_below", cpath, 0, 1),
            )
            if condition.is_empty():
                check.fail(cpath, "must set at least one of allies_same_faction_gte, line, hp_below")
    effects = _parse_effects(check, data, path, "none", trigger or None)
    if check.errors:
        raise SpecError(check.errors)
    return FactionAbility(
        name=name, text=text, trigger=trigger, effects=effects, condition=condition, limit=limit,
        include_summons=include_summons,
    )


def effect_spec(effect: Effect) -> dict[str, Any]:
    """An effect back as its canonical spec dict (defaults left out), as the event log records it (G3)."""
    data: dict[str, Any] = {"kind": effect.kind}
    if effect.kind != "summon":
        data["target"] = effect.target
    defaults = Effect(kind=effect.kind, target=effect.target)
    keys = _KIND_KEYS[effect.kind] | ({"persists"} if effect.kind in LASTING_KINDS else set())
    for key in sorted(keys):
        if key == "unit":
            unit = effect.unit
            if unit is not None:
                data["unit"] = {"name": unit.name, "atk": unit.atk, "def": unit.def_, "spd": unit.spd, "hp": unit.hp}
            continue
        value = getattr(effect, key)
        if key in ("line", "count", "to") or value != getattr(defaults, key):
            data[key] = value
    return data


def main_spec(main: MainAbility) -> dict[str, Any]:
    """A main ability back as its canonical spec dict (G3: the log carries both ability specs)."""
    data: dict[str, Any] = {"name": main.name, "text": main.text, "choose": main.choose}
    if main.ignore_lines:
        data["ignore_lines"] = True
    data["effects"] = [effect_spec(e) for e in main.effects]
    return data


def faction_spec(fab: FactionAbility) -> dict[str, Any]:
    """A faction ability back as its canonical spec dict (G3)."""
    data: dict[str, Any] = {"name": fab.name, "text": fab.text, "trigger": fab.trigger}
    cond = fab.condition
    if not cond.is_empty():
        data["condition"] = {
            k: v
            for k, v in (
                ("allies_same_faction_gte", cond.allies_same_faction_gte), ("line", cond.line), ("hp_below", cond.hp_below)
            )
            if v
        }
    if fab.limit != "none":
        data["limit"] = fab.limit
    if fab.include_summons:
        data["include_summons"] = True
    data["effects"] = [effect_spec(e) for e in fab.effects]
    return data
