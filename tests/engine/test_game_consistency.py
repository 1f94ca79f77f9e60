"""Every game registered with the core, checked through the core's protocol alone, as OpenSpiel's
random_sim_test checks its games: each game of `simulate.engine.games.GAMES`, each of its modes
(tests/engine/game_modes.py: the setups the protocol cannot build), a spread of seeds.

1. Random play to the end: uniformly random legal actions (from the test's own generator) until the match
   is over, within the game's cap on actions (stopped there as the runner stops it); no step raises, the
   player to act is a seat, some action is legal until the end and none after it, the result is one of
   the game's outcomes and the log's last event says the same; every event has its declared fields.
2. Legal actions only: actions not among the legal ones (a foreign object, malformed actions, an action of
   an earlier decision, a legal action altered) raise IllegalAction and leave the match as it was: whose
   turn, the legal actions, every seat's observation, the log, the generator and the whole object graph.
3. Clone independence: at random decisions, two clones with one seed show what the match shows, are played
   to the end side by side (the same decisions, the same result), and the match is left as it was.
4. Seeded reproducibility: the match played again with the same seed and choices, without the probes of
   2 and 3, gives the identical log; another seed gives another log (seeds aside) for most seeds.
5. Observation isolation, at every decision, for the player to act: nothing reachable from its observation
   is a live part of the match or an object it may not see (test_agent_isolation's walk and verdict), and
   the observation stays the same when what the player may not see changes: the match generator (a clone
   with another seed), and every hidden card (the game's `rehide`; and a sandbox, the protocol's own
   determinisation, in a test of its own).
6. The runner's step (the state's `play_decision`, or the runner's own) plays as `apply` does: the same
   choices give the same log, and a decider emptying the legal actions it is handed changes nothing.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterator
from functools import partial
from types import BuiltinFunctionType, FunctionType, MappingProxyType, MethodType, ModuleType
from typing import Any

import pytest

from simulate.engine.errors import IllegalAction
from simulate.engine.events import schema_problems
from simulate.engine.games import GAMES, GameRules, GameState, Observation, Outcome, get_game, missing_members
from simulate.engine.runner import HARD_MAX_ACTIONS, _play_decision
from tests.engine.game_modes import MODES, Mode
from tests.engine.test_agent_isolation import attribute_names, is_live, leaks, referents, shared_objects

SEEDS = range(12)  # matches per game and mode, played to the end three times (probed, again, another seed)
PROBE_RATE = 0.02  # share of decisions (besides the first) where illegal actions and clones are tried
ISOLATION_SEEDS = range(4)  # matches per game and mode whose every decision is checked for isolation
OTHER_SEED = 7919  # added to a match seed for "another seed"
MOST = 0.8  # share of seeds whose log another seed must change


def cases(check: str = "") -> list[Any]:
    """(game, mode) for every registered game and each mode the test knows for it; a deviation the mode
    declares for `check` is an expected failure, strict (it fails once the engine is fixed)."""
    out = []
    for game in sorted(GAMES):
        for mode in MODES.get(game, ()):
            marks = [pytest.mark.xfail(strict=True, reason=mode.known[check])] if check in mode.known else []
            out.append(pytest.param(game, mode, id=f"{game}-{mode.name}", marks=marks))
    return out


# ------------------------------------------------------------------ values and digests

# Objects that never change (frozen dataclasses, the engines' value classes run as plain Python), by id, each
# kept with the object so that its id is not reused: cards and catalogues are met at every step.
FROZEN: dict[int, tuple[Any, Any]] = {}
DIGESTS: dict[int, tuple[Any, str]] = {}
CLOSURES: dict[int, tuple[Any, frozenset[int], bool]] = {}
EVENTS: dict[int, tuple[Any, str]] = {}


@pytest.fixture(autouse=True)
def _fresh_caches() -> Iterator[None]:
    """Each test starts and ends with empty caches (they hold the objects they describe)."""
    for cache in (FROZEN, DIGESTS, CLOSURES, EVENTS):
        cache.clear()
    yield
    for cache in (FROZEN, DIGESTS, CLOSURES, EVENTS):
        cache.clear()


FROZEN_TYPES: dict[type, bool] = {}


def is_frozen(obj: Any) -> bool:
    """Whether `obj`'s class makes values: a frozen dataclass, a class made read-only by `read_only`, or a
    compiled class none of whose attributes can be set (judged on its first object)."""
    cls = type(obj)
    known = FROZEN_TYPES.get(cls)
    if known is None:
        params = getattr(cls, "__dataclass_params__", None)
        if params is not None:
            known = bool(params.frozen)
        elif getattr(cls.__setattr__, "__qualname__", "").startswith("read_only."):
            known = True
        else:
            known = hasattr(cls, "__mypyc_attrs__") and bool(attribute_names(obj)) and not is_live(obj)
        FROZEN_TYPES[cls] = known
    return known


def frozen_value(obj: Any) -> Any:
    """The value of a frozen object, worked out once."""
    entry = FROZEN.get(id(obj))
    if entry is None or entry[0] is not obj:
        entry = FROZEN[id(obj)] = (obj, value_of(obj, {}, set(), True))
    return entry[1]


def frozen_digest(obj: Any) -> str:
    """A digest of a frozen object's value, worked out once."""
    entry = DIGESTS.get(id(obj))
    if entry is None or entry[0] is not obj:
        entry = DIGESTS[id(obj)] = (obj, hashlib.sha256(repr(frozen_value(obj)).encode()).hexdigest())
    return entry[1]


def value_of(obj: Any, memo: dict[int, Any] | None = None, busy: set[int] | None = None, top: bool = True) -> Any:
    """`obj` as nested plain tuples, compared by value (types and attribute names kept): two observations are
    the same if their values are, whatever objects hold them. Frozen parts are worked out once (not `obj`
    itself: an observation is made once and compared once)."""
    if isinstance(obj, (type(None), bool, int, float, complex, str, bytes)):
        return obj
    if not top and is_frozen(obj):
        return frozen_value(obj)
    if isinstance(obj, (type, ModuleType)):
        return ("type", getattr(obj, "__qualname__", obj.__name__))
    if isinstance(obj, (FunctionType, BuiltinFunctionType, MethodType)):
        owner = getattr(obj, "__self__", None)
        name = getattr(obj, "__qualname__", getattr(obj, "__name__", "?"))
        return ("function", getattr(obj, "__module__", None), name,
                None if owner is None or isinstance(owner, ModuleType) else value_of(owner, memo, busy, False))
    memo = {} if memo is None else memo
    busy = set() if busy is None else busy
    key = id(obj)
    if key in memo:
        return memo[key]
    if key in busy:
        return ("cycle", type(obj).__qualname__)
    busy.add(key)
    out = composite_value(obj, memo, busy)
    busy.discard(key)
    memo[key] = out
    return out


def composite_value(obj: Any, memo: dict[int, Any], busy: set[int]) -> Any:
    """The value of a generator (its state), a sequence, mapping or set (its items) or another object (its
    attributes), each part by `value_of`."""
    name = type(obj).__qualname__
    if isinstance(obj, random.Random):
        return (name, obj.getstate())
    if isinstance(obj, (list, tuple)):
        return (name, tuple(value_of(v, memo, busy, False) for v in obj))
    if isinstance(obj, (dict, MappingProxyType)):
        return (name, tuple((value_of(k, memo, busy, False), value_of(v, memo, busy, False)) for k, v in obj.items()))
    if isinstance(obj, (set, frozenset)):
        return (name, tuple(sorted((value_of(v, memo, busy, False) for v in obj), key=repr)))
    return (name, tuple((f".{a}", value_of(getattr(obj, a), memo, busy, False)) for a in attribute_names(obj)))


def event_digest(event: dict[str, Any]) -> str:
    """A logged event's digest, worked out once: the log only ever appends its events."""
    entry = EVENTS.get(id(event))
    if entry is None or entry[0] is not event:
        entry = EVENTS[id(event)] = (event, hashlib.sha256(json.dumps(event).encode()).hexdigest())
    return entry[1]


# What every match shares, worked out once per process and held (so that no id in it is reused): the engines'
# module-level caches fill and empty as matches are played, and an object counted as shared by one digest and
# walked by the next would make two digests of an unchanged match differ.
SHARED: dict[int, Any] = {}


def shared_once() -> dict[int, Any]:
    """test_agent_isolation's shared objects, as they were the first time they were asked for, kept alive."""
    if not SHARED:
        for game in GAMES:  # every game's engine loaded first, so that its constants count as shared
            get_game(game)
        SHARED.update((id(o), o) for o in shared_objects())
    return SHARED


def state_digest(state: Any) -> str:
    """A digest of the whole object graph of a match: every attribute and item, which objects are shared where,
    generators' states; what every match shares (the engines' module-level constants and caches) by identity,
    values (cards, snapshots) and logged events by what they hold."""
    common = shared_once()
    logged = {id(e) for e in state.events() or ()}
    ordinal: dict[int, int] = {}
    keep: list[Any] = []  # held, so that no id is reused during the walk
    h = hashlib.sha256()

    def put(token: str) -> None:
        h.update(token.encode())
        h.update(b"\x00")

    def walk(obj: Any) -> None:
        """Puts a plain value or code as itself, an object met before by its ordinal, a new one whole."""
        if isinstance(obj, (type(None), bool, int, float, complex, str, bytes)):
            put(f"{type(obj).__name__}:{obj!r}")
            return
        if isinstance(obj, (type, ModuleType, FunctionType, BuiltinFunctionType)):
            put(f"code:{getattr(obj, '__module__', '')}.{getattr(obj, '__qualname__', getattr(obj, '__name__', ''))}")
            return
        key = id(obj)
        if key in ordinal:
            put(f"@{ordinal[key]}")
            return
        ordinal[key] = len(ordinal)
        keep.append(obj)
        walk_new(obj, key)

    def walk_new(obj: Any, key: int) -> None:
        """Puts a new object: by identity, digest or value where it has one, else part by part."""
        name = type(obj).__qualname__
        if key in common:
            put(f"shared:{name}:{key}")
        elif key in logged:
            put(f"event:{event_digest(obj)}")
        elif is_frozen(obj):
            put(f"value:{frozen_digest(obj)}")
        elif isinstance(obj, random.Random):
            put(f"{name}:{obj.getstate()!r}")
        elif isinstance(obj, MethodType):
            put(f"method:{obj.__func__.__qualname__}")
            walk(obj.__self__)
        elif isinstance(obj, (list, tuple)):
            put(f"{name}[{len(obj)}")
            for v in obj:
                walk(v)
        elif isinstance(obj, (dict, MappingProxyType)):
            put(f"{name}{{{len(obj)}")
            for k, v in obj.items():
                walk(k)
                walk(v)
        elif isinstance(obj, (set, frozenset)):
            put(f"{name}({len(obj)}:" + ",".join(sorted(repr(value_of(v)) for v in obj)))
        else:
            names = attribute_names(obj)
            put(f"{name}<{','.join(names)}")
            for a in names:
                walk(getattr(obj, a))

    walk(state)
    return h.hexdigest()


def closure(obj: Any) -> tuple[frozenset[int], bool]:
    """For a frozen object: the ids of everything reachable from it (test_agent_isolation's `referents`), and
    whether any of it is live and not shared by every match (then it is not kept: it may change). Frozen
    parts are worked out once."""
    entry = CLOSURES.get(id(obj))
    if entry is not None and entry[0] is obj:
        return entry[1], entry[2]
    common = shared_once()
    ids: set[int] = {id(obj)}
    live = False
    held: list[Any] = []
    stack = list(referents(obj))
    while stack:
        o = stack.pop()
        if id(o) in ids:
            continue
        if is_frozen(o):
            inner, inner_live = closure(o)
            ids |= inner
            live = live or inner_live
            continue
        ids.add(id(o))
        held.append(o)
        if id(o) not in common and is_live(o):
            live = True
        stack.extend(referents(o))
    out = frozenset(ids)
    if not live:
        CLOSURES[id(obj)] = (obj, out, live)
    return out, live


def suspects(observation: Any, state: Any, secret: set[int], public: list[Any]) -> list[str]:
    """What reachable from an observation (test_agent_isolation's `referents`) is live and not shared by every
    match, or is the match, its generator or an object its player may not see (outside the public lists)."""
    common = shared_once()
    own = {id(state), id(state.rng)}
    out: list[str] = []
    seen: set[tuple[int, bool]] = set()
    held: list[Any] = []  # so that no id is reused during the walk
    public_ids = {id(p) for p in public}
    stack = [(observation, True)]
    while stack:
        obj, cards = stack.pop()  # cards: whether objects the player may not see are looked for here
        key = id(obj)
        if (key, cards) in seen:
            continue
        seen.add((key, cards))
        held.append(obj)
        if key in public_ids:
            cards = False
        if is_frozen(obj):
            if frozen_is_suspect(obj, own, secret, cards):
                out.append(type(obj).__name__)
            continue
        if object_is_suspect(obj, own, secret, cards, common):
            out.append(type(obj).__name__)
        stack.extend((r, cards) for r in referents(obj))
    return out


def frozen_is_suspect(obj: Any, own: set[int], secret: set[int], cards: bool) -> bool:
    """Whether anything a frozen object reaches is live, is among `own` or (`cards`) among `secret`."""
    ids, live = closure(obj)
    return bool(live or ids & own or (cards and ids & secret))


def object_is_suspect(obj: Any, own: set[int], secret: set[int], cards: bool, common: Any) -> bool:
    """Whether an object is among `own`, (`cards`) among `secret`, or live and not in `common`."""
    key = id(obj)
    return bool(key in own or (cards and key in secret) or (key not in common and is_live(obj)))


# ------------------------------------------------------------------ matches


def seats_of(rules: GameRules, setup: Any) -> list[str]:
    """The seats of a setup, as the runner asks for them."""
    return list(rules.players_for(setup) if hasattr(rules, "players_for") else rules.players)


def action_cap(options: dict[str, Any]) -> int:
    """The runner's cap on applied actions for these options."""
    return min(int(options.get("max_actions", HARD_MAX_ACTIONS)), HARD_MAX_ACTIONS)


def begin(game: str, mode: Mode, seed: int, match_seed: int | None = None,
          keep_log: bool = True) -> tuple[GameRules, list[str], dict[str, Any], Any]:
    """The rules, seats, validated options and a new match of `mode` for `seed`."""
    rules = get_game(game)
    setup = mode.setup(seed)
    opts = rules.validate_options(mode.options(seed))
    seats = seats_of(rules, setup)
    state = rules.new_state(setup, opts, seed if match_seed is None else match_seed, keep_log)
    return rules, seats, opts, state


def plain_log(game: str, mode: Mode, seed: int, match_seed: int) -> list[dict[str, Any]]:
    """The log of the match of `seed`'s setup and choices, played with `match_seed` and nothing else done."""
    _, _, opts, state = begin(game, mode, seed, match_seed)
    choose, cap, steps = random.Random(seed), action_cap(opts), 0
    while not state.is_terminal():
        if steps >= cap:
            state.stop("max_actions")
            break
        legal = state.legal_actions()
        state.apply(legal[choose.randrange(len(legal))])
        steps += 1
    events = state.events()
    assert events is not None
    return events


def without_seeds(value: Any) -> Any:
    """Plain data less every key naming a seed (the seeds are logged; a log is compared without them)."""
    if isinstance(value, dict):
        return {k: without_seeds(v) for k, v in value.items() if not (isinstance(k, str) and "seed" in k)}
    if isinstance(value, list):
        return [without_seeds(v) for v in value]
    return value


def view(state: Any, seats: list[str], whole: bool = True) -> dict[str, Any]:
    """What can be seen of a match, part by part: whose turn, the legal actions, each seat's observation, the
    log, the generator, then (`whole`) the entire object graph, last: asking for the others may fill caches."""
    legal = state.legal_actions()
    out: dict[str, Any] = {
        "player to act": state.current_player(),
        "legal actions": value_of(legal),
        **{f"observation of {p}": value_of(state.observation(p)) for p in seats},
    }
    events = state.events()
    out["log length"] = None if events is None else len(events)
    out["log"] = None if events is None else [event_digest(e) for e in events[-3:]]
    out["generator"] = state.rng.getstate()
    if whole:
        out["whole state"] = state_digest(state)
    return out


def changed(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """The parts of two views that differ."""
    return [k for k in before if before[k] != after.get(k)]


def check_outcome(outcome: Outcome, mode: Mode, at: str, stopped: bool) -> None:
    """The result is one of the game's outcomes (a draw with the runner's reason when stopped at the cap)."""
    assert isinstance(outcome, Outcome), f"{at}: the result is a {type(outcome).__name__}, not an Outcome"
    if stopped:
        assert (outcome.winner, outcome.reason) == (None, "max_actions"), (
            f"{at}: stopped at the cap on actions, the result is {outcome.winner!r} by {outcome.reason!r}, "
            "not a draw by max_actions")
        return
    assert outcome.winner is None or outcome.winner in mode.winners, (
        f"{at}: the winner is {outcome.winner!r}, none of the game's sides {sorted(mode.winners)}")
    assert outcome.reason in mode.reasons, (
        f"{at}: the match ended by {outcome.reason!r}, none of the game's reasons {sorted(mode.reasons)}")
    assert isinstance(outcome.rounds, int) and outcome.rounds >= 0, f"{at}: {outcome.rounds!r} rounds played"


# ------------------------------------------------------------------ the probes at a decision


def illegal_candidates(legal: list[Any], earlier: list[Any], rng: random.Random) -> Iterator[Any]:
    """Actions that are not legal now: foreign values, malformed actions, an action of an earlier decision,
    a legal action altered."""
    yield object()
    yield None
    yield "no-such-action"
    yield ("no-such-action",)
    stale = [a for a in earlier if a not in legal]
    if stale:
        yield stale[rng.randrange(len(stale))]
    a = legal[rng.randrange(len(legal))]
    if isinstance(a, tuple) and a:
        altered = [a + ("extra",), a[:-1] + ("no-such-value",)]
        if isinstance(a[0], str):
            altered.append((a[0] + "-not", *a[1:]))
        yield from (bad for bad in altered if bad not in legal)


def check_illegal(state: Any, seats: list[str], earlier: list[Any], rng: random.Random, at: str) -> int:
    """2: every illegal candidate raises IllegalAction and changes nothing; how many were tried."""
    legal = state.legal_actions()
    before = view(state, seats)
    tried = []
    for bad in illegal_candidates(legal, earlier, rng):
        try:
            state.apply(bad)
        except IllegalAction:
            pass
        except Exception as exc:
            raise AssertionError(f"{at}: the illegal action {bad!r} raised {type(exc).__name__} ({exc}), "
                                 "not IllegalAction") from exc
        else:
            raise AssertionError(f"{at}: the illegal action {bad!r} was applied (legal: {legal[:8]!r})")
        tried.append(bad)
        quick = view(state, seats, whole=False)
        assert not changed(quick, before), f"{at}: refusing {bad!r} changed the match's {changed(quick, before)}"
    after = view(state, seats)
    assert not changed(before, after), (
        f"{at}: refusing the illegal actions {', '.join(repr(t) for t in tried)[:300]} changed the match's "
        f"{changed(before, after)}")
    return len(tried)


def check_clones(state: Any, seats: list[str], mode: Mode, cap: int, rng: random.Random, at: str) -> int:
    """3: two clones with one seed, played to the end with the same choices, take the same decisions and end
    alike, each showing at first what the match shows; the match is left as it was. The clone's steps."""
    before = view(state, seats)
    seed = rng.randrange(2**31)
    clone, twin = state.clone(seed), state.clone(seed)
    assert clone is not state and clone.rng is not state.rng, f"{at}: clone({seed}) is the match or shares its generator"
    shown = view(clone, seats, whole=False)
    for part in ("player to act", "legal actions", *(f"observation of {p}" for p in seats)):
        assert shown[part] == before[part], f"{at}: clone({seed}) shows another {part} than the match"
    choices, steps = rng.randrange(2**31), 0
    pick, pick_twin = random.Random(choices), random.Random(choices)
    while not clone.is_terminal():
        if steps >= cap:
            clone.stop("max_actions")
            twin.stop("max_actions")
            break
        legal = clone.legal_actions()
        assert (twin.current_player(), twin.legal_actions()) == (clone.current_player(), legal), (
            f"{at}: two clone({seed})s given the same choices part ways at their step {steps}")
        try:
            clone.apply(legal[pick.randrange(len(legal))])
            twin.apply(legal[pick_twin.randrange(len(legal))])
        except Exception as exc:
            raise AssertionError(f"{at}: clone({seed}) raised {type(exc).__name__} ({exc}) at its step {steps}") from exc
        steps += 1
    assert twin.is_terminal(), f"{at}: one clone({seed}) ended, its twin did not"
    check_outcome(clone.outcome(), mode, f"{at}, clone({seed}) at its end", steps >= cap)
    assert clone.outcome() == twin.outcome(), f"{at}: two clone({seed})s given the same choices end differently"
    after = view(state, seats)
    assert not changed(before, after), (
        f"{at}: playing a clone to its end changed the match's {changed(before, after)}")
    return steps


def check_isolation(state: Any, player: str, mode: Mode, rng: random.Random, at: str) -> int:
    """5: what the player to act is handed reaches nothing of the match nor anything it may not see, and stays
    the same when what it may not see changes; how many variants of the hidden information were compared."""
    observation = state.observation(player)
    assert missing_members(observation, Observation) == [], f"{at}: {player}'s observation has no sandbox (core protocol)"
    assert observation is not state, f"{at}: {player} is handed the match itself as its observation"
    hidden = mode.hidden(state, player)
    public = mode.public(observation)
    if suspects(observation, state, {id(c) for c in hidden}, public):
        # Something live, or an object the player may not see: the full check walks the match to say whose.
        found = leaks([observation], state, hidden, public)
        assert found == [], f"{at}: {player}'s observation reaches {found[:4]}"
    seen = value_of(observation)
    seed = rng.randrange(2**31)
    other = state.clone(seed)  # the same match with another generator: its future draws are hidden
    assert value_of(other.observation(player)) == seen, (
        f"{at}: {player}'s observation changes with the match generator (clone({seed}))")
    rehidden = mode.rehide(state, player, rng)
    if rehidden is None:
        return 1
    assert value_of(rehidden.observation(player)) == seen, (
        f"{at}: {player}'s observation changes when what it may not see changes ({mode.name} rehide)")
    return 2


# ------------------------------------------------------------------ tests


def test_every_registered_game_has_its_modes_declared() -> None:
    missing = sorted(set(GAMES) - set(MODES))
    assert not missing, (
        f"Games registered with the core but unknown to the consistency test: {missing}. The protocol cannot build "
        "a setup: add the game's modes to tests/engine/game_modes.py.")
    empty = sorted(game for game, modes in MODES.items() if game in GAMES and not modes)
    assert not empty, f"Games with no mode to check: {empty}"


@pytest.mark.parametrize("game, mode", cases())
def test_each_game_speaks_the_core_protocol(game: str, mode: Mode) -> None:
    rules = get_game(game)
    assert missing_members(rules, GameRules) == [], f"{game}: its RULES lack part of the GameRules protocol"
    _, seats, _, state = begin(game, mode, 0)
    assert missing_members(state, GameState) == [], f"{game} {mode.name}: its state lacks part of the GameState protocol"
    assert set(seats) <= set(rules.players), f"{game} {mode.name}: seats {seats} are not all among {rules.players}"
    assert sorted(state.agent_seeds) == sorted(seats), (
        f"{game} {mode.name}: agent seeds for {sorted(state.agent_seeds)}, not for the seats {sorted(seats)}")


def play_probed(game: str, mode: Mode, seed: int, state: Any, seats: list[str], cap: int,
                totals: dict[str, int]) -> tuple[int, list[Any]]:
    """1-3: random legal actions to the end or the cap, each decision checked and some probed (2, 3);
    the steps taken and the legal actions met."""
    choose, probe = random.Random(seed), random.Random(seed + 1_000_003)
    earlier: list[Any] = []
    step = 0
    while not state.is_terminal() and step < cap:
        at = f"{game} {mode.name}, seed {seed}, step {step}"
        player = state.current_player()
        assert player in seats, f"{at}: the player to act is {player!r}, not one of the seats {seats}"
        legal = state.legal_actions()
        assert legal, f"{at}: nothing is legal for {player} though the match is not over"
        assert len({repr(a) for a in legal}) == len(legal), f"{at}: the legal actions repeat one: {legal!r}"
        if step == 0 or probe.random() < PROBE_RATE:
            totals["illegal"] += check_illegal(state, seats, earlier, probe, at)
            totals["clone steps"] += check_clones(state, seats, mode, cap, probe, at)
            totals["probes"] += 1
        action = legal[choose.randrange(len(legal))]
        try:
            state.apply(action)
        except Exception as exc:
            raise AssertionError(f"{at}: {player}'s legal action {action!r} raised {type(exc).__name__} ({exc})") from exc
        earlier.extend(legal[:20])
        step += 1
    return step, earlier


def check_the_end(state: Any, mode: Mode, earlier: list[Any], at: str) -> Outcome:
    """1: the match, stopped at the cap if not over, has no one to act and nothing legal, refuses earlier
    actions and gives one of the game's results; that result."""
    stopped = not state.is_terminal()
    if stopped:  # the cap on actions, as the runner applies it
        state.stop("max_actions")
    assert state.is_terminal(), f"{at}: still not over after stop()"
    assert state.current_player() is None, f"{at}: over, yet {state.current_player()!r} is to act"
    assert state.legal_actions() == [], f"{at}: over, yet {state.legal_actions()[:5]!r} are legal"
    outcome = state.outcome()
    check_outcome(outcome, mode, at, stopped)
    for bad in (earlier[-1], earlier[0]):
        with pytest.raises(IllegalAction):
            state.apply(bad)
    return outcome


def check_the_log(state: Any, rules: GameRules, outcome: Outcome, at: str) -> list[dict[str, Any]]:
    """1: the match's log has only the game's declared fields and ends with its result; the log."""
    events = state.events()
    assert events, f"{at}: no event log though the match was started with keep_log"
    problems = schema_problems(events, rules.event_fields)
    assert not problems, f"{at}: events off the game's declared fields: {problems[:4]}"
    end = events[-1]
    logged = (None if end.get("winner") is None else str(end.get("winner")), end.get("reason"), end.get("rounds"))
    assert end["type"] == "match_end" and logged == (outcome.winner, outcome.reason, outcome.rounds), (
        f"{at}: the log ends with {end!r}, the result says {outcome.winner!r} by {outcome.reason!r} "
        f"after {outcome.rounds} rounds")
    return events


def check_the_replay(game: str, mode: Mode, seed: int, events: list[dict[str, Any]], at: str) -> None:
    """4: the same seed and choices, without the probes, give the identical log."""
    again = plain_log(game, mode, seed, seed)
    first = next((i for i, (x, y) in enumerate(zip(again, events, strict=False)) if x != y), None)
    assert again == events, (
        f"{at}: the same seed and choices without the probes give another log ({len(again)} events, not "
        f"{len(events)}; first difference at event {first})")


@pytest.mark.parametrize("game, mode", cases())
def test_random_play_is_consistent(game: str, mode: Mode) -> None:
    totals = {"decisions": 0, "illegal": 0, "probes": 0, "clone steps": 0}
    same: list[int] = []  # seeds whose log another seed does not change
    for seed in SEEDS:
        rules, seats, opts, state = begin(game, mode, seed)
        step, earlier = play_probed(game, mode, seed, state, seats, action_cap(opts), totals)
        at = f"{game} {mode.name}, seed {seed}, after {step} actions"
        outcome = check_the_end(state, mode, earlier, at)
        events = check_the_log(state, rules, outcome, at)
        # 4: the same seed and choices, without the probes, give the identical log.
        check_the_replay(game, mode, seed, events, at)
        # ... and another match seed, with the same setup and choices, another log (seeds aside), for most seeds.
        if without_seeds(plain_log(game, mode, seed, seed + OTHER_SEED)) == without_seeds(events):
            same.append(seed)
        totals["decisions"] += step
    assert len(same) <= (1 - MOST) * len(SEEDS), (
        f"{game} {mode.name}: seeds {same} give the same log (seeds aside) as seed + {OTHER_SEED}, with the same "
        "setup and choices")
    assert totals["decisions"] >= 20 * len(SEEDS), totals
    assert totals["probes"] >= len(SEEDS) and totals["illegal"] >= 5 * totals["probes"], totals


@pytest.mark.parametrize("game, mode", cases())
def test_every_observation_is_isolated(game: str, mode: Mode) -> None:
    decisions = variants = 0
    for seed in ISOLATION_SEEDS:
        _, seats, opts, state = begin(game, mode, seed, keep_log=False)
        choose, probe = random.Random(seed), random.Random(seed + 2_000_003)
        step, cap = 0, action_cap(opts)
        while not state.is_terminal() and step < cap:
            variants += check_isolation(state, state.current_player(), mode, probe,
                                        f"{game} {mode.name}, seed {seed}, step {step}")
            legal = state.legal_actions()
            state.apply(legal[choose.randrange(len(legal))])
            step += 1
        decisions += step
    assert decisions >= 20 * len(ISOLATION_SEEDS) and variants >= decisions


@pytest.mark.parametrize("game, mode", cases("sandbox"))
def test_a_sandbox_shows_its_player_what_the_match_shows(game: str, mode: Mode) -> None:
    # Observation.sandbox: "a copy of the match when nothing is hidden from the player, otherwise a
    # determinisation". Its player's observation of it is the observation it was built from.
    built = 0
    for seed in ISOLATION_SEEDS:
        _, _, opts, state = begin(game, mode, seed, keep_log=False)
        choose, step = random.Random(seed), 0
        while not state.is_terminal() and step < action_cap(opts):
            player = state.current_player()
            observation = state.observation(player)
            try:
                sandbox = observation.sandbox(seed + step)
            except ValueError:  # no look-ahead from this kind of decision
                sandbox = None
            if sandbox is not None:
                seen = value_of(sandbox.observation(player))
                assert seen == value_of(observation), (
                    f"{game} {mode.name}, seed {seed}, step {step}: {player}'s observation of sandbox({seed + step}) "
                    f"differs from the one it was built from in {differences(value_of(observation), seen)[:4]}")
                built += 1
            legal = state.legal_actions()
            state.apply(legal[choose.randrange(len(legal))])
            step += 1
    assert built >= 10 * len(ISOLATION_SEEDS)


def differences(a: Any, b: Any, path: str = "observation") -> list[str]:
    """Where two values (as `value_of` makes them) differ, as paths of attributes and indexes."""
    if a == b:
        return []
    if (isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b) == 2 and a[0] == b[0]
            and isinstance(a[1], tuple) and isinstance(b[1], tuple) and len(a[1]) == len(b[1])):
        out = []
        for i, (x, y) in enumerate(zip(a[1], b[1], strict=True)):
            if isinstance(x, tuple) and len(x) == 2 and isinstance(x[0], str) and x[0].startswith("."):
                out.extend(differences(x[1], y[1], path + x[0]))
            else:
                out.extend(differences(x, y, f"{path}[{i}]"))
        return out
    return [f"{path}: {a!r:.60} != {b!r:.60}"]


@pytest.mark.parametrize("game, mode", cases("legal list"))
def test_the_legal_actions_handed_out_are_the_callers(game: str, mode: Mode) -> None:
    # Whoever asks for the legal actions may keep or change the list it gets without changing the match.
    for seed in ISOLATION_SEEDS:
        _, _, opts, state = begin(game, mode, seed, keep_log=False)
        choose, step = random.Random(seed), 0
        while not state.is_terminal() and step < action_cap(opts):
            handed = state.legal_actions()
            legal = list(handed)
            handed.clear()
            assert state.legal_actions() == legal, (
                f"{game} {mode.name}, seed {seed}, step {step}: emptying the list legal_actions() returned emptied "
                "the match's legal actions")
            state.apply(legal[choose.randrange(len(legal))])
            step += 1


def emptying_choice(choose: random.Random, observation: Any, legal: list[Any]) -> Any:
    """A decider: a random legal action, the list it was handed emptied after the choice."""
    action = legal[choose.randrange(len(legal))]
    legal.clear()
    return action


@pytest.mark.parametrize("game, mode", cases())
def test_the_runners_step_plays_as_apply_does(game: str, mode: Mode) -> None:
    # The runner takes a decision through the state's `play_decision` (PlaysDecisions) when it has one, else
    # through its own step: the same choices must give the same log as `apply` does, and a decider that empties
    # the list of legal actions it was handed changes nothing of the match.
    for seed in SEEDS:
        logs = []
        for runner in (False, True):
            _, seats, opts, state = begin(game, mode, seed)
            choose, steps, cap = random.Random(seed), 0, action_cap(opts)

            step = getattr(state, "play_decision", None) or partial(_play_decision, state)
            deciders = dict.fromkeys(seats, partial(emptying_choice, choose))
            while not state.is_terminal() and steps < cap:
                if runner:
                    step(deciders)
                else:
                    legal = state.legal_actions()
                    state.apply(legal[choose.randrange(len(legal))] if len(legal) > 1 else legal[0])
                steps += 1
            logs.append(state.events())
        first = next((i for i, (x, y) in enumerate(zip(*logs, strict=False)) if x != y), None)
        assert logs[0] == logs[1], (
            f"{game} {mode.name}, seed {seed}: the runner's step and apply, given the same choices, log differently "
            f"from event {first} on")


# ------------------------------------------------------------------ the checks have teeth


def a_decision(game: str, mode: Mode, seed: int = 3, steps: int = 6) -> tuple[list[str], Any]:
    """A match of `mode` a few random actions in."""
    _, seats, _, state = begin(game, mode, seed)
    choose = random.Random(seed)
    for _ in range(steps):
        legal = state.legal_actions()
        state.apply(legal[choose.randrange(len(legal))])
    return seats, state


def test_a_state_digest_sees_a_change_deep_in_the_match() -> None:
    for game in sorted(GAMES):
        for mode in MODES.get(game, ()):
            seats, state = a_decision(game, mode)
            before = view(state, seats)
            assert not changed(before, view(state, seats)), f"{game} {mode.name}: a view changes by itself"
            clone = state.clone(1)
            assert state_digest(clone) != before["whole state"], f"{game} {mode.name}: a clone digests as the match"
            state.rng.random()  # the generator moves on: nothing else changes
            assert changed(before, view(state, seats)) == ["generator", "whole state"], f"{game} {mode.name}"
            before = view(state, seats)
            name = next(n for n in attribute_names(state)  # a list of the match's, in another order
                        if isinstance(getattr(state, n), list) and len(set(map(id, getattr(state, n)))) > 1)
            getattr(state, name).reverse()
            assert "whole state" in changed(before, view(state, seats)), f"{game} {mode.name}: {name} reversed"


def test_an_observation_holding_part_of_the_match_is_caught() -> None:
    realms, legends = MODES["realms"][0], MODES["legends"][0]
    _, state = a_decision("realms", realms)
    player = state.current_player()
    observation = state.observation(player)
    assert suspects(observation, state, set(), []) == []
    leaky = observation.replaced(targets=(*observation.targets, state.units[0]))
    assert suspects(leaky, state, set(), []) and leaks([leaky], state)
    _, state = a_decision("legends", legends)
    player = state.current_player()
    observation = state.observation(player)
    hidden = {id(c) for c in legends.hidden(state, player)}
    public = legends.public(observation)
    assert hidden and suspects(observation, state, hidden, public) == []
    other = next(s for s in state.seats if s.pid != player)
    assert suspects(observation._replace(hand=observation.hand + tuple(other.hand)), state, hidden, public)
    assert suspects(observation._replace(discard=state.discard), state, hidden, public)
