"""Sequential stopping for the kinds that pair games by seed (what-if, sweep): the request's `sequential`
options, the rule that stops a study once every paired difference it measures is decided
(simulate.engine.sequential), and what its results say of the test: the decision, how many games it took
and how many a fixed count of the same errors would have needed."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from django import forms
from rest_framework import serializers

from cardsdb.api.serializers import StrictSerializer
from simulate.api.fields import NumberField, one_of
from simulate.engine.sequential import (
    INSIDE,
    LOWERED,
    OUTSIDE,
    RAISED,
    UNCHANGED,
    UNDECIDED,
    Design,
    band_verdict,
    fixed_pairs,
    verdict,
)
from simulate.engine.tally import Tally

if TYPE_CHECKING:
    from argparse import _ArgumentGroup

    from simulate.models import Batch

LOOK_UNITS = 50  # units of play between two looks at the test: one chunk
DECISIONS = (RAISED, LOWERED, UNCHANGED, INSIDE, OUTSIDE, UNDECIDED)
SAID = {RAISED: "raises it by at least {delta}", LOWERED: "lowers it by at least {delta}",
        UNCHANGED: "moves it by less than {delta}", INSIDE: "lands it inside the band (by {delta} at least)",
        OUTSIDE: "lands it outside the band (by {delta} at least)", UNDECIDED: "undecided"}


class SequentialSerializer(StrictSerializer):
    """How a paired study stops once its answer is known (its count is then the most it plays)."""

    delta = NumberField(min_value=0.5, max_value=50, required=False, default=5,
                        help_text="The smallest difference that matters, in points of win rate (default 5).")
    alpha = NumberField(min_value=0.001, max_value=0.2, required=False, default=0.05,
                        help_text="The chance of announcing a difference that is not there (default 0.05).")
    beta = NumberField(min_value=0.001, max_value=0.2, required=False, default=0.05,
                       help_text="The chance of missing a difference of at least delta (default 0.05).")


def request_field() -> serializers.Field:
    return SequentialSerializer(required=False, help_text=(
        "Stop as soon as the paired difference is decided (a GSPRT on the pairs, as Fishtest runs): raised or "
        "lowered by at least delta, or moved by less; `count` is then the most it plays."))


def design_of(inputs: Mapping[str, Any]) -> Design | None:
    """The test a study's inputs ask for, None when it plays its count."""
    given = inputs.get("sequential")
    if not isinstance(given, Mapping):
        return None
    return Design(delta=float(given.get("delta", 5)) / 100, alpha=float(given.get("alpha", 0.05)),
                  beta=float(given.get("beta", 0.05)))


def look_units(inputs: Mapping[str, Any]) -> int | None:
    return LOOK_UNITS if design_of(inputs) is not None else None


def stop_rule(batch: Batch, pairs_of: Callable[[Tally], Sequence[Sequence[int]]],
              names: Callable[[Tally], Sequence[str]] = lambda total: ()) -> Callable[[Tally], bool] | None:
    """Stop once every paired difference (`pairs_of(total)`: [both, baseline only, patched only, neither]
    lists, named by `names(total)`) is decided: moved or not, or placed against its band where the inputs give
    one (`band_edges`, by name); None when the study plays its count."""
    design = design_of(batch.inputs)
    if design is None:
        return None
    edges = batch.inputs.get("band_edges") or {}

    def decided(total: Tally) -> bool:
        named = list(names(total))
        return all(decision(design, p, edges.get(named[i]) if i < len(named) else None) != UNDECIDED
                   for i, p in enumerate(pairs_of(total)))

    return decided


def decision(design: Design, pairs: Sequence[int], edges: Sequence[float] | None) -> str:
    """A paired difference's decision: against its band's edges when it has them, else moved or not."""
    n = sum(pairs)
    if edges is not None:
        return band_verdict(design, n, pairs[1], pairs[2], edges[0], edges[1])[0]
    return verdict(design, n, pairs[1], pairs[2]).decision


class EdgesSerializer(serializers.Serializer):
    low = serializers.FloatField()
    high = serializers.FloatField()


class TestSerializer(serializers.Serializer):
    decision = one_of(DECISIONS, help_text="raised or lowered by at least delta, unchanged (by less), or "
                                           "undecided when the count ran out first.")
    llr_raised = serializers.FloatField(help_text=(
        "The log-likelihood ratio of +delta against no difference (against a band: of beyond its upper edge by "
        "delta against short of it by delta)."))
    llr_lowered = serializers.FloatField(help_text="Of -delta against no difference (against a band: of below its "
                                                   "lower edge by delta against above it by delta).")
    edges = EdgesSerializer(required=False, help_text=(
        "The band the difference is placed against (rates of the paired difference), when it is."))
    of = serializers.CharField(allow_null=True, help_text="What it tests: a patched card's sides (a field what-if).")
    pairs = serializers.IntegerField(min_value=0)
    fixed_pairs = serializers.IntegerField(allow_null=True, help_text=(
        "The pairs a fixed count would need for the same errors, with the spread these pairs showed."))


class BoundsSerializer(serializers.Serializer):
    lower = serializers.FloatField(help_text="At or below it, a direction's test accepts no difference.")
    upper = serializers.FloatField(help_text="At or above it, a direction's test accepts a difference of delta.")


class SequentialResultSerializer(serializers.Serializer):
    """The sequential test of a paired study, as it stands."""

    delta = serializers.FloatField(help_text="Points of win rate.")
    alpha = serializers.FloatField()
    beta = serializers.FloatField()
    bounds = BoundsSerializer()
    tests = TestSerializer(many=True, help_text="One per paired difference (a what-if's one, a sweep's each value).")
    decided = serializers.BooleanField(help_text="Every test decided.")
    stopped_early = serializers.BooleanField(help_text="It stopped before its count, every test decided.")
    games = serializers.IntegerField(min_value=0, help_text="The games it played.")
    fixed_games = serializers.IntegerField(allow_null=True, help_text=(
        "The games a fixed count of the same errors would have played (its pairs, at the spread measured)."))
    count = serializers.IntegerField(min_value=0, help_text="The most it would have played.")


def results(batch: Batch, total: Tally, pairs: Sequence[Sequence[int]],
            names: Sequence[str] = ()) -> dict[str, Any] | None:
    """The test's standing on these pairs (each test named by `names` when given), None when the study plays
    its count."""
    design = design_of(batch.inputs)
    if design is None:
        return None
    games = sum(leg["matches"] for leg in total["pairings"])
    tests: list[dict[str, Any]] = []
    scale = 0.0
    edges = batch.inputs.get("band_edges") or {}
    for index, (both, first_only, second_only, neither) in enumerate(pairs):
        n = both + first_only + second_only + neither
        name = names[index] if index < len(names) else None
        fixed = fixed_pairs(design, first_only, second_only, n)
        test: dict[str, Any] = {"pairs": n, "fixed_pairs": fixed, "of": name}
        if name in edges:
            low, high = edges[name]
            found, above, below = band_verdict(design, n, first_only, second_only, low, high)
            test.update(decision=found, llr_raised=round(above, 4), llr_lowered=round(below, 4),
                        edges={"low": low, "high": high})
        else:
            moved = verdict(design, n, first_only, second_only)
            test.update(decision=moved.decision, llr_raised=round(moved.llr_raised, 4),
                        llr_lowered=round(moved.llr_lowered, 4))
        tests.append(test)
        if fixed is not None and n:
            scale = max(scale, fixed / n)
    decided = all(test["decision"] != UNDECIDED for test in tests)
    return {"delta": design.delta * 100, "alpha": design.alpha, "beta": design.beta,
            "bounds": {"lower": round(design.lower, 4), "upper": round(design.upper, 4)}, "tests": tests,
            "decided": decided, "stopped_early": "stopped_at_chunk" in batch.tally,
            "games": games, "fixed_games": math.ceil(scale * games) if scale else None, "count": batch.count}


def said(test: Mapping[str, Any], delta: float) -> str:
    """A test's decision in words."""
    return SAID[test["decision"]].format(delta=f"{delta:g} points")


def shown(sequential: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The test as the report page words it (simulate/pages/study_sequential.html)."""
    if not sequential:
        return None
    delta = sequential["delta"]
    fixed = sequential["fixed_games"]
    return {**sequential, "design": f"delta {delta:g} points, alpha {sequential['alpha']:g}, beta {sequential['beta']:g}",
            "tests": [{**test, "said": said(test, delta)} for test in sequential["tests"]],
            "saved": None if not fixed else f"{1 - sequential['games'] / fixed:.0%}" if fixed > sequential["games"]
            else "none"}


def text_lines(sequential: Mapping[str, Any] | None) -> list[str]:
    """What the command line prints of the test."""
    if not sequential:
        return []
    fixed = sequential["fixed_games"]
    return ["", f"Sequential test (delta {sequential['delta']:g} points, alpha {sequential['alpha']:g}, "
                f"beta {sequential['beta']:g}): {sequential['games']} games"
                + (f"; a fixed count of the same errors: {fixed}" if fixed is not None else ""),
            *(f"  {test['of'] + ': ' if test.get('of') else ''}{said(test, sequential['delta'])} (LLR {test['llr_raised']:+.2f} / {test['llr_lowered']:+.2f} "
              f"of [{sequential['bounds']['lower']:.2f}, {sequential['bounds']['upper']:.2f}], {test['pairs']} pairs)"
              for test in sequential["tests"])]


def progress_text(sequential: Mapping[str, Any] | None) -> str:
    """The test converging, as a progress bar shows it: the tests decided, and the least decided one's ratios
    against its bounds."""
    if not sequential or not sequential["tests"]:
        return ""
    tests = sequential["tests"]
    lower, upper = sequential["bounds"]["lower"], sequential["bounds"]["upper"]

    def closeness(test: Mapping[str, Any]) -> float:  # 1 or more: decided
        return max(test["llr_raised"] / upper, test["llr_lowered"] / upper,
                   max(test["llr_raised"], test["llr_lowered"]) / lower)  # both at or below lower

    open_test = min(tests, key=closeness)
    decided = sum(test["decision"] != UNDECIDED for test in tests)
    return (f"decided {decided}/{len(tests)}, LLR {open_test['llr_raised']:+.2f}/{open_test['llr_lowered']:+.2f} "
            f"of [{lower:.2f}, {upper:.2f}]")


# ------------------------------------------------------------------------------------ the doors


def add_argument(group: _ArgumentGroup) -> None:
    group.add_argument("--sequential", type=float, nargs="?", const=5.0, default=None, metavar="DELTA",
                       help="whatif, sweep: stop once each paired difference is decided (raised or lowered by at least "
                            "DELTA points, default 5, or moved by less; errors 0.05); --count is then the most.")


def command_input(body: dict[str, Any], arguments: Mapping[str, Any]) -> None:
    if arguments.get("sequential") is not None:
        body["sequential"] = {"delta": arguments["sequential"]}


def form_fields() -> dict[str, forms.Field]:
    return {
        "sequential": forms.BooleanField(required=False, initial=True, label="Stop as soon as it is decided",
                                         help_text="A sequential test on the paired games (errors 0.05 each way); "
                                                   "the count is then the most it plays."),
        "sequential_delta": forms.FloatField(required=False, min_value=0.5, max_value=50, initial=5,
                                             label="Smallest difference that matters (points)"),
    }


def form_input(data: Mapping[str, Any], body: dict[str, Any]) -> None:
    if data.get("sequential"):
        body["sequential"] = {"delta": data.get("sequential_delta") or 5}
