"""Matchup: two sides, many seeds; side a's win rate with its interval, which may stop the study early."""

from __future__ import annotations

from typing import Any, ClassVar

from rest_framework import serializers

from simulate.api.fields import NumberField
from simulate.study_kinds.base import Pairing, PlanRequest, StudyKind

MIN_CI_WIDTH = 0.01  # the narrowest interval a matchup may stop at


class Kind(StudyKind):
    name = "matchup"
    label = "Matchup"
    description = "Two sides, many seeds: side a's win rate with its interval."
    template = "simulate/studies/matchup.html"
    form_reads = ("agent_a", "agent_b", "until_ci_width")
    game_roles: ClassVar[tuple[str, ...]] = ("matchup",)
    stops_early = True
    overall_note = ""

    def fields(self) -> dict[str, serializers.Field]:
        """`until_ci_width`: stop once the interval is narrow enough."""
        return {"until_ci_width": NumberField(
            required=False, min_value=MIN_CI_WIDTH, max_value=1.0,
            help_text="matchup: stop once the 95% interval of the win rate is at most this wide (count is the cap).")}

    def takes_matchup(self, attrs: Any) -> bool:
        """It plays the matchup the request gives."""
        return True

    def pairings(self, request: PlanRequest) -> list[Pairing]:
        """The one matchup, sides swapped in odd matches when asked."""
        return [Pairing({}, request.prepare(request.inputs), request.swap_sides)]
