"""Writes of the shared catalogue.

Collections: atomic, and safe when several requests change one entry at once.
Official content: loading the official sets adds what is missing and never overwrites a row; updating to
a new release changes only rows nobody edited since they were loaded (see OfficialRecord).
"""

import hashlib
import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, cast

from django.apps import apps
from django.conf import settings
from django.core import serializers as django_serializers
from django.core.exceptions import ObjectDoesNotExist
from django.core.management.color import no_style
from django.core.serializers.base import DeserializedObject
from django.core.serializers.json import DjangoJSONEncoder
from django.db import DEFAULT_DB_ALIAS, IntegrityError, connections, models, transaction
from django.db.models import F
from django.utils import timezone

from cardsdb import card_history, signals
from cardsdb.models import (
    MAX_QUANTITY,
    Card,
    Collection,
    CollectionEntry,
    OfficialRecord,
    record_issued_codes,
)


class InsufficientQuantity(Exception):
    """Removing more copies than the collection holds."""

    def __init__(self, held: int):
        super().__init__(f"The collection holds only {held} of this card.")
        self.held = held


class TooManyCopies(Exception):
    """Adding copies past MAX_QUANTITY of a card in one collection."""

    def __init__(self, held: int):
        super().__init__(
            f"A collection holds at most {MAX_QUANTITY:,} copies of a card; this one holds {held:,}, so at most "
            f"{MAX_QUANTITY - held:,} more can be added."
        )
        self.held = held


class CollectionGone(Exception):
    """The collection was deleted while the change waited for it."""


class CardGone(Exception):
    """The card was deleted while the change waited for it."""


def _lock_collection(collection: Collection, *, card: Card | None = None) -> None:
    """Lock the collection's row (and the card's) for the rest of the transaction: a delete of either waits
    for this change, or this change waits for the delete and then finds the row gone."""
    if not Collection.objects.select_for_update(no_key=True).filter(pk=collection.pk).values_list("pk").first():
        raise CollectionGone(f"Collection {collection.pk} no longer exists.")
    if card is not None and not Card.objects.select_for_update(no_key=True).filter(pk=card.pk).values_list("pk").first():
        raise CardGone(f"Card {card.slug!r} no longer exists.")


def _entry_for_update(collection: Collection, card: Card) -> CollectionEntry:
    """Return the entry of `card`, creating it with quantity 0, tolerant of a racing insert."""
    try:
        with transaction.atomic():
            entry, _ = CollectionEntry.objects.get_or_create(
                collection=collection, card=card, defaults={"quantity": 0}
            )
    except IntegrityError:
        entry = CollectionEntry.objects.get(collection=collection, card=card)
    return entry


def _touch(collection: Collection) -> None:
    Collection.objects.filter(pk=collection.pk).update(updated_at=timezone.now())


@transaction.atomic
def collection_add_card(*, collection: Collection, card: Card, quantity: int = 1) -> CollectionEntry:
    """Add copies of a card; the check and the increment are one conditional update in the database, so no
    addition is lost and none takes the entry past MAX_QUANTITY (a CHECK constraint holds it there too).
    TooManyCopies, CollectionGone or CardGone change nothing."""
    _lock_collection(collection, card=card)
    entry = _entry_for_update(collection, card)
    added = CollectionEntry.objects.filter(pk=entry.pk, quantity__lte=MAX_QUANTITY - quantity).update(
        quantity=F("quantity") + quantity
    )
    entry.refresh_from_db()
    if not added:
        raise TooManyCopies(entry.quantity)
    _touch(collection)
    return entry


@transaction.atomic
def collection_remove_card(*, collection: Collection, card: Card, quantity: int = 1) -> CollectionEntry:
    """Remove copies of a card; refuses to go below zero."""
    _lock_collection(collection, card=card)
    entry = _entry_for_update(collection, card)
    changed = CollectionEntry.objects.filter(pk=entry.pk, quantity__gte=quantity).update(
        quantity=F("quantity") - quantity
    )
    entry.refresh_from_db()
    if not changed:
        raise InsufficientQuantity(entry.quantity)
    _touch(collection)
    return entry


@transaction.atomic
def collection_set_quantity(*, collection: Collection, card: Card, quantity: int) -> CollectionEntry:
    """Set the number of copies of a card held."""
    _lock_collection(collection, card=card)
    entry = _entry_for_update(collection, card)
    CollectionEntry.objects.filter(pk=entry.pk).update(quantity=quantity)
    _touch(collection)
    entry.refresh_from_db()
    return entry


@transaction.atomic
def collection_delete(*, collection: Collection) -> None:
    """Delete a collection and its entries once the changes under way are done (CollectionGone when another
    request deleted it first)."""
    if not Collection.objects.select_for_update().filter(pk=collection.pk).values_list("pk").first():
        raise CollectionGone(f"Collection {collection.pk} no longer exists.")
    collection.delete()


# --- Official content: load what is missing, update what nobody edited ------------------------------------
#
# Every row of the official fixtures gets an OfficialRecord holding a fingerprint of its fields as loaded.
# A row whose fingerprint is still the recorded one is unedited, and a new release may replace it; a row
# whose fingerprint moved was edited (by staff, in the admin or the API), and is only ever reported.

OFFICIAL_FIXTURE_NAMES = ("catalogue.json", "realms_starter.json", "legends_official.json")

# What happens to a row of the release, in the order reports list them.
CREATE, UPDATE, CONFLICT, HELD, RETIRED, UNCHANGED = "create", "update", "conflict", "held", "retired", "unchanged"
ACTIONS = (CREATE, UPDATE, CONFLICT, HELD, RETIRED, UNCHANGED)


class OfficialFixtureError(Exception):
    """A fixture file that cannot be read as an official release."""


@dataclass(frozen=True)
class ReleaseRow:
    """One row of an official fixture file, as the model sees it."""

    source: str
    label: str
    pk: str
    item: DeserializedObject
    fields: dict[str, Any]
    fingerprint: str

    @property
    def model(self) -> type[models.Model]:
        return type(self.item.object)


@dataclass(frozen=True)
class FieldChange:
    field: str
    current: Any
    release: Any


@dataclass
class RowPlan:
    """What loading or updating does to one row, and why."""

    action: str
    label: str
    pk: str
    name: str
    reason: str = ""
    changes: list[FieldChange] = field(default_factory=list)
    row: ReleaseRow | None = None
    record: OfficialRecord | None = None
    # The fingerprint the row's record holds once the plan is applied (None: the record is left as it is).
    new_fingerprint: str | None = None

    @property
    def release_row(self) -> ReleaseRow:
        """The fixture row of a row the plan creates or updates (those always have one)."""
        assert self.row is not None, f"{self.label} {self.pk}: no fixture row"
        return self.row


@dataclass
class OfficialPlan:
    rows: list[RowPlan]
    applied: bool = False

    def count(self, action: str) -> int:
        return sum(1 for plan in self.rows if plan.action == action)

    def listed(self) -> list[RowPlan]:
        """Every row the report names (all but the unchanged ones), in a stable order."""
        order = {action: n for n, action in enumerate(ACTIONS)}
        return sorted((p for p in self.rows if p.action != UNCHANGED), key=lambda p: (order[p.action], p.label, _key(p.pk)))


def official_fixture_paths() -> list[Path]:
    """The official fixture files, in the order they load (the catalogue before the cards that use it)."""
    return [Path(settings.BASE_DIR) / "fixtures" / name for name in OFFICIAL_FIXTURE_NAMES]


def _key(pk: str) -> tuple[int, str]:
    return (int(pk), "") if pk.lstrip("-").isdigit() else (0, pk)


def _auto_time_fields(model: type[models.Model]) -> set[str]:
    return {
        f.name for f in model._meta.local_fields
        if getattr(f, "auto_now", False) or getattr(f, "auto_now_add", False)
    }


def _time_field(model: type[models.Model], name: str) -> models.DateField:
    """One of the model's _auto_time_fields."""
    return cast(models.DateField, model._meta.get_field(name))


def row_fields(instance: models.Model) -> dict[str, Any]:
    """The fields of the instance's own table as a fixture lists them, time stamps left out."""
    data = django_serializers.serialize("python", [instance])[0]["fields"]
    skipped = _auto_time_fields(type(instance))
    return {name: value for name, value in data.items() if name not in skipped}


def _canonical(value: Any) -> str:
    return json.dumps(value, cls=DjangoJSONEncoder, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def fingerprint(fields: dict[str, Any]) -> str:
    """SHA-256 of a row's fields in canonical JSON (sorted keys), so equal content gives equal prints on
    every database (PostgreSQL's jsonb reorders keys)."""
    return hashlib.sha256(_canonical(fields).encode()).hexdigest()


def read_release(paths: Iterable[Path | str]) -> list[ReleaseRow]:
    """Every row of the fixture files, in file order; a row listed twice is refused."""
    rows: list[ReleaseRow] = []
    seen: dict[tuple[str, str], str] = {}
    for path in map(Path, paths):
        try:
            with path.open(encoding="utf-8") as stream:
                items = list(django_serializers.deserialize("json", stream))
        except (OSError, django_serializers.base.DeserializationError) as exc:
            raise OfficialFixtureError(f"{path}: {exc}") from exc
        for item in items:
            instance = item.object
            label, pk = instance._meta.label_lower, str(instance.pk)
            if (label, pk) in seen:
                raise OfficialFixtureError(f"{path}: {label} {pk} is listed twice (also in {seen[label, pk]}).")
            seen[label, pk] = path.name
            fields = row_fields(instance)
            rows.append(ReleaseRow(path.name, label, pk, item, fields, fingerprint(fields)))
    return rows


def _group(label: str, pk: str) -> tuple[str, str]:
    """The object a row belongs to: a card's rows in `cardsdb_card` and its game's table are one object."""
    model = apps.get_model(label)
    parents = model._meta.get_parent_list()
    return ((parents[-1] if parents else model)._meta.label_lower, pk)


def _display(value: Any, limit: int = 70) -> str:
    text = _canonical(value) if isinstance(value, dict | list) else repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _changes(current: dict[str, Any], release: dict[str, Any]) -> list[FieldChange]:
    return [
        FieldChange(name, current.get(name), value)
        for name, value in release.items()
        if _canonical(current.get(name)) != _canonical(value)
    ]


def _current_rows(rows: list[ReleaseRow], using: str) -> dict[tuple[str, str], models.Model]:
    by_model: dict[type[models.Model], list[Any]] = defaultdict(list)
    for row in rows:
        by_model[row.model].append(row.item.object.pk)
    found = {}
    for model, pks in by_model.items():
        for pk, instance in model._base_manager.using(using).in_bulk(pks).items():
            found[model._meta.label_lower, str(pk)] = instance
    return found


def _records(using: str) -> dict[tuple[str, str], OfficialRecord]:
    return {(r.model, r.object_pk): r for r in OfficialRecord.objects.using(using)}


def _names(rows: list[ReleaseRow], current: dict[tuple[str, str], models.Model]) -> dict[tuple[str, str], str]:
    """A readable name per object (a card's child row has no name of its own in a fixture)."""
    names: dict[tuple[str, str], str] = {}
    for row in rows:
        instance = current.get((row.label, row.pk))
        for text in (row.fields.get("name"), row.fields.get("code"), str(instance) if instance else None):
            if text:
                names.setdefault(_group(row.label, row.pk), str(text))
                break
    return names


def plan_official(rows: list[ReleaseRow], *, update: bool, using: str = DEFAULT_DB_ALIAS) -> OfficialPlan:
    """Compare the release with the database, row by row, without writing anything.

    Loading (`update=False`) only creates rows that were never loaded and records rows already there;
    an existing row is never changed. Updating also brings every row nobody edited since it was loaded
    to the release, and reports edited ones as conflicts; a conflict holds back the object's other rows.
    """
    current = _current_rows(rows, using)
    records = _records(using)
    names = _names(rows, current)
    plans: list[RowPlan] = []
    for row in rows:
        key = (row.label, row.pk)
        plan = RowPlan(UNCHANGED, row.label, row.pk, names.get(_group(*key), ""), row=row, record=records.get(key))
        plans.append(plan)
        instance = current.get(key)
        if instance is None:
            _plan_missing(plan, row)
        elif update:
            _plan_update(plan, row, row_fields(instance))
        else:
            _plan_load(plan, row, row_fields(instance))
    _hold_back_conflicted(plans)
    if update:
        plans += _retired(rows, records)
    return OfficialPlan(plans)


def _plan_missing(plan: RowPlan, row: ReleaseRow) -> None:
    """A release row not in the database: created if it was never loaded, else left deleted (a conflict)."""
    if plan.record is None:
        plan.action, plan.new_fingerprint = CREATE, row.fingerprint
    else:
        plan.action, plan.reason = CONFLICT, "deleted since it was loaded; left deleted"


def _plan_load(plan: RowPlan, row: ReleaseRow, now: dict[str, Any]) -> None:
    """A row already there, on a load: never changed, only recorded as loaded if it was not."""
    if plan.record is None:
        plan.new_fingerprint = row.fingerprint
        if fingerprint(now) != row.fingerprint:
            plan.reason = "differs from the release; recorded as loaded, so updates report it"


def _plan_update(plan: RowPlan, row: ReleaseRow, now: dict[str, Any]) -> None:
    """A row already there, on an update: brought to the release unless edited since it was loaded (or never
    loaded and different), which is a conflict."""
    record, now_print = plan.record, fingerprint(now)
    changes = _changes(now, row.fields)
    if now_print == row.fingerprint:
        if record is None or record.fingerprint != row.fingerprint:
            plan.new_fingerprint = row.fingerprint
    elif record is None:
        plan.action, plan.changes = CONFLICT, changes
        plan.reason = "already in the database, never loaded as official, and different from the release; kept"
    elif record.fingerprint != now_print:
        plan.action, plan.changes = CONFLICT, changes
        plan.reason = "edited since it was loaded; kept as it is"
    else:
        plan.action, plan.changes, plan.new_fingerprint = UPDATE, changes, row.fingerprint


def _hold_back_conflicted(plans: list[RowPlan]) -> None:
    """No row of an object in conflict is created or updated: the object stays whole as it is."""
    conflicted = {_group(p.label, p.pk) for p in plans if p.action == CONFLICT}
    for plan in plans:
        if plan.action in (CREATE, UPDATE) and _group(plan.label, plan.pk) in conflicted:
            plan.action, plan.new_fingerprint = HELD, None
            plan.reason = "held back: another row of this object is in conflict"


def _retired(rows: list[ReleaseRow], records: dict[tuple[str, str], OfficialRecord]) -> list[RowPlan]:
    """Rows recorded as official from the release's files that the release no longer lists (left in place)."""
    released = {(row.label, row.pk) for row in rows}
    sources = {row.source for row in rows}
    retired = []
    for key, record in sorted(records.items()):
        if key not in released and record.source in sources:
            try:
                name = str(record.recorded_row())
            except (LookupError, ObjectDoesNotExist):
                name = ""
            retired.append(RowPlan(
                RETIRED, record.model, record.object_pk, name, record=record,
                reason=f"official in {record.source} but not in this release; left in place",
            ))
    return retired


def apply_official(plan: OfficialPlan, *, using: str = DEFAULT_DB_ALIAS) -> OfficialPlan:
    """Write a plan: create and update its rows and their records, in one transaction."""
    with transaction.atomic(using=using):
        creates = [row_plan for row_plan in plan.rows if row_plan.row is not None and row_plan.action == CREATE]
        for batch in _by_model(creates):
            _create_rows(batch, using)
        now = timezone.now()
        for row_plan in plan.rows:
            if row_plan.row is not None and row_plan.action == UPDATE:
                _update_row(row_plan.row, row_plan.changes, now, using)
        _reset_sequences({row_plan.release_row.model for row_plan in creates}, using)
        _write_records(plan, using)
        _record_card_versions(plan, using)
    plan.applied = True
    return plan


def _record_card_versions(plan: OfficialPlan, using: str) -> None:
    """A version for every card the plan created or updated: the rows were written table by table, as a
    fixture load writes them (no save, so no version), so each card is read back whole and recorded once."""
    sources: dict[str, dict[str, str]] = {CREATE: {}, UPDATE: {}}
    for row_plan in plan.rows:
        if row_plan.row is not None and row_plan.action in sources and issubclass(row_plan.row.model, Card):
            sources[row_plan.action].setdefault(row_plan.pk, row_plan.row.source)
    for pk in sources[CREATE]:
        sources[UPDATE].pop(pk, None)  # a card whose base row was created now is created, whatever its game row
    for action, verb in ((CREATE, "Loaded from"), (UPDATE, "Updated from")):
        if not sources[action]:
            continue
        cards = []
        for model in card_history.every_card_model():
            for card in model._base_manager.using(using).filter(pk__in=list(sources[action])):
                card._change_reason = f"{verb} {sources[action][str(card.pk)]}"  # type: ignore[attr-defined]
                cards.append(card)
        card_history.record_versions(cards, created=action == CREATE, using=using)


def _by_model(row_plans: list[RowPlan]) -> list[list[RowPlan]]:
    """The rows grouped by model, the models in the order they first appear (the fixtures name what a row
    refers to before it; foreign keys are checked at commit in any case)."""
    groups: dict[type[models.Model], list[RowPlan]] = {}
    for row_plan in row_plans:
        groups.setdefault(row_plan.release_row.model, []).append(row_plan)
    return list(groups.values())


def _create_rows(batch: list[RowPlan], using: str) -> None:
    """INSERT rows of one model that the plan found missing, in one statement, each as a fixture load saves
    it (raw: its own table's columns, keys as given). Of the save signals only the issued code acts on such a
    save, so the codes are recorded here, in one statement too. A row that breaks a unique value stops the
    whole load, named: the batch is then tried row by row to find it."""
    model, objects = batch[0].release_row.model, [row_plan.release_row.item.object for row_plan in batch]
    try:
        with transaction.atomic(using=using):
            model._base_manager.using(using)._insert(  # type: ignore[attr-defined]  # private, not in the stubs
                objects, fields=model._meta.local_concrete_fields, using=using, raw=True)
    except IntegrityError:
        for row_plan in batch:
            row = row_plan.release_row
            try:
                with transaction.atomic(using=using):
                    row.item.save(using=using, force_insert=True)
            except IntegrityError as exc:
                raise OfficialFixtureError(
                    f"{row.source}: {row.label} {row.pk} ({row_plan.name}) cannot be created, "
                    f"another row holds one of its unique values: {exc}"
                ) from exc
        raise
    for row_plan, instance in zip(batch, objects, strict=True):
        instance._state.adding, instance._state.db = False, using
        for accessor, related in (row_plan.release_row.item.m2m_data or {}).items():
            getattr(instance, accessor).set(related)
    record_issued_codes([instance for instance in objects if isinstance(instance, Card)], using=using)


def _update_row(row: ReleaseRow, changes: list[FieldChange], now: datetime, using: str) -> None:
    """Write the release's values of the changed fields (as a fixture load would), and the time of it."""
    model, instance = row.model, row.item.object
    fields = {c.field: cast(models.Field, model._meta.get_field(c.field)) for c in changes}  # the row's own columns
    values = {fields[c.field].attname: getattr(instance, fields[c.field].attname) for c in changes}
    values.update({name: now for name in _auto_time_fields(model) if _time_field(model, name).auto_now})
    model._base_manager.using(using).filter(pk=instance.pk).update(**values)
    # Art the release replaces or removes goes once the update commits (a file still named stays).
    replaced = [c.current for c in changes if isinstance(model._meta.get_field(c.field), models.FileField)]
    signals.delete_unreferenced_files_on_commit([name for name in replaced if name], using=using)
    for parent in model._meta.get_parent_list():  # a card's game row changed: the card was updated
        stamps = {name: now for name in _auto_time_fields(parent) if _time_field(parent, name).auto_now}
        if stamps:
            parent._base_manager.using(using).filter(pk=instance.pk).update(**stamps)


def _reset_sequences(models_created: set[type[models.Model]], using: str) -> None:
    """Rows created with their fixture keys move the id sequences past them (as loaddata does)."""
    if not models_created:
        return
    connection = connections[using]
    statements = connection.ops.sequence_reset_sql(no_style(), sorted(models_created, key=lambda m: m._meta.label))
    with connection.cursor() as cursor:
        for sql in statements:
            cursor.execute(sql)


def _write_records(plan: OfficialPlan, using: str) -> None:
    new, changed = [], []
    for row_plan in plan.rows:
        if row_plan.new_fingerprint is None or row_plan.row is None:
            continue
        record = row_plan.record
        if record is None:
            new.append(OfficialRecord(
                model=row_plan.label, object_pk=row_plan.pk, source=row_plan.row.source,
                fingerprint=row_plan.new_fingerprint,
            ))
        elif record.fingerprint != row_plan.new_fingerprint or record.source != row_plan.row.source:
            record.fingerprint, record.source = row_plan.new_fingerprint, row_plan.row.source
            changed.append(record)
    OfficialRecord.objects.using(using).bulk_create(new)
    for record in changed:
        record.save(using=using, update_fields=["fingerprint", "source", "loaded_at"])


def official_load(*, paths: Iterable[Path | str] | None = None, using: str = DEFAULT_DB_ALIAS) -> OfficialPlan:
    """Create the official rows that are missing and record every official row; change no existing row."""
    rows = read_release(official_fixture_paths() if paths is None else paths)
    with transaction.atomic(using=using):
        return apply_official(plan_official(rows, update=False, using=using), using=using)


def official_update(
    *, paths: Iterable[Path | str] | None = None, apply: bool = False, using: str = DEFAULT_DB_ALIAS
) -> OfficialPlan:
    """Compare a release with the database; with `apply`, bring unedited rows to it (edited ones are kept)."""
    rows = read_release(official_fixture_paths() if paths is None else paths)
    if not apply:
        return plan_official(rows, update=True, using=using)
    with transaction.atomic(using=using):
        return apply_official(plan_official(rows, update=True, using=using), using=using)


def describe_official_plan(plan: OfficialPlan, *, verbose: bool = False) -> list[str]:
    """The plan in words: one line per row (and one per field that changes), then the totals."""
    lines: list[str] = []
    for row_plan in plan.listed() if not verbose else sorted(plan.rows, key=lambda p: (p.label, _key(p.pk))):
        head = f"{row_plan.action:<9} {row_plan.label} {row_plan.pk}"
        if row_plan.name:
            head += f" ({row_plan.name})"
        if row_plan.reason:
            head += f": {row_plan.reason}"
        lines.append(head)
        for change in row_plan.changes:
            lines.append(f"    {change.field}: {_display(change.current)} -> {_display(change.release)}"
                         if row_plan.action == UPDATE else
                         f"    {change.field}: database {_display(change.current)}, release {_display(change.release)}")
    return lines
