"""Field: random legal sides drawn from a pool, match by match; how each card, faction or class does."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rest_framework import serializers

from simulate.api.figures import group_fields
from simulate.engine.tally import Tally, figures, group_rows
from simulate.pages.report import GROUP_TITLES, field_groups, field_row, member_names
from simulate.services import game_studies
from simulate.study_kinds.base import Headline, Outcomes, Pairing, PlanRequest, Ranked, StudyKind, merge_all
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
    game_roles = ("pool",)
    has_overall = False  # its sides are drawn at random: side a's win rate says nothing
    details_note = " (of every match)"

    def pairings(self, request: PlanRequest) -> list[Pairing]:
        """One pairing drawing both sides from the pool, never swapped (the draw is the same either way)."""
        pool, prepared = request.studies.field_pool(request.inputs, user=request.user)
        return [Pairing({}, prepared, False, pool=pool)]

    def result_fields(self) -> dict[str, serializers.Field]:
        """A list of rows per group of every game, ranked by delta."""
        return group_fields()

    def results(self, batch: Batch, total: Tally, studies: GameStudies) -> dict[str, Any]:
        """The overall figures and every group's rows."""
        return {**figures(merge_all(total["pairings"])), **group_tables(studies, total["pairings"][0])}

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

    def sides_swapped(self, batch: Batch) -> bool:
        """Never: both sides are drawn alike."""
        return False

    def report(self, batch: Batch, results: Mapping[str, Any], sort: str) -> dict[str, Any]:
        """A table per group, in the order asked for."""
        return {"groups": field_groups(batch, results, sort)}

    def text(self, batch: Batch, results: Mapping[str, Any], labels: Mapping[str, Mapping[int, str]],
             seats: Mapping[str, str], studies: GameStudies) -> list[str]:
        """Each group's top and bottom rows by delta."""
        return [line for group, key in studies.field_groups.items()
                for line in field_group_lines(group, key, results.get(group, []))]

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
