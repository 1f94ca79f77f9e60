"""The protector effect spec: a team-wide effect as data, validated here, run by the match engine.

A protector's effect is one small dict, for instance
    {"kind": "boost_first_attack", "when": "showdown_boosts", "amount": 1, "element": "fire"}
`kind` names one of a few generic handlers (one module each in `legends.engine.effects`), `when` the
hook of the round at which the engine runs it (each kind has exactly one hook), and the other keys
are the kind's parameters. Element parameters take an element slug or "any". See
docs/legends-catalogue.md.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from legends.engine.effects import (
    boost_first_attack,
    cancel_attack,
    extra_draw,
    heal_marker,
    pierce_defense,
    redraw_size,
    reveal_facedown,
)
from legends.engine.effects.base import ProtectorEffect, ProtectorKind
from legends.engine.vocabulary import ANY_ELEMENT, HOOKS
from simulate.engine.checking import Checker
from simulate.engine.errors import SpecError

__all__ = ["HOOKS", "KINDS", "ProtectorEffect", "SpecError", "describe_protector_effect", "parse_protector_effect"]

KINDS: dict[str, ProtectorKind] = {
    kind.KIND.name: kind.KIND
    for kind in (
        reveal_facedown, heal_marker, boost_first_attack, cancel_attack, extra_draw, redraw_size, pierce_defense
    )
}


def parse_protector_effect(raw: Any, elements: Collection[str] | None = None, path: str = "effect") -> ProtectorEffect:
    """Validate an effect spec and return it frozen; raise SpecError listing every problem.

    `elements` is the set of known element slugs; when None, any slug-like string is accepted.
    """
    check = Checker()
    data = check.obj(raw, path)
    if data is None:
        raise SpecError(check.errors)
    kind_name = check.choice(data, "kind", tuple(KINDS), path)
    if not kind_name:  # without its kind, nothing else of the spec can be read
        raise SpecError(check.errors)
    kind = KINDS[kind_name]
    check.unknown_keys(data, _known_keys(kind), path, refused=dict(kind.refused))
    when = check.choice(data, "when", HOOKS, path)
    if when and when != kind.when:
        check.fail(f"{path}.when", f"the {kind.name} effect runs at {kind.when} (got {when!r})")
    values = {param.name: check.integer(data, param.name, path, param.low, param.high) for param in kind.params}
    element = _element(check, data, elements, path) if kind.element else ""
    check.raise_if_failed(SpecError)
    return ProtectorEffect(
        kind=kind.name, when=kind.when, handler=kind, count=values.get("count", 0), amount=values.get("amount", 0),
        max_hand=values.get("max_hand", 0), element=element,
    )


def _known_keys(kind: ProtectorKind) -> set[str]:
    """The fields a spec of `kind` may have: kind, when, its parameters and its element if it takes one."""
    return {"kind", "when", *[param.name for param in kind.params], *(["element"] if kind.element else [])}


def _element(check: Checker, data: dict[str, Any], elements: Collection[str] | None, path: str) -> str:
    """The effect's element parameter: a known element slug (any slug when `elements` is None) or "any"."""
    value = data.get("element")
    if value is None:
        check.fail(f"{path}.element", "is required")
    elif not isinstance(value, str) or not value:
        check.fail(f"{path}.element", f"must be an element slug or {ANY_ELEMENT!r}")
    elif value != ANY_ELEMENT and elements is not None and value not in elements:
        known = ", ".join(sorted(elements)) or "none"
        check.fail(f"{path}.element", f"unknown element {value!r} (known: {known}, or {ANY_ELEMENT})")
    else:
        return value
    return ""


def describe_protector_effect(effect: ProtectorEffect, element_names: Mapping[str, str] | None = None) -> str:
    """The effect in plain words, as printed on the card."""
    return effect.handler.describe(effect, element_names or {})
