"""Echo Realms catalogue: races, characters (cards) and saved armies."""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from cardsdb.choices import Game
from cardsdb.models import Card, Collection, Faction, TimestampedModel
from realms.choices import CLASS_POSITIONS, CharacterClass, Position
from realms.engine.spec import SpecError, parse_faction_ability, parse_main_ability


def stat_field(low: int, high: int, help_text: str) -> models.PositiveSmallIntegerField:
    return models.PositiveSmallIntegerField(
        validators=[MinValueValidator(low), MaxValueValidator(high)], help_text=help_text
    )


class Race(models.Model):
    """A character's origin; thematic only, it never changes stats."""

    slug = models.SlugField(unique=True)
    name = models.CharField(max_length=40, unique=True)
    description = models.TextField(blank=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Character(Card):
    """An Echo Realms character card; shared card fields come from `Card`."""

    race = models.ForeignKey(Race, on_delete=models.PROTECT, related_name="characters")
    character_class = models.CharField("class", max_length=10, choices=CharacterClass.choices)
    faction = models.ForeignKey(Faction, on_delete=models.PROTECT, related_name="characters")
    position = models.CharField(max_length=10, choices=Position.choices)
    attack = stat_field(0, 30, "ATK")
    defense = stat_field(0, 30, "DEF")
    speed = stat_field(0, 30, "SPD")
    health = stat_field(1, 99, "HP (maximum)")
    cooldown = stat_field(1, 3, "Rounds before the main ability is ready again (R13).")
    faction_ability = models.JSONField(help_text="Faction ability spec (docs/abilities.md).")
    main_ability = models.JSONField(help_text="Main ability spec (docs/abilities.md).")

    class Meta:
        ordering = ["name"]

    def clean_fields(self, exclude=None) -> None:
        # The game is implied by the model, so it is set before the shared fields are checked.
        self.game = Game.REALMS
        super().clean_fields(exclude=exclude)

    def clean(self) -> None:
        super().clean()
        errors: dict[str, list[str]] = {}
        allowed = CLASS_POSITIONS.get(self.character_class)
        if allowed and self.position and self.position not in allowed:
            names = " or ".join(allowed)
            errors.setdefault("position", []).append(
                f"A {self.get_character_class_display()} must be printed {names} (rule R3)."
            )
        if self.rarity_id is None:
            errors.setdefault("rarity", []).append("Every character has a rarity.")
        for field_name, parse in (("main_ability", parse_main_ability), ("faction_ability", parse_faction_ability)):
            try:
                parse(getattr(self, field_name))
            except SpecError as exc:
                errors.setdefault(field_name, []).extend(f"{path}: {reason}" for path, reason in exc.errors)
        if errors:
            raise ValidationError(errors)

    def save(self, *args, **kwargs) -> None:
        self.game = Game.REALMS
        self.rules_text = self.compose_rules_text()
        super().save(*args, **kwargs)

    def compose_rules_text(self) -> str:
        """The card's printed text, from its two abilities (searchable in the unified catalogue)."""
        parts = []
        for label, spec in (("Faction", self.faction_ability), ("Main", self.main_ability)):
            if isinstance(spec, dict):
                parts.append(f"{label} — {spec.get('name', '')}: {spec.get('text', '')}")
        return "\n".join(parts)


class Army(TimestampedModel):
    """A saved army; may be an incomplete draft, and is re-validated whenever it is shown."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="armies")
    name = models.CharField(max_length=100)
    slots = models.JSONField(default=list, blank=True, help_text='[{"card": "<slug>", "line": "vanguard"}, ...]')
    collection = models.ForeignKey(
        Collection, on_delete=models.SET_NULL, null=True, blank=True, related_name="armies"
    )

    class Meta:
        ordering = ["name", "id"]
        verbose_name_plural = "armies"

    def __str__(self) -> str:
        return self.name
