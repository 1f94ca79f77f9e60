"""Echo Realms rule constants, in one place: the models, choices, validators and engine import them.

Each rule number has one name here, and the engine writes the name, never the number
(tests/engine/test_vocabulary.py looks for the numbers where the rules use them): changing a rule's
number is one edit of this file."""

from __future__ import annotations

from typing import Final

PLAYERS: Final[tuple[str, ...]] = ("a", "b")  # any length for the type: a fixed-length Final tuple is remade at each use
OTHER: Final = {"a": "b", "b": "a"}

VANGUARD: Final = "vanguard"
REARGUARD: Final = "rearguard"
FLEX: Final = "flex"
LINES = (VANGUARD, REARGUARD)  # R2: the two lines of an army
POSITIONS = (VANGUARD, REARGUARD, FLEX)  # R3: a card's printed position
LINE_CAPACITY: Final = 5  # R2, R8, R15: units a line may hold

ARMY_SIZE: Final = 7  # R1
RARITIES = ("common", "uncommon", "rare", "legendary")
RARITY_QUOTA = {"common": 3, "uncommon": 2, "rare": 1, "legendary": 1}  # R1
QUOTA_WORDS = ", ".join(f"{n} {rarity.title()}" for rarity, n in RARITY_QUOTA.items())  # "3 Common, 2 Uncommon, ..."

CLASSES = ("tank", "warrior", "mage", "archer", "assassin", "support")
# R3, a catalogue rule: the printed positions each class may have.
CLASS_POSITIONS: dict[str, tuple[str, ...]] = {
    "tank": (VANGUARD,),
    "warrior": (VANGUARD, REARGUARD),
    "mage": (REARGUARD,),
    "archer": (REARGUARD,),
    "assassin": (FLEX,),
    "support": (VANGUARD, REARGUARD),
}

STATS = ("atk", "def", "spd")
# Printed values a card may carry.
STAT_BOUNDS = {"atk": (0, 30), "def": (0, 30), "spd": (0, 30), "hp": (1, 99), "cooldown": (1, 3)}

MIN_DAMAGE: Final = 1  # R11: a blow deals at least this much, whatever the DEF (and the scale)

# The ability spec (docs/abilities.md): what one ability may hold.
MAX_EFFECTS: Final = 6  # effects of one ability
MAX_DURATION: Final = 5  # R14: rounds a lasting effect may last
MAX_AMOUNT: Final = 50  # the amount or flat part of an effect
MAX_SCALE: Final = 5.0  # a share of ATK
MAX_SUMMONS: Final = 3  # units one summon effect brings (R15)
MAX_COOLDOWN_SHIFT: Final = 3  # rounds a cooldown effect moves a readiness, either way (R13)
MAX_TRIGGER_DEPTH: Final = 8  # faction abilities firing inside one another before the next one fizzles

# Match options (R16): the round cap and the runner's cap on decisions, their defaults and their bounds.
MAX_ROUNDS_DEFAULT: Final = 50
MAX_ROUNDS_LIMIT: Final = 200
MAX_ACTIONS_DEFAULT: Final = 5_000
MAX_ACTIONS_LIMIT: Final = 100_000
