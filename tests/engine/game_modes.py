"""What the game consistency test (test_game_consistency.py) needs of each registered game that the core's
protocol (`simulate.engine.games`) does not declare: a setup for each mode, the winners and end reasons a
finished match may report, the objects a player may not see and a copy of a match with its hidden
information changed.

A game registered in `GAMES` without an entry in `MODES` makes the consistency test fail, naming it.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from legends.engine.showdown import Play
from realms.engine.cards import CharacterCard, cards_from_fixture
from realms.engine.formation import random_army
from tests.engine.legends.helpers import duel_setup, teams_setup
from tests.engine.legends.test_hidden import hidden_from, unique_catalogue
from tests.engine.test_agent_isolation import (
    FIXTURE,
    legends_hidden,
    legends_skip,
    realms_collections,
    realms_hidden,
)


@dataclass(frozen=True)
class Mode:
    """One way a game's matches start, and what the protocol does not say about them."""

    name: str
    setup: Callable[[int], Any]  # the setup of the match of a seed (a fresh value each call)
    options: Callable[[int], dict[str, Any]]  # its options, before the game's validation
    winners: frozenset[str]  # Outcome.winner of a won match (None is a draw)
    reasons: frozenset[str]  # Outcome.reason of a match played to its end (the runner's caps aside)
    hidden: Callable[[Any, str], list[Any]]  # (state, player) -> the objects the player may not see
    public: Callable[[Any], list[Any]]  # observation -> public card containers not searched for hidden objects
    # (state, player, rng) -> a copy of the match with what the player cannot see changed (None: nothing to change
    # but the match generator, which the test changes itself through `clone`)
    rehide: Callable[[Any, str, random.Random], Any | None]
    # Deviations of the engine known to a check of the consistency test, by check: that check is an expected
    # failure for this mode (strict: it fails once the engine is fixed, to have the entry removed).
    known: dict[str, str] = field(default_factory=dict)


# ------------------------------------------------------------------ Echo Realms


@functools.cache
def starter() -> tuple[CharacterCard, ...]:
    """The official Echo Realms starter set."""
    return tuple(cards_from_fixture(FIXTURE))


def realms_armies(seed: int) -> dict[str, Any]:
    """Two random legal armies of the starter set, drawn from the seed (as bench/log_digest.py does)."""
    cards = list(starter())
    rng = random.Random(seed)
    return {"armies": {"a": random_army(cards, rng), "b": random_army(cards, rng)}}


def realms_formation(seed: int) -> dict[str, Any]:
    """Two collections for a Formation Round, each of its own card objects (halves of the starter set)."""
    return {"collections": realms_collections()}


def realms_options(seed: int) -> dict[str, Any]:
    """Both tie-break rules, the first player drawn by the match generator."""
    return {"tie_break": ("random", "alternate")[seed % 2], "first_player": "random"}


def realms_rehide(state: Any, player: str, rng: random.Random) -> Any | None:
    """In the Formation Round, a copy of the match in which the other player's undeployed collection is other
    cards (fresh objects, another order); after it, everything but the generator is public."""
    if state.phase() != "formation":
        return None
    other = "b" if player == "a" else "a"
    copy = state.clone(rng.randrange(2**31))
    deployed = [card for card, _ in copy.deployed[other]]
    shown = {c.slug for c in deployed}
    rest = [c for c in cards_from_fixture(FIXTURE) if c.slug not in shown]  # new card objects
    rng.shuffle(rest)
    copy.collections = dict(copy.collections)  # a clone shares the collections dict with its match
    copy.collections[other] = deployed + rest[: rng.randrange(1, len(rest) + 1)]
    return copy


REALMS_WINNERS = frozenset({"a", "b"})
REALMS_REASONS = frozenset({"elimination", "mutual_elimination", "max_rounds"})
REALMS_KNOWN: dict[str, str] = {}


# ------------------------------------------------------------------ Akin Legends


def legends_setup(mode: str) -> Callable[[int], dict[str, Any]]:
    """A teams or duel setup whose protectors and defenses the match generator draws (L6), on the official
    catalogue with one copy of each design (a card object is then one physical card)."""

    def build(seed: int) -> dict[str, Any]:
        setup = (teams_setup if mode == "teams" else duel_setup)(protectors=(None, None), defenses=(None, None))
        setup["catalogue"] = unique_catalogue()
        return setup

    return build


def legends_options(seed: int) -> dict[str, Any]:
    """The default options."""
    return {}


def legends_hidden_plays(copy: Any, player: str, team: Any) -> list[int]:
    """The indices of the plays `player` cannot see: the others' face-down cards no Spy showed `team`."""
    if copy.phase() != "play":
        return []
    return [i for i, p in enumerate(copy.plays)
            if not p.face_up and p.pid != player and p.seq not in copy.known[team]]


def legends_redeal_plays(copy: Any, hidden_plays: list[int], pool: list[Any], rng: random.Random) -> None:
    """Deals a card from `pool` to each of `hidden_plays`, each a new `Play` (a clone shares its plays)."""
    for i in hidden_plays:
        p = copy.plays[i]
        card = pool.pop()
        element = card.attacks[rng.randrange(2)] if p.orientation == "attack" else card.element
        copy.plays[i] = Play(p.seq, p.seat, p.pid, p.team, p.face_up, p.orientation, card, element)


def legends_rehide(state: Any, player: str, rng: random.Random) -> Any:
    """A copy of the match in which every card `player` cannot see is dealt again at random: the other hands
    (teammates' too), the draw pile and, during the turns, the other players' face-down cards no Spy showed its
    team (each a new `Play`: a clone shares its plays with the match)."""
    copy = state.clone(rng.randrange(2**31))
    team = copy.by_pid[player].team
    others = [s for s in copy.seats if s.pid != player]
    hidden_plays = legends_hidden_plays(copy, player, team)
    pool = [c for s in others for c in s.hand] + list(copy.draw) + [copy.plays[i].card for i in hidden_plays]
    assert {c.slug for c in pool} == hidden_from(state, player), "the cards re-dealt are the hidden ones"
    rng.shuffle(pool)
    for seat in others:
        seat.hand = [pool.pop() for _ in seat.hand]
    legends_redeal_plays(copy, hidden_plays, pool, rng)
    copy.draw = pool
    return copy


LEGENDS_WINNERS = frozenset({"0", "1"})
LEGENDS_REASONS = frozenset({"defenses_destroyed", "mutual_destruction", "max_rounds"})
LEGENDS_KNOWN: dict[str, str] = {}


MODES: dict[str, tuple[Mode, ...]] = {
    "realms": (
        Mode("armies", realms_armies, realms_options, REALMS_WINNERS, REALMS_REASONS, realms_hidden,
             lambda obs: [], realms_rehide, REALMS_KNOWN),
        Mode("formation", realms_formation, realms_options, REALMS_WINNERS, REALMS_REASONS, realms_hidden,
             lambda obs: [], realms_rehide, REALMS_KNOWN),
    ),
    "legends": tuple(
        Mode(name, legends_setup(name), legends_options, LEGENDS_WINNERS, LEGENDS_REASONS, legends_hidden,
             legends_skip, legends_rehide, LEGENDS_KNOWN)
        for name in ("teams", "duel")
    ),
}
