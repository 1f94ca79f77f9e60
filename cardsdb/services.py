"""Writes to collections: atomic, and safe when several requests change one entry at once."""

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from cardsdb.models import Card, Collection, CollectionEntry


class InsufficientQuantity(Exception):
    """Removing more copies than the collection holds."""

    def __init__(self, held: int):
        super().__init__(f"The collection holds only {held} of this card.")
        self.held = held


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


@transaction.atomic
def collection_add_card(*, collection: Collection, card: Card, quantity: int = 1) -> CollectionEntry:
    """Add copies of a card; the increment happens in the database, so none is lost."""
    entry = _entry_for_update(collection, card)
    CollectionEntry.objects.filter(pk=entry.pk).update(quantity=F("quantity") + quantity)
    Collection.objects.filter(pk=collection.pk).update(updated_at=timezone.now())
    entry.refresh_from_db()
    return entry


@transaction.atomic
def collection_remove_card(*, collection: Collection, card: Card, quantity: int = 1) -> CollectionEntry:
    """Remove copies of a card; refuses to go below zero."""
    entry = _entry_for_update(collection, card)
    changed = CollectionEntry.objects.filter(pk=entry.pk, quantity__gte=quantity).update(
        quantity=F("quantity") - quantity
    )
    entry.refresh_from_db()
    if not changed:
        raise InsufficientQuantity(entry.quantity)
    Collection.objects.filter(pk=collection.pk).update(updated_at=timezone.now())
    return entry


@transaction.atomic
def collection_set_quantity(*, collection: Collection, card: Card, quantity: int) -> CollectionEntry:
    """Set the number of copies of a card held."""
    entry = _entry_for_update(collection, card)
    CollectionEntry.objects.filter(pk=entry.pk).update(quantity=quantity)
    Collection.objects.filter(pk=collection.pk).update(updated_at=timezone.now())
    entry.refresh_from_db()
    return entry
