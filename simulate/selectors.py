"""Which matches a user may see."""

from django.db.models import Q, QuerySet

from simulate.models import Batch, Match
from simulate.study_kinds import field


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


def latest_field_study(*, game: str) -> Batch | None:
    """The latest finished `field` study of a game's official sets (no pool given) that a designer ran:
    a staff account, or the command line (no client). Its rows are the `simulated` block of each card."""
    return (Batch.objects.filter(game=game, kind=field.Kind.name, status=Batch.Status.DONE)
            .filter(Q(owner__is_staff=True) | Q(owner__isnull=True, client=""))
            .exclude(inputs__has_key="pool").defer("tally").order_by("-finished_at").first())
