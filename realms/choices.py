"""Echo Realms enumerations."""

from django.db import models


class CharacterClass(models.TextChoices):
    TANK = "tank", "Tank"
    WARRIOR = "warrior", "Warrior"
    MAGE = "mage", "Mage"
    ARCHER = "archer", "Archer"
    ASSASSIN = "assassin", "Assassin"
    SUPPORT = "support", "Support"


class Position(models.TextChoices):
    VANGUARD = "vanguard", "Vanguard"
    REARGUARD = "rearguard", "Rearguard"
    FLEX = "flex", "Flex"


class Line(models.TextChoices):
    VANGUARD = "vanguard", "Vanguard"
    REARGUARD = "rearguard", "Rearguard"


# Catalogue rule R3: the printed positions each class may have.
CLASS_POSITIONS: dict[str, tuple[str, ...]] = {
    CharacterClass.TANK: (Position.VANGUARD,),
    CharacterClass.WARRIOR: (Position.VANGUARD, Position.REARGUARD),
    CharacterClass.MAGE: (Position.REARGUARD,),
    CharacterClass.ARCHER: (Position.REARGUARD,),
    CharacterClass.ASSASSIN: (Position.FLEX,),
    CharacterClass.SUPPORT: (Position.VANGUARD, Position.REARGUARD),
}


class Player(models.TextChoices):
    A = "a", "Player A"
    B = "b", "Player B"
