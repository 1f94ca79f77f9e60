"""Reads of the shared catalogue, shaped so list pages run a fixed number of queries."""

from django.db.models import Count, Prefetch, QuerySet

from cardsdb.models import Card, CardSet, Collection, CollectionEntry


def card_list() -> QuerySet[Card]:
    return Card.objects.select_related("card_set", "rarity")


def card_set_list() -> QuerySet[CardSet]:
    return CardSet.objects.annotate(card_count=Count("cards")).order_by("release_date", "code")


def collection_list(*, user) -> QuerySet[Collection]:
    """The collections of one user, entries and their cards prefetched."""
    if not user.is_authenticated:
        return Collection.objects.none()
    entries = CollectionEntry.objects.select_related("card")
    return (
        Collection.objects.filter(owner=user)
        .select_related("owner")
        .prefetch_related(Prefetch("entries", queryset=entries))
    )
