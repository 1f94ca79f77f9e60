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
    if not isinstance(raw, dict):
        raise SpecError([(path, "must be an object")])
    kind_name = raw.get("kind")
    if kind_name is None:
        raise SpecError([(f"{path}.kind", "is required")])
    kind = KINDS.get(kind_name) if isinstance(kind_name, str) else None
    if kind is None:
        raise SpecError([(f"{path}.kind", f"must be one of {', '.join(KINDS)} (got {kind_name!r})")])

    refused = dict(kind.refused)
    allowed = {"kind", "when", *[param.name for param in kind.params], *(["element"] if kind.element else [])}
    errors: list[tuple[str, str]] = [
        (f"{path}.{key}", refused.get(key, "is not a known field")) for key in sorted(set(raw) - allowed, key=str)
    ]

    when = raw.get("when")
    if when is None:
        errors.append((f"{path}.when", "is required"))
    elif when not in HOOKS:
        errors.append((f"{path}.when", f"must be one of {', '.join(HOOKS)} (got {when!r})"))
    elif when != kind.when:
        errors.append((f"{path}.when", f"the {kind.name} effect runs at {kind.when} (got {when!r})"))

    values: dict[str, int] = {}
    for param in kind.params:
        value = raw.get(param.name)
        if value is None:
            errors.append((f"{path}.{param.name}", "is required"))
        elif isinstance(value, bool) or not isinstance(value, int):
            errors.append((f"{path}.{param.name}", "must be an integer"))
        elif not param.low <= value <= param.high:
            errors.append((f"{path}.{param.name}", f"must be between {param.low} and {param.high}"))
        else:
            values[param.name] = value

    element = ""
    if kind.element:
        value = raw.get("element")
        if value is None:
            errors.append((f"{path}.element", "is required"))
        elif not isinstance(value, str) or not value:
            errors.append((f"{path}.element", f"must be an element slug or {ANY_ELEMENT!r}"))
        elif value != ANY_ELEMENT and elements is not None and value not in elements:
            known = ", ".join(sorted(elements)) or "none"
            errors.append((f"{path}.element", f"unknown element {value!r} (known: {known}, or {ANY_ELEMENT})"))
        else:
            element = value

    if errors:
        raise SpecError(errors)
    return ProtectorEffect(
        kind=kind.name, when=kind.when, handler=kind, count=values.get("count", 0), amount=values.get("amount", 0),
        max_hand=values.get("max_hand", 0), element=element,
    )


def describe_protector_effect(effect: ProtectorEffect, element_names: Mapping[str, str] | None = None) -> str:
    """The effect in plain words, as printed on the card."""
    return effect.handler.describe(effect, element_names or {})
