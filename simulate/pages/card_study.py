"""A card's latest field study in words, for the card pages of both games: its `simulated` block as the
catalogue API shows it (never recomputed), with rates as percentages and the difference in points."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.urls import reverse
from django.utils.dateparse import parse_datetime

from simulate.pages.charts import interval, pct, points
from simulate.study_kinds import KINDS

FLAGS = {"over": "stronger than the field", "under": "weaker than the field"}


def card_study(simulated: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """What the card page says of the card's row in the latest field study; None when there is none."""
    if not simulated:
        return None
    finished = simulated["finished_at"]
    return {
        "win_rate": pct(simulated["win_rate"]),
        "win_rate_ci": interval(simulated["win_rate_ci"]),
        "appearances": simulated["appearances"],
        "wins": simulated["wins"],
        "without_win_rate": pct(simulated["without_win_rate"]),
        "delta": points(simulated["delta"]),
        "delta_ci": interval(simulated["delta_ci"], show=points),
        "flag": FLAGS.get(simulated["flag"]),
        "played": simulated["played"],
        "finished_at": parse_datetime(finished) if isinstance(finished, str) else finished,
        "url": reverse("study-detail", args=[simulated["batch"]]),
        "measured": measured(simulated.get("catalogue")),
    }


def measured(state: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """Which version of the card the figures are for, and when it changed since (None: not recorded)."""
    if not state:
        return None
    since = state.get("edited_since")
    frozen = state["frozen_at"]
    return {
        "release": state.get("release"), "version": state.get("version"),
        "frozen_at": parse_datetime(frozen) if isinstance(frozen, str) else frozen,
        "changed_at": since and (parse_datetime(since["changed_at"]) if isinstance(since["changed_at"], str)
                                 else since["changed_at"]),
        "deleted": bool(since and since["status"] == "deleted"),
    }


def card_meta(game: str, card: str) -> list[dict[str, Any]]:
    """What the latest published study of each kind that speaks of cards (an army search, an equilibrium, a skill
    study) says of the card, with a link to it; the kinds that say nothing of it are left out."""
    from simulate.models import Batch

    said = []
    for kind in KINDS.values():
        if not kind.speaks_of_cards:
            continue
        batch = (Batch.objects.filter(game=game, kind=kind.name, status=Batch.Status.DONE, published_at__isnull=False)
                 .defer("tally").order_by("-published_at").first())
        words = kind.card_words(batch, card) if batch is not None else None
        if batch is not None and words:
            said.append({"label": kind.label, "words": words, "url": reverse("study-detail", args=[batch.pk]),
                         "played": batch.played, "finished_at": batch.finished_at})
    return said
