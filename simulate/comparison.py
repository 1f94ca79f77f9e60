"""Two finished studies of one kind and one game side by side: their headlines, and what their kind compares
(a field's members by the difference of their deltas, a what-if's patched cards). The API's compare endpoint
and the compare page both read `compare`.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from django.http import Http404

from cardsdb.errors import DomainError
from simulate import selectors, services
from simulate.engine.errors import InputError
from simulate.models import Batch
from simulate.study_kinds import study_kind
from simulate.study_kinds.base import Headline

# Said alike whether a study does not exist or is another account's.
NO_SUCH_STUDY = "There is no study {name} = {value}, or it is private: a study started while signed in is seen only " \
                "by its account."


class NotComparable(DomainError):
    """Two studies that cannot be compared: of different kinds or games, the same one twice, or unfinished."""

    status = 409  # the studies exist and are well named; what they are makes them not comparable
    code = "not_comparable"


@dataclass(frozen=True)
class Comparison:
    """Two studies side by side: each one's headline, and what their kind adds (`StudyKind.compared`)."""

    a: Batch
    b: Batch
    headlines: dict[str, Headline]
    compared: dict[str, Any] = field(default_factory=dict)


def comparable(*, user, a: str | None, b: str | None) -> tuple[Batch, Batch]:
    """The two studies named by id that the user may read (Http404 otherwise), finished, of one kind and one
    game (NotComparable); InputError at `a` or `b` for an id that is missing or not a UUID."""
    given = {"a": a, "b": b}
    errors = [(name, "Give the id of a study." if not value else "Not a study id (a UUID).")
              for name, value in given.items() if not value or not is_uuid(value)]
    if errors:
        raise InputError("Give two study ids: ?a=<id>&b=<id>.", errors)
    ids = {name: uuid.UUID(value) for name, value in given.items() if value}
    found = {batch.pk: batch for batch in selectors.batch_visible(user=user).filter(pk__in=ids.values()).defer("tally")}
    studies = {}
    for name, value in given.items():
        batch = found.get(ids[name])
        if batch is None:
            raise Http404(NO_SUCH_STUDY.format(name=name, value=value))
        studies[name] = batch
    if ids["a"] == ids["b"]:
        raise NotComparable("Give two different studies.")
    first, second = studies["a"], studies["b"]
    if (first.game, first.kind) != (second.game, second.kind):
        raise NotComparable(f"Study a is {described(first)} and study b {described(second)}: only studies of one "
                            "kind and one game are compared.")
    for name, batch in studies.items():
        if batch.status != Batch.Status.DONE:
            raise NotComparable(f"Study {name} is {batch.get_status_display().lower()}: only finished studies are "
                                "compared.")
    return first, second


def compare(a: Batch, b: Batch) -> Comparison:
    """Two comparable studies side by side."""
    kind = study_kind(a.kind)
    side = services.game_studies(a.game).side_names[0]
    return Comparison(a, b, {name: kind.headline(batch, batch.results or {}, side) for name, batch in (("a", a), ("b", b))},
                      kind.compared(a, b))


def is_uuid(value: str) -> bool:
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


def described(batch: Batch) -> str:
    """`a field of <the game>`, as a sentence names a study."""
    return f"a {study_kind(batch.kind).label.lower()} of {batch.get_game_display()}"
