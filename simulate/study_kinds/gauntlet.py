"""Gauntlet: one subject against each of several opponents, a pairing each."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rest_framework import serializers

from simulate.api.figures import FiguresSerializer
from simulate.engine.tally import Tally, figures
from simulate.pages.report import figures as shown
from simulate.services import game_matches
from simulate.study_kinds.base import Pairing, PlanRequest, StudyKind, agents_text, merge_all
from simulate.study_kinds.text import figure_rows

if TYPE_CHECKING:
    from simulate.models import Batch
    from simulate.services import GameStudies

MAX_OPPONENTS = 16


class OpponentRowSerializer(FiguresSerializer):
    opponent = serializers.IntegerField(min_value=0, help_text="Index in `opponents`.")


class Kind(StudyKind):
    name = "gauntlet"
    label = "Gauntlet"
    description = "One subject against each of several opponents."
    template = "simulate/studies/gauntlet.html"
    keys = frozenset({"subject", "opponents"})
    form_reads = ("agent_a", "agent_b")
    game_roles = ("subject", "opponents")

    def validate(self, attrs: dict[str, Any]) -> None:
        """It gives both."""
        if not ({"subject", "opponents"} <= set(attrs)):
            raise serializers.ValidationError("A gauntlet gives `subject` and `opponents`.")

    def pairings(self, request: PlanRequest) -> list[Pairing]:
        """The subject (first side) against each opponent."""
        subject = request.inputs["subject"]
        return [Pairing({"opponent": index}, request.prepare_pair(subject, opponent, ("subject", f"opponents.{index}")),
                        request.swap_sides) for index, opponent in enumerate(request.inputs["opponents"])]

    def result_fields(self) -> dict[str, serializers.Field]:
        """`opponents`: a row per opponent."""
        return {"opponents": OpponentRowSerializer(many=True, required=False, help_text="gauntlet: a row per opponent.")}

    def results(self, batch: Batch, total: Tally, studies: GameStudies) -> dict[str, Any]:
        """The overall figures and a row per opponent."""
        legs = total["pairings"]
        return {**figures(merge_all(legs)), "opponents": [{"opponent": i, **figures(leg)} for i, leg in enumerate(legs)]}

    def about(self, batch: Batch) -> str:
        """How many opponents."""
        opponents = batch.inputs.get("opponents") or []
        return f"{len(opponents)} opponent{'s' if len(opponents) != 1 else ''}, agents {agents_text(batch.inputs.get('agents'))}"

    def report(self, batch: Batch, results: Mapping[str, Any], sort: str) -> dict[str, Any]:
        """A row of figures per opponent."""
        return {"rows": [{"name": f"Opponent {row['opponent'] + 1}",
                          **shown(row, f"Against opponent {row['opponent'] + 1}", axis=False)}
                         for row in results.get("opponents", [])]}

    def text(self, batch: Batch, results: Mapping[str, Any], labels: Mapping[str, Mapping[int, str]],
             seats: Mapping[str, str], studies: GameStudies) -> list[str]:
        """A row of figures per opponent, named as its flag gave it."""
        names = labels.get("opponents", {})
        return ["", "Opponents", *figure_rows("opponent", [
            (f"{row['opponent']}: {names[row['opponent']]}" if row["opponent"] in names else str(row["opponent"]), row)
            for row in results["opponents"]], game_matches(batch.game).sides)]
