"""Echo Realms catalogue: races, characters (cards) and saved armies."""

from typing import cast

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import TextField
from django.db.models.functions import Cast

from cardsdb.choices import Game
from cardsdb.models import Card, Collection, Faction, TimestampedModel, card_history_records
from realms.choices import CLASS_POSITIONS, CharacterClass, Line, Position
from realms.engine.spec import (
    FactionAbility,
    MainAbility,
    cooldown_never_matters,
    parse_faction_ability,
    parse_main_ability,
)
from realms.engine.text import faction_text, main_text
from simulate.engine.errors import SpecError

ABILITY_FIELDS = ("main_ability", "faction_ability")
# The spec's own limit on a text (realms/engine/spec.py): a generated text must keep to it too.
MAX_ABILITY_TEXT = 400
GENERATED_TEXT_HELP = (
    "The `text` of the spec is generated from its effects, trigger, condition and limit "
    "(realms/engine/text.py): a text sent here is replaced, and may be left out."
)


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

    # Every save is a version (cardsdb/card_history.py): the errata, restores and releases read them.
    history = card_history_records()

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
        for field_name, problems in self.generate_ability_texts().items():
            errors.setdefault(field_name, []).extend(problems)
        if "main_ability" not in errors and "faction_ability" not in errors and isinstance(self.cooldown, int):
            parsed: dict[str, MainAbility | FactionAbility] = {"main_ability": parse_main_ability(self.main_ability),
                      "faction_ability": parse_faction_ability(self.faction_ability)}
            for path, reason in cooldown_never_matters(self.cooldown, parsed):
                errors.setdefault(path.split(".")[0], []).append(f"{path}: {reason}")
        if errors:
            raise ValidationError(errors)

    def save(self, *args, **kwargs) -> None:
        self.game = Game.REALMS
        self.generate_ability_texts()
        self.rules_text = self.compose_rules_text()
        super().save(*args, **kwargs)

    def generate_ability_texts(self) -> dict[str, list[str]]:
        """Set the `text` of both ability specs from the specs themselves, so that the printed words
        always say what the engine does; whatever text was there (a client's, an old one) is replaced.

        This is the one place every write goes through: `clean()` (the admin form and the API
        serializer validate with `full_clean()`) and `save()`. A spec whose only fault is its text
        (missing or empty) is accepted, since its text is generated; the problems of any other spec
        are returned by field (paths and reasons of every error, as the spec parser reports them),
        and that spec is left as it is.
        """
        try:
            faction_name = self.faction.name if self.faction_id is not None else None
        except Faction.DoesNotExist:  # an unknown faction is reported by its own field
            faction_name = None
        problems: dict[str, list[str]] = {}
        for field_name in ABILITY_FIELDS:
            spec = getattr(self, field_name)
            try:
                text = self._ability_text(field_name, spec, faction_name)
            except SpecError as exc:
                problems[field_name] = [f"{path}: {reason}" for path, reason in exc.errors]
                continue
            if text is None:  # a faction ability without a faction: the missing faction is reported
                continue
            if len(text) > MAX_ABILITY_TEXT:
                problems[field_name] = [
                    f"{field_name}.text: the text generated from the spec would be {len(text)} characters "
                    f"(at most {MAX_ABILITY_TEXT}): give the ability fewer or simpler effects"
                ]
                continue
            if spec.get("text") != text:
                setattr(self, field_name, _with_text(spec, text))
        return problems

    @staticmethod
    def _ability_text(field_name: str, spec, faction_name: str | None) -> str | None:
        """The generated text of one spec; SpecError (of the spec as given) when it is not valid."""
        parse = parse_main_ability if field_name == "main_ability" else parse_faction_ability
        if isinstance(spec, dict):
            try:
                parsed = parse(_with_text(spec, "-"), field_name)
            except SpecError:
                parse(spec, field_name)  # report the spec as it was given, text included
                raise
        else:
            parsed = parse(spec, field_name)  # not an object: raises
        if field_name == "main_ability":
            return main_text(cast(MainAbility, parsed))
        return faction_text(cast(FactionAbility, parsed), faction_name) if faction_name is not None else None

    def compose_rules_text(self) -> str:
        """The card's printed text, from its two abilities (searchable in the unified catalogue)."""
        parts = []
        for label, spec in (("Faction", self.faction_ability), ("Main", self.main_ability)):
            if isinstance(spec, dict):
                parts.append(f"{label} — {spec.get('name', '')}: {spec.get('text', '')}")
        return "\n".join(parts)


def _with_text(spec: dict, text: str) -> dict:
    """A copy of an ability spec with its text replaced (placed after the name when it was missing)."""
    if "text" in spec:
        return {key: (text if key == "text" else value) for key, value in spec.items()}
    copy: dict = {}
    for key, value in spec.items():
        copy[key] = value
        if key == "name":
            copy["text"] = text
    copy.setdefault("text", text)
    return copy


# A saved army may be a draft of any size up to this many slots (seven make an army).
MAX_SLOTS = 50
SLOT_KEYS = ("card", "line")
CARD_SLUG_LENGTH = cast(int, Card._meta.get_field("slug").max_length)  # a slug field has one


def slot_errors(slots) -> dict[str, list[str]]:
    """Why stored slots could not be read back, by dotted path (`slots.3.line`); empty when they can: a list of
    at most MAX_SLOTS objects, each exactly a `card` slug and a `line`. What the slots mean (legality, cards
    the catalogue lacks) is the army validator's, on every read."""
    if not isinstance(slots, list):
        return {"slots": ["A list of slots is required."]}
    if len(slots) > MAX_SLOTS:
        return {"slots": [f"An army has at most {MAX_SLOTS} slots; this one has {len(slots)}."]}
    errors: dict[str, list[str]] = {}
    for index, slot in enumerate(slots):
        path = f"slots.{index}"
        if not isinstance(slot, dict):
            errors[path] = ['A slot is an object {"card": "<slug>", "line": "vanguard"}.']
            continue
        for key in sorted(set(slot) - set(SLOT_KEYS)):
            errors[f"{path}.{key}"] = ["Unknown field."]
        card, line = slot.get("card"), slot.get("line")
        if "card" not in slot:
            errors[f"{path}.card"] = ["This field is required."]
        elif not isinstance(card, str) or not card or len(card) > CARD_SLUG_LENGTH:
            errors[f"{path}.card"] = [f"A card slug of 1 to {CARD_SLUG_LENGTH} characters is required."]
        if "line" not in slot:
            errors[f"{path}.line"] = ["This field is required."]
        elif line not in Line.values:
            errors[f"{path}.line"] = [f"{line!r} is not a valid choice: {' or '.join(Line.values)}."]
    return errors


class Army(TimestampedModel):
    """A saved army; may be an incomplete draft, and is re-validated whenever it is shown.

    Its slots are checked whenever it is saved, by the admin, the API or any code: a row whose slots cannot
    be read back is never stored."""

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

    def save(self, *args, **kwargs) -> None:
        update_fields = kwargs.get("update_fields")
        if update_fields is None or "slots" in update_fields:
            self.clean()
        super().save(*args, **kwargs)

    def clean(self) -> None:
        super().clean()
        errors = slot_errors(self.slots)
        if errors:
            raise ValidationError({"slots": [f"{path}: {messages[0]}" if path != "slots" else messages[0]
                                             for path, messages in errors.items()]})


def armies_using_card(card: Card) -> list[Army]:
    """The saved armies (of every user) with a slot naming the card."""
    # The slots are JSON: a text match narrows the rows in the database, the parsed slots decide.
    candidates = (Army.objects.annotate(slots_text=Cast("slots", TextField()))
                  .filter(slots_text__contains=f'"{card.slug}"').select_related("owner").order_by("pk"))
    return [army for army in candidates
            if any(isinstance(slot, dict) and slot.get("card") == card.slug for slot in army.slots)]
