"""Sweep: one or two stats of cards (or numbers inside an ability) set to each of a range of values, every value
a what-if played on the same seeds against one baseline; the curve of the figure (side a's win rate of a
matchup, the swept card's delta in a field) against the value, with a designer's band of acceptable figures.

A composition as the what-if is: the base kind plans, plays and reads each copy of its pairings, the what-if's
pairing of outcomes by seed counts each value against the baseline."""

from __future__ import annotations

import copy
import itertools
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from django import forms
from django.core.management.base import CommandError
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from cardsdb.api.fields import TextField
from cardsdb.api.serializers import StrictSerializer
from simulate.api.fields import NumberField, one_of
from simulate.api.figures import GROUP_ROWS, IntervalSerializer
from simulate.engine.errors import InputError
from simulate.engine.tally import Tally, paired_figures
from simulate.pages import charts
from simulate.pages.games import game_pages
from simulate.study_kinds import stopping, whatif
from simulate.study_kinds.base import (
    Headline,
    Outcomes,
    PlanRequest,
    Ranked,
    Study,
    StudyKind,
    play_unit_match,
    relabelled,
)
from simulate.study_kinds.text import ci, pct, points, table

if TYPE_CHECKING:
    from argparse import _ArgumentGroup

    from simulate.models import Batch
    from simulate.pages.games import GamePages
    from simulate.services import GameStudies

MAX_AXES = 2
MIN_VALUES, MAX_VALUES = 2, 12  # values of one axis
MAX_VARIANTS = 24  # values of all axes together (their product)
DEFAULT_BAND, MAX_BAND = 3.0, 50.0  # points
VERDICTS = ("inside", "outside", "unsure")


# ------------------------------------------------------------------------------------- the request


@extend_schema_field({"anyOf": [{"type": "number"}, {"type": "string"}, {"type": "boolean"}]})
class ScalarField(serializers.Field):
    """A JSON number, string or boolean, as given (a stat, an element's slug, an effect kind)."""

    default_error_messages = {"invalid": "Give a number, a string or true/false."}

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, (int, float, str, bool)) or (isinstance(data, float) and not math.isfinite(data)):
            self.fail("invalid")
        return data

    def to_representation(self, value: Any) -> Any:
        return value


class AxisSerializer(StrictSerializer):
    """One axis of a sweep: a card, the field it changes and its values (a list, or a numeric range)."""

    card = TextField(max_length=140, help_text="The card's slug.")
    field = TextField(max_length=200, help_text="A field a patch changes (atk, copies...), or a dotted path to a "
                                                "number inside an ability spec (main_ability.effects.0.amount).")
    values = serializers.ListField(child=ScalarField(), min_length=MIN_VALUES, max_length=MAX_VALUES, required=False,
                                   help_text=f"{MIN_VALUES} to {MAX_VALUES} distinct values.")
    from_ = NumberField(required=False, help_text="A range's first value (instead of `values`).")
    to = NumberField(required=False, help_text="A range's last value (at most).")
    step = NumberField(required=False, min_value=0, help_text="A range's step (above 0; default 1).")

    def get_fields(self) -> dict[str, serializers.Field]:
        fields = super().get_fields()
        fields["from"] = fields.pop("from_")  # `from` is a keyword
        return fields


@dataclass(frozen=True)
class Axis:
    """An axis as played: its card, its field (maybe a dotted path into an ability) and its values."""

    card: str
    field: str
    values: tuple[Any, ...]

    @property
    def root(self) -> str:
        """The patch field it changes."""
        return self.field.split(".")[0]

    @property
    def path(self) -> list[str]:
        """The steps inside that field's spec to the number it sets (none for a plain stat)."""
        return self.field.split(".")[1:]


def range_values(spec: Mapping[str, Any]) -> list[Any]:
    """A range's values, from `from` up to `to` by `step`; ValueError when it holds fewer than MIN_VALUES or
    more than MAX_VALUES."""
    start, stop, step = spec["from"], spec["to"], spec.get("step", 1)
    if step <= 0:
        raise ValueError("A range's step is above 0.")
    span = (stop - start) / step
    count = math.floor(span + 1e-9) + 1 if math.isfinite(span) and abs(span) < MAX_VALUES * 10 else MAX_VALUES + 1
    if not MIN_VALUES <= count <= MAX_VALUES:
        many = f"over {MAX_VALUES}" if count > MAX_VALUES else str(max(count, 0))
        raise ValueError(f"A range holds {MIN_VALUES} to {MAX_VALUES} values (this one {many}).")
    whole = all(float(number).is_integer() for number in (start, step))
    return [int(start + k * step) if whole else round(start + k * step, 9) for k in range(count)]


def axis_values(spec: Mapping[str, Any]) -> list[Any]:
    """An axis's values as given or as its range spans them."""
    return list(spec["values"]) if "values" in spec else range_values(spec)


def sweep_axes(inputs: Mapping[str, Any]) -> list[Axis]:
    """The axes of a (valid) sweep."""
    return [Axis(spec["card"], spec["field"], tuple(axis_values(spec))) for spec in inputs.get("sweep") or []]


def axis_errors(index: int, spec: Mapping[str, Any]) -> dict[str, list[str]]:
    """What is wrong with one axis as given: its values or range, by path."""
    where = f"sweep.{index}"
    ranged = [key for key in ("from", "to", "step") if key in spec]
    if ("values" in spec) == bool(ranged):
        return {where: ["Give `values`, or a range: `from`, `to` and maybe `step`."]}
    if ranged and not {"from", "to"} <= set(ranged):
        return {where: ["A range gives `from` and `to` (and maybe `step`)."]}
    try:
        values = axis_values(spec)
    except ValueError as exc:
        return {where: [str(exc)]}
    if len({json.dumps(value) for value in values}) != len(values):
        return {f"{where}.values": ["The values are distinct."]}
    if "." in spec["field"] and any(isinstance(value, bool) or not isinstance(value, (int, float))
                                    for value in values):
        return {f"{where}.values": ["A number inside an ability takes numbers."]}
    return {}


def band_of(inputs: Mapping[str, Any]) -> dict[str, float]:
    """The designer's band in the figure's units: side a's win rate within 50% ± band points on a matchup, the
    swept card's delta within ± band points on a field."""
    band = float(inputs.get("band", DEFAULT_BAND)) / 100
    centre = 0.5 if inputs.get("base", "matchup") == "matchup" else 0.0
    return {"low": round(centre - band, 6), "high": round(centre + band, 6)}


def verdict(value: float | None, interval: Mapping[str, float] | None, band: Mapping[str, float]) -> tuple[bool | None, str | None]:
    """Whether a point estimate lies inside the band, and how its 95% interval reads: `inside` when wholly
    inside it, `outside` when wholly outside, else `unsure`."""
    if value is None or not interval:
        return None, None
    inside = band["low"] <= value <= band["high"]
    if band["low"] <= interval["low"] and interval["high"] <= band["high"]:
        return inside, "inside"
    if interval["high"] < band["low"] or interval["low"] > band["high"]:
        return inside, "outside"
    return inside, "unsure"


# ------------------------------------------------------------------------------------- the patches


def set_number(spec: Any, path: Sequence[str], value: Any, where: str) -> Any:
    """A copy of an ability spec with the number at `path` set to `value`; InputError at `where` when the
    path does not lead to a number."""
    spec = copy.deepcopy(spec)
    node, steps = spec, list(path)
    for step in steps[:-1]:
        node = child(node, step)
        if node is None:
            break
    last = steps[-1]
    found = None if node is None else child(node, last)
    if isinstance(found, bool) or not isinstance(found, (int, float)):
        message = f"{'.'.join(path)} leads to no number of this card's spec."
        raise InputError(message, [(where, message)])
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return spec


def child(node: Any, step: str) -> Any:
    """A step into a spec: a key of an object, an index of a list; None when there is none."""
    if isinstance(node, dict):
        return node.get(step)
    if isinstance(node, list) and step.isdigit() and int(step) < len(node):
        return node[int(step)]
    return None


def current_values(studies: GameStudies, axes: Sequence[Axis]) -> dict[str, dict[str, Any]]:
    """Each swept card's patch fields as they are; InputError at `sweep.<i>.card` for an unknown card and at
    `sweep.<i>.field` for a field its kind of card has not."""
    known: dict[str, dict[str, Any]] = {}
    errors: list[tuple[str, str]] = []
    for index, axis in enumerate(axes):
        values = known.get(axis.card) or studies.patch_values(axis.card)
        if values is None:
            errors.append((f"sweep.{index}.card", f"No card {axis.card!r} takes a patch."))
            continue
        known[axis.card] = values
        if axis.root not in values:
            errors.append((f"sweep.{index}.field", f"{axis.card} has no {axis.root}; it takes {', '.join(values)}."))
        elif axis.path and not isinstance(values[axis.root], (dict, list)):
            errors.append((f"sweep.{index}.field", f"{axis.root} of {axis.card} holds no spec to step into."))
    if errors:
        raise InputError("The sweep cannot be played: " + "; ".join(f"{p}: {r}" for p, r in errors), errors)
    return known


def variant_patch(axes: Sequence[Axis], values: Sequence[Any], current: Mapping[str, Mapping[str, Any]]) -> list[dict]:
    """The patch of one variant: each card's changes, a number inside a spec set on a copy of its spec."""
    changes: dict[str, dict[str, Any]] = {}
    for index, (axis, value) in enumerate(zip(axes, values, strict=True)):
        card = changes.setdefault(axis.card, {})
        if axis.path:
            spec = card.get(axis.root, current[axis.card][axis.root])
            card[axis.root] = set_number(spec, axis.path, value, f"sweep.{index}.field")
        else:
            card[axis.root] = value
    return [{"card": card, "changes": fields} for card, fields in changes.items()]


def validated_variant(studies: GameStudies, patch: list[dict], axes: Sequence[Axis], values: Sequence[Any],
                      user: Any) -> Any:
    """A variant's patch checked as the API takes a patch and as an admin edit is (the game's
    `validated_patch`); InputError naming the axis at fault (`sweep.<i>.values`)."""
    shown = ", ".join(f"{axis.card} {axis.field} = {value}" for axis, value in zip(axes, values, strict=True))
    errors: list[tuple[str, str]] = []
    for entry in patch:
        checked = studies.patch_request(data=entry)
        if not checked.is_valid():
            errors += [(axis_path(axes, entry["card"], field), message)
                       for field, messages in flat(checked.errors).items() for message in messages]
    if not errors:
        try:
            return studies.validated_patch(patch, user=user)
        except InputError as exc:
            errors = [(patch_path(axes, patch, path), reason) for path, reason in exc.errors]
    message = f"The sweep's value {shown} is not a valid edit: " + "; ".join(f"{p}: {r}" for p, r in errors)
    raise InputError(message, [(path, f"{shown}: {reason}") for path, reason in errors])


def flat(errors: Any, path: str = "") -> dict[str, list[str]]:
    """A serializer's nested errors by dotted path."""
    if isinstance(errors, Mapping):
        found: dict[str, list[str]] = {}
        for key, value in errors.items():
            found.update(flat(value, f"{path}.{key}" if path else str(key)))
        return found
    return {path: [str(message) for message in errors]}


def axis_path(axes: Sequence[Axis], card: str, path: str) -> str:
    """The request path of an error of a variant's patch at `path` of its entry for `card`."""
    parts = path.split(".")
    if parts[0] == "changes" and len(parts) > 1:
        for index, axis in enumerate(axes):
            if axis.card == card and axis.root == parts[1]:
                return f"sweep.{index}.values"
    return next((f"sweep.{index}.card" for index, axis in enumerate(axes) if axis.card == card), "sweep")


def patch_path(axes: Sequence[Axis], patch: Sequence[Mapping[str, Any]], path: str) -> str:
    """The request path of the game's refusal of a variant's patch at `patch.<i>...`."""
    parts = path.split(".")
    if len(parts) < 3 or parts[0] != "patch" or not parts[1].isdigit():
        return "sweep"
    return axis_path(axes, patch[int(parts[1])]["card"], ".".join(parts[2:]))


# ------------------------------------------------------------------------------------- the answer


class SweepAxisSerializer(serializers.Serializer):
    card = serializers.CharField()
    field = serializers.CharField()
    values = serializers.ListField(child=ScalarField())


class CurvePointSerializer(serializers.Serializer):
    """A value (one per axis), the figure there with its interval, its difference from the baseline paired by
    seed, and how it reads against the band."""

    values = serializers.ListField(child=ScalarField(), help_text="The value of each axis.")
    win_rate = serializers.FloatField(allow_null=True, help_text="Side a's win rate (matchup), or the swept "
                                                                 "card's sides' (field).")
    win_rate_ci = IntervalSerializer()
    delta = serializers.FloatField(required=False, allow_null=True, help_text="field: the swept card's delta.")
    delta_ci = IntervalSerializer(required=False, allow_null=True)
    appearances = serializers.IntegerField(required=False, min_value=0,
                                           help_text="field: the sides that fielded the swept card.")
    difference = whatif.DifferenceSerializer(help_text="This value less the baseline, paired by seed.")
    p_value = serializers.FloatField(min_value=0, max_value=1, help_text="McNemar's exact test against the "
                                                                          "baseline.")
    inside_band = serializers.BooleanField(allow_null=True, help_text="The figure lies inside the band.")
    band_verdict = one_of(VERDICTS, allow_null=True, help_text=(
        "inside: the whole 95% interval is inside the band; outside: wholly outside it; unsure: across its edge."))


class Kind(whatif.Kind):
    name = "sweep"
    label = "Sweep"
    description = "One or two stats of a card over a range of values, each a what-if on the same seeds: a curve."
    template = "simulate/studies/sweep.html"
    has_patch = False  # many patches, none of them the study's to apply
    keys = frozenset({"sweep", "band", "base", "sequential"})
    form_legend = "Sweep"
    variant_field = "sweep_base"

    # ------------------------------------------------------------------------------ inputs

    def fields(self) -> dict[str, serializers.Field]:
        """`base` (as the what-if's), `sweep` (its axes) and `band`."""
        return {
            "base": one_of(whatif.BASES, required=False,
                           help_text="whatif, sweep: the study played with and without the patch (each value)."),
            "sweep": AxisSerializer(many=True, required=False, min_length=1, max_length=MAX_AXES,
                                    help_text=f"sweep: 1 or 2 axes, at most {MAX_VARIANTS} values in all."),
            "band": NumberField(required=False, min_value=0, max_value=MAX_BAND, help_text=(
                f"sweep: the acceptable figure, in points (default {DEFAULT_BAND:g}): side a's win rate within "
                "50 ± band (matchup), the swept card's delta within ± band (field); suggest: the band every "
                "card's delta should lie in.")),
        }

    def validate(self, attrs: dict[str, Any]) -> None:
        """Axes each with its values or range, at most MAX_VARIANTS values in all, a band above 0."""
        specs = attrs.get("sweep")
        if not specs:
            raise serializers.ValidationError({"sweep": ["A sweep gives its axes: [{\"card\": ..., \"field\": ..., "
                                                         "\"values\": [...]}]."]})
        errors: dict[str, list[str]] = {}
        for index, spec in enumerate(specs):
            errors.update(axis_errors(index, spec))
        if attrs.get("band") is not None and attrs["band"] <= 0:
            errors["band"] = ["The band is above 0 points."]
        if errors:
            raise serializers.ValidationError(errors)
        variants = math.prod(len(axis_values(spec)) for spec in specs)
        if variants > MAX_VARIANTS:
            raise serializers.ValidationError({"sweep": [f"A sweep plays at most {MAX_VARIANTS} values in all "
                                                         f"(these axes {variants})."]})

    def stored(self, inputs: dict[str, Any], validated: Mapping[str, Any]) -> None:
        """Its base and band as played, given or not."""
        inputs.setdefault("base", "matchup")
        inputs.setdefault("band", DEFAULT_BAND)

    # ------------------------------------------------------------------------------- plan

    def plan(self, request: PlanRequest) -> Study:
        """The base's pairings as they are, then a patched copy per value (the product of the axes), every seed
        played by all of them."""
        axes = sweep_axes(request.inputs)
        baseline = self.base(request.inputs).plan(request).pairings
        current = current_values(request.studies, axes)
        members = frozenset(axis.card for axis in axes)
        pairings = relabelled(baseline, variant="baseline")
        for index, values in enumerate(itertools.product(*(axis.values for axis in axes))):
            patch = validated_variant(request.studies, variant_patch(axes, values, current), axes, values,
                                      request.user)
            pairings += relabelled(whatif.patched_pairings(request.studies, baseline, patch), variant=index,
                                   values=list(values))
        study = Study(request.game, self.name, [replace(p, patched=members) for p in pairings], request.per_pairing,
                      paired=True)
        if study.patch_changes_nothing:
            message = ("The sweep changes nothing these matches use: no side of the study fields a swept card, or "
                       "every value is the card's own.")
            raise InputError(message, [("sweep", message)])
        return study

    # ------------------------------------------------------------------------------ tally

    def look_units(self, inputs: Mapping[str, Any]) -> int | None:
        """A chunk of seeds between two looks at its sequential tests, when it runs them."""
        return stopping.look_units(inputs)

    def stop_rule(self, batch: Batch) -> Callable[[Tally], bool] | None:
        """With `sequential`: stop once every value's paired difference from the baseline is decided."""
        return stopping.stop_rule(batch, lambda total: total["pairs"])

    def new_tally(self, study: Study) -> Tally:
        """The base's legs of every copy, and one [both, baseline only, patched only, neither] per value."""
        variants = len(study.pairings) // study.baseline_size - 1
        return {**StudyKind.new_tally(self, study), "pairs": [[0, 0, 0, 0] for _ in range(variants)]}

    def play_unit(self, study: Study, unit: int, seed: int, tally: Tally) -> None:
        """Play every pairing with this unit's seed; pair each baseline side with itself at every value."""
        size = study.baseline_size
        played = [play_unit_match(study, p, unit, seed, tally["pairings"][k]) for k, p in enumerate(study.pairings)]
        for variant, pairs in enumerate(tally["pairs"]):
            start = size * (variant + 1)
            for before, after in zip(played[:size], played[start:start + size], strict=True):
                whatif.count_pairs(pairs, before, after)

    # ---------------------------------------------------------------------------- results

    def result_fields(self) -> dict[str, serializers.Field]:
        """Its base, band, axes, the baseline and the curve."""
        return {
            "band": IntervalSerializer(required=False, help_text="sweep: the band, in the figure's units."),
            "axes": SweepAxisSerializer(many=True, required=False, help_text="sweep: the axes swept."),
            "baseline_card": GROUP_ROWS["cards"](required=False, help_text=(
                "field sweep: the first axis's card's row without the patch (absent when no side fielded it).")),
            "curve": CurvePointSerializer(many=True, required=False, help_text="sweep: one point per value."),
        }  # `sequential` is the what-if's result field, one test per value

    def results(self, batch: Batch, total: Tally, studies: GameStudies) -> dict[str, Any]:
        """Each copy as its base reads it; each value's figure, its difference from the baseline and its band
        verdict."""
        base = self.base(batch.inputs)
        axes = sweep_axes(batch.inputs)
        size = len(total["pairings"]) // (len(total["pairs"]) + 1)
        sides = [base.results(batch, {"pairings": total["pairings"][start:start + size]}, studies)
                 for start in range(0, len(total["pairings"]), size)]
        band = band_of(batch.inputs)
        card = frozenset({axes[0].card})  # a field's figure is the first axis's card's delta
        # Its row in the baseline and in each value's copy (None: a base without rows, a matchup).
        rows = [base.patched_rows([sides[0], side], card, studies) for side in sides[1:]]
        curve = [point(list(values), side_figure(side, found), pairs, band, key="win_rate" if found is None else "delta")
                 for values, side, found, pairs in zip(itertools.product(*(axis.values for axis in axes)), sides[1:],
                                                      rows, total["pairs"], strict=True)]
        answer: dict[str, Any] = {
            "base": base.name, "band": band, "baseline": sides[0], "curve": curve,
            "axes": [{"card": axis.card, "field": axis.field, "values": list(axis.values)} for axis in axes]}
        baseline_row = rows[0][0]["baseline"] if rows and rows[0] else None
        if baseline_row is not None:
            answer["baseline_card"] = {key: value for key, value in baseline_row.items() if key in ROW_KEYS}
        sequential = stopping.results(batch, total, total["pairs"], names=[value_text(answer, p) for p in curve])
        if sequential is not None:
            answer["sequential"] = sequential
        return answer

    # ---------------------------------------------------------------------------- report

    def headline(self, batch: Batch, results: Mapping[str, Any], side: str) -> Headline:
        """What the curve measures, the values ranked by it, and which lie inside the band."""
        on_matchup = results.get("base", "matchup") == "matchup"
        key = "win_rate" if on_matchup else "delta"
        of = f"{side}'s win rate" if on_matchup else f"the delta of {(results.get('axes') or [{}])[0].get('card')}"
        return Headline(
            f"Sweep of {self.about(batch)}: {of} at each value, on the same seeds as the baseline",
            outcomes=(Outcomes.of(f"baseline ({side})" if on_matchup else "baseline (every match)",
                                  results.get("baseline") or {}, sided=on_matchup),),
            ranked_title=f"Values by {of}, highest first", ranked_figure="win rate" if on_matchup else "delta",
            ranked=ranking(results, key), ranked_difference=not on_matchup,
            note=band_note(results, results.get("band") or band_of(batch.inputs), pct if on_matchup else points))

    def compared(self, first: Batch, second: Batch) -> dict[str, Any]:
        """Nothing beyond the headlines."""
        return {}

    def about(self, batch: Batch) -> str:
        """Each axis in short (`royal-battlemage atk 6..11`), and its base when it is a field."""
        try:
            axes = sweep_axes(batch.inputs)
        except (KeyError, TypeError, ValueError):
            return ""
        text = "; ".join(f"{axis.card} {axis.field} {values_text(axis.values)}" for axis in axes)
        return f"{text} (on a field)" if batch.inputs.get("base") == "field" else text

    def report(self, batch: Batch, results: Mapping[str, Any], sort: str) -> dict[str, Any]:
        """The curve as a chart and a table (a grid of the figure for two axes), and the band."""
        on_matchup = results.get("base", "matchup") == "matchup"
        key = "win_rate" if on_matchup else "delta"
        show = charts.pct if on_matchup else charts.points
        band = results.get("band") or band_of(batch.inputs)
        curve = results.get("curve") or []
        rows = [{"label": value_text(results, p), "value": show(p.get(key)),
                 "ci": charts.interval(p.get(f"{key}_ci"), show), "inside": p.get("inside_band"),
                 "verdict": p.get("band_verdict") or "–", "difference": charts.points(p["difference"]["win_rate"]),
                 "difference_ci": charts.interval(p["difference"]["ci"], charts.points),
                 "p_value": charts.probability(p.get("p_value")), "appearances": p.get("appearances")}
                for p in curve]
        figure = f"{game_pages(batch.game).side_names[0]}'s win rate" if on_matchup else "delta of the swept card"
        chart = charts.curve_chart(
            [charts.CurvePoint(row["label"], p.get(key), p.get(f"{key}_ci"), bool(p.get("inside_band")))
             for row, p in zip(rows, curve, strict=True)],
            band=band, label=f"Sweep: {figure} by value", show=show)
        return {"sweep": {"sequential": stopping.shown(results.get("sequential")),
                          "base": results.get("base", "matchup"), "figure": figure, "chart": chart, "rows": rows,
                          "band": charts.interval(band, show), "grid": grid(results, key, show)}}

    def text(self, batch: Batch, results: Mapping[str, Any], labels: Mapping[str, Mapping[int, str]],
             seats: Mapping[str, str], studies: GameStudies) -> list[str]:
        """The curve, a row per value: its figure, its difference from the baseline and its band verdict."""
        on_matchup = results.get("base", "matchup") == "matchup"
        key, show = ("win_rate", pct) if on_matchup else ("delta", points)
        band = results.get("band") or band_of(batch.inputs)
        figure = f"{seats['a']}'s win rate" if on_matchup else "delta"
        return ["", f"Sweep on a {results.get('base', 'matchup')}, every seed played at every value and without the "
                    f"patch; band {show(band['low'])} – {show(band['high'])}",
                *table(("value", figure, "95% CI", "less baseline", "95% CI", "p", "in band", "verdict"), [
                    (value_text(results, p), show(p.get(key)), ci(p.get(f"{key}_ci"), show),
                     points(p["difference"]["win_rate"]), ci(p["difference"]["ci"], points),
                     charts.probability(p.get("p_value")), "yes" if p.get("inside_band") else "no",
                     p.get("band_verdict") or "—") for p in results.get("curve") or []]),
                *stopping.text_lines(results.get("sequential"))]

    # ------------------------------------------------------------------------ the doors

    def add_arguments(self, group: _ArgumentGroup) -> None:
        """--sweep and --band (its base is the what-if's --base)."""
        group.add_argument("--sweep", action="append", default=None, metavar="CARD:FIELD=VALUES",
                           help="sweep: an axis, its values a range FROM..TO (step 1, or FROM..TO..STEP) or a list "
                                "a,b,c (JSON or text each), e.g. CARD:atk=6..11; twice for two axes.")
        group.add_argument("--band", type=float, default=None, metavar="POINTS",
                           help=f"sweep: the acceptable figure, ± points (default {DEFAULT_BAND:g}); suggest: the "
                                "band every card's delta should lie in (default 3).")

    def command_inputs(self, body: dict[str, Any], arguments: Mapping[str, Any]) -> None:
        """--base, --sweep and --band set on the body."""
        if arguments.get("base") is not None:
            body["base"] = arguments["base"]
        if arguments["sweep"] is not None:
            body["sweep"] = [command_axis(text) for text in arguments["sweep"]]
        if arguments["band"] is not None:
            body["band"] = arguments["band"]
        stopping.command_input(body, arguments)  # --sequential is the what-if's flag, read here too

    def form_fields(self, pages: GamePages) -> dict[str, forms.Field]:
        """Its base, one axis (a card, its field, its values) and the band."""
        return {
            "sweep_base": forms.ChoiceField(required=False, initial="matchup", label="Sweep of",
                                            choices=[("matchup", "the matchup above"), ("field", "a field")]),
            "sweep_card": forms.CharField(required=False, max_length=140, label="Card to sweep (slug)"),
            "sweep_field": forms.CharField(required=False, max_length=200, label="Its field",
                                           help_text=f"{', '.join(pages.patch_fields)}, or a path to a number in "
                                                     "its ability (main_ability.effects.0.amount)."),
            "sweep_values": forms.CharField(required=False, max_length=400, label="Its values",
                                            help_text="A range 6..11 (or 4..16..3), or a list 6,8,10.",
                                            validators=[values_or_form_error]),
            "sweep_band": forms.FloatField(required=False, min_value=0, max_value=MAX_BAND,
                                           label="Band (± points)", help_text=f"Default {DEFAULT_BAND:g}."),
        }

    def form_inputs(self, data: Mapping[str, Any], body: dict[str, Any]) -> None:
        """The base, the axis when a card is named, the band when given."""
        body["base"] = data.get("sweep_base") or "matchup"
        if data["sweep_card"].strip():
            body["sweep"] = [{"card": data["sweep_card"].strip(), "field": data["sweep_field"].strip(),
                              **values_spec(data["sweep_values"])}]
        if data.get("sweep_band") is not None:
            body["band"] = data["sweep_band"]
        stopping.form_input(data, body)  # the what-if's "stop as soon as it is decided", read here too

    def form_field_for(self, path: str) -> str | None:
        """The axis's paths belong to its fields, the band to its own."""
        parts = path.split(".")
        if parts[0] == "band":
            return "sweep_band"
        if parts[0] != "sweep":
            return None
        return {"card": "sweep_card", "field": "sweep_field"}.get(parts[2] if len(parts) > 2 else "", "sweep_values")


ROW_KEYS = ("card", "appearances", "wins", "win_rate", "win_rate_ci", "without_win_rate", "delta", "delta_ci", "flag")


def side_figure(side: Mapping[str, Any], rows: Sequence[Mapping[str, Any]] | None) -> dict[str, Any]:
    """A point's figure: side a's win rate (a base without rows), else the swept card's row."""
    if rows is None:
        return {"win_rate": side["win_rate"], "win_rate_ci": side["win_rate_ci"]}
    return card_figure(rows[0]["patched"])


def card_figure(row: Mapping[str, Any] | None) -> dict[str, Any]:
    """A field point's figure: the swept card's delta, its sides' win rate and how many there were."""
    if row is None:
        return {"win_rate": None, "win_rate_ci": {"low": 0.0, "high": 1.0}, "delta": None, "delta_ci": None,
                "appearances": 0}
    return {key: row[key] for key in ("win_rate", "win_rate_ci", "delta", "delta_ci", "appearances")}


def point(values: list[Any], figure: dict[str, Any], pairs: list[int], band: Mapping[str, float], *,
          key: str) -> dict[str, Any]:
    """A point of the curve: its figure, its difference from the baseline, its band verdict."""
    paired = paired_figures(pairs)
    inside, verdict_ = verdict(figure.get(key), figure.get(f"{key}_ci"), band)
    return {"values": values, **figure,
            "difference": {name: paired[name] for name in ("win_rate", "ci", "pairs", "discordant")},
            "p_value": paired["p_value"], "inside_band": inside, "band_verdict": verdict_}


def ranking(results: Mapping[str, Any], key: str) -> tuple[Ranked, ...]:
    """The values by their figure, highest first (those without one last)."""
    curve = sorted(results.get("curve") or [], key=lambda p: -(p.get(key) if p.get(key) is not None else -2.0))
    return tuple(Ranked(value_text(results, p), p.get(key), p.get(f"{key}_ci")) for p in curve)


def band_note(results: Mapping[str, Any], band: Mapping[str, float], show: Callable[[float | None], str]) -> str:
    """The band, and the values inside it: by their figure, and by their whole interval."""
    curve = results.get("curve") or []
    near = [value_text(results, p) for p in curve if p.get("inside_band")]
    inside = [value_text(results, p) for p in curve if p.get("band_verdict") == "inside"]
    return (f"Band {show(band['low'])} to {show(band['high'])}: inside it {', '.join(near) or 'no value'}; "
            f"its whole 95% interval inside it {', '.join(inside) or 'no value'}.")


def value_text(results: Mapping[str, Any], point_: Mapping[str, Any]) -> str:
    """A point's values as a reader names them (`atk 9`, `atk 9, hp 20`)."""
    axes = results.get("axes") or []
    return ", ".join(f"{axis['field']} {value}" for axis, value in zip(axes, point_.get("values") or [], strict=False))


def values_text(values: Sequence[Any]) -> str:
    """Values in short: a range `6..11` when they step evenly, else a list."""
    numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
    if numbers and len(values) > 2 and len({round(b - a, 9) for a, b in itertools.pairwise(values)}) == 1:
        step = values[1] - values[0]
        return f"{values[0]}..{values[-1]}" + ("" if step == 1 else f" by {step}")
    return ", ".join(str(value) for value in values)


def grid(results: Mapping[str, Any], key: str, show: Any) -> dict[str, Any] | None:
    """Two axes' figures as a grid: a row per value of the first, a column per value of the second."""
    axes = results.get("axes") or []
    if len(axes) != MAX_AXES:
        return None
    curve = iter(results.get("curve") or [])
    columns = len(axes[1]["values"])
    return {"rows_of": axes[0]["field"], "columns_of": axes[1]["field"], "columns": axes[1]["values"],
            "rows": [{"value": value, "cells": [cell(next(curve, None), key, show) for _ in range(columns)]}
                     for value in axes[0]["values"]]}


def cell(point_: Mapping[str, Any] | None, key: str, show: Any) -> dict[str, Any]:
    if point_ is None:
        return {"value": "–", "inside": False}
    return {"value": show(point_.get(key)), "inside": bool(point_.get("inside_band")), "verdict": point_.get("band_verdict")}


# ------------------------------------------------------------------------------------- values as typed


def values_spec(text: str) -> dict[str, Any]:
    """An axis's values as typed: `6..11`, `4..16..3` (a range) or `6,8,10` (JSON or text each); ValueError
    for neither."""
    text = text.strip()
    if ".." in text:
        parts = text.split("..")
        try:
            numbers = [json.loads(part) for part in parts]
        except json.JSONDecodeError:
            numbers = []
        if len(parts) not in (2, 3) or any(isinstance(n, bool) or not isinstance(n, (int, float)) for n in numbers) \
                or len(numbers) != len(parts):
            raise ValueError(f"{text!r} is not a range FROM..TO or FROM..TO..STEP of numbers.")
        return {"from": numbers[0], "to": numbers[1], **({"step": numbers[2]} if len(numbers) == 3 else {})}
    values = [whatif.json_or_text(part) for part in whatif.top_level_split(text)]
    if not values:
        raise ValueError("Give the values: a range 6..11 or a list 6,8,10.")
    return {"values": values}


def values_or_form_error(text: str) -> None:
    """A form validator: values as `values_spec` reads them."""
    if text.strip():
        try:
            values_spec(text)
        except ValueError as exc:
            raise forms.ValidationError(str(exc)) from None


def command_axis(text: str) -> dict[str, Any]:
    """`CARD:FIELD=VALUES` as an axis."""
    card, colon, rest = text.partition(":")
    field, equals, values = rest.partition("=")
    if not colon or not equals or not card.strip() or not field.strip():
        raise CommandError(f"--sweep {text!r}: give CARD:FIELD=VALUES (e.g. CARD:atk=6..11 or CARD:atk=6,8,10).")
    try:
        return {"card": card.strip(), "field": field.strip(), **values_spec(values)}
    except ValueError as exc:
        raise CommandError(f"--sweep {text!r}: {exc}") from None
