"""Card history and catalogue releases.

Every save of a card of either game is a version (django-simple-history's `HistoricalRecords` on each card
model): who, when, the reason, and every field as it was. Edits go through `apply_edit` (the API's restore,
a study's patch) or the admin and the API's own saves; the official loads record theirs in bulk
(cardsdb.services). A release freezes the version of every card of a game and its bulk file as they were.

Each game registers its card models from its `ready()` (`register_card_models`): cardsdb names no game.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from django.core.exceptions import FieldDoesNotExist, ValidationError
from django.db import IntegrityError, models, transaction
from django.db.models import Max
from django.db.models.fields.files import FieldFile
from django.db.models.signals import post_save
from django.utils import timezone
from django.utils.text import slugify

from cardsdb import bulk
from cardsdb.errors import DomainError
from cardsdb.models import WORKING, Card, Release

VERSION_TYPES = {"+": "created", "~": "changed", "-": "deleted"}
INITIAL_REASON = "Initial version"
# Art is not errata: the history keeps only a file's name, and replaced art is deleted once nothing names it.
NOT_RESTORED = frozenset({"image"})

Versions = Mapping[str, Mapping[str, int]]
# A historical record (a version): its card's fields and history_id, history_date, history_type, history_user,
# history_change_reason. Its model is made by simple-history at run time, so the type checker knows it as Any.
Version = Any


@dataclass(frozen=True)
class CardModels:
    """The card models of one game, and the words its errata use for some fields (`attack` reads "ATK")."""

    models: tuple[type[Card], ...]
    field_labels: Mapping[str, str]


_GAMES: dict[str, CardModels] = {}


def register_card_models(game: str, card_models: Sequence[type[Card]], *,
                         field_labels: Mapping[str, str] | None = None) -> None:
    """Declare a game's card models (each with `history = HistoricalRecords()`), from the game's `ready()`."""
    _GAMES[game] = CardModels(tuple(card_models), dict(field_labels or {}))


def card_models(game: str) -> tuple[type[Card], ...]:
    """The card models of a game (none for a game that registered none)."""
    registered = _GAMES.get(game)
    return registered.models if registered is not None else ()


def every_card_model() -> list[type[Card]]:
    return [model for registered in _GAMES.values() for model in registered.models]


def model_label(model: type[models.Model]) -> str:
    return model._meta.label_lower


def _historical(model: type[Card]) -> Any:
    return model.history.model  # type: ignore[attr-defined]  # HistoricalRecords adds it


def _game_of(model: type[models.Model]) -> str | None:
    return next((game for game, found in _GAMES.items() if model in found.models), None)


# --- Edits and restores -------------------------------------------------------------------------------------


class UnknownVersion(DomainError):
    status = 404
    code = "not_found"


class EditConflict(DomainError):
    """Another write took a unique value (a slug, a code) between the check and the save."""

    status = 409
    code = "conflict"


def _editable_field(card: Card, name: str) -> models.Field:
    try:
        field = card._meta.get_field(name)
    except FieldDoesNotExist:
        raise ValidationError({name: ["Unknown field."]}) from None
    if not isinstance(field, models.Field) or not field.editable or field.primary_key or field.many_to_many:
        raise ValidationError({name: ["This field cannot be edited."]})
    return field


def apply_edit(card: Card, changes: Mapping[str, Any], *, reason: str, user: Any = None) -> Version:
    """Apply field changes to a card as an edit: checked as an admin edit is (`full_clean`, every rule of its
    model), saved in a transaction with `reason` (and `user`), and answered with the new version.

    A foreign key takes the related row, its key, or its slug (a set's code) as the API and the versions name
    it, so a version's `changes` read back as an edit. A change that breaks a rule raises ValidationError and
    saves nothing; a unique value another write took meanwhile raises EditConflict. Either way the card reads as
    stored again."""
    try:
        with transaction.atomic():
            _set_fields(card, changes)
            card.full_clean()
            card._change_reason = reason  # type: ignore[attr-defined]  # read by simple-history on save
            if user is not None and getattr(user, "is_authenticated", False):
                card._history_user = user  # type: ignore[attr-defined]
            card.save()
    except IntegrityError as exc:
        card.refresh_from_db()
        raise EditConflict("Another change took one of the card's unique values (its slug or its code) meanwhile; "
                           "nothing was saved.") from exc
    except ValidationError:
        card.refresh_from_db()  # the instance reads as the stored card again
        raise
    return latest_version(card)


def _set_fields(card: Card, changes: Mapping[str, Any]) -> None:
    for name, value in changes.items():
        field = _editable_field(card, name)
        if field.is_relation and isinstance(value, str):
            setattr(card, name, _related_by_key(field, value))
        elif field.is_relation and not isinstance(value, models.Model):
            setattr(card, field.attname, value)
        else:
            setattr(card, name, value)


def latest_version(card: Card) -> Version:
    return card.history.order_by("-history_date", "-history_id").first()  # type: ignore[attr-defined]


def card_version(card: Card, version_id: int) -> Version:
    """One version of this card (UnknownVersion for an id that is not one of its versions)."""
    if not 0 < version_id < 2**63:  # no row has it, and the database would refuse the number
        raise UnknownVersion(f"{card.name} has no version {version_id}.")
    version = card.history.filter(history_id=version_id).first()  # type: ignore[attr-defined]
    if version is None:
        raise UnknownVersion(f"{card.name} has no version {version_id}.")
    return version


def restore_version(card: Card, version_id: int, *, user: Any = None, reason: str = "") -> Version:
    """Put the card back as one of its versions was, as a new version (its reason "Restored version N" unless
    given): every editable field but the art, checked as any edit is."""
    version = card_version(card, version_id)
    changes = {}
    for field in card._meta.concrete_fields:
        if not field.editable or field.primary_key or field.name in NOT_RESTORED:
            continue
        old = getattr(version, field.attname)
        if old != getattr(card, field.attname):
            changes[field.name] = old
    return apply_edit(card, changes, reason=reason or f"Restored version {version_id}", user=user)


# --- Versions described ---------------------------------------------------------------------------------------


def _natural_key_name(related: type[models.Model]) -> str | None:
    names = {f.name for f in related._meta.fields}
    return "slug" if "slug" in names else "code" if "code" in names else None


def _related_by_key(field: models.Field, key: str) -> models.Model:
    """The related row a slug (or a set's code) names (ValidationError naming the field when none does)."""
    related = cast(type[models.Model], field.related_model)
    name = _natural_key_name(related)
    found = related._base_manager.filter(**{name: key}).first() if name is not None else None
    if found is None:
        raise ValidationError({field.name: [f"No {related._meta.verbose_name} {key!r}."]})
    return found


def _related_key(field: models.Field, pk: Any) -> Any:
    """How the API names a related row: its slug, or its code (sets), or its key."""
    if pk is None:
        return None
    related = cast(type[models.Model], field.related_model)
    key = _natural_key_name(related)
    if key is None:
        return pk
    found = related._base_manager.filter(pk=pk).values_list(key, flat=True).first()
    return found if found is not None else pk


def _plain(field: models.Field, value: Any) -> Any:
    if isinstance(value, FieldFile):
        return value.name or ""
    if field.is_relation:
        return _related_key(field, value)
    if isinstance(value, datetime):
        return value.isoformat()
    return value


def version_changes(new: Version, old: Version | None) -> list[dict[str, Any]]:
    """What changed from one version to the next: `{field, before, after}` in field order (none without an
    older version). Foreign keys are named as the API names them (slugs, set codes)."""
    if old is None:
        return []
    delta = new.diff_against(old)  # type: ignore[attr-defined]  # a historical record
    order = {field.name: n for n, field in enumerate(new._meta.fields)}
    changes = []
    for change in sorted(delta.changes, key=lambda c: order.get(c.field, 0)):
        field = cast(models.Field, new._meta.get_field(change.field))  # a tracked field, never a relation's other end
        changes.append({"field": change.field, "before": _plain(field, change.old), "after": _plain(field, change.new)})
    return changes


def describe_versions(records: Sequence[Version]) -> list[dict[str, Any]]:
    """Versions of one card, newest first as given, each with what it changed from the version before it."""
    described = []
    for index, record in enumerate(records):
        previous = records[index + 1] if index + 1 < len(records) else record.prev_record  # type: ignore[attr-defined]
        user = record.history_user  # type: ignore[attr-defined]
        described.append({
            "id": record.history_id,  # type: ignore[attr-defined]
            "date": record.history_date,  # type: ignore[attr-defined]
            "user": user.get_username() if user is not None else None,
            "type": VERSION_TYPES[record.history_type],  # type: ignore[attr-defined]
            "reason": record.history_change_reason or "",  # type: ignore[attr-defined]
            "changes": version_changes(record, previous) if record.history_type == "~" else [],  # type: ignore[attr-defined]
        })
    return described


def card_history(card: Card) -> models.QuerySet:
    """Every version of a card, newest first."""
    return (card.history.select_related("history_user")  # type: ignore[attr-defined]
            .order_by("-history_date", "-history_id"))


def field_label(model: type[models.Model], name: str) -> str:
    game = _game_of(model)
    labels = _GAMES[game].field_labels if game is not None else {}
    if name in labels:
        return labels[name]
    try:
        return str(model._meta.get_field(name).verbose_name).capitalize()  # type: ignore[union-attr]
    except FieldDoesNotExist:
        return name


def _words(value: Any, limit: int = 60) -> str:
    if value is None or value == "":
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    text = str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def change_in_words(model: type[models.Model], change: Mapping[str, Any]) -> str:
    """One change for people: "ATK 11 → 9"; a spec (an object) only says that it changed."""
    label = field_label(model, change["field"])
    if isinstance(change["before"], dict | list) or isinstance(change["after"], dict | list):
        return f"{label} changed"
    return f"{label} {_words(change['before'])} → {_words(change['after'])}"


def card_errata(card: Card, *, limit: int = 20) -> list[dict[str, Any]]:
    """The card's changes after its first version, newest first, at most `limit`: each with its date, reason
    and its changes in words. A save that changed nothing shown is left out."""
    records = list(card_history(card)[: limit + 1])
    errata = []
    for version in describe_versions(records)[:limit]:
        if version["type"] != "changed" or not version["changes"]:
            continue
        words = [change_in_words(type(card), change) for change in version["changes"]]
        errata.append({**version, "words": words})
    return errata


# --- The catalogue's state: versions, edits since, releases -------------------------------------------------


def _latest_versions(model: type[Card]) -> models.QuerySet:
    """The latest version of every card of the model that exists now."""
    historical = _historical(model)
    latest = (historical._default_manager.filter(id__in=model._base_manager.values("pk"))
              .values("id").annotate(latest=Max("history_id")).values("latest"))
    return historical._default_manager.filter(history_id__in=latest)


def card_versions(game: str) -> dict[str, dict[str, int]]:
    """Each card's latest version id, by model label and slug: the working state of the game's catalogue."""
    return {
        model_label(model): dict(_latest_versions(model).order_by("slug").values_list("slug", "history_id"))
        for model in card_models(game)
    }


def edited_since(game: str, versions: Versions) -> list[dict[str, Any]]:
    """The cards whose latest version is not the one given: edited, deleted or added since. Each is
    `{model, slug, name, status, version, changed_at, changes}`: `status` is changed, deleted or added,
    `version` the card's latest version (its deletion for a deleted card), `changes` what changed between
    the given version and now (none for a card added or deleted)."""
    found: list[dict[str, Any]] = []
    for model in card_models(game):
        label = model_label(model)
        historical = _historical(model)
        manager = historical._default_manager
        given: dict[int, Version] = {row.id: row for row in manager.filter(history_id__in=list(versions.get(label, {}).values()))}
        latest_any = manager.filter(history_id__in=manager.filter(id__in=[*given, *model._base_manager.values_list(
            "pk", flat=True)]).values("id").annotate(latest=Max("history_id")).values("latest"))
        current: Version
        for current in sorted(latest_any, key=lambda row: row.slug):
            before = given.get(current.id)
            if before is not None and before.history_id == current.history_id:
                continue
            if current.history_type == "-":
                status = "deleted"
            elif before is None:
                status = "added"
            else:
                status = "changed"
            found.append({
                "model": label, "slug": current.slug, "name": current.name, "status": status,
                "version": current.history_id, "changed_at": current.history_date,
                "changes": version_changes(current, before) if status == "changed" else [],
            })
    return found


def release_matching(game: str, versions: Versions) -> Release | None:
    """The newest release of the game whose frozen versions include exactly these versions of these cards."""
    wanted = [(label, slug, version) for label, by_slug in versions.items() for slug, version in by_slug.items()]
    for release in Release.objects.filter(game=game).order_by("-created_at", "-id"):
        frozen = release.versions
        if all(frozen.get(label, {}).get(slug) == version for label, slug, version in wanted):
            return release
    return None


class UnknownRelease(DomainError):
    """A `release` that names no release of the game."""

    status = 400
    code = "invalid"

    def __init__(self, game: str, slug: str):
        known = list(Release.objects.filter(game=game).values_list("slug", flat=True)[:20])
        choices = f" Releases: {', '.join(known)}." if known else " This game has no release yet."
        super().__init__(f"No release {slug!r}.{choices}")
        self.fields = {"release": [str(self)]}

    def details(self) -> dict[str, Any]:
        return {"fields": self.fields}


class ReleaseRefused(DomainError):
    """A release that cannot be made under this name (taken, or `working`)."""

    status = 400
    code = "invalid"

    def __init__(self, fields: dict[str, list[str]]):
        super().__init__(next(iter(fields.values()))[0])
        self.fields = fields

    def details(self) -> dict[str, Any]:
        return {"fields": self.fields}


def release_named(game: str, slug: str) -> Release:
    """The game's release with this slug (UnknownRelease otherwise)."""
    release = Release.objects.filter(game=game, slug=slug).first()
    if release is None:
        raise UnknownRelease(game, slug)
    return release


def release_called(game: str, text: str) -> Release:
    """The game's release named `text` or with the slug `text` (a release's slug is its name slugified), as a
    reader names one; UnknownRelease otherwise."""
    release = Release.objects.filter(game=game, slug=slugify(text)[:70]).first() if text.strip() else None
    if release is None:
        raise UnknownRelease(game, text)
    return release


def release_rows(release: Release, model: type[Card]) -> models.QuerySet:
    """The cards of one model as the release froze them: historical rows, every field as it was."""
    ids = list(release.versions.get(model_label(model), {}).values())
    return _historical(model)._default_manager.filter(history_id__in=ids)


def create_release(*, game: str, name: str, notes: str = "", user: Any = None) -> Release:
    """Freeze the game's catalogue as it is now under `name`: every card's version and the bulk file."""
    name = name.strip()
    release = Release(game=game, name=name, slug=slugify(name)[:70], notes=notes,
                      created_by=user if getattr(user, "is_authenticated", False) else None)
    problems = _release_name_problems(release)
    if problems:
        raise ReleaseRefused(problems)
    with transaction.atomic():
        release.versions = card_versions(game)
        found, handle = bulk.open_bulk_file(game)
        with handle:
            release.bulk_file = handle.read()
        release.bulk_sha256 = hashlib.sha256(release.bulk_file).hexdigest()
        release.card_count = found.card_count
        try:
            with transaction.atomic():
                release.save()
        except IntegrityError:  # made meanwhile under the same name
            raise ReleaseRefused({"name": [f"{game} already has a release named {name!r}."]}) from None
    return release


def _release_name_problems(release: Release) -> dict[str, list[str]]:
    if not release.slug:
        return {"name": ["Give a name with at least one letter or digit."]}
    if WORKING in (release.name.lower(), release.slug):
        return {"name": [f"{WORKING!r} names the current catalogue; choose another name."]}
    same = Release.objects.filter(game=release.game)
    if same.filter(name__iexact=release.name).exists() or same.filter(slug=release.slug).exists():
        return {"name": [f"There is already a release named {release.name!r} (or {release.slug!r})."]}
    return {}


def _base_card_saved(sender, instance: Card, created: bool = False, raw: bool = False, using: str = "default",
                     **kwargs) -> None:
    """A save of a card's shared row alone (the shared card admin, an image upload) is a version of the card:
    its game's model records it, as its own saves do."""
    if raw:
        return
    for model in every_card_model():
        card = model._base_manager.using(using).filter(pk=instance.pk).first()
        if card is not None:
            card._change_reason = getattr(instance, "_change_reason", "")  # type: ignore[attr-defined]
            record_versions([card], created=created, using=using)
            return


def connect() -> None:
    """Record the versions of saves of the shared card row (called from the app's ready())."""
    post_save.connect(_base_card_saved, sender=Card, dispatch_uid="card_history_base_card_saved")


# --- Versions recorded in bulk (official loads) and for cards already there (the data migration) -----------


def record_versions(cards: Iterable[Card], *, created: bool, reason: str = "", using: str = "default") -> None:
    """One version per card, in one INSERT a model: for writes that bypass `save()` (the official loads). Each
    card's `_change_reason` is its reason, `reason` the default; the user is the request's, if any."""
    by_model: dict[type[Card], list[Card]] = {}
    for card in cards:
        by_model.setdefault(type(card), []).append(card)
    now = timezone.now()
    for model, instances in by_model.items():
        historical = _historical(model)
        rows = [historical(
            history_date=now, history_type="+" if created else "~",
            history_user=historical.get_default_history_user(card),
            history_change_reason=getattr(card, "_change_reason", "") or reason,
            **{field.attname: getattr(card, field.attname) for field in historical.tracked_fields},
        ) for card in instances]
        historical._default_manager.using(using).bulk_create(rows, batch_size=500)


def initial_versions(app_label: str, model_names: Sequence[str]):
    """The data migration's forward and backward steps: a first version ("+", "Initial version") for every
    card that has none, and their removal."""

    def forward(apps, schema_editor) -> None:
        alias = schema_editor.connection.alias
        for name in model_names:
            model = apps.get_model(app_label, name)
            historical = apps.get_model(app_label, f"Historical{name}")
            versioned = historical.objects.using(alias).values("id")
            tracked = [f for f in historical._meta.fields if not f.name.startswith("history_")]
            rows = [historical(history_type="+", history_change_reason=INITIAL_REASON,
                               history_date=card.updated_at,
                               **{f.attname: getattr(card, f.attname) for f in tracked})
                    for card in model._base_manager.using(alias).exclude(pk__in=versioned)]
            historical.objects.using(alias).bulk_create(rows, batch_size=500)

    def backward(apps, schema_editor) -> None:
        alias = schema_editor.connection.alias
        for name in model_names:
            historical = apps.get_model(app_label, f"Historical{name}")
            historical.objects.using(alias).filter(history_change_reason=INITIAL_REASON, history_type="+").delete()

    return forward, backward
