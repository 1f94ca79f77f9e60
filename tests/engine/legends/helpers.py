"""Shared helpers of the Akin Legends engine tests: the official catalogue, setups, rigged hands."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from legends.engine.cards import SummoningCard, load_fixture_catalogue, parse_catalogue
from legends.engine.game import new_match
from legends.engine.state import LegendsState

ROOT = Path(__file__).resolve().parents[3]
FIXTURE = ROOT / "fixtures" / "legends_official.json"

# Neutral protectors for showdown scenarios: they touch redraws and hands, never the showdown.
NEUTRAL = ("wanderer", "archivist")
TEAM0_DEFENSES = ("mud-bastion", "mist-curtain", "dust-tower")  # water+earth, water+air, earth+air
TEAM1_DEFENSES = ("steam-wall", "magma-rampart", "sandstorm-keep")  # fire+water, fire+earth, air+earth


@functools.cache
def official() -> dict[str, Any]:
    """The catalogue part of a setup, built from fixtures/legends_official.json."""
    return load_fixture_catalogue(FIXTURE)


@functools.cache
def designs() -> dict[str, SummoningCard]:
    """The official summoning card designs by slug."""
    return {c.slug: c for c in parse_catalogue(official()).designs}


def find(kind: str, element: str, attack: str | None = None, exclude: Iterable[str] = ()) -> str:
    """The slug of the first official design with that effect (and that attack element, if given)."""
    skip = set(exclude)
    for card in designs().values():
        if (card.kind == kind and card.element == element and card.slug not in skip
                and (attack is None or attack in card.attacks)):
            return card.slug
    raise LookupError((kind, element, attack))


def attacker(element: str, exclude: Iterable[str] = ()) -> str:
    """A card that can attack with `element` and whose own effect is of another element."""
    skip = set(exclude)
    for card in designs().values():
        if element in card.attacks and card.element != element and card.slug not in skip:
            return card.slug
    raise LookupError(element)


def teams_setup(
    protectors: Sequence[str | None] = NEUTRAL,
    defenses: Sequence[Sequence[str] | None] = (TEAM0_DEFENSES, TEAM1_DEFENSES),
    counters: Sequence[int] = (1, 3, 2, 4),
    names: Sequence[str] = ("Ann", "Ben", "Cat", "Dan"),
) -> dict[str, Any]:
    """A teams-mode setup (team 0: Ann, Ben; team 1: Cat, Dan) on the official catalogue."""
    return {
        "mode": "teams",
        "catalogue": official(),
        "teams": [
            {"spirit": "akin", "protector": protectors[0],
             "defenses": list(defenses[0]) if defenses[0] is not None else None,
             "players": [{"name": names[0], "counter": counters[0]}, {"name": names[1], "counter": counters[1]}]},
            {"spirit": "yulin", "protector": protectors[1],
             "defenses": list(defenses[1]) if defenses[1] is not None else None,
             "players": [{"name": names[2], "counter": counters[2]}, {"name": names[3], "counter": counters[3]}]},
        ],
    }


def duel_setup(
    protectors: Sequence[str | None] = NEUTRAL,
    defenses: Sequence[Sequence[str] | None] = (TEAM0_DEFENSES[:2], TEAM1_DEFENSES[:2]),
    counters: Sequence[int] = (1, 2),
) -> dict[str, Any]:
    """A duel setup (Ann against Cat) on the official catalogue."""
    return {
        "mode": "duel",
        "catalogue": official(),
        "teams": [
            {"spirit": "akin", "protector": protectors[0],
             "defenses": list(defenses[0]) if defenses[0] is not None else None,
             "players": [{"name": "Ann", "counter": counters[0]}]},
            {"spirit": "yulin", "protector": protectors[1],
             "defenses": list(defenses[1]) if defenses[1] is not None else None,
             "players": [{"name": "Cat", "counter": counters[1]}]},
        ],
    }


def rigged(setup: dict[str, Any], hands: Mapping[str, Sequence[str]], seed: int = 7, **options: Any) -> LegendsState:
    """A new match whose players hold exactly the given cards (other players keep their deal)."""
    state = new_match(setup, seed=seed, options=options or None)
    for pid, slugs in hands.items():
        state.by_pid[pid].hand = [designs()[s] for s in slugs]
    state.legal = None
    return state


def redraw(state: LegendsState) -> tuple:
    """The current player's first legal redraw (a filler turn that leaves the showdown alone)."""
    return next(a for a in state.legal_actions() if a[0] == "redraw")


def play(state: LegendsState, *actions: Any) -> None:
    """Apply turns in order; None stands for a filler redraw."""
    for action in actions:
        state.apply(redraw(state) if action is None else action)


def of_type(state: LegendsState, kind: str, round_: int | None = None) -> list[dict[str, Any]]:
    """The logged events of one type (of one round)."""
    return [e for e in state.events() if e["type"] == kind and (round_ is None or e.get("round") == round_)]


def defense(state: LegendsState, slug: str) -> Any:
    """A defense in play by slug."""
    return next(d for team in state.defenses for d in team if d.slug == slug)


def small_deck(cards: int) -> dict[str, Any]:
    """The official catalogue with a deck of `cards` cards (its first designs, one copy each): the piles run
    low, so refills come in the middle of redraws and redraws fall short (L8)."""
    return {**official(), "deck": [{**card, "copies": 1} for card in official()["deck"][:cards]]}
