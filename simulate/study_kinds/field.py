"""Field: random legal sides drawn from a pool, match by match; how each card, faction or class does."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rest_framework import serializers

from simulate.api.figures import group_fields
from simulate.engine.stats import independent_difference
from simulate.engine.tally import Tally, figures, group_rows
from simulate.pages.report import GROUP_TITLES, field_groups, field_row, member_names
from simulate.services import game_studies
from simulate.study_kinds.base import (
    Headline,
    Outcomes,
    Pairing,
    PlanRequest,
    Ranked,
    StudyKind,
    listed,
    merge_all,
)
from simulate.study_kinds.text import field_group_lines

if TYPE_CHECKING:
    from simulate.models import Batch
    from simulate.services import GameStudies

HEADLINE_ROWS = 3  # members at each end of the headline's ranking


class Kind(StudyKind):
    name = "field"
    label = "Field"
    description = "Random legal armies (teams): how each card, faction or class does."
    template = "simulate/studies/field.html"
    keys = frozenset({"pool"})
    measures_cards = True
    game_roles = ("pool",)
    has_overall = False  # its sides are drawn at random: side a's win rate says nothing
    details_note = " (of every match)"

    def pairings(self, request: PlanRequest) -> list[Pairing]:
        """One pairing drawing both sides from the pool, never swapped (the draw is the same either way)."""
        pool, prepared = request.studies.field_pool(request.inputs, user=request.user)
        return [Pairing({}, prepared, False, pool=pool)]

    def result_fields(self) -> dict[str, serializers.Field]:
        """A list of rows per group of every game, ranked by delta, and how the sides were drawn."""
        return {**group_fields(),
                "draw": serializers.CharField(required=False, help_text="field: how its sides were drawn.")}

    def results(self, batch: Batch, total: Tally, studies: GameStudies) -> dict[str, Any]:
        """The overall figures, every group's rows and how the sides were drawn."""
        return {**figures(merge_all(total["pairings"])), **group_tables(studies, total["pairings"][0]),
                "draw": studies.field_draw}

    def headline(self, batch: Batch, results: Mapping[str, Any], side: str) -> Headline:
        """Its first group's (cards', protectors') highest and lowest deltas with their intervals, and the
        draws of every match."""
        group, key = next(iter(game_studies(batch.game).field_groups.items()))
        rows = sorted((row for row in results.get(group) or [] if row["delta"] is not None),
                      key=lambda row: (-row["delta"], row[key]))
        ends = rows if len(rows) <= 2 * HEADLINE_ROWS else rows[:HEADLINE_ROWS] + rows[-HEADLINE_ROWS:]
        names = member_names(batch.game, group, [row[key] for row in ends])
        shown = [field_row(batch.game, group, row, key, names) for row in ends]
        title = GROUP_TITLES.get(group, group)
        return Headline(
            f"{title} by delta: the win rate of the sides fielding one less that of the sides without it",
            outcomes=(Outcomes.of("every match", results, sided=False),),
            ranked_title=f"{title}: the highest and lowest deltas" if len(rows) > len(ends) else f"{title} by delta",
            ranked_figure="delta", ranked=tuple(Ranked(row["name"], row["delta"], row_["delta_ci"], row["url"])
                         for row, row_ in zip(shown, ends, strict=True)),
            ranked_difference=True)

    def compared(self, first: Batch, second: Batch) -> dict[str, Any]:
        """Every member of either study: its delta in each, and the difference of the two (first less second)
        with its interval, the largest differences first; a member one study never fielded has none."""
        rows = []
        for group, key in game_studies(first.game).field_groups.items():
            of = [{row[key]: row for row in (batch.results or {}).get(group) or []} for batch in (first, second)]
            for member in sorted(set(of[0]) | set(of[1])):
                rows.append({"group": group, "member": member, **delta_difference(of[0].get(member), of[1].get(member))})
        rows.sort(key=lambda row: (row["difference"] is None, -abs(row["difference"] or 0), row["group"], row["member"]))
        return {"members": rows}

    def about(self, batch: Batch) -> str:
        """Its pool in words (the official sets when none was given)."""
        pool = batch.inputs.get("pool")
        if not isinstance(pool, Mapping) or not pool:
            return "the official sets"
        return "; ".join(listed(value, key) if isinstance(value, list) else f"{key} {value}"
                         for key, value in pool.items())

    def sides_swapped(self, batch: Batch) -> bool:
        """Never: both sides are drawn alike."""
        return False

    def report(self, batch: Batch, results: Mapping[str, Any], sort: str) -> dict[str, Any]:
        """A table per group, in the order asked for (each member's share of the sides: the field's
        composition), and how the sides were drawn."""
        return {"groups": field_groups(batch, results, sort), "draw": results.get("draw")}

    def text(self, batch: Batch, results: Mapping[str, Any], labels: Mapping[str, Mapping[int, str]],
             seats: Mapping[str, str], studies: GameStudies) -> list[str]:
        """How the sides were drawn, then each group's top and bottom rows by delta."""
        drawn = [f"Drawn: {results['draw']}"] if results.get("draw") else []
        return [*drawn, *(line for group, key in studies.field_groups.items()
                          for line in field_group_lines(group, key, results.get(group, [])))]

    def patched_rows(self, sides: list[dict[str, Any]], patched: frozenset[str],
                     studies: GameStudies) -> list[dict[str, Any]]:
        """Each patched card's row without and with the patch, in the first group that holds it (a patch may
        name cards of several groups), keyed `card` as a patched row is."""
        rows: list[dict[str, dict[str, Any]]] = [{}, {}]
        for i, side in enumerate(sides):
            for group, key in reversed(studies.field_groups.items()):
                rows[i].update({row[key]: {**row, "card": row[key]} for row in side.get(group, [])})
        return [{"card": member, "baseline": rows[0].get(member), "patched": rows[1].get(member)}
                for member in sorted(patched)]


def group_tables(studies: GameStudies, leg: Tally) -> dict[str, Any]:
    """Every group's rows of a leg that drew its sides."""
    groups = leg.get("groups", {})
    return {group: group_rows(groups, group, key) for group, key in studies.field_groups.items()}


def delta_difference(first: Mapping[str, Any] | None, second: Mapping[str, Any] | None) -> dict[str, Any]:
    """A member's delta in two independent studies, and their difference with its interval (None when either
    has no delta)."""
    sides = {"a": member_delta(first), "b": member_delta(second)}
    if first is None or second is None or first["delta"] is None or second["delta"] is None:
        return {**sides, "difference": None, "difference_ci": None}
    difference, (low, high) = independent_difference(
        first["delta"], (first["delta_ci"]["low"], first["delta_ci"]["high"]),
        second["delta"], (second["delta_ci"]["low"], second["delta_ci"]["high"]))
    return {**sides, "difference": round(difference, 6), "difference_ci": {"low": round(low, 6), "high": round(high, 6)}}


def member_delta(row: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """What a comparison keeps of a member's row."""
    if row is None:
        return None
    return {key: row[key] for key in ("appearances", "win_rate", "delta", "delta_ci", "flag")}
