"""Field: random legal sides drawn from a pool, match by match; how each card, faction or class does."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rest_framework import serializers

from simulate.api.figures import group_fields
from simulate.engine.tally import Tally, figures, group_rows
from simulate.pages.report import field_groups
from simulate.study_kinds.base import Pairing, PlanRequest, StudyKind, merge_all
from simulate.study_kinds.text import field_group_lines

if TYPE_CHECKING:
    from simulate.models import Batch
    from simulate.services import GameStudies


class Kind(StudyKind):
    name = "field"
    label = "Field"
    description = "Random legal armies (teams): how each card, faction or class does."
    template = "simulate/studies/field.html"
    keys = frozenset({"pool"})
    game_roles = ("pool",)

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
