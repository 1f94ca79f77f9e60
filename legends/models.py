"""Akin Legends catalogue: elements, the four kinds of cards, and saved team setups."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import F, Q, TextField
from django.db.models.functions import Cast

from cardsdb.choices import Game
from cardsdb.models import Card, TimestampedModel, card_history_records, hex_color
from legends.choices import EffectKind, Mode
from legends.engine.protectors import describe_protector_effect, parse_protector_effect
from legends.engine.setup import SetupFormatError, parse_teams
from legends.engine.vocabulary import MAX_COPIES
from simulate.engine.errors import SpecError


class Element(models.Model):
    """An element (L1): catalogue data, not a card. The official set is Fire, Water, Earth, Air."""

    slug = models.SlugField(unique=True)
    name = models.CharField(max_length=40, unique=True)
    color = models.CharField(max_length=7, validators=[hex_color], help_text="Colour on card faces.")
    icon = models.CharField(max_length=8, help_text="An emoji shown beside the name.")
    order = models.PositiveSmallIntegerField(unique=True, help_text="Display order, 1 first.")

    class Meta:
        ordering = ["order"]

    def __str__(self) -> str:
        return self.name


def element_names() -> dict[str, str]:
    """Element slug -> name, for the plain-words texts of protectors."""
    return dict(Element.objects.values_list("slug", "name"))


if TYPE_CHECKING:  # what LegendsCard is mixed into, for the type checker
    _Card = Card
else:
    _Card = object


class LegendsCard(_Card):
    """What every Akin Legends card shares: game forced on save, no rarity (its set is checked by Card.clean)."""

    def clean_fields(self, exclude=None) -> None:
        # The game is implied by the model, so it is set before the shared fields are checked.
        self.game = Game.LEGENDS
        super().clean_fields(exclude=exclude)

    def clean(self) -> None:
        # Card.clean() would report the set rule on its own; legends_card_errors() includes it, so every
        # problem of an Akin Legends card is reported at once.
        models.Model.clean(self)

    def legends_card_errors(self) -> dict[str, list[str]]:
        # The set belongs to the card's game: the rule of every card, Card.card_set_errors().
        errors = self.card_set_errors()
        if self.rarity_id is not None:
            errors["rarity"] = ["Akin Legends cards have no rarity."]
        return errors

    def compose_rules_text(self) -> str | None:
        """The printed text, derived from the card's data; None keeps the text as written."""
        return None

    def save(self, *args, **kwargs) -> None:
        self.game = Game.LEGENDS
        text = self.compose_rules_text()
        if text is not None:
            self.rules_text = text
        super().save(*args, **kwargs)


def _raise(errors: dict[str, list[str]]) -> None:
    if errors:
        raise ValidationError(errors)


class Spirit(LegendsCard, Card):
    """Akin or Yulin: the card a team protects (decorative, it names the team)."""

    color = models.CharField(max_length=7, validators=[hex_color], default="#7e57c2")

    history = card_history_records()  # every save is a version (cardsdb/card_history.py)

    class Meta:
        ordering = ["name"]

    def clean(self) -> None:
        super().clean()
        _raise(self.legends_card_errors())


class Protector(LegendsCard, Card):
    """A unique card giving its team one effect for the whole match (L4); the effect is data."""

    effect = models.JSONField(help_text="Effect spec (docs/legends-catalogue.md).")
    duel_legal = models.BooleanField(
        default=True, help_text="False for cards removed from the two-player variant (Spy)."
    )

    history = card_history_records()  # every save is a version (cardsdb/card_history.py)

    class Meta:
        ordering = ["name"]

    def clean(self) -> None:
        super().clean()
        errors = self.legends_card_errors()
        try:
            effect = parse_protector_effect(self.effect, elements=set(element_names()))
        except SpecError as exc:
            errors.setdefault("effect", []).extend(f"{path}: {reason}" for path, reason in exc.errors)
        else:
            if effect.teams_only and self.duel_legal:
                errors.setdefault("duel_legal", []).append(
                    f"The {effect.kind} effect runs at {effect.when}, which only teams mode has; "
                    "the card cannot be duel-legal (L13)."
                )
        _raise(errors)

    def compose_rules_text(self) -> str | None:
        try:
            return describe_protector_effect(parse_protector_effect(self.effect), element_names())
        except SpecError:
            return None


def _element_fk(verbose_name: str) -> models.ForeignKey:
    # PROTECT: an element still printed on a card cannot be deleted (answers 409).
    return models.ForeignKey(Element, on_delete=models.PROTECT, related_name="+", verbose_name=verbose_name)


class DefenseCard(LegendsCard, Card):
    """A defense: destroyed once markers of both its (different) elements lie on it (L2)."""

    element_1 = _element_fk("first element")
    element_2 = _element_fk("second element")

    history = card_history_records()  # every save is a version (cardsdb/card_history.py)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(
                condition=~Q(element_1=F("element_2")), name="defense_elements_differ"
            )
        ]

    def clean(self) -> None:
        super().clean()
        errors = self.legends_card_errors()
        if self.element_1_id is not None and self.element_1_id == self.element_2_id:
            errors["element_2"] = ["A defense requires two different elements (L2)."]
        _raise(errors)

    @property
    def elements(self) -> tuple[Element, Element]:
        return self.element_1, self.element_2

    def compose_rules_text(self) -> str | None:
        if self.element_1_id is None or self.element_2_id is None:
            return None
        return f"Destroyed when markers of both {self.element_1.name} and {self.element_2.name} lie on it."


EFFECT_TEXTS = {
    EffectKind.DEFENSE: "cancels one strength point of an opposing {element} attack",
    EffectKind.HEALING: "removes one {element} marker from one of your team's defenses",
    EffectKind.BOOST: "+1 strength to every {element} attack of your team this showdown",
}


class SummoningCard(LegendsCard, Card):
    """A summoning card (L3): two attack elements (may be equal) and one special effect.

    One row per card design; `copies` says how many of it the deck holds, so the deck is
    the sum of every design's copies.
    """

    attack_1 = _element_fk("first attack")
    attack_2 = _element_fk("second attack")
    effect_kind = models.CharField(max_length=10, choices=EffectKind.choices)
    effect_element = _element_fk("effect element")
    copies = models.PositiveSmallIntegerField(
        default=1,
        validators=[MinValueValidator(1), MaxValueValidator(MAX_COPIES)],
        help_text="How many of this card the deck holds.",
    )

    history = card_history_records()  # every save is a version (cardsdb/card_history.py)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(condition=Q(copies__gte=1), name="summoning_copies_positive"),
        ]

    def clean(self) -> None:
        super().clean()
        errors = self.legends_card_errors()
        if None not in (self.attack_1_id, self.attack_2_id, self.effect_element_id) and self.effect_kind:
            same = SummoningCard.objects.filter(
                Q(attack_1_id=self.attack_1_id, attack_2_id=self.attack_2_id)
                | Q(attack_1_id=self.attack_2_id, attack_2_id=self.attack_1_id),
                effect_kind=self.effect_kind,
                effect_element_id=self.effect_element_id,
            ).exclude(pk=self.pk)
            twin = same.values_list("slug", flat=True).first()
            if twin:
                errors.setdefault("__all__", []).append(
                    f"{twin!r} already has these attacks and this effect; raise its copies instead."
                )
        _raise(errors)

    def compose_rules_text(self) -> str | None:
        if None in (self.attack_1_id, self.attack_2_id, self.effect_element_id) or not self.effect_kind:
            return None
        attacks = (
            f"Attack: {self.attack_1.name} (both ends)."
            if self.attack_1_id == self.attack_2_id
            else f"Attack: {self.attack_1.name} or {self.attack_2.name}."
        )
        kind = EffectKind(self.effect_kind)
        effect = EFFECT_TEXTS[kind].format(element=self.effect_element.name)
        return f"{attacks} Effect: {self.effect_element.name} {kind.label.lower()} ({effect})."


class TeamSetup(TimestampedModel):
    """A saved team setup; its legality is computed whenever it is shown, never stored.

    Its teams are checked whenever it is saved, by the admin, the API or any code: a row whose teams cannot
    be read back is never stored."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="legends_setups"
    )
    name = models.CharField(max_length=100)
    mode = models.CharField(max_length=10, choices=Mode.choices, default=Mode.TEAMS)
    teams = models.JSONField(
        default=list,
        blank=True,
        help_text='[{"spirit": "akin", "protector": "spy", "defenses": [...], '
        '"players": [{"name": "Ann", "counter": 1}, ...]}, ...]',
    )

    class Meta:
        ordering = ["name", "id"]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs) -> None:
        update_fields = kwargs.get("update_fields")
        if update_fields is None or "teams" in update_fields:
            self.clean()
        super().save(*args, **kwargs)

    def clean(self) -> None:
        super().clean()
        try:
            parse_teams(self.teams)
        except SetupFormatError as exc:
            raise ValidationError({"teams": [f"{path}: {reason}" for path, reason in exc.errors]}) from exc


def setups_using_card(card: Card) -> list[TeamSetup]:
    """The saved setups (of every user) with a team naming the card as its spirit, protector or a defense."""
    # The teams are JSON: a text match narrows the rows in the database, the parsed teams decide.
    candidates = (TeamSetup.objects.annotate(teams_text=Cast("teams", TextField()))
                  .filter(teams_text__contains=f'"{card.slug}"').select_related("owner").order_by("pk"))
    found: list[TeamSetup] = []
    for setup in candidates:
        try:
            teams = parse_teams(setup.teams)
        except SetupFormatError:
            continue
        if any(card.slug in (team.spirit, team.protector, *(team.defenses or ())) for team in teams):
            found.append(setup)
    return found
