"""Every card of the official starter set uses its main ability and fires its faction ability in play."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from realms.engine.cards import CharacterCard, cards_from_fixture
from realms.engine.formation import legal_deployments, line_allows, random_army
from simulate.engine.runner import play_match

STARTER = Path(__file__).resolve().parents[2] / "fixtures" / "realms_starter.json"
CARDS = cards_from_fixture(json.loads(STARTER.read_text()))
MAX_TRIES = 80


def army_with(card: CharacterCard, rng: random.Random) -> list[tuple[CharacterCard, str]]:
    """A legal army holding `card`, filled from its own faction first (faction conditions need allies)."""
    faction = [c for c in CARDS if c.faction == card.faction]
    line = rng.choice([ln for ln in ("vanguard", "rearguard") if line_allows(card.position, ln)])
    army = [(card, line)]
    while len(army) < 7:
        pool = faction if legal_deployments(army, faction) else CARDS
        _, slug, line = rng.choice(legal_deployments(army, pool))
        army.append((next(c for c in CARDS if c.slug == slug), line))
    return army


@pytest.mark.parametrize("card", CARDS, ids=[c.slug for c in CARDS])
def test_the_card_uses_its_main_ability_and_fires_its_faction_ability(card: CharacterCard) -> None:
    rng = random.Random(card.slug)
    used = fired = False
    for seed in range(MAX_TRIES):
        army = army_with(card, rng)
        result = play_match(
            "realms", setup={"armies": {"a": army, "b": random_army(CARDS, rng)}},
            agents={"a": "random" if seed % 2 else "greedy", "b": "greedy"}, seed=seed,
        )
        unit = next(u["id"] for u in result.events[0]["units"] if u["side"] == "a" and u["card"] == card.slug)
        used |= any(e["type"] == "ability_used" and e["unit"] == unit for e in result.events)
        fired |= any(e["type"] == "faction_triggered" and e["unit"] == unit for e in result.events)
        if used and fired:
            break
    assert used, f"{card.name} never used {card.main.name} in {MAX_TRIES} matches"
    assert fired, f"{card.name} never fired {card.faction_ability.name} in {MAX_TRIES} matches"
