"""Echo Realms enumerations, made from the rule vocabulary (realms/engine/vocabulary.py)."""

from django.db import models

from realms.engine.vocabulary import CLASS_POSITIONS, CLASSES, FLEX, LINES, PLAYERS, REARGUARD, VANGUARD

__all__ = ["CLASS_POSITIONS", "ArmyExportFormat", "CharacterClass", "Line", "Player", "Position"]

# The type checker reads only enum calls whose members are written out; these are made from the vocabulary
# (each an enum of the names and (value, label) pairs given, as the functional API of Enum makes it).
CharacterClass = models.TextChoices("CharacterClass", [(c.upper(), (c, c.title())) for c in CLASSES])  # type: ignore[call-overload]
Position = models.TextChoices(  # type: ignore[call-overload]
    "Position", [(p.upper(), (p, p.title())) for p in (VANGUARD, REARGUARD, FLEX)]
)
Line = models.TextChoices("Line", [(line.upper(), (line, line.title())) for line in LINES])  # type: ignore[call-overload]
Player = models.TextChoices("Player", [(p.upper(), (p, f"Player {p.upper()}")) for p in PLAYERS])  # type: ignore[call-overload]
# What POST /api/realms/armies/export/ answers: the decklist, or every card's full data.
ArmyExportFormat = models.TextChoices("ArmyExportFormat", [("TEXT", ("text", "Text")), ("JSON", ("json", "JSON"))])  # type: ignore[call-overload]
