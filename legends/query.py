"""The search language of Akin Legends cards (docs/legends-catalogue.md, "Searching").

The grammar is `cardsdb.query`'s, the same as Echo Realms'; this module declares the keys of
each kind of card. Every kind has the keys of `COMMON`; each list endpoint's `q` uses its kind's
language.
"""

from __future__ import annotations

from django.db.models import F, Q

from cardsdb.query import Field, Language
from legends.choices import EffectKind
from legends.engine.protectors import HOOKS, KINDS


def _element(*fields: str) -> Field:
    """An element (slug or name, ignoring case) on any of `fields` (foreign keys to Element)."""
    return Field("ref", tuple(f"{name}__{part}" for name in fields for part in ("slug", "name")))


COMMON: dict[str, Field] = {
    "name": Field("text", ("name",)),
    "text": Field("text", ("rules_text",)),
    "set": Field("ref", ("card_set__code", "card_set__name")),
}
COMMON_ALIASES = {"n": "name", "t": "text"}

SPIRITS = Language(COMMON, COMMON_ALIASES)

PROTECTORS = Language(
    {
        **COMMON,
        "effect": Field("choice", ("effect__kind",), {kind: kind for kind in KINDS}),
        "hook": Field("choice", ("effect__when",), {hook: hook for hook in HOOKS}),
        # The element slug the effect names, or `any`.
        "element": Field("ref", ("effect__element",)),
        "count": Field("number", ("effect__count",)),
        "amount": Field("number", ("effect__amount",)),
        "duel": Field("flag", condition=Q(duel_legal=True)),
    },
    {**COMMON_ALIASES, "e": "element", "when": "hook", "kind": "effect"},
)

DEFENSES = Language(
    {**COMMON, "element": _element("element_1", "element_2")},
    {**COMMON_ALIASES, "e": "element"},
)

SUMMONING_CARDS = Language(
    {
        **COMMON,
        # Any face of the card: either attack or the effect.
        "element": _element("attack_1", "attack_2", "effect_element"),
        "attack": _element("attack_1", "attack_2"),
        "effect": Field("choice", ("effect_kind",), {kind: kind for kind in EffectKind.values}),
        "effect_element": _element("effect_element"),
        "copies": Field("number", ("copies",)),
        "double": Field("flag", condition=Q(attack_1=F("attack_2"))),
    },
    {**COMMON_ALIASES, "e": "element", "a": "attack", "kind": "effect", "ee": "effect_element"},
)
