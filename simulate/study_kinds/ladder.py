"""Ladder: the matchup with both sides played by each agent level in turn."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from django import forms
from rest_framework import serializers

from simulate.api.fields import one_of
from simulate.api.figures import FiguresSerializer
from simulate.engine.tally import Tally, figures
from simulate.pages.report import figures as shown
from simulate.services import game_matches
from simulate.study_kinds.base import Pairing, PlanRequest, StudyKind, merge_all
from simulate.study_kinds.text import figure_rows

if TYPE_CHECKING:
    from argparse import _ArgumentGroup

    from simulate.models import Batch
    from simulate.pages.games import GamePages
    from simulate.services import GameStudies

LEVELS = ("random", "greedy", "search", "ismcts", "ismcts-strong")  # the agent levels a ladder or skill study may name
# A ladder's levels when none are named: the ISMCTS levels cost several times a search match, so they are named when
# wanted.
DEFAULT_LEVELS = ("random", "greedy", "search")


def levels_of(inputs: Mapping[str, Any]) -> list[str]:
    """The levels a ladder plays (random, greedy and search by default)."""
    return list(inputs.get("levels") or DEFAULT_LEVELS)


class AgentRowSerializer(FiguresSerializer):
    agent = serializers.CharField(help_text="The agent that played both sides.")


class Kind(StudyKind):
    name = "ladder"
    label = "Ladder"
    description = "The matchup with both sides played by each agent level in turn."
    template = "simulate/studies/ladder.html"
    keys = frozenset({"levels"})
    form_legend = "Ladder"
    game_roles = ("matchup",)

    def fields(self) -> dict[str, serializers.Field]:
        """`levels`: the agents that play both sides in turn."""
        return {"levels": serializers.ListField(
            child=one_of(LEVELS), min_length=1, max_length=len(LEVELS), required=False,
            help_text="ladder: the agents that play both sides in turn (default random, greedy, search; also ismcts, "
                      "ismcts-strong).")}

    def takes_matchup(self, attrs: Any) -> bool:
        """It plays the matchup the request gives."""
        return True

    def validate(self, attrs: dict[str, Any]) -> None:
        """Its agents are its levels, each once."""
        if "agents" in attrs:
            raise serializers.ValidationError({"agents": ["A ladder's agents are its `levels`."]})
        if "levels" in attrs and len(set(attrs["levels"])) != len(attrs["levels"]):
            raise serializers.ValidationError({"levels": ["Each level once."]})

    def pairings(self, request: PlanRequest) -> list[Pairing]:
        """The matchup once per level, that level in every seat."""
        prepared = request.prepare(request.inputs)
        return [Pairing({"agent": level}, replace(prepared, agents=request.studies.level_agents(prepared, level)),
                        request.swap_sides) for level in levels_of(request.inputs)]

    def result_fields(self) -> dict[str, serializers.Field]:
        """`agents`: a row per level."""
        return {"agents": AgentRowSerializer(many=True, required=False, help_text="ladder: a row per agent level.")}

    def results(self, batch: Batch, total: Tally, studies: GameStudies) -> dict[str, Any]:
        """The overall figures and a row per level."""
        legs = total["pairings"]
        return {**figures(merge_all(legs)), "agents": [
            {"agent": level, **figures(leg)} for level, leg in zip(levels_of(batch.inputs), legs, strict=True)]}

    def about(self, batch: Batch) -> str:
        """Its levels."""
        return f"levels {', '.join(levels_of(batch.inputs))}"

    def report(self, batch: Batch, results: Mapping[str, Any], sort: str) -> dict[str, Any]:
        """A row of figures per level."""
        return {"rows": [{"name": row["agent"], **shown(row, f"Both sides {row['agent']}", axis=False)}
                         for row in results.get("agents", [])]}

    def text(self, batch: Batch, results: Mapping[str, Any], labels: Mapping[str, Mapping[int, str]],
             seats: Mapping[str, str], studies: GameStudies) -> list[str]:
        """A row of figures per level."""
        return ["", "Agents (both sides)", *figure_rows("agent", [(row["agent"], row) for row in results["agents"]],
                                                         game_matches(batch.game).sides)]

    def add_arguments(self, group: _ArgumentGroup) -> None:
        """--levels."""
        group.add_argument("--levels", nargs="+", choices=LEVELS, default=None,
                           help="ladder: the agents that play both sides in turn.")

    def command_inputs(self, body: dict[str, Any], arguments: Mapping[str, Any]) -> None:
        """--levels as `levels`."""
        if arguments["levels"] is not None:
            body["levels"] = arguments["levels"]

    def form_fields(self, pages: GamePages) -> dict[str, forms.Field]:
        """The levels to play, as tick boxes."""
        return {"levels": forms.MultipleChoiceField(
            required=False, choices=[(level, level) for level in LEVELS], widget=forms.CheckboxSelectMultiple,
            label="Levels (ladder)", help_text="None ticked: every level.")}

    def form_inputs(self, data: Mapping[str, Any], body: dict[str, Any]) -> None:
        """The levels ticked (none: every level)."""
        if data["levels"]:
            body["levels"] = list(data["levels"])
