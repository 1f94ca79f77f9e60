"""Echo Realms rule constants, in one place: the models, choices, validators and engine import them."""

from __future__ import annotations

from typing import Final

PLAYERS = ("a", "b")
OTHER = {"a": "b", "b": "a"}

VANGUARD: Final = "vanguard"
REARGUARD: Final = "rearguard"
FLEX: Final = "flex"
LINES = (VANGUARD, REARGUARD)  # R2: the two lines of an army
POSITIONS = (VANGUARD, REARGUARD, FLEX)  # R3: a card's printed position
LINE_CAPACITY: Final = 5  # R2, R8, R15: units a line may hold

ARMY_SIZE: Final = 7  # R1
RARITIES = ("common", "uncommon", "rare", "legendary")
RARITY_QUOTA = {"common": 3, "uncommon": 2, "rare": 1, "legendary": 1}  # R1

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
MAX_ROUNDS_DEFAULT = 50  # R16
