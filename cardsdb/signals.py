"""Card art on disk follows the rows: a replaced or removed image (and its thumbnail) is deleted once the
change is committed, and a deleted card takes its files with it; a file another card still names stays.

Connected in `CardsdbConfig.ready()` to `Card` and every model that inherits from it (Echo Realms
characters, the Akin Legends cards), by sender, so other models keep Django's fast bulk deletes.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.apps import apps
from django.conf import settings
from django.core.files.storage import default_storage
from django.db import router, transaction
from django.db.models import Q
from django.db.models.signals import post_delete, post_save, pre_delete, pre_save

from cardsdb.models import Card, record_issued_code

FILE_FIELDS = ("image", "thumbnail")
_OLD_FILES = "_stored_file_names"


def card_models() -> list[type[Card]]:
    """`Card` and every installed model that inherits from it."""
    return [model for model in apps.get_models() if issubclass(model, Card)]


def _names(card: Card) -> set[str]:
    return {name for name in (getattr(card, field).name for field in FILE_FIELDS) if name}


def remember_stored_files(sender, instance: Card, raw: bool = False, **kwargs) -> None:
    """Before a card is saved, note the file names its row holds now (fixture loads are left alone)."""
    if raw or instance.pk is None:
        return
    stored = Card._base_manager.using(kwargs.get("using") or router.db_for_write(Card)).filter(pk=instance.pk)
    row = stored.values_list(*FILE_FIELDS).first()
    setattr(instance, _OLD_FILES, {name for name in (row or ()) if name})


def drop_replaced_files(sender, instance: Card, raw: bool = False, using: str | None = None, **kwargs) -> None:
    """After a card is saved, the files its row no longer names are deleted when the transaction commits."""
    old = getattr(instance, _OLD_FILES, None)
    if raw or old is None:
        return
    delattr(instance, _OLD_FILES)
    delete_unreferenced_files_on_commit(old - _names(instance), using=using)


def drop_files_of_deleted_card(sender, instance: Card, using: str | None = None, **kwargs) -> None:
    """After a card is deleted, its image and thumbnail are deleted when the transaction commits."""
    delete_unreferenced_files_on_commit(_names(instance), using=using)


def delete_unreferenced_files_on_commit(names: Iterable[str], *, using: str | None = None) -> None:
    """Once the current transaction commits (at once outside one), delete each named file that no card's
    image or thumbnail names any more; nothing happens if the transaction rolls back."""
    names = sorted(set(names))
    if not names:
        return
    using = using or router.db_for_write(Card)
    transaction.on_commit(lambda: delete_unreferenced_files(names, using=using), using=using)


def delete_unreferenced_files(names: Iterable[str], *, using: str | None = None) -> list[str]:
    """Delete the named media files no card refers to; return those deleted."""
    names = set(names)
    if not names:
        return []
    cards = Card._base_manager.using(using or router.db_for_write(Card))
    in_use: set[str] = set()
    for image, thumbnail in cards.filter(Q(image__in=names) | Q(thumbnail__in=names)).values_list(*FILE_FIELDS):
        in_use.update((image, thumbnail))
    deleted = []
    for name in sorted(names - in_use):
        if default_storage.exists(name):
            default_storage.delete(name)
            deleted.append(name)
    return deleted


def keep_issued_code(sender, instance: Card, using: str | None = None, **kwargs) -> None:
    """After a card is saved (fixture loads included), its code is on the list of codes never reused."""
    record_issued_code(instance, using=using)


def keep_username_forms(sender, instance, created: bool, raw: bool = False, using=None, update_fields=None,
                        **kwargs) -> None:
    """`post_save` of every account: the forms its name reads as are stored (cardsdb.usernames), however it was
    made (sign-up, the admin, createsuperuser) or renamed."""
    if raw or not (created or update_fields is None or "username" in update_fields):
        return
    from cardsdb.usernames import record_forms

    record_forms(instance, using=using)


def connect() -> None:
    """Connect the handlers to every card model (called once, from the app's ready())."""
    for model in card_models():
        uid = f"cardsdb.signals.{model._meta.label_lower}"
        pre_save.connect(remember_stored_files, sender=model, dispatch_uid=f"{uid}.pre_save")
        post_save.connect(drop_replaced_files, sender=model, dispatch_uid=f"{uid}.post_save")
        post_save.connect(keep_issued_code, sender=model, dispatch_uid=f"{uid}.issued_code")
        post_delete.connect(drop_files_of_deleted_card, sender=model, dispatch_uid=f"{uid}.post_delete")
    # A card something uses (a saved army, a setup, a study) is never deleted, whatever deletes it; deleting a
    # card of either game deletes its `Card` row too, so one handler on `Card` sees every card.
    from cardsdb.card_uses import refuse_deleting_used_card

    pre_delete.connect(refuse_deleting_used_card, sender=Card, dispatch_uid="cardsdb.signals.card_in_use")
    post_save.connect(keep_username_forms, sender=settings.AUTH_USER_MODEL, dispatch_uid="cardsdb.signals.usernames")
