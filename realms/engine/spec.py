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

from realms.engine import selectors, trigger_kinds
from realms.engine.effects import EFFECT_KINDS, KINDS, LASTING_KINDS, ONGOING_KINDS
from realms.engine.effects.base import Checker, Effect
from realms.engine.vocabulary import ARMY_SIZE, LINES, MAX_EFFECTS
from simulate.engine.errors import SpecError

# The names the spec accepts, from their registries (realms/engine/trigger_kinds.py, selectors.py).
TRIGGERS = trigger_kinds.NAMES
# R18: triggers about a defeat; they count characters unless the ability says "unit" (`include_summons`).
DEFEAT_TRIGGERS = tuple(t.name for t in trigger_kinds.TRIGGERS if t.defeat)
# Triggers that resolve before an attack order is built in their round (R7, R9): an SPD change made
# there counts in that round's order; made anywhere else it counts from the next order on.
BEFORE_ORDER_TRIGGERS = tuple(t.name for t in trigger_kinds.TRIGGERS if t.before_order)
# Single-enemy picks, which obey R12 like a chosen target.
ENEMY_PICKS = selectors.ENEMY_PICKS
# Selectors usable by every ability; "target" needs a chosen unit, "attacker" an on_hit trigger.
SELECTORS = selectors.NAMES


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


_COMMON_EFFECT_KEYS = {"kind", "target"}


def _parse_effect(check: Checker, raw: Any, path: str, choose: str, trigger: str | None) -> Effect | None:
    data = check.obj(raw, path)
    if data is None:
        return None
    kind = check.choice(data, "kind", EFFECT_KINDS, path)
    if not kind:
        return None
    check.unknown_keys(data, _COMMON_EFFECT_KEYS | effect_keys(kind), path)
    target = "self"
    if kind != "summon":
        target = check.choice(data, "target", SELECTORS, path)
        sel = selectors.BY_NAME.get(target)
        if sel is not None:
            if sel.chosen and choose == "none":
                check.fail(f"{path}.target", f"{target!r} needs a chosen unit (set choose to enemy or ally)")
            if sel.enemy_chosen and choose == "ally":
                check.fail(f"{path}.target", f"{target!r} needs an enemy to be chosen")
            if sel.trigger and trigger != sel.trigger:
                check.fail(f"{path}.target", f"{target!r} is only known to an {sel.trigger} trigger")
    elif "target" in data:
        check.fail(f"{path}.target", "a summon has no target")

    params: dict[str, Any] = {}
    if kind in LASTING_KINDS:
        params["persists"] = check.boolean(data, "persists", path)
    params.update(KINDS[kind].parse(check, data, path))
    return Effect(kind=kind, target=target, **params)


def _parse_effects(check: Checker, data: dict[str, Any], path: str, choose: str, trigger: str | None) -> tuple[Effect, ...]:
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
            if trigger is None and effect.kind == "cooldown" and effect.target == "self" and effect.amount < 0:
                check.fail(f"{path}.effects[{i}].amount", "a Main Ability enters its cooldown once it has resolved "
                           "(R13): cutting its own cooldown while it resolves never changes anything")
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


def cooldown_never_matters(cooldown: int, abilities: dict[str, MainAbility | FactionAbility]) -> list[tuple[str, str]]:
    """R14 for a whole card: on a card with cooldown 1 the Main Ability is ready again every round, so
    an effect bringing its own cooldown sooner can never change anything."""
    if cooldown != 1:
        return []
    return [
        (f"{field}.effects[{i}].amount", "the card's cooldown is 1: its ability is ready every round, so "
         "reducing its own cooldown never changes anything")
        for field, ability in abilities.items()
        for i, e in enumerate(ability.effects)
        if e.kind == "cooldown" and e.target == "self" and e.amount < 0
    ]


def parse_main_ability(raw: Any, path: str = "main_ability") -> MainAbility:
    """Validate a main ability spec and return it as a frozen value; raise SpecError listing every problem."""
    check = Checker()
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
    check = Checker()
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
                allies_same_faction_gte=check.integer(cond, "allies_same_faction_gte", cpath, 0, ARMY_SIZE - 1, default=0),
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


def effect_keys(kind: str) -> set[str]:
    """The spec keys of an effect of `kind` besides kind and target."""
    return set(KINDS[kind].keys) | ({"persists"} if kind in LASTING_KINDS else set())


def effect_spec(effect: Effect) -> dict[str, Any]:
    """An effect back as its canonical spec dict (defaults left out), as the event log records it (G3)."""
    data: dict[str, Any] = {"kind": effect.kind}
    if effect.kind != "summon":
        data["target"] = effect.target
    defaults = Effect(kind=effect.kind, target=effect.target)
    keys = effect_keys(effect.kind)
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
