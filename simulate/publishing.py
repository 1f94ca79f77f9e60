"""Publishing a study: staff make a finished study readable by everyone, and a published field study of the
official sets is what the cards' `simulated` figures come from.

A field study is published only when it measured every card it played closely enough: each card's delta
interval at most ±5 points (SIMULATE_PUBLISH_POINTS). Smaller studies stay private to their owner, so that
a one-match test never reaches a card page.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from django.db import transaction
from django.utils import timezone

from cardsdb.errors import DomainError
from simulate.conf import setting
from simulate.models import Batch
from simulate.services import game_studies
from simulate.study_kinds import study_kind


def max_half_width() -> float:
    """A published field study's widest card interval, as a share (±5 points: 0.05)."""
    return setting("SIMULATE_PUBLISH_POINTS") / 100


class NotPublishable(DomainError):
    """A study that cannot be published as it stands (answered 409, with what is missing)."""

    status = 409
    code = "not_publishable"

    def __init__(self, message: str, wide: list[dict[str, Any]] | None = None) -> None:
        super().__init__(message)
        self.wide = wide or []

    def details(self) -> dict[str, Any]:
        return {"cards": self.wide} if self.wide else {}


def half_width(row: Mapping[str, Any]) -> float | None:
    """Half the width of a row's delta interval (None when it has none: a card in every army, or in none)."""
    ci = row.get("delta_ci") or {}
    if row.get("delta") is None or ci.get("low") is None or ci.get("high") is None:
        return None
    return (ci["high"] - ci["low"]) / 2


def too_wide(batch: Batch) -> list[dict[str, Any]]:
    """The cards a field study measured less closely than `max_half_width` (or not at all), widest first."""
    studies = game_studies(batch.game)
    bound = max_half_width()
    played = (batch.catalogue or {}).get("cards", {})
    wide = []
    for group, model in studies.card_groups.items():
        key = studies.field_groups[group]
        rows = {row[key]: row for row in batch.results.get(group, [])}
        for card in played.get(model, sorted(rows)):
            width = half_width(rows.get(card, {}))
            if width is None or width > bound:
                wide.append({"card": card, "group": group, "half_width": None if width is None else round(width, 4),
                             "appearances": rows.get(card, {}).get("appearances", 0)})
    wide.sort(key=lambda row: (-(row["half_width"] if row["half_width"] is not None else 1.0), row["card"]))
    return wide


def needed_matches(batch: Batch, wide: list[dict[str, Any]]) -> int:
    """About how many matches would bring the widest interval within bounds (an interval narrows with the
    square root of the matches)."""
    widths = [row["half_width"] for row in wide if row["half_width"] is not None]
    if not widths or len(widths) < len(wide):
        return 0
    return math.ceil(batch.played * (max(widths) / max_half_width()) ** 2)


def publish(batch: Batch, *, user) -> Batch:
    """Publish a finished study (staff): readable by everyone; a field study only if every card it played is
    measured within ±5 points. Publishing again keeps the first date."""
    if batch.status != Batch.Status.DONE:
        raise NotPublishable(f"Only a finished study can be published; this one is {batch.status}.")
    if study_kind(batch.kind).measures_cards:
        wide = too_wide(batch)
        if wide:
            needed = needed_matches(batch, wide)
            more = (f" About {needed:,} matches would measure them closely enough." if needed else
                    " Some cards were never measured: give a larger count.")
            raise NotPublishable(
                f"A published field study measures every card within ±{max_half_width() * 100:.0f} points, so that a "
                f"card page never shows a figure it cannot back; {len(wide)} card(s) of this one are measured less "
                f"closely ({batch.played:,} matches).{more}", wide)
    with transaction.atomic():
        Batch.objects.filter(pk=batch.pk, published_at__isnull=True).update(
            published_at=timezone.now(), published_by=user, updated_at=timezone.now())
    batch.refresh_from_db()
    return batch


def unpublish(batch: Batch) -> Batch:
    """Withdraw a study: private to its owner again, and no longer the cards' figures."""
    Batch.objects.filter(pk=batch.pk).update(published_at=None, published_by=None, updated_at=timezone.now())
    batch.refresh_from_db()
    return batch
