"""What uses a card, so that a card in use is never deleted from under its users.

A collection holds a card by a foreign key (`CollectionEntry.card`, PROTECT). Saved armies and saved setups
name cards by slug inside their JSON, and a queued or running study reads the catalogue of its game while it
plays: no foreign key can hold those, so each app registers here how to find its rows that use a card
(`register_card_users`, from its `ready()`). The shared app imports nothing from the apps above it.

Deleting a card that something uses is refused with `CardInUse`, which names every kind of use and how many:
by `card_delete` (the API), by the admin's delete page (`protected_uses`), and by a `pre_delete` check on
every other path (the ORM, a shell), so that no user's collection, army, setup or study silently loses it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from django.db import models, transaction
from django.db.models import ProtectedError

from cardsdb.models import Card, CollectionEntry


@dataclass(frozen=True)
class CardUsers:
    """One kind of row that may use a card: its key in answers, its names, and how to find those rows."""

    key: str  # as an API answer names it, e.g. "saved_armies"
    one: str  # "saved army"
    many: str  # "saved armies"
    find: Callable[[Card], Iterable[models.Model]]


def _collections_holding(card: Card) -> list[models.Model]:
    entries = CollectionEntry.objects.filter(card_id=card.pk).select_related("collection__owner")
    return [entry.collection for entry in entries.order_by("collection_id")]


CARD_USERS: dict[str, CardUsers] = {
    "collections": CardUsers("collections", "collection", "collections", _collections_holding),
}


def register_card_users(key: str, one: str, many: str, find: Callable[[Card], Iterable[models.Model]]) -> None:
    """Declare a kind of row that uses cards (`find(card)` lists those that use `card`): such a card cannot
    be deleted while any does. Called once per kind, from the app's `ready()`."""
    CARD_USERS[key] = CardUsers(key, one, many, find)


def card_users(card: Card) -> dict[str, list[models.Model]]:
    """The rows that use `card`, by kind (only the kinds with at least one)."""
    found = {}
    for users in CARD_USERS.values():
        rows = list(users.find(card))
        if rows:
            found[users.key] = rows
    return found


def _counted(count: int, users: CardUsers) -> str:
    return f"{count:,} {users.one if count == 1 else users.many}"


class CardInUse(ProtectedError):
    """A card that collections, saved armies, saved setups or studies still use: it is not deleted."""

    def __init__(self, card: Card, users: dict[str, list[models.Model]]):
        self.card_slug = card.slug
        self.uses = {key: len(rows) for key, rows in users.items()}
        self.users = users
        parts = [_counted(count, CARD_USERS[key]) for key, count in self.uses.items()]
        listed = parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"
        message = (f"The card {card.name!r} ({card.slug}) is still used by {listed}; it can be deleted once "
                   "nothing uses it.")
        super().__init__(message, {row for rows in users.values() for row in rows})
        self.message = message


def check_unused(card: Card) -> None:
    """CardInUse when anything uses the card."""
    users = card_users(card)
    if users:
        raise CardInUse(card, users)


@transaction.atomic
def card_delete(*, card: Card) -> None:
    """Delete a card nothing uses (CardInUse otherwise). The card's row is locked first, so that a collection
    adding it meanwhile (which locks the row too) either comes first and is seen here, or finds it gone."""
    Card.objects.select_for_update().filter(pk=card.pk).values_list("pk").first()
    check_unused(card)
    card.delete()


def refuse_deleting_used_card(sender, instance: Card, **kwargs) -> None:
    """`pre_delete` of every card: a delete that did not go through `card_delete` is refused as well."""
    check_unused(instance)


def protected_uses(card: Card, *, leave_out: Iterable[str] = ()) -> list[str]:
    """What the admin lists as keeping a card from being deleted: each row that uses it, by kind (but the kinds
    `leave_out` names)."""
    lines = []
    for key, rows in card_users(card).items():
        if key in leave_out:
            continue
        users = CARD_USERS[key]
        for row in rows:
            owner = getattr(row, "owner", None)
            whose = f" of {owner}" if owner is not None else ""
            lines.append(f"{users.one.capitalize()}{whose}: {row}")
    return lines
