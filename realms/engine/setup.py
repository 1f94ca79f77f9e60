"""How an Echo Realms match starts: two armies, or two collections for a Formation Round."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from realms.engine.cards import CharacterCard, card_from_dict
from simulate.engine.errors import SetupError

Army = Sequence[tuple[CharacterCard, str]]


@dataclass(frozen=True)
class ArmySetup:
    """Two ready armies: (card, line) pairs per side, line vanguard or rearguard."""

    a: Army
    b: Army


@dataclass(frozen=True)
class FormationSetup:
    """Two collections; the agents build the armies in a Formation Round (R6)."""

    a: Sequence[CharacterCard]
    b: Sequence[CharacterCard]


def _card(value: Any) -> Any:
    """A card from a dict, or the value as given."""
    # A card object first: the abstract-class check is slow and this runs for every card of every match.
    if type(value) is CharacterCard:
        return value
    return card_from_dict(value) if isinstance(value, Mapping) else value


def normalize_setup(setup: Any) -> ArmySetup | FormationSetup:
    """An ArmySetup or FormationSetup from either dataclass or a dict
    ({"armies": {"a": [...], "b": [...]}} / {"collections": {...}}; cards may be dicts)."""
    if isinstance(setup, (ArmySetup, FormationSetup)):
        return setup
    if type(setup) is not dict and not isinstance(setup, Mapping):  # a plain dict first: the abstract check is slow
        raise SetupError("A setup is an ArmySetup, a FormationSetup or a dict with 'armies' or 'collections'.")
    if ("armies" in setup) == ("collections" in setup):
        raise SetupError("A setup gives exactly one of 'armies' or 'collections'.", [("setup", "armies|collections")])
    key = "armies" if "armies" in setup else "collections"
    sides = setup[key]
    if (type(sides) is not dict and not isinstance(sides, Mapping)) or set(sides) != {"a", "b"}:
        raise SetupError(f"'{key}' maps both players 'a' and 'b'.", [(key, "players")])
    if key == "armies":
        armies = _armies(sides)
        return ArmySetup(a=armies["a"], b=armies["b"])
    colls = _collections(sides)
    return FormationSetup(a=colls["a"], b=colls["b"])


def _entries(sides: Mapping[str, Any], key: str, side: str, what: str) -> Sequence[Any]:
    """The list a setup gives for `side` under `key`; SetupError when it is not one."""
    entries = sides[side]
    if type(entries) is not list and (isinstance(entries, (str, bytes)) or not isinstance(entries, Sequence)):
        raise SetupError(f"{key}.{side} is a list of {what}.", [(f"{key}.{side}", "type")])
    return entries


def _armies(sides: Mapping[str, Any]) -> dict[str, list[Any]]:
    """Each player's (card, line) pairs, cards given as dicts made CharacterCards."""
    return {
        side: [(_card(e[0]), e[1]) if _is_pair(e) else e for e in _entries(sides, "armies", side, "(card, line) pairs")]
        for side in ("a", "b")
    }


def _is_pair(entry: Any) -> bool:
    """Whether an army entry is a sequence of two (a plain tuple or list first: the abstract-class check is slow)."""
    kind = type(entry)
    return (kind is tuple or kind is list or isinstance(entry, Sequence)) and len(entry) == 2


def _collections(sides: Mapping[str, Any]) -> dict[str, list[Any]]:
    """Each player's collection, cards given as dicts made CharacterCards."""
    return {side: [_card(c) for c in _entries(sides, "collections", side, "cards")] for side in ("a", "b")}
