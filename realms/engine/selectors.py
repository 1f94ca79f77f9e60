"""The selectors of the ability spec (an effect's `target`), each declared once with everything known of it:
whose units it reaches, which of them, how a single pick chooses, what it needs, and its words on the card.

The spec validator (`spec`), the engine (`triggers.program`, `select`, `choose`), the greedy agent
(`agents`) and the card text (`text`) read this table; none of them names a selector. A new selector is
one `Selector(...)` line below (and its row in docs/abilities.md, which a test compares with this table).
"""

from __future__ import annotations

from typing import Final

from realms.engine.vocabulary import REARGUARD, VANGUARD

# How a compiled step finds its units (`triggers.run`).
SEL_TARGET: Final = 0  # the chosen unit
SEL_SELF: Final = 1  # the acting unit
SEL_PICK: Final = 2  # one unit, picked once per ability use
SEL_GROUP: Final = 3  # every unit of a group, read when the effect resolves
SEL_NONE: Final = 4  # an effect kind that names no units (a summon)

# Whose units a selector reaches.
ALLIES: Final = 1
ENEMIES: Final = 2
CHOSEN_LINE: Final = 3  # the living units of the chosen unit's side in its line
ATTACKER: Final = 4  # the enemy whose hit set off an on_hit ability

# How a single pick chooses among its pool (army order; ties to the earliest).
PICK_RANDOM: Final = 1  # the match's seeded generator (G1)
PICK_LOWEST_HP: Final = 2  # the lowest current HP
PICK_HIGHEST_ATK: Final = 3  # the highest effective ATK

IGNORING: Final = "in any line, ignoring the Vanguard"  # R12's exception, in words
# R12: a single enemy picked by an ability that keeps to the lines is one of the enemies its Basic Attack
# could target from where it stands when the pick is made (`triggers.choose`), whatever its line.
REACH: Final = "it can attack"


class Selector:
    """One selector: its code and its units (`code`, `whose`, `line`, `others`, `pick`), what it needs
    (`chosen`: a chosen unit, `enemy_chosen`: a chosen enemy, `trigger`: that trigger), and its words
    (`noun` the first time, `number` "self" / "single" / "group", `later` a pick named again,
    `ignoring` its noun in an ability that ignores the lines, "" when R12 does not bind it)."""

    def __init__(
        self, name: str, code: int, noun: str, *, whose: int = 0, line: str = "", others: bool = False,
        pick: int = 0, later: str = "", chosen: bool = False, enemy_chosen: bool = False, trigger: str = "",
        ignoring: str = "",
    ) -> None:
        self.name = name
        self.code = code
        self.whose = whose
        self.line = line
        self.others = others
        self.pick = pick
        self.chosen = chosen
        self.enemy_chosen = enemy_chosen
        self.trigger = trigger
        self.noun = noun
        self.number = "self" if code == SEL_SELF else "group" if code == SEL_GROUP and whose != ATTACKER else "single"
        self.later = later
        self.ignoring = ignoring

    @property
    def enemy_pick(self) -> bool:
        """A single enemy pick, which obeys R12 like a chosen target."""
        return self.code == SEL_PICK and self.whose == ENEMIES

    @property
    def random(self) -> bool:
        """A pick drawn with the match's generator."""
        return self.pick == PICK_RANDOM

    def words(self, choose: str) -> str:
        """Its noun the first time, in an ability that chooses `choose` (enemy, ally or none)."""
        return self.noun.format(choose=choose)


SELECTORS: tuple[Selector, ...] = (
    Selector("target", SEL_TARGET, "the chosen {choose}", chosen=True,
             ignoring=f"the chosen enemy {IGNORING}"),
    Selector("self", SEL_SELF, "itself"),
    Selector("all_allies", SEL_GROUP, "every ally", whose=ALLIES),
    Selector("other_allies", SEL_GROUP, "every other ally", whose=ALLIES, others=True),
    Selector("lowest_hp_ally", SEL_PICK, "the ally with the lowest HP", whose=ALLIES, pick=PICK_LOWEST_HP,
             later="that ally"),
    Selector("random_ally", SEL_PICK, "a random ally", whose=ALLIES, pick=PICK_RANDOM, later="that ally"),
    Selector("all_enemies", SEL_GROUP, "every enemy", whose=ENEMIES),
    Selector("random_enemy", SEL_PICK, f"a random enemy {REACH}", whose=ENEMIES, pick=PICK_RANDOM,
             later="that enemy", ignoring=f"a random enemy {IGNORING}"),
    Selector("lowest_hp_enemy", SEL_PICK, f"the lowest-HP enemy {REACH}", whose=ENEMIES, pick=PICK_LOWEST_HP,
             later="that enemy", ignoring=f"the lowest-HP enemy {IGNORING}"),
    Selector("highest_atk_enemy", SEL_PICK, f"the highest-ATK enemy {REACH}", whose=ENEMIES,
             pick=PICK_HIGHEST_ATK, later="that enemy", ignoring=f"the highest-ATK enemy {IGNORING}"),
    Selector("enemy_vanguard", SEL_GROUP, "every enemy in the Vanguard", whose=ENEMIES, line=VANGUARD),
    Selector("enemy_rearguard", SEL_GROUP, "every enemy in the Rearguard", whose=ENEMIES, line=REARGUARD),
    Selector("target_line", SEL_GROUP, "every enemy in the chosen enemy's line", whose=CHOSEN_LINE,
             chosen=True, enemy_chosen=True,
             ignoring=f"every enemy in the chosen enemy's line (chosen {IGNORING})"),
    Selector("ally_vanguard", SEL_GROUP, "every ally in its Vanguard", whose=ALLIES, line=VANGUARD),
    Selector("ally_rearguard", SEL_GROUP, "every ally in its Rearguard", whose=ALLIES, line=REARGUARD),
    Selector("attacker", SEL_GROUP, "the attacker", whose=ATTACKER, trigger="on_hit"),
)
BY_NAME: dict[str, Selector] = {s.name: s for s in SELECTORS}
NAMES: tuple[str, ...] = tuple(BY_NAME)
ENEMY_PICKS: tuple[str, ...] = tuple(s.name for s in SELECTORS if s.enemy_pick)
# What an effect kind that names no units (`EffectKind.targeted` false) is run with.
NO_UNITS: Final = Selector("", SEL_NONE, "")
