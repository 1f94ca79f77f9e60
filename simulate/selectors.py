"""Which matches a user may see."""

from django.db.models import Q, QuerySet

from simulate.models import Batch, Match


def match_list(*, user) -> QuerySet[Match]:
    """The user's own matches (none for anonymous visitors)."""
    if not user.is_authenticated:
        return Match.objects.none()
    return Match.objects.filter(owner=user).defer("log")


def match_visible(*, user) -> QuerySet[Match]:
    """Matches readable by id: the user's own and every anonymous one (their ids are unguessable)."""
    if user.is_authenticated:
        return Match.objects.filter(Q(owner=user) | Q(owner__isnull=True))
    return Match.objects.filter(owner__isnull=True)


def batch_list(*, user) -> QuerySet[Batch]:
    """The user's own batches (none for anonymous visitors)."""
    if not user.is_authenticated:
        return Batch.objects.none()
    return Batch.objects.filter(owner=user)


def batch_visible(*, user) -> QuerySet[Batch]:
    """Batches readable by id: the user's own and every anonymous one."""
    if user.is_authenticated:
        return Batch.objects.filter(Q(owner=user) | Q(owner__isnull=True))
    return Batch.objects.filter(owner__isnull=True)
