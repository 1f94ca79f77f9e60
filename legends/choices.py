"""Akin Legends enumerations, with the values of the engine's rule vocabulary."""

from django.db import models

from legends.engine import vocabulary


class EffectKind(models.TextChoices):
    """The special effect of a summoning card (L3)."""

    DEFENSE = vocabulary.DEFENSE, "Defense"
    HEALING = vocabulary.HEALING, "Healing"
    BOOST = vocabulary.BOOST, "Boost"


class Mode(models.TextChoices):
    """A match's mode (L5)."""

    TEAMS = vocabulary.TEAMS, f"Teams ({vocabulary.TEAM_COUNT} × {vocabulary.MODES[vocabulary.TEAMS].players_per_team} players)"
    DUEL = vocabulary.DUEL, "Duel (two-player variant)"
