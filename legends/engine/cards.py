"""Akin Legends cards as the match engine sees them: frozen values built from plain dicts.

The catalogue part of a match setup is plain data, with the field names of the API:

    {"elements": ["fire", ...],                                    (optional: derived from the cards)
     "spirits": [{"slug": "akin", "name": "Akin"}, ...],           (optional: the rulebook's Akin and Yulin then)
     "protectors": [{"slug", "name", "effect": {...spec...}, "duel_legal"}, ...],
     "defenses": [{"slug", "name", "elements": ["fire", "water"]}, ...],
     "deck": [{"slug", "name", "attacks": ["fire", "water"], "effect": {"kind", "element"}, "copies"}, ...]}

`catalogue_from_fixture` builds exactly this from the entries of fixtures/legends_official.json
(the Django side builds the same dicts from catalogue rows); `parse_catalogue` turns it into
a frozen `Catalogue`, reporting every problem at once.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from legends.engine.effects.base import ProtectorEffect
from legends.engine.protectors import parse_protector_effect
from legends.engine.vocabulary import (
    ATTACK,
    ATTACK_ELEMENTS,
    DEFAULT_SPIRITS,
    DEFENSE_ELEMENTS,
    EFFECT,
    EFFECT_KINDS,
    MAX_COPIES,
    MIN_SPIRITS,
)
from simulate.engine.checking import Checker
from simulate.engine.errors import SetupError, SpecError

# A turn's action as the match offers it: ("attack", slug, element) or ("effect", slug) (see state.py).
TurnAction = tuple[str, ...]


@dataclass(frozen=True)
class SummoningCard:
    """A summoning card design: two attack elements (may be equal) and one special effect (L3)."""

    slug: str
    name: str
    attacks: tuple[str, str]
    kind: str
    element: str
    copies: int = 1
    # L8: the turn actions playing it (an attack with each of its elements, then its effect), built once.
    actions: tuple[TurnAction, ...] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        """Build `actions`."""
        first, second = self.attacks
        actions: list[TurnAction] = [(ATTACK, self.slug, first)]
        if second != first:
            actions.append((ATTACK, self.slug, second))
        actions.append((EFFECT, self.slug))
        object.__setattr__(self, "actions", tuple(actions))

    def as_dict(self) -> dict[str, Any]:
        """The card in the API's JSON shape."""
        return {
            "slug": self.slug, "name": self.name, "attacks": list(self.attacks),
            "effect": {"kind": self.kind, "element": self.element}, "copies": self.copies,
        }


@dataclass(frozen=True)
class DefenseCard:
    """A defense card: destroyed when markers of both its (different) elements lie on it (L2)."""

    slug: str
    name: str
    elements: tuple[str, str]

    def as_dict(self) -> dict[str, Any]:
        """The card in the API's JSON shape."""
        return {"slug": self.slug, "name": self.name, "elements": list(self.elements)}


@dataclass(frozen=True)
class ProtectorCard:
    """A protector card and its validated team-wide effect (L4)."""

    slug: str
    name: str
    effect: ProtectorEffect
    raw_effect: tuple[tuple[str, Any], ...]  # the effect's spec as given, (key, value) pairs: nothing can change it
    duel_legal: bool

    def as_dict(self) -> dict[str, Any]:
        """The card in the API's JSON shape."""
        return {"slug": self.slug, "name": self.name, "effect": dict(self.raw_effect), "duel_legal": self.duel_legal}


@dataclass(frozen=True)
class Catalogue:
    """Everything a match may use: elements, spirits, protectors, defenses and the summoning deck."""

    elements: tuple[str, ...]
    spirits: tuple[str, ...]
    # Its mappings are read-only views: a catalogue is shared by a match, its observations and look-aheads,
    # and none of them may change what the others read (G2).
    spirit_names: Mapping[str, str]
    protectors: Mapping[str, ProtectorCard]
    defenses: Mapping[str, DefenseCard]
    designs: tuple[SummoningCard, ...]
    design_by_slug: Mapping[str, SummoningCard] = field(compare=False, repr=False)
    element_index: Mapping[str, int] = field(compare=False, repr=False)  # each element's place in `elements`
    # The physical deck, every design repeated `copies` times in catalogue order: made once, dealt at every match.
    cards: tuple[SummoningCard, ...] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        """Build `cards`."""
        cards: list[SummoningCard] = []
        for design in self.designs:
            cards.extend([design] * design.copies)
        object.__setattr__(self, "cards", tuple(cards))

    def deck(self) -> list[SummoningCard]:
        """The physical deck, a fresh list (a match shuffles it)."""
        return list(self.cards)

    def design(self, slug: str) -> SummoningCard:
        """A summoning card design by slug."""
        return self.design_by_slug[slug]


CATALOGUE_KEYS = frozenset({"elements", "spirits", "protectors", "defenses", "deck"})


def _text(check: Checker, raw: Mapping[str, Any], key: str, path: str) -> str:
    """A required non-empty string field."""
    value = raw.get(key)
    if not isinstance(value, str) or not value.strip():
        check.fail(f"{path}.{key}", "is required (a non-empty string)")
        return ""
    return value


def _slug_and_name(check: Checker, raw: Mapping[str, Any], path: str) -> tuple[str, str]:
    """A card's slug (required) and its name (the slug when it has none)."""
    slug = _text(check, raw, "slug", path)
    return slug, str(raw.get("name") or slug)


def _element_pair(check: Checker, value: Any, path: str, count: int) -> tuple[str, str] | None:
    """Two element slugs: a defense's DEFENSE_ELEMENTS (L2), a summoning card's ATTACK_ELEMENTS (L3)."""
    if (
        isinstance(value, (str, bytes))
        or not isinstance(value, Sequence)
        or len(value) != count
        or not all(isinstance(v, str) and v for v in value)
    ):
        check.fail(path, "must be a list of two element slugs")
        return None
    return (value[0], value[1])


def parse_defense(raw: Any, path: str, check: Checker) -> DefenseCard | None:
    """A defense card from its dict, or None with the problems noted on `check`."""
    data = check.mapping(raw, path)
    if data is None:
        return None
    mark = check.mark()
    slug, name = _slug_and_name(check, data, path)
    elements = _element_pair(check, data.get("elements"), f"{path}.elements", DEFENSE_ELEMENTS)
    if elements is not None and elements[0] == elements[1]:
        check.fail(f"{path}.elements", "a defense requires two different elements (L2)")
    if check.failed_since(mark) or elements is None:
        return None
    return DefenseCard(slug=slug, name=name, elements=elements)


def parse_protector(
    raw: Any, path: str, check: Checker, elements: Iterable[str] | None = None
) -> ProtectorCard | None:
    """A protector card from its dict (effect validated by the spec), or None with the problems noted."""
    data = check.mapping(raw, path)
    if data is None:
        return None
    mark = check.mark()
    slug, name = _slug_and_name(check, data, path)
    effect: ProtectorEffect | None = None
    try:
        effect = parse_protector_effect(data.get("effect"), set(elements) if elements is not None else None,
                                        path=f"{path}.effect")
    except SpecError as exc:
        check.extend(exc.errors)
    duel_legal = data.get("duel_legal", True)
    if not isinstance(duel_legal, bool):
        check.fail(f"{path}.duel_legal", "must be true or false")
    elif effect is not None and effect.teams_only and duel_legal:
        check.fail(f"{path}.duel_legal", f"the {effect.kind} effect runs only in teams mode (L13)")
    if check.failed_since(mark) or effect is None:
        return None
    return ProtectorCard(slug=slug, name=name, effect=effect, raw_effect=tuple(data["effect"].items()),
                         duel_legal=bool(duel_legal))


def _summoning_effect(check: Checker, raw: Any, path: str) -> tuple[str, str]:
    """A summoning card's special effect (L3): its kind and element ("" for what is wrong)."""
    effect = check.mapping(raw, path, "must be an object {kind, element}")
    if effect is None:
        return "", ""
    kind = effect.get("kind")
    if kind not in EFFECT_KINDS:  # a missing kind is named as None, like any other that is not one
        check.fail(f"{path}.kind", f"must be one of {', '.join(EFFECT_KINDS)} (got {kind!r})")
        kind = ""
    element = effect.get("element")
    if not isinstance(element, str) or not element:
        check.fail(f"{path}.element", "must be an element slug")
        element = ""
    return str(kind), element


def _copies(check: Checker, raw: Mapping[str, Any], path: str) -> int:
    """The copies of a design in the deck: 1 when not given, at most MAX_COPIES."""
    copies = raw.get("copies", 1)
    if isinstance(copies, bool) or not isinstance(copies, int) or not 1 <= copies <= MAX_COPIES:
        check.fail(f"{path}.copies", f"must be an integer from 1 to {MAX_COPIES} (got {copies!r})")
        return 0
    return copies


def parse_summoning(raw: Any, path: str, check: Checker) -> SummoningCard | None:
    """A summoning card design from its dict, or None with the problems noted."""
    data = check.mapping(raw, path)
    if data is None:
        return None
    mark = check.mark()
    slug, name = _slug_and_name(check, data, path)
    attacks = _element_pair(check, data.get("attacks"), f"{path}.attacks", ATTACK_ELEMENTS)
    kind, element = _summoning_effect(check, data.get("effect"), f"{path}.effect")
    copies = _copies(check, data, path)
    if check.failed_since(mark) or attacks is None:
        return None
    return SummoningCard(slug=slug, name=name, attacks=attacks, kind=kind, element=element, copies=copies)


def _list(check: Checker, raw: Mapping[str, Any], key: str, required: bool = True) -> list[Any] | None:
    """The catalogue's list at `key` (None when it is absent or not a list)."""
    value = raw.get(key)
    if value is None:
        if required:
            check.fail(f"catalogue.{key}", "is required (a list)")
        return None
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Sequence):
        check.fail(f"catalogue.{key}", "must be a list")
        return None
    return list(value)


def parse_catalogue(raw: Any) -> Catalogue:
    """The frozen catalogue from its plain-data form; a SetupError lists every problem."""
    if isinstance(raw, Catalogue):
        return raw
    check = Checker()
    data = check.mapping(raw, "catalogue", "must be an object with protectors, defenses and deck")
    if data is None:
        raise _catalogue_error(check.errors)
    check.unknown_keys(data, CATALOGUE_KEYS, "catalogue")
    element_list = _element_slugs(check, data)
    known_elements = set(element_list) if element_list is not None else None
    spirits, spirit_names = _spirits(check, data)
    protectors = _protectors(check, data, known_elements)
    defenses = _defenses(check, data)
    designs = _designs(check, data)
    elements = _elements(check, element_list, defenses.values(), designs)
    check.raise_if_failed(_catalogue_error)
    return Catalogue(
        elements=elements, spirits=spirits, spirit_names=MappingProxyType(spirit_names),
        protectors=MappingProxyType(protectors), defenses=MappingProxyType(defenses), designs=tuple(designs),
        design_by_slug=MappingProxyType({c.slug: c for c in designs}),
        element_index=MappingProxyType({e: i for i, e in enumerate(elements)}),
    )


def _element_slugs(check: Checker, raw: Mapping[str, Any]) -> list[str] | None:
    """The catalogue's own list of elements (L1), or None when it gives none (or a bad one)."""
    element_list = _list(check, raw, "elements", required=False)
    if element_list is not None and not all(isinstance(e, str) and e for e in element_list):
        check.fail("catalogue.elements", "must be a list of element slugs")
        return None
    return element_list


def _spirit_slug(check: Checker, item: Any, path: str) -> str | None:
    """A spirit's slug from a slug or a {slug, name} dict."""
    if isinstance(item, str) and item:
        return item
    if isinstance(item, Mapping) and isinstance(item.get("slug"), str) and item["slug"]:
        return str(item["slug"])
    check.fail(path, "must be a spirit slug or {slug, name}")
    return None


def _spirits(check: Checker, raw: Mapping[str, Any]) -> tuple[tuple[str, ...], dict[str, str]]:
    """The spirit cards (L5) and their names: the catalogue's, or the rulebook's Akin and Yulin when it lists none."""
    spirit_list = _list(check, raw, "spirits", required=False)
    if spirit_list is None:
        return tuple(slug for slug, _ in DEFAULT_SPIRITS), dict(DEFAULT_SPIRITS)
    names: dict[str, str] = {}
    for i, item in enumerate(spirit_list):
        slug = _spirit_slug(check, item, f"catalogue.spirits[{i}]")
        if slug is None:
            continue
        if slug in names:
            check.fail(f"catalogue.spirits[{i}]", f"{slug!r} appears twice")
            continue
        names[slug] = str(item.get("name") or slug) if isinstance(item, Mapping) else slug
    if len(spirit_list) < MIN_SPIRITS:
        check.fail("catalogue.spirits", f"must list at least {MIN_SPIRITS} spirit cards (L5: one a team)")
    return tuple(names), names


def _protectors(check: Checker, raw: Mapping[str, Any], elements: set[str] | None) -> dict[str, ProtectorCard]:
    """The protector cards by slug (L4: each one unique)."""
    protectors: dict[str, ProtectorCard] = {}
    for i, item in enumerate(_list(check, raw, "protectors") or []):
        protector = parse_protector(item, f"catalogue.protectors[{i}]", check, elements)
        if protector is not None:
            if protector.slug in protectors:
                check.fail(f"catalogue.protectors[{i}].slug", f"{protector.slug!r} appears twice")
            protectors[protector.slug] = protector
    return protectors


def _defenses(check: Checker, raw: Mapping[str, Any]) -> dict[str, DefenseCard]:
    """The defense cards by slug."""
    defenses: dict[str, DefenseCard] = {}
    for i, item in enumerate(_list(check, raw, "defenses") or []):
        defense = parse_defense(item, f"catalogue.defenses[{i}]", check)
        if defense is not None:
            if defense.slug in defenses:
                check.fail(f"catalogue.defenses[{i}].slug", f"{defense.slug!r} appears twice")
            defenses[defense.slug] = defense
    return defenses


def _designs(check: Checker, raw: Mapping[str, Any]) -> list[SummoningCard]:
    """The summoning deck's designs, in catalogue order: at least one, each slug once (copies count the rest)."""
    designs: list[SummoningCard] = []
    seen: set[str] = set()
    deck = _list(check, raw, "deck")
    for i, item in enumerate(deck or []):
        design = parse_summoning(item, f"catalogue.deck[{i}]", check)
        if design is not None:
            if design.slug in seen:
                check.fail(f"catalogue.deck[{i}].slug", f"{design.slug!r} appears twice (raise its copies)")
            seen.add(design.slug)
            designs.append(design)
    if deck is not None and not deck:
        check.fail("catalogue.deck", "must hold at least one summoning card")
    return designs


def _elements(
    check: Checker, element_list: list[str] | None, defenses: Iterable[DefenseCard], designs: list[SummoningCard]
) -> tuple[str, ...]:
    """The match's elements (L1): the catalogue's list, every element on a card among them; else the cards' own."""
    used = {e for d in defenses for e in d.elements}
    used.update(e for c in designs for e in (*c.attacks, c.element))
    if element_list is None:
        return tuple(sorted(used))
    for e in sorted(used - set(element_list)):
        check.fail("catalogue", f"unknown element {e!r} on a card (known: {', '.join(element_list)})")
    return tuple(element_list)


def _catalogue_error(errors: list[tuple[str, str]]) -> SetupError:
    """A catalogue the engine cannot play with (part of a setup): every (path, reason) at once."""
    return SetupError("; ".join(f"{path}: {reason}" for path, reason in errors), errors)


# ---------------------------------------------------------------- fixture loader


def catalogue_from_fixture(entries: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The catalogue part of a setup, built from Django fixture entries (fixtures/legends_official.json).

    Multi-table cards are joined with their `cardsdb.card` row (slug, name) by primary key and
    elements are resolved from their `legends.element` rows; lists come in primary-key order.
    """
    rows = list(entries)
    cards = {e["pk"]: e["fields"] for e in rows if e.get("model") == "cardsdb.card"}
    elements = sorted(
        ((e["fields"].get("order", 0), e["pk"], e["fields"]["slug"]) for e in rows if e.get("model") == "legends.element"),
    )
    element_slugs = {pk: slug for _, pk, slug in elements}

    def of(model: str) -> list[tuple[int, dict[str, Any], dict[str, Any]]]:
        found = [(e["pk"], e["fields"], cards.get(e["pk"], {})) for e in rows if e.get("model") == model]
        return sorted(found, key=lambda item: item[0])

    def named(pk: int, card: dict[str, Any]) -> dict[str, Any]:
        return {"slug": card.get("slug", str(pk)), "name": card.get("name", str(pk))}

    return {
        "elements": [slug for _, _, slug in elements],
        "spirits": [named(pk, card) for pk, _, card in of("legends.spirit")],
        "protectors": [
            {**named(pk, card), "effect": dict(f["effect"]), "duel_legal": bool(f.get("duel_legal", True))}
            for pk, f, card in of("legends.protector")
        ],
        "defenses": [
            {**named(pk, card), "elements": [element_slugs[f["element_1"]], element_slugs[f["element_2"]]]}
            for pk, f, card in of("legends.defensecard")
        ],
        "deck": [
            {
                **named(pk, card),
                "attacks": [element_slugs[f["attack_1"]], element_slugs[f["attack_2"]]],
                "effect": {"kind": f["effect_kind"], "element": element_slugs[f["effect_element"]]},
                "copies": int(f.get("copies", 1)),
            }
            for pk, f, card in of("legends.summoningcard")
        ],
    }


def load_fixture_catalogue(path: str | Path) -> dict[str, Any]:
    """`catalogue_from_fixture` of a fixture file on disk."""
    return catalogue_from_fixture(json.loads(Path(path).read_text(encoding="utf-8")))
