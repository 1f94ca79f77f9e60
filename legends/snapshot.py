"""Akin Legends catalogue rows as the engine's catalogue (plain data, then parsed once per match or study),
and what an Akin Legends match or study seats when its request names no agents or players."""

from __future__ import annotations

from typing import Any

from cardsdb.models import Release
from legends import selectors
from legends.engine.cards import Catalogue, parse_catalogue
from legends.engine.vocabulary import MODES, TEAM_COUNT
from legends.models import DefenseCard, Protector, Spirit, SummoningCard
from simulate.engine.errors import InputError

TEAMS = tuple(range(TEAM_COUNT))  # team 0 first
DEFAULT_AGENT = "greedy"
# A study's matches vary with their seed, so that a pairing is a spread of plausible games, not one game replayed.
STUDY_AGENT = "softmax"


def protector_entry(p: Protector) -> dict[str, Any]:
    return {"slug": p.slug, "name": p.name, "effect": p.effect, "duel_legal": p.duel_legal}


def design_entry(c: SummoningCard) -> dict[str, Any]:
    return {"slug": c.slug, "name": c.name, "attacks": [c.attack_1.slug, c.attack_2.slug],
            "effect": {"kind": c.effect_kind, "element": c.effect_element.slug}, "copies": c.copies}


def catalogue_raw(release: Release | None = None) -> dict[str, Any]:
    """The Akin Legends catalogue as plain data, as `parse_catalogue` takes it (five queries); with `release`,
    its cards as that release froze them (the elements are not versioned: as they are)."""
    if release is None:
        spirits, protectors = selectors.spirit_list(), selectors.protector_list()
        defenses, deck = selectors.defense_list(), selectors.summoning_card_list()
    else:
        spirits, protectors = (selectors.cards_as_of(model, release) for model in (Spirit, Protector))
        defenses = selectors.cards_as_of(DefenseCard, release).select_related("element_1", "element_2")
        deck = selectors.cards_as_of(SummoningCard, release).select_related("attack_1", "attack_2", "effect_element")
    return {
        "elements": [element.slug for element in selectors.element_list()],
        "spirits": [{"slug": s.slug, "name": s.name} for s in spirits],
        "protectors": [protector_entry(p) for p in protectors],
        "defenses": [{"slug": d.slug, "name": d.name, "elements": [d.element_1.slug, d.element_2.slug]} for d in defenses],
        "deck": [design_entry(c) for c in deck],
    }


def catalogue_snapshot() -> Catalogue:
    """The Akin Legends catalogue as the engine's frozen catalogue (five queries, whatever its size), parsed
    once for every match it serves."""
    return parse_catalogue(catalogue_raw())


def seat_agents(agents: str | list[str] | None, players: int) -> list[str]:
    """One agent name per player: the names given, or one name for every seat."""
    if agents is None or isinstance(agents, str):
        return [agents or DEFAULT_AGENT] * players
    if len(agents) != players:
        raise InputError(f"Give {players} agents (one per player) or one name for every seat.",
                         [("agents", f"expected {players} names, got {len(agents)}")])
    return list(agents)


def legal_players(mode: str) -> list[list[dict[str, Any]]]:
    """Each team's players with legal counters (L5): 1 and 3 against 2 and 4, or 1 against 2 in a duel."""
    rules = MODES[mode]
    per_team = rules.players_per_team
    return [[{"name": f"Player {team * per_team + i + 1}", "counter": rules.seat_counter(team, i)}
             for i in range(per_team)]
            for team in TEAMS]
