"""An army's statistics: counts by faction, class and line, stat sums and means, and the attack order
it would take by printed SPD (R9).

Pure Python: callers pass what they know of the catalogue as `StatCard` values; slots naming no known
card are left out of everything but the line counts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from realms.engine.army import Slot
from realms.engine.vocabulary import CLASSES, LINES

STAT_NAMES = ("atk", "def", "spd", "hp")


@dataclass(frozen=True)
class StatCard:
    """What army statistics need to know of a character card (printed values)."""

    slug: str
    faction: str
    character_class: str
    atk: int
    def_: int
    spd: int
    hp: int

    def stat(self, name: str) -> int:
        return self.def_ if name == "def" else int(getattr(self, name))


def attack_order_preview(slots: Sequence[Slot], cards: Mapping[str, StatCard]) -> list[dict[str, Any]]:
    """The army's known cards by printed SPD, fastest first, as groups of equal SPD.

    Within one army a tie keeps army order (R9), so each group lists its cards in slot order; `tie` marks
    a group of several. Ties with the other army are settled only in a match (`tie_break`).
    """
    known = [(index, slot) for index, slot in enumerate(slots) if slot.card in cards]
    # Stable sort: equal SPD keeps slot order, as R9 does within one army.
    known.sort(key=lambda pair: -cards[pair[1].card].spd)
    groups: list[dict[str, Any]] = []
    for index, slot in known:
        spd = cards[slot.card].spd
        if not groups or groups[-1]["spd"] != spd:
            groups.append({"spd": spd, "tie": False, "units": []})
        group = groups[-1]
        group["units"].append({"slot": index, "card": slot.card, "line": slot.line})
        group["tie"] = len(group["units"]) > 1
    return groups


def army_stats(slots: Sequence[Slot], cards: Mapping[str, StatCard]) -> dict[str, Any]:
    """Counts by faction, class and line; sums and means (2 decimals, null with no known card) of the
    printed ATK, DEF, SPD and HP; the attack-order preview."""
    known = [cards[slot.card] for slot in slots if slot.card in cards]
    factions = Counter(card.faction for card in known)
    classes = Counter(card.character_class for card in known)
    lines = Counter(slot.line for slot in slots)
    sums = {name: sum(card.stat(name) for card in known) for name in STAT_NAMES}
    means: dict[str, float | None] = {
        name: round(total / len(known), 2) if known else None for name, total in sums.items()
    }
    return {
        "cards": len(known),
        "counts": {
            "faction": dict(sorted(factions.items())),
            "class": {name: classes.get(name, 0) for name in CLASSES},
            "line": {name: lines.get(name, 0) for name in LINES},
        },
        "sums": sums,
        "means": means,
        "attack_order": attack_order_preview(slots, cards),
    }
