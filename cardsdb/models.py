"""The shared catalogue: one card identity for both games, and collections."""

from collections.abc import Iterable
from typing import cast

from django.apps import apps
from django.conf import settings
from django.core.exceptions import ObjectDoesNotExist, ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import IntegrityError, models, transaction
from django.db.models import Max
from simple_history.models import HistoricalRecords

from cardsdb import card_codes
from cardsdb.choices import Game
from cardsdb.images import make_thumbnail, validate_card_image

# Copies of one card in one collection: the API refuses more, and the database holds no more (a CHECK).
MAX_QUANTITY = 1_000_000

hex_color = RegexValidator(r"^#[0-9a-fA-F]{6}$", "Use a colour like #a1b2c3.")


class TimestampedModel(models.Model):
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        abstract = True


class Rarity(models.Model):
    slug = models.SlugField(unique=True)
    name = models.CharField(max_length=40, unique=True)
    order = models.PositiveSmallIntegerField(unique=True, help_text="1 = most common.")
    color = models.CharField(max_length=7, validators=[hex_color], default="#9e9e9e")

    class Meta:
        ordering = ["order"]
        verbose_name_plural = "rarities"

    def __str__(self) -> str:
        return self.name


MAX_CHARACTERISTICS = 20  # keywords of a faction
MAX_CHARACTERISTIC = 60  # characters of one


class Faction(models.Model):
    """An Echo Realms faction: who a character serves and how it fights."""

    slug = models.SlugField(unique=True)
    name = models.CharField(max_length=60, unique=True)
    icon = models.CharField(max_length=8, help_text="An emoji shown beside the name.")
    identity = models.CharField(max_length=120, help_text="The one-line identity.")
    description = models.TextField()
    characteristics = models.JSONField(default=list, blank=True)
    color = models.CharField(max_length=7, validators=[hex_color], default="#607d8b")

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs) -> None:
        update_fields = kwargs.get("update_fields")
        if update_fields is None or "characteristics" in update_fields:
            self.clean()  # a row the API and the pages could not read back is never stored
        super().save(*args, **kwargs)

    def clean(self) -> None:
        super().clean()
        value = self.characteristics
        if not (isinstance(value, list) and len(value) <= MAX_CHARACTERISTICS
                and all(isinstance(item, str) and 0 < len(item) <= MAX_CHARACTERISTIC for item in value)):
            raise ValidationError({"characteristics": [
                f"A list of at most {MAX_CHARACTERISTICS} texts of 1 to {MAX_CHARACTERISTIC} characters is required."
            ]})


class CardSet(models.Model):
    code = models.SlugField(max_length=20, unique=True)
    name = models.CharField(max_length=100, unique=True)
    game = models.CharField(max_length=10, choices=Game.choices)
    release_date = models.DateField()
    description = models.TextField(blank=True)

    class Meta:
        ordering = ["release_date", "code"]

    def __str__(self) -> str:
        return f"{self.name} ({self.code})"


def card_set_message(game: str) -> str:
    """The one wording of the set/game rule, for whichever game the card belongs to."""
    label = Game(game).label if game in Game.values else game
    article = "an" if label[:1].lower() in "aeiou" else "a"
    return f"Choose {article} {label} card set."


class Card(TimestampedModel):
    """A card of either game.

    Game-specific details live in subclasses (multi-table inheritance), so every card
    shares one id, slug, image and collection entry whatever its game.
    """

    game = models.CharField(max_length=10, choices=Game.choices, db_index=True)
    name = models.CharField(max_length=120, db_index=True)
    slug = models.SlugField(max_length=140, unique=True)
    code = models.CharField(
        max_length=card_codes.MAX_CODE_LENGTH, unique=True, blank=True,
        help_text="Stable public code: set prefix and collector number, e.g. ER-CORE-017. Leave empty for the "
                  "next free number of the card's set; a code once used (even by a deleted card) is never reused.",
    )
    card_set = models.ForeignKey(CardSet, on_delete=models.PROTECT, related_name="cards")
    rarity = models.ForeignKey(
        Rarity, on_delete=models.PROTECT, null=True, blank=True, related_name="cards"
    )
    rules_text = models.TextField(blank=True)
    flavor_text = models.TextField(blank=True)
    image = models.ImageField(
        upload_to="cards/", blank=True, validators=[validate_card_image]
    )
    thumbnail = models.ImageField(upload_to="cards/thumbs/", blank=True, editable=False)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs) -> None:
        if not self.code:
            self._save_with_next_code(*args, **kwargs)
            return
        self._save_card(*args, **kwargs)

    def _save_with_next_code(self, *args, **kwargs) -> None:
        # Two cards created at once may pick the same number: the unique code refuses the second, which retries.
        for attempt in range(5):
            self.code = next_card_code(self.game, self.card_set)
            try:
                with transaction.atomic(using=kwargs.get("using")):
                    self._save_card(*args, **kwargs)
                return
            except IntegrityError:
                if attempt == 4 or type(self)._base_manager.filter(code=self.code).exclude(pk=self.pk).count() == 0:
                    raise

    def _save_card(self, *args, **kwargs) -> None:
        # A newly attached image (not yet committed to storage) gets a fresh thumbnail.
        # (_committed is FieldFile's own flag, which the stubs leave out.)
        if self.image and not self.image._committed:  # type: ignore[attr-defined]
            thumb = make_thumbnail(self.image.file, cast(str, self.image.name))  # a file that is set has a name
            self.thumbnail.save(cast(str, thumb.name), thumb, save=False)
        elif not self.image:
            self.thumbnail = ""
        super().save(*args, **kwargs)

    def clean(self) -> None:
        """Rules every card of either game keeps; the admin form and the API serializers both call this
        (through `full_clean()`). A game's own clean() adds its rules after it (Akin Legends cards report
        card_set_errors() together with theirs)."""
        super().clean()
        errors = self.card_set_errors() | self.code_errors()
        if errors:
            raise ValidationError(errors)

    def code_errors(self) -> dict[str, list[str]]:
        """A code given by hand has its set's prefix, is well formed and was never held by another card."""
        if not self.code or self.card_set_id is None or not self.game:
            return {}
        if self.pk is not None and Card._base_manager.filter(pk=self.pk, code=self.code).exists():
            return {}  # kept as it was: a card moved to another set keeps its code, which stays stable
        try:
            prefix = card_codes.set_prefix(self.game, self.card_set.code)
        except CardSet.DoesNotExist:
            return {}
        parsed = card_codes.parse_code(self.code)
        if parsed is None or parsed[0] != prefix:
            return {"code": [f"Use the set's prefix and a collector number of at least 3 digits, e.g. "
                             f"{card_codes.format_code(prefix, 17)}; leave it empty for the next free number."]}
        others = Card._base_manager.filter(code=self.code).exclude(pk=self.pk)
        issued = IssuedCardCode.objects.filter(code=self.code)
        if self.pk is not None:
            issued = issued.exclude(card_id=self.pk)
        if others.exists():
            return {"code": [f"{self.code} is the code of another card."]}
        if issued.exists():
            return {"code": [f"{self.code} was held by another card (perhaps deleted); codes are never reused."]}
        return {}

    def card_set_errors(self) -> dict[str, list[str]]:
        """A card's set belongs to the card's game (an Echo Realms character in an Echo Realms set)."""
        if self.card_set_id is None or not self.game:
            return {}
        try:
            set_game = self.card_set.game
        except CardSet.DoesNotExist:  # an unknown set is reported by its own field
            return {}
        if set_game == self.game:
            return {}
        return {"card_set": [card_set_message(self.game)]}


def card_history_records() -> HistoricalRecords:
    """The versions of a card model (cardsdb/card_history.py): a row per save, with who, when and why (a reason
    of any length)."""
    return HistoricalRecords(history_change_reason_field=models.TextField(null=True))


class IssuedCardCode(models.Model):
    """Every code a card ever held, kept when the card is deleted or changes code, so no code is used twice."""

    code = models.CharField(max_length=card_codes.MAX_CODE_LENGTH, unique=True)
    prefix = models.CharField(max_length=card_codes.MAX_CODE_LENGTH, db_index=True)
    number = models.PositiveIntegerField()
    card = models.ForeignKey(Card, on_delete=models.SET_NULL, null=True, blank=True, related_name="issued_codes")
    issued_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["prefix", "number"]

    def __str__(self) -> str:
        return self.code


def next_card_code(game: str, card_set: CardSet) -> str:
    """The next free code of a set: past every number ever issued in it (deleted cards' included)."""
    prefix = card_codes.set_prefix(game, card_set.code)
    issued = IssuedCardCode.objects.filter(prefix=prefix).aggregate(top=Max("number"))["top"] or 0
    live = [parsed[1] for code in Card._base_manager.filter(code__startswith=prefix + "-").values_list("code", flat=True)
            if (parsed := card_codes.parse_code(code)) and parsed[0] == prefix]
    return card_codes.format_code(prefix, max([issued, *live]) + 1)


def record_issued_code(card: Card, using: str | None = None) -> None:
    """Note the card's code as issued (fixture loads too), so it is never handed to another card."""
    record_issued_codes([card], using=using)


def record_issued_codes(cards: Iterable[Card], using: str | None = None) -> None:
    """Note the cards' codes as issued, in one INSERT that leaves a code already on the list as it is (its
    first card and time stay)."""
    issued = [IssuedCardCode(code=card.code, prefix=parsed[0], number=parsed[1], card_id=card.pk)
              for card in cards if card.code and (parsed := card_codes.parse_code(card.code)) is not None]
    if issued:
        IssuedCardCode.objects.using(using or "default").bulk_create(issued, ignore_conflicts=True)


class Collection(TimestampedModel):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="collections"
    )
    name = models.CharField(max_length=100)
    cards = models.ManyToManyField(Card, through="CollectionEntry", related_name="+")

    class Meta:
        ordering = ["name", "id"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "name"], name="unique_collection_name")
        ]

    def __str__(self) -> str:
        return self.name


class CollectionEntry(models.Model):
    """Copies of a card held in a collection. A card held by a collection cannot be deleted (PROTECT): its
    entries belong to the collection's owner, not to staff."""

    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="entries")
    card = models.ForeignKey(Card, on_delete=models.PROTECT, related_name="collection_entries")
    quantity = models.PositiveIntegerField(
        default=0, validators=[MinValueValidator(0), MaxValueValidator(MAX_QUANTITY)],
        help_text=f"0 to {MAX_QUANTITY:,}.",
    )

    class Meta:
        ordering = ["card__name"]
        verbose_name_plural = "collection entries"
        constraints = [
            models.UniqueConstraint(fields=["collection", "card"], name="unique_collection_card"),
            models.CheckConstraint(condition=models.Q(quantity__gte=0), name="quantity_not_negative"),
            models.CheckConstraint(condition=models.Q(quantity__lte=MAX_QUANTITY), name="quantity_at_most_max"),
        ]

    def __str__(self) -> str:
        return f"{self.quantity} x {self.card}"


class OfficialRecord(models.Model):
    """A row of an official set as it was loaded: its model, its key and a fingerprint of its fields.

    `load_official` writes one for every row it loads (or finds already loaded); `update_official` compares
    a row's current fingerprint with this one to tell a row nobody touched (safe to bring to a new
    release) from one staff edited (reported as a conflict and left alone).
    """

    model = models.CharField(max_length=100, help_text="App label and model, e.g. realms.character.")
    object_pk = models.CharField("key", max_length=64)
    source = models.CharField(max_length=100, help_text="The fixture file the row was loaded from.")
    fingerprint = models.CharField(
        max_length=64, help_text="SHA-256 of the row's fields as loaded (time stamps left out)."
    )
    loaded_at = models.DateTimeField(auto_now=True, help_text="When the row was loaded or last updated.")

    class Meta:
        ordering = ["model", "object_pk"]
        constraints = [
            models.UniqueConstraint(fields=["model", "object_pk"], name="unique_official_record")
        ]

    def __str__(self) -> str:
        return f"{self.model} {self.object_pk}"

    def clean(self) -> None:
        super().clean()
        if self.model and self.object_pk:
            try:
                self.recorded_row()
            except (LookupError, ValueError, ObjectDoesNotExist, ValidationError) as exc:
                raise ValidationError({"object_pk": f"No {self.model} row has the key {self.object_pk!r}."}) from exc

    def recorded_row(self) -> models.Model:
        """The row this record is about (LookupError for an unknown model, DoesNotExist for a missing row)."""
        model = apps.get_model(self.model)
        return model._base_manager.get(pk=self.object_pk)


class UsernameForm(models.Model):
    """One way an account's name reads (cardsdb.usernames.fold: its confusables skeleton, case set aside), as a
    digest. Each is unique, so the database itself keeps two accounts made by sign-up from reading alike,
    however many sign up at once, and a new name is checked by an index lookup rather than against every name."""

    digest = models.CharField(max_length=64, unique=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="username_forms")

    class Meta:
        ordering = ["user_id", "digest"]

    def __str__(self) -> str:
        return f"{self.digest[:12]}… of {self.user}"


# The name of the catalogue as it is now, which no release may take.
WORKING = "working"


class Release(models.Model):
    """A named, frozen state of one game's catalogue (e.g. "Core 1.1"): the version of every card it held, and
    its bulk file as it was, so validation and downloads "as of" the release never recompute from today's rows."""

    game = models.CharField(max_length=10, choices=Game.choices)
    name = models.CharField(max_length=60)
    slug = models.SlugField(max_length=70)
    notes = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    versions = models.JSONField(
        default=dict, editable=False,
        help_text='Each card\'s version when the release was made: {"<model label>": {"<slug>": <version id>}}.',
    )
    bulk_file = models.BinaryField(editable=False, help_text="The game's bulk file (gzipped JSON) as it was.")
    bulk_sha256 = models.CharField(max_length=64, editable=False)
    card_count = models.PositiveIntegerField(default=0, editable=False)

    class Meta:
        ordering = ["game", "-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["game", "name"], name="unique_release_name"),
            models.UniqueConstraint(fields=["game", "slug"], name="unique_release_slug"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.get_game_display()})"
