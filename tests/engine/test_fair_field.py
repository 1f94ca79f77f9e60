"""A fair field: the random armies and setups of field studies and random matches give every card the same
chance (within its rarity's slots for Echo Realms), checked card by card with an exact binomial test.

An Echo Realms army is drawn slot by slot, and its line capacities leave a small residual: over 20,000 armies of
the starter set, rearguard-only cards come a few percent under their rarity's rate and Flex cards a few percent
over (docs/simulate.md). ARMIES draws tell rates some 25% off (the old draw put Flex cards 60% to 80% over) from
fair, not this residual; `flex_ratio` bounds what is left of the Flex bias."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from scipy.stats import binomtest

from legends.engine.cards import load_fixture_catalogue, parse_catalogue
from legends.engine.start import normalize_setup
from legends.engine.vocabulary import MODES
from realms.engine.cards import CharacterCard, cards_from_fixture
from realms.engine.formation import legal_deployments, random_army
from realms.engine.vocabulary import ARMY_SIZE, RARITY_QUOTA

ROOT = Path(__file__).resolve().parents[2]
CARDS = sorted(cards_from_fixture(json.loads((ROOT / "fixtures" / "realms_starter.json").read_text())),
               key=lambda card: card.slug)
CATALOGUE = parse_catalogue(load_fixture_catalogue(ROOT / "fixtures" / "legends_official.json"))
ARMIES = 3000  # enough to see the old draw's Flex bias (a Flex card 1.6 to 1.8 times as often) many times over
FAMILY_ALPHA = 0.01  # for all the cards together: each card's test at FAMILY_ALPHA / cards (Bonferroni)

Army = list[tuple[CharacterCard, str]]


def old_random_army(cards: Sequence[CharacterCard], rng: random.Random) -> Army:
    """The draw random armies used to make: each legal (card, line) deployment equally likely, so that a Flex
    card, which has two lines, was drawn about twice as often as a card with one."""
    by_slug = {card.slug: card for card in cards}
    army: Army = []
    while len(army) < ARMY_SIZE:
        options = legal_deployments(army, cards)
        _, slug, line = options[rng.randrange(len(options))]
        army.append((by_slug[slug], line))
    return army


def appearances(draw: Callable[[Sequence[CharacterCard], random.Random], Army]) -> Counter[str]:
    """Armies (of ARMIES drawn with a fixed seed) that field each card."""
    rng = random.Random(20261205)
    seen: Counter[str] = Counter()
    for _ in range(ARMIES):
        seen.update(card.slug for card, _ in draw(CARDS, rng))
    return seen


def expected_rate(card: CharacterCard) -> float:
    """A card's chance to be in an army when each card of its rarity is equally likely: its rarity's slots over
    its rarity's cards."""
    return RARITY_QUOTA[card.rarity] / sum(1 for other in CARDS if other.rarity == card.rarity)


def rejected(seen: Counter[str], draws: int, expected: dict[str, float]) -> list[str]:
    """The members whose count the exact binomial test rejects against its expected rate (Bonferroni)."""
    alpha = FAMILY_ALPHA / len(expected)
    return [slug for slug, rate in expected.items() if binomtest(seen[slug], draws, rate).pvalue < alpha]


def flex_ratio(seen: Counter[str]) -> float:
    """The mean rate of Flex cards over that of the other cards, each relative to its rarity's expected rate."""
    def relative(flex: bool) -> float:
        rates = [seen[c.slug] / ARMIES / expected_rate(c) for c in CARDS if (c.position == "flex") == flex]
        return sum(rates) / len(rates)

    return relative(True) / relative(False)


def test_the_starter_set_has_flex_cards_to_be_fair_to() -> None:
    assert sum(card.position == "flex" for card in CARDS) >= 5


def test_random_armies_field_every_card_as_often_as_its_rarity_allows() -> None:
    seen = appearances(random_army)
    assert rejected(seen, ARMIES, {card.slug: expected_rate(card) for card in CARDS}) == []
    assert 0.9 < flex_ratio(seen) < 1.15


def test_the_same_test_rejects_the_old_draw_that_favoured_flex_cards() -> None:
    seen = appearances(old_random_army)
    flagged = rejected(seen, ARMIES, {card.slug: expected_rate(card) for card in CARDS})
    assert {card.slug for card in CARDS if card.position == "flex"} <= set(flagged)
    assert flex_ratio(seen) > 1.5


def legends_draws(mode: str, draws: int) -> tuple[Counter[str], Counter[str]]:
    """Protectors and defense cards fielded by the teams of `draws` setups whose cards are drawn (L6)."""
    rules = MODES[mode]
    rng = random.Random(7)
    protectors: Counter[str] = Counter()
    defenses: Counter[str] = Counter()
    for _ in range(draws):
        teams: list[dict[str, Any]] = [
            {"spirit": spirit, "players": [{"name": f"P{t}{k}", "counter": rules.seat_counter(t, k)}
                                           for k in range(rules.players_per_team)]}
            for t, spirit in enumerate(rng.sample(list(CATALOGUE.spirits), 2))]
        start = normalize_setup({"mode": mode, "teams": teams, "catalogue": CATALOGUE}, rng)
        for team in start.teams:
            protectors[team.protector.slug] += 1
            defenses.update(card.slug for card in team.defenses)
    return protectors, defenses


def test_random_akin_legends_setups_field_every_protector_and_defense_alike() -> None:
    draws = 2000
    for mode in ("teams", "duel"):
        rules = MODES[mode]
        legal = [slug for slug, card in CATALOGUE.protectors.items() if mode == "teams" or card.duel_legal]
        protectors, defenses = legends_draws(mode, draws)
        assert set(protectors) == set(legal)
        # Two teams a match, each drawing from what the other left: every card is in a match's teams alike.
        assert rejected(protectors, draws, dict.fromkeys(legal, 2 / len(legal))) == []
        per_defense = 2 * rules.defenses_per_team / len(CATALOGUE.defenses)
        assert rejected(defenses, draws, dict.fromkeys(CATALOGUE.defenses, per_defense)) == []
