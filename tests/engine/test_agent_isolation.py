"""G2 on the object graph: from everything an agent is handed (the observation, the legal actions, its own
generator) and from every look-ahead match it may build, no live part of the match, no match generator
and no hidden card can be reached by following attributes, containers and closures. Both games, every
built-in agent, whole matches; a deliberately leaking observation is caught."""

from __future__ import annotations

import contextlib
import functools
import gc
import importlib
import json
import random
import sys
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from types import BuiltinFunctionType, CodeType, FunctionType, MappingProxyType, MethodType, ModuleType
from typing import Any

import pytest

from legends.engine.cards import SummoningCard
from legends.engine.game import new_match as new_legends_match
from legends.engine.state import LegendsState
from realms.engine.cards import CharacterCard, cards_from_fixture
from realms.engine.formation import random_army
from realms.engine.game import new_match as new_realms_match
from realms.engine.state import RealmsState
from simulate.engine.agents import get_agent
from simulate.engine.runner import _decider, _play_decision
from tests.engine.legends.helpers import duel_setup, teams_setup
from tests.engine.legends.test_hidden import hidden_from, unique_catalogue

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = json.loads((ROOT / "fixtures" / "realms_starter.json").read_text())
VALUES = (type(None), bool, int, float, complex, str, bytes, range, type, ModuleType, CodeType)
ENGINES = ("realms.engine", "legends.engine", "simulate.engine")


def referents(obj: Any) -> list[Any]:
    """What `obj` holds: its attributes and items, a function's closure and defaults, a bound method's
    object. Module globals, classes and code are not followed: they hold nothing of a match."""
    if isinstance(obj, VALUES):
        return []
    if isinstance(obj, (FunctionType, MethodType, BuiltinFunctionType, functools.partial)):
        return callable_referents(obj)
    if isinstance(obj, MappingProxyType):  # a read-only view: its items, not the dict behind it
        return [*obj.keys(), *obj.values()]
    own = getattr(obj, "__dict__", None)
    if isinstance(own, dict):  # an object's attribute dict is part of the object: its values are what it holds
        return [*own.values(), *(r for r in gc.get_referents(obj) if r is not own and not isinstance(r, (type, ModuleType)))]
    return [r for r in gc.get_referents(obj) if not isinstance(r, (type, ModuleType))]


def callable_referents(obj: Any) -> list[Any]:
    """What a function, a bound method, a built-in function or a partial holds."""
    if isinstance(obj, FunctionType):
        return function_referents(obj)
    if isinstance(obj, MethodType):
        return [obj.__self__, obj.__func__]
    if isinstance(obj, BuiltinFunctionType):  # a C or compiled function: its object, unless a module
        owner = obj.__self__
        return [] if owner is None or isinstance(owner, ModuleType) else [owner]
    return [obj.func, *obj.args, *obj.keywords.values()]


def function_referents(obj: FunctionType) -> list[Any]:
    """A function's closure cells (the filled ones), its defaults and its keyword defaults."""
    cells = []
    for cell in obj.__closure__ or ():
        with contextlib.suppress(ValueError):  # an empty cell holds nothing
            cells.append(cell.cell_contents)
    return [*cells, *(obj.__defaults__ or ()), *(obj.__kwdefaults__ or {}).values()]


def reachable(roots: Iterable[Any], skip: Iterable[Any] = ()) -> Iterator[tuple[Any, str]]:
    """Every object reachable from `roots`, once each, with a path to it; `skip`: objects not entered."""
    skipped = {id(s) for s in skip}
    seen: dict[int, Any] = {}
    stack: list[tuple[Any, str]] = [(r, f"root{k}") for k, r in enumerate(roots)]
    while stack:
        obj, path = stack.pop()
        if id(obj) in seen or id(obj) in skipped:
            continue
        seen[id(obj)] = obj  # held, so that no id is reused while walking
        yield obj, path
        name = type(obj).__name__
        stack.extend((r, f"{path} > {name}") for r in referents(obj))


def attribute_names(obj: Any) -> list[str]:
    """The names of an object's own attributes: its slots (compiled classes list theirs apart), its dict's."""
    names = [n for klass in type(obj).__mro__ for n in getattr(klass, "__slots__", ()) if hasattr(obj, n)]
    names += list(getattr(type(obj), "__mypyc_attrs__", ()))
    names += list(getattr(obj, "__dict__", {}))
    return names


def is_live(obj: Any) -> bool:
    """Whether `obj` could change (or be changed) as the match goes on: a container, or an object one of
    whose attributes can be set again (tried by setting it to the value it has: nothing changes)."""
    if isinstance(obj, (*VALUES, tuple, frozenset, MappingProxyType, FunctionType, BuiltinFunctionType, MethodType)):
        return False
    if isinstance(obj, (list, dict, set, bytearray)):
        return True
    for name in attribute_names(obj):
        try:
            setattr(obj, name, getattr(obj, name))
        except (AttributeError, TypeError):  # read-only (a value, a frozen dataclass)
            continue
        return True
    return False


@functools.cache
def shared_objects() -> list[Any]:
    """What every match shares and none owns: the engines' module-level constants and caches, and all they hold."""
    modules = [m for name, m in list(sys.modules.items()) if name.startswith(ENGINES) and m is not None]
    roots = [v for m in modules for v in vars(m).values() if not isinstance(v, (ModuleType, type))]
    return [o for o, _ in reachable(roots)]


def shared() -> frozenset[int]:
    """The ids of what every match shares (`shared_objects`)."""
    return frozenset(id(o) for o in shared_objects())


def live_parts(state: Any) -> dict[int, str]:
    """Every live part of a match (the state, its generator, its units or seats, containers...), by id."""
    common = shared()
    return {id(o): type(o).__name__ for o, _ in reachable([state]) if is_live(o) and id(o) not in common}


def leaks(handed: Iterable[Any], state: Any, hidden: Iterable[Any] = (), public: Iterable[Any] = ()) -> list[str]:
    """What of the match (live parts, its generator, hidden card objects) is reachable from what an agent is
    handed; `public`: card lists whose cards are known to everyone (not searched for hidden cards)."""
    handed = list(handed)
    live = live_parts(state)
    found = []
    for obj, path in reachable(handed):
        if id(obj) in live:
            found.append(f"live {live[id(obj)]} at {path}")
        if obj is state.rng:
            found.append(f"the match generator at {path}")
    secret = {id(c) for c in hidden}
    if secret:
        found.extend(f"hidden card {getattr(obj, 'slug', obj)!r} at {path}"
                     for obj, path in reachable(handed, public) if id(obj) in secret)
    return found


class Recorder:
    """Wraps an agent and checks, at each decision, everything it is handed."""

    def __init__(self, agent: Any, check: Any) -> None:
        self.agent = agent
        self.name = agent.name
        self.check = check
        self.decisions = 0

    def act(self, observation: Any, legal: Sequence[Any], rng: random.Random) -> Any:
        self.check(observation, legal, rng)
        self.decisions += 1
        return self.agent.act(observation, legal, rng)


# ------------------------------------------------------------------ Echo Realms


def realms_collections() -> dict[str, list[CharacterCard]]:
    """Two collections of the starter set, each its own card objects: a card of b's is never one of a's."""
    def half(k: int) -> list[CharacterCard]:  # every other card of each rarity
        cards = cards_from_fixture(FIXTURE)
        return [c for r in ("common", "uncommon", "rare", "legendary") for c in [c for c in cards if c.rarity == r][k::2]]
    return {"a": half(0), "b": half(1)}


def realms_hidden(state: RealmsState, player: str) -> list[CharacterCard]:
    """The cards `player` may not see: the other collection's cards not deployed (Formation Round)."""
    if state.phase() != "formation":
        return []
    other = "b" if player == "a" else "a"
    shown = {id(c) for c, _ in state.deployed[other]}
    return [c for c in state.collections[other] if id(c) not in shown]


def play_checked(state: Any, agents: dict[str, Any], hidden: Any, skip: Any = lambda obs: ()) -> int:
    """Play a match to its end as the runner does (each decision through the runner's own step), checking
    what each agent is handed and a look-ahead built from each observation; the decisions checked."""
    checked = 0

    def check(player: str) -> Any:
        def inspect(observation: Any, legal: list[Any], rng: random.Random) -> None:
            nonlocal checked
            assert rng is not state.rng
            problems = leaks([observation, legal, rng], state, hidden(state, player), skip(observation))
            assert problems == [], problems[:5]
            try:
                sandbox = observation.sandbox(checked)
            except ValueError:  # no look-ahead from this kind of decision
                sandbox = None
            if sandbox is not None:
                assert sandbox is not state and sandbox.rng is not state.rng
                problems = leaks([sandbox], state)
                assert problems == [], problems[:5]
            checked += 1
        return inspect

    play = getattr(state, "play_decision", None) or functools.partial(_play_decision, state)
    deciders = {p: _decider(Recorder(a, check(p)), random.Random(state.agent_seeds[p])) for p, a in agents.items()}
    while not state.is_terminal() and checked < 400:
        play(deciders)
    return checked


def realms_agent(name: str) -> Any:
    """A fresh agent of `name`; ismcts with few iterations: every look-ahead it makes is still checked."""
    if name == "ismcts":
        from realms.engine.ismcts_agent import IsmctsAgent
        return IsmctsAgent(iterations=4)
    return get_agent(name, "realms")


@pytest.mark.parametrize("agent", ["random", "greedy", "search", "ismcts"])
def test_realms_agents_reach_nothing_of_the_match_formation_round_included(agent: str) -> None:
    state = new_realms_match({"collections": realms_collections()}, seed=5, options={"max_rounds": 4})
    agents = {p: realms_agent(agent) for p in ("a", "b")}
    assert play_checked(state, agents, realms_hidden) > 20


@pytest.mark.parametrize("agent", ["random", "greedy", "search", "ismcts"])
def test_realms_agents_reach_nothing_of_the_match_in_battle(agent: str) -> None:
    cards = cards_from_fixture(FIXTURE)
    rng = random.Random(3)
    state = new_realms_match({"armies": {"a": random_army(cards, rng), "b": random_army(cards, rng)}}, seed=8,
                             options={"max_rounds": 6})
    agents = {p: realms_agent(agent) for p in ("a", "b")}
    assert play_checked(state, agents, realms_hidden) > 20


# ------------------------------------------------------------------ Akin Legends


def legends_hidden(state: LegendsState, pid: str) -> list[SummoningCard]:
    """The card objects `pid` may not see, by slug (one copy per design: a slug is one physical card)."""
    slugs = hidden_from(state, pid)
    return [c for c in state.catalogue.designs if c.slug in slugs]


def legends_skip(observation: Any) -> list[Any]:
    """Public card lists not walked for hidden cards: the catalogue (every design and its count) and the last
    round's plays, all revealed at its showdown (a card seen then may since have been shuffled back and drawn:
    with one copy per design its slug is then also a hidden card's)."""
    return [observation.catalogue, observation.last_plays]


@pytest.mark.parametrize("agent", ["random", "greedy", "search", "ismcts"])
@pytest.mark.parametrize("mode", ["teams", "duel"])
def test_legends_agents_reach_nothing_of_the_match(agent: str, mode: str) -> None:
    setup = teams_setup(protectors=("spy", "archivist"), defenses=(None, None)) if mode == "teams" else duel_setup(
        protectors=(None, None), defenses=(None, None))
    setup["catalogue"] = unique_catalogue()
    state = new_legends_match(setup, seed=6, options={"max_rounds": 4})
    agents = {s.pid: get_agent(agent, "legends") for s in state.seats}
    if agent == "search":  # a smaller budget: every look-ahead is still checked
        from legends.engine.agents import SearchAgent
        agents = {pid: SearchAgent(determinisations=2, max_candidates=2) for pid in agents}
    if agent == "ismcts":
        from legends.engine.ismcts_agent import IsmctsAgent
        agents = {pid: IsmctsAgent(iterations=4) for pid in agents}
    assert play_checked(state, agents, legends_hidden, legends_skip) > 10


# ------------------------------------------------------------------ the check has teeth


def realms_at_a_decision() -> RealmsState:
    cards = cards_from_fixture(FIXTURE)
    rng = random.Random(4)
    return new_realms_match({"armies": {"a": random_army(cards, rng), "b": random_army(cards, rng)}}, seed=2)


def test_an_observation_that_keeps_the_match_in_a_closure_is_caught() -> None:
    state = realms_at_a_decision()
    observation = state.observation(state.current_player())
    assert leaks([observation], state) == []
    leaky = observation.replaced(lookahead=lambda obs, seed: state.clone(seed))  # look-ahead on the match itself
    found = leaks([leaky], state)
    assert any(f.startswith("live RealmsState") for f in found) and any("match generator" in f for f in found)


def test_an_observation_holding_a_live_unit_is_caught() -> None:
    state = realms_at_a_decision()
    observation = state.observation(state.current_player())
    leaky = observation.replaced(targets=(*observation.targets, state.units[0]))
    assert any(f.startswith("live Unit") for f in leaks([leaky], state))


def test_a_formation_observation_showing_the_other_collection_is_caught() -> None:
    state = new_realms_match({"collections": realms_collections()}, seed=5)
    player = state.current_player()
    observation = state.observation(player)
    hidden = realms_hidden(state, player)
    assert hidden and leaks([observation], state, hidden) == []
    other = state.collections["b" if player == "a" else "a"]
    leaky = observation.replaced(own_collection=(*observation.own_collection, *other))
    assert any(f.startswith("hidden card") for f in leaks([leaky], state, hidden))


def test_a_legends_observation_showing_a_hand_is_caught() -> None:
    setup = teams_setup()
    setup["catalogue"] = unique_catalogue()
    state = new_legends_match(setup, seed=1)
    pid = state.current_player()
    observation = state.observation(pid)
    hidden = legends_hidden(state, pid)
    assert hidden and leaks([observation], state, hidden, [observation.catalogue]) == []
    other = next(s for s in state.seats if s.pid != pid)
    leaky = observation._replace(hand=observation.hand + tuple(other.hand))
    assert any(f.startswith("hidden card") for f in leaks([leaky], state, hidden, [observation.catalogue]))
    assert any(f.startswith("live list") for f in leaks([observation._replace(discard=state.discard)], state))  # type: ignore[arg-type]  # a live list, on purpose


def test_every_engine_module_is_loaded_before_the_shared_constants_are_read() -> None:
    for name in ("realms.engine.agents", "legends.engine.agents", "simulate.engine.runner"):
        importlib.import_module(name)
    assert len(shared()) > 100
