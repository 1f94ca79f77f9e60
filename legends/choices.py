"""Akin Legends enumerations."""

from django.db import models


class EffectKind(models.TextChoices):
    """The special effect of a summoning card (L3)."""

    DEFENSE = "defense", "Defense"
    HEALING = "healing", "Healing"
    BOOST = "boost", "Boost"


class Mode(models.TextChoices):
    TEAMS = "teams", "Teams (2 × 2 players)"
    DUEL = "duel", "Duel (two-player variant)"
