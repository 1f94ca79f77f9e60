"""Mirror: one army (team) against itself, never swapped, to measure the first seat's advantage: the first
seat's win rate with its interval, the draws, and an exact binomial test of its decisive matches against a coin."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rest_framework import serializers

from simulate.engine.stats import binomial_half_p
from simulate.engine.tally import Tally, figures
from simulate.pages import charts
from simulate.study_kinds.base import (
    Headline,
    Outcomes,
    Pairing,
    PlanRequest,
    StudyKind,
    agents_text,
    merge_all,
)

if TYPE_CHECKING:
    from simulate.models import Batch
    from simulate.services import GameStudies


class FirstSeatSerializer(serializers.Serializer):
    """The first seat's decisive matches tested against a coin."""

    decisive = serializers.IntegerField(min_value=0, help_text="Matches won by either seat (not drawn).")
    p_value = serializers.FloatField(min_value=0, max_value=1,
                                     help_text="Exact two-sided binomial test of the first seat's wins among the "
                                               "decisive matches against 50%.")


class Kind(StudyKind):
    name = "mirror"
    label = "Mirror"
    description = "One army (team) against itself, never swapped: the first seat's advantage."
    template = "simulate/studies/mirror.html"
    keys = frozenset({"subject"})
    notes = {"subject": "mirror: the army (team) that plays both sides, the first seat always side a."}
    form_reads = ("agent_a", "agent_b")
    game_roles = ("subject",)

    def validate(self, attrs: dict[str, Any]) -> None:
        """A subject, and sides never swapped (the seat is what it measures)."""
        if "subject" not in attrs:
            raise serializers.ValidationError({"subject": ["A mirror gives the `subject` that plays itself."]})
        if attrs.get("swap_sides"):
            raise serializers.ValidationError({"swap_sides": [
                "A mirror never swaps sides: both are the same, and it measures the first seat."]})

    def pairings(self, request: PlanRequest) -> list[Pairing]:
        """The subject against itself, side a always in the first seat."""
        subject = request.inputs["subject"]
        return [Pairing({}, request.prepare_pair(subject, subject, ("subject", "subject")), False)]

    def result_fields(self) -> dict[str, serializers.Field]:
        """`first_seat`: its test against a coin."""
        return {"first_seat": FirstSeatSerializer(required=False, help_text="mirror: the first seat's advantage.")}

    def results(self, batch: Batch, total: Tally, studies: GameStudies) -> dict[str, Any]:
        """Side a's figures (the first seat's), and the binomial test of its decisive matches."""
        overall = figures(merge_all(total["pairings"]))
        wins, losses = overall["wins"], overall["losses"]
        return {**overall, "first_seat": {"decisive": wins + losses, "p_value": round(binomial_half_p(wins, losses), 6)}}

    def headline(self, batch: Batch, results: Mapping[str, Any], side: str) -> Headline:
        """The first seat's win rate, its outcomes, and the test of its decisive matches against a coin."""
        first = results.get("first_seat") or {}
        return Headline(f"Win rate of the first seat ({side} in every match)", results.get("win_rate"),
                        results.get("win_rate_ci"), outcomes=(Outcomes.of(side, results),),
                        note=f"Exact binomial test of the first seat's wins over {first.get('decisive', 0)} decisive "
                             f"matches against 50%: p = {charts.probability(first.get('p_value'))}.",
                        warning=results.get("one_game_warning") or "")

    def report(self, batch: Batch, results: Mapping[str, Any], sort: str) -> dict[str, Any]:
        """What was played (agents, matches, seeds); its rate and test lead the report."""
        return {"mirror": {
            "agents": agents_text(batch.inputs.get("agents")), "played": batch.played,
            "first_seed": batch.seed, "last_seed": batch.seed + max(batch.played, 1) - 1,
        }}

    def text(self, batch: Batch, results: Mapping[str, Any], labels: Mapping[str, Mapping[int, str]],
             seats: Mapping[str, str], studies: GameStudies) -> list[str]:
        """What it played, and that sides were never swapped (its rate and test lead the report)."""
        return ["", f"Mirror: the same {seats['a']} in both seats, never swapped; {batch.played} matches with "
                    f"agents {agents_text(batch.inputs.get('agents'))}, seeds {batch.seed} to "
                    f"{batch.seed + max(batch.played, 1) - 1}"]
