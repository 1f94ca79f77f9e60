"""The triggers of a faction ability, each declared once with everything known of it: its code on a unit,
when its abilities resolve relative to the attack order, whose defeat sets it off, and its words on the card.

The spec validator (`spec`), the units (`units.Unit.trigger`), the engine (`rounds`, `combat`, `state`) and
the card text (`text`) read this table; none of them names a trigger. The engine's hot paths compare a
unit's code with the `Final` codes below, which the table entries carry.
"""

from __future__ import annotations

from typing import Final

# A faction ability's trigger as a small int on its unit (0: none, a summon).
BATTLE_START: Final = 1
ROUND_START: Final = 2
BEFORE_ACTION: Final = 3
AFTER_ACTION: Final = 4
ON_HIT: Final = 5
ALLY_DEFEATED: Final = 6
ENEMY_DEFEATED: Final = 7
ROUND_END: Final = 8
DEFEATS_ENEMY: Final = 9

# Whose defeat sets a defeat trigger off (R18).
OF_ALLY: Final = 1  # another character of its side
OF_ENEMY: Final = 2  # any enemy character
BY_IT: Final = 3  # an enemy character it defeated


class Trigger:
    """One trigger: its `code`; `defeat` (OF_ALLY, OF_ENEMY, BY_IT; 0 for the others); `before_order`: it
    resolves before its round's attack order is built (R7, R9), so an SPD change it makes counts in that
    round's order; its `words` on the card, and `unit_words` with include_summons (R18, defeat triggers
    only); `event`: an event rather than a moment of the round (a battle limit leads the sentence: "Once
    per battle, when hit, ..."); `hp_after`: a `hp_below` condition is read after the hit and said with the
    trigger's words; `before_expiry`: it resolves in the end phase right before durations count down, so a
    1-round effect it applies ends unread (R14); `acted`: the selector of a unit that has always acted this
    round when it fires (R14: a 1-round restriction put on it never restricts anything); `fires`: when, in
    the reference's words (docs/abilities.md)."""

    def __init__(
        self, name: str, code: int, words: str, fires: str, *, defeat: int = 0, unit_words: str = "",
        before_order: bool = False, event: bool = False, hp_after: bool = False, before_expiry: bool = False,
        acted: str = "",
    ) -> None:
        self.name = name
        self.code = code
        self.words = words
        self.fires = fires
        self.defeat = defeat
        self.unit_words = unit_words
        self.before_order = before_order
        self.event = event
        self.hp_after = hp_after
        self.before_expiry = before_expiry
        self.acted = acted


# on_hit fires after the damage of an enemy unit's (summons too) Basic Attack or Main Ability, and only if
# that hit leaves it alive (`combat.hit`): not for faction abilities, poison or burn.
TRIGGERS: tuple[Trigger, ...] = (
    Trigger("battle_start", BATTLE_START, "at the start of the battle", "once, before round 1",
            before_order=True),
    Trigger("round_start", ROUND_START, "at the start of each round", "in the start phase of each round (R7)",
            before_order=True),
    Trigger("before_action", BEFORE_ACTION, "before it acts", "just before this unit acts", event=True),
    Trigger("after_action", AFTER_ACTION, "after it acts", "just after this unit acts", event=True, acted="self"),
    Trigger("on_hit", ON_HIT, "when it survives a hit from an enemy unit's Basic Attack or Main Ability",
            "right after this unit takes the damage of an enemy unit's Basic Attack or Main Ability",
            event=True, hp_after=True, acted="attacker"),
    Trigger("ally_defeated", ALLY_DEFEATED, "when an ally is defeated",
            "when another character of this side is defeated (R18)", defeat=OF_ALLY,
            unit_words="when an allied unit is defeated", event=True),
    Trigger("enemy_defeated", ENEMY_DEFEATED, "when an enemy is defeated",
            "when any enemy character is defeated, whoever defeated it (R18)", defeat=OF_ENEMY,
            unit_words="when an enemy unit is defeated", event=True),
    Trigger("defeats_enemy", DEFEATS_ENEMY, "when it defeats an enemy",
            "when this unit defeats an enemy character", defeat=BY_IT,
            unit_words="when it defeats an enemy unit", event=True),
    Trigger("round_end", ROUND_END, "at the end of each round", "in the end phase of each round",
            before_expiry=True),
)
BY_NAME: dict[str, Trigger] = {t.name: t for t in TRIGGERS}
NAMES: tuple[str, ...] = tuple(BY_NAME)
SLOTS: Final = max(t.code for t in TRIGGERS) + 1  # codes 0 … SLOTS − 1, as list indexes
# Per code, whose defeat sets it off (0: not a defeat trigger); the codes of the defeat triggers.
DEFEAT_OF: Final[tuple[int, ...]] = tuple(next((t.defeat for t in TRIGGERS if t.code == c), 0) for c in range(SLOTS))
DEFEAT_CODES: Final[tuple[int, ...]] = tuple(t.code for t in TRIGGERS if t.defeat)
