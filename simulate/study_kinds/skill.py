"""Skill: one field played at several agent strengths, and every card's delta at each, flagged where it changes
beyond noise from the weakest play to the strongest ("strong only against weak play", "needs skill").

Every level plays the same field with the same seeds (the same armies drawn at every level), that level in
every seat; each card's delta at the weakest and the strongest level given is compared with its interval.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from rest_framework import serializers

from simulate.engine.tally import Tally, figures
from simulate.study_kinds.base import (
    Headline,
    Outcomes,
    PlanRequest,
    Ranked,
    Study,
    StudyKind,
    merge_all,
    play_unit_match,
)
from simulate.study_kinds.field import Kind as Field
from simulate.study_kinds.field import delta_difference, group_tables
from simulate.study_kinds.text import signed, table

if TYPE_CHECKING:
    from simulate.models import Batch
    from simulate.services import GameStudies

DEFAULT_LEVELS = ("random", "greedy")  # the search agent costs far more a match: named when wanted
FLAGS = {"weak_play": "strong only against weak play", "needs_skill": "needs skill", "sign": "changes sign"}


def skill_levels(inputs: Mapping[str, Any]) -> list[str]:
    """The levels a skill study plays (DEFAULT_LEVELS when none were given)."""
    return list(inputs.get("levels") or DEFAULT_LEVELS)


class Kind(StudyKind):
    name = "skill"
    label = "Skill"
    description = "One field at several agent strengths: each card's delta at each, and where it depends on skill."
    template = "simulate/studies/skill.html"
    keys = frozenset({"pool", "levels"})
    has_overall = False
    speaks_of_cards = True

    def validate(self, attrs: dict[str, Any]) -> None:
        """Two levels at least, each once; its agents are its levels."""
        levels = attrs.get("levels") or list(DEFAULT_LEVELS)
        if len(levels) < 2 or len(set(levels)) != len(levels):
            raise serializers.ValidationError({"levels": ["Two levels at least, weakest first, each once."]})
        if "agents" in attrs:
            raise serializers.ValidationError({"agents": ["A skill study's agents are its `levels`."]})

    def stored(self, inputs: dict[str, Any], validated: Mapping[str, Any]) -> None:
        inputs.setdefault("levels", list(DEFAULT_LEVELS))

    def plan(self, request: PlanRequest) -> Study:
        """The field once per level, that level in every seat, every level on the same seeds."""
        field = Field().pairings(request)[0]
        pairings = [replace(field, label={"agent": level},
                            prepared=replace(field.prepared, agents=request.studies.level_agents(field.prepared, level)))
                    for level in skill_levels(request.inputs)]
        return Study(request.game, self.name, pairings, request.per_pairing, paired=True)

    def play_unit(self, study: Study, unit: int, seed: int, tally: Tally) -> None:
        """Every level on this unit's seed: the same armies drawn at each."""
        for index, pairing in enumerate(study.pairings):
            play_unit_match(study, pairing, unit, seed, tally["pairings"][index])

    def result_fields(self) -> dict[str, serializers.Field]:
        return {"skill": SkillSerializer(required=False, help_text="skill: each level's field, and each card across them.")}

    def results(self, batch: Batch, total: Tally, studies: GameStudies) -> dict[str, Any]:
        """The figures of every match; per level its group tables; per card its delta at each level and its
        flags."""
        levels = skill_levels(batch.inputs)
        legs = total["pairings"]
        tables = [group_tables(studies, leg) for leg in legs]
        group, key = studies.tuning_group, studies.field_groups[studies.tuning_group]
        by_level = [{row[key]: row for row in table_[group]} for table_ in tables]
        members = sorted(set().union(*(set(rows) for rows in by_level)))
        return {**figures(merge_all(legs)), "skill": {
            "levels": levels, "group": group,
            "cards": [card_row(member, [rows.get(member) for rows in by_level]) for member in members]}}

    def headline(self, batch: Batch, results: Mapping[str, Any], side: str) -> Headline:
        """The cards whose delta moves most from the weakest level to the strongest."""
        found = results.get("skill") or {}
        rows = sorted((row for row in found.get("cards") or [] if row["change"] is not None),
                      key=lambda row: -abs(row["change"]))[:10]
        flagged = sum(1 for row in found.get("cards") or [] if row["flags"])
        return Headline(f"How each card's delta moves from {found.get('levels', ['?'])[0]} play to "
                        f"{found.get('levels', ['?'])[-1]} play", outcomes=(Outcomes.of("every match", results,
                                                                                       sided=False),),
                        ranked_title="Moved most", ranked_figure="change of delta", ranked_difference=True,
                        ranked=tuple(Ranked(row["card"], row["change"], row["change_ci"]) for row in rows),
                        note=f"{flagged} card(s) flagged beyond noise")

    def card_words(self, batch: Batch, card: str) -> str | None:
        """The card's delta at each level, and its flags."""
        found = batch.results.get("skill") or {}
        row = next((row for row in found.get("cards") or [] if row["card"] == card), None)
        if row is None:
            return None
        at = ", ".join(f"{signed(delta)} with {level}" for level, delta in zip(found["levels"], row["deltas"], strict=True))
        flags = "; ".join(FLAGS[flag] for flag in row["flags"])
        return f"Delta {at} (points){f': {flags}' if flags else ''}."

    def about(self, batch: Batch) -> str:
        return "levels " + ", ".join(skill_levels(batch.inputs))

    def sides_swapped(self, batch: Batch) -> bool:
        return False

    def report(self, batch: Batch, results: Mapping[str, Any], sort: str) -> dict[str, Any]:
        found = results.get("skill") or {}
        rows = sorted(found.get("cards") or [], key=lambda row: (not row["flags"], -abs(row["change"] or 0)))
        return {"skill": {**found, "cards": [{**row, "flagged": [FLAGS[flag] for flag in row["flags"]]}
                                             for row in rows]}}

    def text(self, batch: Batch, results: Mapping[str, Any], labels: Mapping[str, Mapping[int, str]],
             seats: Mapping[str, str], studies: GameStudies) -> list[str]:
        found = results.get("skill") or {}
        rows = [(row["card"], *(signed(delta) for delta in row["deltas"]), signed(row["change"]),
                 ", ".join(FLAGS[flag] for flag in row["flags"]))
                for row in sorted(found.get("cards") or [], key=lambda row: -abs(row["change"] or 0))[:20]]
        return ["", "Each card's delta at each level (points), and its change from the first to the last",
                *table(("card", *found.get("levels", []), "change", "flags"), rows)]


def card_row(card: str, rows: Sequence[Mapping[str, Any] | None]) -> dict[str, Any]:
    """A card's sides and delta at each level, its change from the first level to the last with its interval,
    and its flags (`flags_of`)."""
    change = delta_difference(rows[-1], rows[0])  # last less first
    return {"card": card, "appearances": [0 if row is None else row["appearances"] for row in rows],
            "deltas": [None if row is None else row["delta"] for row in rows],
            "deltas_ci": [None if row is None else row["delta_ci"] for row in rows],
            "change": change["difference"], "change_ci": change["difference_ci"],
            "flags": flags_of(rows[0], rows[-1], change["difference_ci"])}


def flags_of(first: Mapping[str, Any] | None, last: Mapping[str, Any] | None,
             change: Mapping[str, float] | None) -> list[str]:
    """changes sign (both ends' intervals exclude 0, on opposite sides); strong only against weak play (above 0
    at the weakest level, its change below 0 beyond noise); needs skill (its change above 0 beyond noise)."""
    if not first or not last or first["delta"] is None or last["delta"] is None or change is None:
        return []
    before, after = first["delta_ci"], last["delta_ci"]
    flags = []
    if before["low"] > 0 > after["high"] or before["high"] < 0 < after["low"]:
        flags.append("sign")
    if before["low"] > 0 and change["high"] < 0:
        flags.append("weak_play")
    if change["low"] > 0:
        flags.append("needs_skill")
    return flags


class SkillCardSerializer(serializers.Serializer):
    card = serializers.CharField()
    appearances = serializers.ListField(child=serializers.IntegerField(min_value=0), help_text=(
        "The sides that fielded it at each level: the same at every level, the same armies being drawn."))
    deltas = serializers.ListField(child=serializers.FloatField(allow_null=True), help_text="Its delta at each level.")
    deltas_ci = serializers.ListField(child=serializers.DictField(child=serializers.FloatField(), allow_null=True))
    change = serializers.FloatField(allow_null=True, help_text="Its delta at the last level less at the first.")
    change_ci = serializers.DictField(child=serializers.FloatField(), allow_null=True, help_text=(
        "95% interval of the change, the two levels' intervals combined as independent (the same armies are "
        "drawn at both, so it is if anything wide)."))
    flags = serializers.ListField(child=serializers.ChoiceField(choices=list(FLAGS)), help_text=(
        "sign: its delta's interval lies above 0 at one end and below at the other; weak_play: above 0 at the "
        "weakest level and its change below 0 beyond noise; needs_skill: its change above 0 beyond noise."))


class SkillSerializer(serializers.Serializer):
    levels = serializers.ListField(child=serializers.CharField(), help_text="The agents, weakest first as given.")
    group = serializers.CharField(help_text="The field group each row is of (its cards).")
    cards = SkillCardSerializer(many=True)
