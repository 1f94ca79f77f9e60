"""The protector effect spec: a team-wide effect as data, validated here, run by the match engine.

A protector's effect is one small dict, for instance
    {"kind": "boost_first_attack", "when": "showdown_boosts", "amount": 1, "element": "fire"}
`kind` names one of a few generic handlers, `when` the hook of the round at which the engine
runs it (each kind has exactly one hook), and the other keys are the kind's parameters.
Element parameters take an element slug or "any". See docs/legends-catalogue.md.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

# The hooks of a round (rulings L7-L11) at which a protector effect may run, in round order.
HOOKS = (
    "round_start",          # before the first turns (L7)
    "redraw",               # whenever a player of the team redraws instead of playing (L8)
    "before_second_turns",  # teams mode: after every first turn, before the face-down turns (L7, L13)
    "showdown_healing",     # showdown step 1 (L9)
    "showdown_boosts",      # showdown step 2 (L9)
    "showdown_defenses",    # showdown step 3 (L9)
    "round_end",            # after the counters are handed on (L11)
)
# No hook at allocation (L9 step 4): the cap is absolute, and where markers go is the team's decision.

ANY_ELEMENT = "any"


@dataclass(frozen=True)
class Param:
    """One integer parameter of an effect kind, with its bounds."""

    low: int
    high: int


@dataclass(frozen=True)
class KindSpec:
    """What an effect kind needs: its hook, its parameters, and whether a duel can run it."""

    when: str
    ints: Mapping[str, Param]
    element: bool = False
    teams_only: bool = False
    refused: Mapping[str, str] = field(default_factory=dict)  # fields a kind refuses, with the reason


KINDS: dict[str, KindSpec] = {
    # L13: the Spy looks at exactly one card a round; a count would contradict the ruling.
    "reveal_facedown": KindSpec(
        "before_second_turns", {}, teams_only=True,
        refused={"count": "is not a parameter: the Spy looks at exactly one face-down card a round (L13)"},
    ),
    "heal_marker": KindSpec("round_start", {"count": Param(1, 2)}, element=True),
    "boost_first_attack": KindSpec("showdown_boosts", {"amount": Param(1, 2)}, element=True),
    "cancel_attack": KindSpec("showdown_defenses", {"count": Param(1, 2)}, element=True),
    "extra_draw": KindSpec("round_end", {"count": Param(1, 2), "max_hand": Param(7, 10)}),
    "redraw_size": KindSpec("redraw", {"count": Param(4, 7)}),
    "pierce_defense": KindSpec("showdown_defenses", {"count": Param(1, 2)}, element=True),
}


class SpecError(ValueError):
    """A protector effect that cannot be executed; `errors` lists (path, reason) pairs."""

    def __init__(self, errors: list[tuple[str, str]]):
        self.errors = errors
        super().__init__("; ".join(f"{path}: {reason}" for path, reason in errors))


@dataclass(frozen=True)
class ProtectorEffect:
    """A validated protector effect; parameters a kind does not use stay at 0 / ""."""

    kind: str
    when: str
    count: int = 0
    amount: int = 0
    max_hand: int = 0
    element: str = ""

    @property
    def teams_only(self) -> bool:
        """True when the effect needs a hook that only teams mode has (so it is illegal in a duel)."""
        return KINDS[self.kind].teams_only

    def matches(self, element: str) -> bool:
        """Whether the effect applies to `element` (an element slug)."""
        return self.element in (ANY_ELEMENT, element)


def parse_protector_effect(
    raw: Any, elements: Collection[str] | None = None, path: str = "effect"
) -> ProtectorEffect:
    """Validate an effect spec and return it frozen; raise SpecError listing every problem.

    `elements` is the set of known element slugs; when None, any slug-like string is accepted.
    """
    errors: list[tuple[str, str]] = []
    if not isinstance(raw, dict):
        raise SpecError([(path, "must be an object")])
    kind = raw.get("kind")
    if kind is None:
        raise SpecError([(f"{path}.kind", "is required")])
    if kind not in KINDS:
        raise SpecError([(f"{path}.kind", f"must be one of {', '.join(KINDS)} (got {kind!r})")])
    spec = KINDS[kind]

    allowed = {"kind", "when", *spec.ints, *(("element",) if spec.element else ())}
    errors.extend(
        (f"{path}.{key}", spec.refused.get(key, "is not a known field")) for key in sorted(set(raw) - allowed, key=str)
    )

    when = raw.get("when")
    if when is None:
        errors.append((f"{path}.when", "is required"))
    elif when not in HOOKS:
        errors.append((f"{path}.when", f"must be one of {', '.join(HOOKS)} (got {when!r})"))
    elif when != spec.when:
        errors.append((f"{path}.when", f"the {kind} effect runs at {spec.when} (got {when!r})"))

    values: dict[str, int] = {}
    for name, bounds in spec.ints.items():
        value = raw.get(name)
        if value is None:
            errors.append((f"{path}.{name}", "is required"))
        elif isinstance(value, bool) or not isinstance(value, int):
            errors.append((f"{path}.{name}", "must be an integer"))
        elif not bounds.low <= value <= bounds.high:
            errors.append((f"{path}.{name}", f"must be between {bounds.low} and {bounds.high}"))
        else:
            values[name] = value

    element = ""
    if spec.element:
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
    return ProtectorEffect(kind=kind, when=spec.when, element=element, **values)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _of(effect: ProtectorEffect, noun: str, names: Mapping[str, str]) -> str:
    """`noun` qualified by the effect's element: "Fire attack", or "attack of any element"."""
    if effect.element == ANY_ELEMENT:
        return f"{noun} of any element"
    return f"{names.get(effect.element, effect.element)} {noun}"


def _reveal(e: ProtectorEffect, names: Mapping[str, str]) -> str:
    return (
        "Once per round, during the face-down turns, the team looks at one face-down card "
        "an opponent played this round, before its own next face-down card. Teams mode only."
    )


def _heal(e: ProtectorEffect, names: Mapping[str, str]) -> str:
    marker = _of(e, "marker", names) if e.count == 1 else _of(e, "markers", names)
    return f"At the start of each round, remove {e.count} {marker} from the team's defenses."


def _boost(e: ProtectorEffect, names: Mapping[str, str]) -> str:
    return f"In each showdown, the team's first {_of(e, 'attack', names)} (in turn order) gets +{e.amount} strength."


def _cancel(e: ProtectorEffect, names: Mapping[str, str]) -> str:
    return (
        f"In each showdown, cancel {_plural(e.count, 'strength point')} of the opposing team's "
        f"{_of(e, 'attacks', names)}, like a free defense card."
    )


def _extra_draw(e: ProtectorEffect, names: Mapping[str, str]) -> str:
    return (
        f"At the end of each round, each player of the team draws {_plural(e.count, 'extra card')}, "
        f"without going above {e.max_hand} cards in hand."
    )


def _redraw(e: ProtectorEffect, names: Mapping[str, str]) -> str:
    return f"A player of the team who redraws may discard and draw up to {e.count} cards instead of 3."


def _pierce(e: ProtectorEffect, names: Mapping[str, str]) -> str:
    noun = "defense card" if e.count == 1 else "defense cards"
    what = noun if e.element == ANY_ELEMENT else f"{names.get(e.element, e.element)} {noun}"
    first = "first" if e.count == 1 else f"first {e.count}"
    verb = "cancels" if e.count == 1 else "cancel"
    return (
        f"In each showdown, the {first} opposing {what} that would cancel a strength point of the team's "
        f"attacks {verb} nothing."
    )


_DESCRIPTIONS: dict[str, Callable[[ProtectorEffect, Mapping[str, str]], str]] = {
    "reveal_facedown": _reveal,
    "heal_marker": _heal,
    "boost_first_attack": _boost,
    "cancel_attack": _cancel,
    "extra_draw": _extra_draw,
    "redraw_size": _redraw,
    "pierce_defense": _pierce,
}


def describe_protector_effect(effect: ProtectorEffect, element_names: Mapping[str, str] | None = None) -> str:
    """The effect in plain words, as printed on the card."""
    return _DESCRIPTIONS[effect.kind](effect, element_names or {})
