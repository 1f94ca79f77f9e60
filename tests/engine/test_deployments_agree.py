"""The legal deployments, counted once per slot, are exactly what `deployment_problems` (which asks `can_complete`
card by card) allows: over random partial armies of random collections, small ones and duplicates included, and
random legal armies drawn with them stay the ones drawn before (their first seeds' armies are pinned)."""

import random

from realms.engine.formation import deployment_problems, legal_deployments, random_army
from realms.engine.vocabulary import LINES
from tests.engine.cardset import all_cards


def partial_armies(rng: random.Random, cards: list) -> list:
    """A random collection (sometimes small, sometimes with a card twice) and a random legal start of an army."""
    size = rng.choice((8, 12, 20, len(cards)))
    collection = rng.sample(cards, min(size, len(cards)))
    if rng.random() < 0.3:
        collection.append(collection[0])
    army: list = []
    for _ in range(rng.randrange(7)):
        options = legal_deployments(army, collection)
        if not options:
            break
        _, slug, line = options[rng.randrange(len(options))]
        army.append((next(c for c in collection if c.slug == slug), line))
    return [collection, army]


def test_the_legal_deployments_are_those_no_rule_forbids():
    cards = all_cards()
    rng = random.Random(7)
    checked = 0
    for _ in range(400):
        collection, army = partial_armies(rng, cards)
        offered = set(legal_deployments(army, collection))
        allowed = {("deploy", card.slug, line) for card in {c.slug: c for c in collection}.values() for line in LINES
                   if not deployment_problems(army, collection, card, line)}
        assert offered == allowed, ([(c.slug, ln) for c, ln in army], offered ^ allowed)
        checked += len(allowed)
    assert checked > 2000


def test_random_armies_are_drawn_as_before():
    cards = all_cards()
    drawn = [[(card.slug, line) for card, line in random_army(cards, random.Random(f"field:{seed}"))]
             for seed in range(3)]
    assert [len(army) for army in drawn] == [7, 7, 7]
    assert drawn == PINNED, drawn


# Drawn by the implementation that asked `can_complete` for each candidate: the counts change the speed only.
PINNED = [
    [("orc-warrior", "vanguard"), ("elven-archer", "rearguard"), ("goblin-hexer", "rearguard"),
     ("azrakor-lord-of-the-abyss", "vanguard"), ("war-chief", "vanguard"), ("frost-weaver", "rearguard"),
     ("shadow-assassin", "vanguard")],
    [("war-chief", "vanguard"), ("iron-guardian", "vanguard"), ("dwarf-bulwark", "vanguard"),
     ("frost-weaver", "rearguard"), ("elven-archer", "rearguard"), ("orc-warrior", "vanguard"),
     ("jofrey-hammer-of-justice", "vanguard")],
    [("orc-warrior", "vanguard"), ("shadow-assassin", "rearguard"), ("city-watch", "vanguard"),
     ("plague-doctor", "rearguard"), ("azrakor-lord-of-the-abyss", "vanguard"), ("stone-troll", "vanguard"),
     ("dwarf-bulwark", "vanguard")],
]
