"""Echo Realms rules that span several cards: army and formation legality, army codes."""

from __future__ import annotations

from collections.abc import Iterable

from cardsdb.models import Collection, Release
from realms import selectors
from realms.decklists import DecklistCard, read_decklist, write_decklist
from realms.engine.army import (
    LEGACY_CODE_VERSION,
    ArmyCard,
    ArmyCodeError,
    Deployment,
    Slot,
    army_counts,
    decode_army_code,
    encode_army_v3,
    validate_army,
    validate_formation,
)
from realms.engine.army_stats import StatCard, army_stats
from realms.engine.vocabulary import ARMY_SIZE
from realms.models import Character


def army_report(
    *, slots: list[Slot], cards: dict[str, ArmyCard], owned: dict[str, int] | None = None,
    stat_cards: dict[str, StatCard] | None = None,
) -> dict:
    """Validity, every violation, the counts, the statistics and (when every card is known) the army code."""
    violations = validate_army(slots, cards, owned)
    all_known = all(slot.card in cards for slot in slots)
    code = _army_code(slots, cards) if all_known and slots else None
    return {
        "valid": not violations,
        "violations": [v.as_dict() for v in violations],
        "counts": army_counts(slots, cards),
        "code": code,
        "stats": army_statistics(slots=slots, stat_cards=stat_cards),
    }


def army_validate(*, slots: list[Slot], collection: Collection | None = None, release: Release | None = None) -> dict:
    """Check an army against R1–R5 (and R4 when a collection is given); with `release`, each card as that
    release froze it (a card it did not hold is unknown)."""
    slugs = [s.card for s in slots]
    cards = selectors.army_cards(slugs=slugs, release=release)
    stat_cards = selectors.stat_cards(slugs=slugs, release=release) if release is not None else None
    return army_report(slots=slots, cards=cards, owned=selectors.owned_quantities(collection), stat_cards=stat_cards)


def _army_code(slots: list[Slot], cards: dict[str, ArmyCard]) -> str:
    """The army code of slots whose cards are all known: version 3, in army order (it settles R9 ties)."""
    return encode_army_v3([(cards[s.card].code, s.line) for s in slots])


def army_decode(code: str) -> tuple[int, list[Slot]]:
    """The version of an army code and its slots in the code's order: army order for version 3, the order it
    was written in for version 1, canonical order (by card code, then line) for version 2; ArmyCodeError for a
    code that does not decode or names a card this catalogue does not have."""
    version, entries = decode_army_code(code)
    found = _slugs_named(version, entries)
    missing = sorted(name for name, slug in found.items() if slug is None)
    if missing:
        raise ArmyCodeError(f"The code names cards this catalogue does not have: {', '.join(missing)}.")
    names = [_entry_name(version, key) for key, _ in entries]
    return version, [Slot(found[name] or "", line) for name, (_, line) in zip(names, entries, strict=True)]


def _entry_name(version: int, key: int | str) -> str:
    """How an entry of a code names its card: `#<id>` in a version 1 code, its card code after."""
    return f"#{key}" if version == LEGACY_CODE_VERSION else str(key)


def _slugs_named(version: int, entries: list[tuple[int | str, str]]) -> dict[str, str | None]:
    """The slug of each card a code names, by the entry's name (None for a card this catalogue does not have):
    version 1 names cards by id, later versions by card code."""
    if version == LEGACY_CODE_VERSION:
        by_id = {card.id: card.slug for card in selectors.army_cards(ids=[i for i, _ in entries]).values()}
        return {f"#{key}": by_id.get(key) for key, _ in entries if isinstance(key, int)}
    by_code = {card.code: card.slug for card in selectors.army_cards(codes=[c for c, _ in entries]).values()}
    return {str(key): by_code.get(str(key)) for key, _ in entries}


def army_from_code(code: str) -> list[Slot]:
    """The slots of an army code in the code's order (as `army_decode`): what a match plays."""
    return army_decode(code)[1]


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
                "code": _army_code(army, cards) if len(army) == ARMY_SIZE else None,
            }
            for player, army in armies.items()
        },
    }


def slots_from_data(data: Iterable[dict]) -> list[Slot]:
    return [Slot(card=item["card"], line=item["line"]) for item in data]


def army_statistics(*, slots: list[Slot], stat_cards: dict[str, StatCard] | None = None) -> dict:
    """Counts by faction, class and line, stat sums and means, the attack-order preview (R9)."""
    if stat_cards is None:
        stat_cards = selectors.stat_cards(slugs=[s.card for s in slots])
    return army_stats(slots, stat_cards)


def _decklist_cards() -> list[DecklistCard]:
    return [DecklistCard(row["slug"], row["name"], row["position"]) for row in selectors.decklist_cards()]


def army_import(text: str) -> dict:
    """A plain-text decklist read into slots, its problems by line, the code (a complete army only) and the
    validation report of the slots read."""
    slots, problems = read_decklist(text, _decklist_cards())
    report = army_validate(slots=slots)
    return {
        "slots": [{"card": s.card, "line": s.line} for s in slots],
        "code": report["code"] if len(slots) == ARMY_SIZE else None,
        "problems": [problem.as_dict() for problem in problems],
        "report": report,
    }


class UnknownCards(ValueError):
    """Slots naming cards the catalogue does not hold, by slot index."""

    def __init__(self, unknown: dict[int, str]):
        super().__init__(f"No character card {', '.join(repr(card) for card in unknown.values())}.")
        self.unknown = unknown


def army_export_text(slots: list[Slot]) -> str:
    """The decklist of an army (UnknownCards when a slot names no card)."""
    cards = _decklist_cards()
    known = {card.slug for card in cards}
    unknown = {i: s.card for i, s in enumerate(slots) if s.card not in known}
    if unknown:
        raise UnknownCards(unknown)
    return write_decklist(slots, cards)


def army_export_characters(slots: list[Slot]) -> list[Character]:
    """The characters of an army in slot order, with what the character API shows (UnknownCards if any is missing)."""
    by_slug = {c.slug: c for c in selectors.character_list().filter(slug__in={s.card for s in slots})}
    unknown = {i: s.card for i, s in enumerate(slots) if s.card not in by_slug}
    if unknown:
        raise UnknownCards(unknown)
    return [by_slug[s.card] for s in slots]


def army_code(slots: list[Slot]) -> str | None:
    """The army code of known slots, as army validation gives it."""
    return army_validate(slots=slots)["code"]
