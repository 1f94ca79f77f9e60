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
from realms.engine.effects import EFFECT_KINDS, KINDS, LASTING_KINDS
from realms.engine.effects.base import Effect
from realms.engine.vocabulary import ARMY_SIZE, LINES, MAX_EFFECTS
from simulate.engine.checking import Checker
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
    if KINDS[kind].targeted:
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
        check.fail(f"{path}.target", f"a {kind} has no target")

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
            pointless = never_matters(effect, trigger)
            if pointless is not None:
                key, reason = pointless
                check.fail(f"{path}.effects[{i}].{key}", reason)
            parsed.append(effect)
    return tuple(parsed)


def never_matters(effect: Effect, trigger: str | None) -> tuple[str, str] | None:
    """R14: (the spec key at fault, why) when an effect could never change anything applied by an ability
    with this trigger (None: a Main Ability, used during the actions); None when it can. Each kind says
    it (`EffectKind.never_matters`): a 1-round effect applied right before the end phase counts durations
    down, a 1-round SPD change made after the round's order is built, a 1-round restriction on a unit
    that has already acted, a Main Ability cutting its own cooldown."""
    return KINDS[effect.kind].never_matters(effect, trigger_kinds.BY_NAME[trigger] if trigger else None)


def cooldown_never_matters(cooldown: int, abilities: dict[str, MainAbility | FactionAbility]) -> list[tuple[str, str]]:
    """R14 for a whole card (`EffectKind.never_matters_on_card`): e.g. on a card with cooldown 1 the Main
    Ability is ready again every round, so an effect bringing its own cooldown sooner never changes anything."""
    problems = []
    for where, ability in abilities.items():
        for i, e in enumerate(ability.effects):
            pointless = KINDS[e.kind].never_matters_on_card(e, cooldown)
            if pointless is not None:
                problems.append((f"{where}.effects[{i}].{pointless[0]}", pointless[1]))
    return problems


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
    return set(KINDS[kind].spec_keys)


def effect_spec(effect: Effect) -> dict[str, Any]:
    """An effect back as its canonical spec dict (defaults left out), as the event log records it (G3)."""
    return KINDS[effect.kind].to_spec(effect)


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
