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
    """Batches readable by id: the user's own, every anonymous one, and every published one."""
    published = Q(published_at__isnull=False)
    if user.is_authenticated:
        return Batch.objects.filter(Q(owner=user) | Q(owner__isnull=True) | published)
    return Batch.objects.filter(Q(owner__isnull=True) | published)


def published_field_study(*, game: str) -> Batch | None:
    """The field study of a game's official sets (no pool given) published last: its rows are the
    `simulated` block of each card. An unpublished study, however large, feeds no card page."""
    return (Batch.objects.filter(game=game, kind=field.Kind.name, status=Batch.Status.DONE,
                                 published_at__isnull=False)
            .exclude(inputs__has_key="pool").defer("tally").order_by("-published_at").first())


def published_field_study_id(*, game: str) -> str | None:
    """The id of the study the cards' `simulated` blocks come from: part of the bulk file's version."""
    study = published_field_study(game=game)
    return None if study is None else str(study.pk)
