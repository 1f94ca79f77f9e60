"""`Unit.copy`, `Active.copy` and `RealmsState.clone` are kept by hand (they run in every look-ahead, where
a generic copy would cost): these tests set every attribute to a value of its own, copy, and compare
attribute by attribute, so that an attribute added to the class and forgotten in its copy fails here.
Mutable values must not be shared between the original and the copy."""

from __future__ import annotations

import contextlib
from typing import Any

from realms.engine.battlefield import Battlefield
from realms.engine.effects import KINDS
from realms.engine.state import RealmsState
from realms.engine.units import Active, Unit
from tests.engine.helpers import attack, battle, card, fab, main

MUTABLE = (list, dict, set)


class Token:
    """A value of its own, equal only to itself."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"Token({self.name})"


def distinct(name: str, value: Any, i: int) -> Any:
    """A value for attribute `name` unlike its current one and unlike any other attribute's."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return 7000 + i
    if isinstance(value, str):
        return f"{name}-{i}"
    return Token(name)


def slots(cls: type) -> list[str]:
    """The attributes of a class: its `__slots__` (source), or mypyc's `__mypyc_attrs__` (compiled)."""
    compiled = getattr(cls, "__mypyc_attrs__", None)
    names = list(compiled) if compiled is not None else [
        name for klass in cls.__mro__ for name in getattr(klass, "__slots__", ())]
    assert len(names) > 5, f"{cls.__name__}: its attributes are not found"
    return names


def give(obj: Any, name: str, value: Any) -> None:
    """Set an attribute to its own value where its type allows (a compiled class checks the type: an object
    attribute then keeps its value, which the comparison still covers)."""
    with contextlib.suppress(TypeError):
        setattr(obj, name, value)


# What a copy sets on its own, and why.
ACTIVE_OWN = {"info": "its snapshot, made again when first asked for", "kind": "the name of its kind (impl)"}
UNIT_OWN = {"effects": "copied effect by effect (compared below)"}


def test_active_copy_copies_every_attribute():
    a = Active(3, KINDS["buff"], "atk", 2, 2, "a1", 1, False)
    for i, name in enumerate(slots(Active)):
        if name not in ACTIVE_OWN and name != "impl":
            give(a, name, distinct(name, getattr(a, name), i))
    c = a.copy()
    assert c is not a
    for name in slots(Active):
        if name not in ACTIVE_OWN:
            assert getattr(c, name) == getattr(a, name), name
    assert c.kind == a.impl.name


def test_unit_copy_copies_every_attribute_and_shares_nothing_mutable():
    st = battle([card("x", fab=fab("round_start", {"kind": "shield", "target": "self", "flat": 2, "duration": 2}))],
                [card("y")])
    u = st.units[0]
    assert u.effects, "the unit needs a standing effect"
    skip = {"card", "uid", "side", "index", "line", "name", "atk", "defense", "spd", "max_hp", *UNIT_OWN}
    for i, name in enumerate(slots(Unit)):
        if name not in skip:
            give(u, name, distinct(name, getattr(u, name), i))
    c = u.copy()
    for name in slots(Unit):
        if name in UNIT_OWN:
            continue
        original, copied = getattr(u, name), getattr(c, name)
        assert copied == original, name
        if isinstance(original, MUTABLE):
            assert copied is not original, f"{name} is shared"
    assert len(c.effects) == len(u.effects) and c.effects is not u.effects
    for a, b in zip(u.effects, c.effects, strict=True):
        assert b is not a and all(getattr(b, s) == getattr(a, s) for s in slots(Active) if s not in ACTIVE_OWN)


def unit_ids(value: Any) -> Any:
    """A value with units replaced by their ids (a clone holds units of its own)."""
    if isinstance(value, Unit):
        return ("unit", value.uid)
    if isinstance(value, list | tuple):
        return type(value)(unit_ids(v) for v in value)
    if isinstance(value, dict):
        return {k: unit_ids(v) for k, v in value.items()}
    return value


# What a clone sets on its own: (its value in the clone, why).
CLONE_OWN: dict[str, tuple[Any, str]] = {
    "seed": (99, "the clone's own seed"),
    "rng": (None, "a generator of its own, seeded with the clone's seed (checked below)"),
    "log": (None, "no log"),
    "record": (None, "no log"),
    "depth": (0, "taken between steps, when no ability resolves"),
    "use": (None, "taken between steps, when no ability resolves"),
    "target_cache": ({"a": None, "b": None}, "worked out again when first needed"),
    "order_view": (None, "worked out again when first needed"),
}
# Values a clone shares with its original, and why.
SHARED = {
    "options": "never changed after the match is made",
    "agent_names": "never changed after the match is made",
    "agent_seeds": "drawn once when the match is made",
    "collections": "never changed after the Formation Round opens",
}


def test_clone_copies_every_attribute_and_shares_nothing_mutable():
    st = battle([card("x", spd=9, main=main({"kind": "buff", "target": "self", "stat": "atk", "amount": 1,
                                               "duration": 2}, choose="none"))],
                [card("y"), card("z")], seed=5)
    attack(st, "b1")
    assert isinstance(st, Battlefield)
    give_distinct_scalars(st)
    c = st.clone(99)
    for name in slots(RealmsState):
        check_cloned_attribute(name, getattr(c, name), getattr(st, name))
    assert c.rng.random() == __import__("random").Random(99).random()
    assert all(cu is not u and cu.uid == u.uid for cu, u in zip(c.units, st.units, strict=True))
    assert all(c.by_id[u.uid] is u for u in c.units)


def give_distinct_scalars(st: Any) -> None:
    """Every plain value of the state (not one the clone sets itself) set to a value of its own."""
    for i, name in enumerate(slots(RealmsState)):
        value = getattr(st, name)
        if name not in CLONE_OWN and isinstance(value, bool | int | str) and value is not None:
            give(st, name, distinct(name, value, i))


def check_cloned_attribute(name: str, copied: Any, original: Any) -> None:
    """One attribute of a clone: the clone's own value, or the original's (same units), never a shared
    mutable unless it is meant to be."""
    if name in CLONE_OWN:
        if name != "rng":
            assert copied == CLONE_OWN[name][0], name
        return
    assert unit_ids(copied) == unit_ids(original), name
    if isinstance(original, MUTABLE) and name not in SHARED:
        assert copied is not original, f"{name} is shared"
