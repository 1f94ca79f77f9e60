"""Echo Realms rules that span several cards: army and formation legality, army codes."""

from __future__ import annotations

from collections.abc import Iterable

from cardsdb.models import Collection
from realms import selectors
from realms.engine.army import (
    ArmyCard,
    Deployment,
    Slot,
    army_counts,
    decode_army,
    encode_army,
    validate_army,
    validate_formation,
)
from realms.engine.vocabulary import ARMY_SIZE


def army_report(
    *, slots: list[Slot], cards: dict[str, ArmyCard], owned: dict[str, int] | None = None
) -> dict:
    """Validity, every violation, the counts and (when every card is known) the army code."""
    violations = validate_army(slots, cards, owned)
    all_known = all(slot.card in cards for slot in slots)
    code = encode_army([(cards[s.card].id, s.line) for s in slots]) if all_known and slots else None
    return {
        "valid": not violations,
        "violations": [v.as_dict() for v in violations],
        "counts": army_counts(slots, cards),
        "code": code,
    }


def army_validate(*, slots: list[Slot], collection: Collection | None = None) -> dict:
    """Check an army against R1–R5 (and R4 when a collection is given)."""
    cards = selectors.army_cards(slugs=[s.card for s in slots])
    return army_report(slots=slots, cards=cards, owned=selectors.owned_quantities(collection))


def army_from_code(code: str) -> list[Slot]:
    """Decode an army code into slots; ids no longer in the catalogue become '#<id>' (unknown cards)."""
    entries = decode_army(code)
    by_id = {card.id: card.slug for card in selectors.army_cards(ids=[i for i, _ in entries]).values()}
    return [Slot(by_id.get(card_id, f"#{card_id}"), line) for card_id, line in entries]


def formation_validate(
    *, first: str, deployments: list[Deployment], collections: dict[str, Collection | None] | None = None
) -> dict:
    """Replay a Formation Round (R6): each step's legality, and the armies it builds."""
    collections = collections or {}
    # The whole catalogue: whether an army can still be completed depends on every card left.
    cards = selectors.army_cards()
    pools = {}
    for player in ("a", "b"):
        owned = selectors.owned_quantities(collections.get(player))
        pools[player] = [card for slug, card in cards.items() if owned is None or owned.get(slug, 0) > 0]
    steps, armies = validate_formation(first, deployments, cards, pools)
    complete = all(len(army) == ARMY_SIZE for army in armies.values())
    return {
        "valid": all(step.legal for step in steps),
        "complete": complete,
        "steps": [
            {
                "index": step.index,
                "player": step.deployment.player,
                "card": step.deployment.card,
                "line": step.deployment.line,
                "legal": step.legal,
                "violations": [v.as_dict() for v in step.violations],
            }
            for step in steps
        ],
        "armies": {
            player: {
                "slots": [{"card": s.card, "line": s.line} for s in army],
                "code": encode_army([(cards[s.card].id, s.line) for s in army]) if len(army) == ARMY_SIZE else None,
            }
            for player, army in armies.items()
        },
    }


def slots_from_data(data: Iterable[dict]) -> list[Slot]:
    return [Slot(card=item["card"], line=item["line"]) for item in data]
