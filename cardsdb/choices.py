"""Enumerations shared by both games."""

from django.db import models


class Game(models.TextChoices):
    REALMS = "realms", "Echo Realms"
    LEGENDS = "legends", "Akin Legends"
