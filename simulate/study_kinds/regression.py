"""Regression: one field played on two states of the catalogue (a release, and another release or the working
catalogue) with the same seeds; the cards and factions whose deltas moved beyond noise, and a pass or fail
against a threshold: the check before publishing a release."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from django import forms
from rest_framework import serializers

from cardsdb.api.fields import TextField
from cardsdb.card_history import UnknownRelease, release_called
from cardsdb.models import WORKING, Release
from simulate.api.fields import NumberField, one_of
from simulate.api.figures import IntervalSerializer
from simulate.engine.errors import InputError
from simulate.engine.stats import independent_difference
from simulate.engine.tally import Tally, figures
from simulate.pages import charts
from simulate.pages.report import GROUP_TITLES, member_names, member_url
from simulate.study_kinds.base import (
    Headline,
    Outcomes,
    Pairing,
    PlanRequest,
    Ranked,
    Study,
    StudyKind,
    listed,
    merge_all,
    play_unit_match,
)
from simulate.study_kinds.field import group_tables, member_delta
from simulate.study_kinds.text import ci, points, table

if TYPE_CHECKING:
    from argparse import _ArgumentGroup

    from simulate.models import Batch
    from simulate.pages.games import GamePages
    from simulate.services import GameStudies

DEFAULT_THRESHOLD = 3.0  # points: a move smaller than this passes, however sure
MAX_THRESHOLD = 50.0
STATES = ("a", "b")  # a: `against`, b: `versus`
HEADLINE_ROWS = 6
HELP = ("The difference is the member's delta on `versus` less its delta on `against`. Its 95% interval combines "
        "the two deltas' intervals as if the halves were independent; they share their seeds, so it is conservative "
        "(wider than a paired interval). A member moved when that interval excludes 0 and the difference is at least "
        "the threshold either way.")


def threshold_of(inputs: Mapping[str, Any]) -> float:
    """The gate's threshold in points."""
    return float(inputs.get("threshold", DEFAULT_THRESHOLD))


def release_of(game: str, inputs: Mapping[str, Any], key: str) -> Release | None:
    """The release `key` names (None for `versus` not given: the working catalogue); InputError at `key`."""
    text = inputs.get(key)
    if text is None or (key == "versus" and str(text).strip().lower() == WORKING):
        return None
    try:
        return release_called(game, str(text))
    except UnknownRelease as exc:
        raise InputError(str(exc), [(key, str(exc))]) from exc


def state_slug(release: Release | None) -> str:
    """How a pairing's label names the catalogue state it plays: a release's slug, or `working`."""
    return WORKING if release is None else release.slug


class ChangeRowSerializer(serializers.Serializer):
    group = serializers.CharField(help_text="The field group (cards, factions, protectors...).")
    member = serializers.CharField(help_text="The member (a card's slug, a faction...).")
    status = one_of(["kept", "added", "removed"], help_text="added / removed: only `versus` / `against` holds it.")
    a = serializers.DictField(allow_null=True, help_text="Its row on `against`: appearances, win_rate, delta, "
                                                         "delta_ci, flag; null when it is not there.")
    b = serializers.DictField(allow_null=True, help_text="Its row on `versus`, alike.")
    difference = serializers.FloatField(allow_null=True, help_text="Delta on versus less delta on against.")
    difference_ci = IntervalSerializer(allow_null=True, help_text="Its 95% interval, conservative (see `gate`).")
    moved = serializers.BooleanField(help_text="The interval excludes 0 and |difference| ≥ the threshold.")


class GateMemberSerializer(serializers.Serializer):
    group = serializers.CharField()
    member = serializers.CharField()
    difference = serializers.FloatField(allow_null=True)


class GateSerializer(serializers.Serializer):
    passed = serializers.BooleanField(help_text="No member moved beyond noise by the threshold or more.")
    threshold = serializers.FloatField(help_text="In percentage points.")
    moved = GateMemberSerializer(many=True)
    added = GateMemberSerializer(many=True, help_text="Members only `versus` holds.")
    removed = GateMemberSerializer(many=True, help_text="Members only `against` holds.")


class StateSerializer(serializers.Serializer):
    catalogue = serializers.CharField(help_text="A release's slug, or `working`.")
    name = serializers.CharField(help_text="The release's name, or `working`.")


class StatesSerializer(serializers.Serializer):
    a = StateSerializer(help_text="`against`.")
    b = StateSerializer(help_text="`versus`.")


class Kind(StudyKind):
    name = "regression"
    label = "Regression"
    description = ("A field played on a release and on the working catalogue (or another release) with the same "
                   "seeds: which cards moved beyond noise, pass or fail.")
    template = "simulate/studies/regression.html"
    keys = frozenset({"pool", "against", "versus", "threshold"})
    game_roles = ("pool",)
    has_overall = False  # its sides are drawn at random
    details_note = " (of every match, both states)"
    form_legend = "Regression gate"

    # ------------------------------------------------------------------------------ inputs

    def fields(self) -> dict[str, serializers.Field]:
        """`against`, `versus` and `threshold`."""
        return {
            "against": TextField(required=False, max_length=70, help_text=(
                "regression (required): the release the field is played on first, by its name or slug.")),
            "versus": TextField(required=False, max_length=70, help_text=(
                "regression: the release it is compared with, by its name or slug (default: the working catalogue).")),
            "threshold": NumberField(required=False, min_value=0, max_value=MAX_THRESHOLD, help_text=(
                f"regression: the gate's threshold in percentage points, above 0 and at most {MAX_THRESHOLD:g} "
                f"(default {DEFAULT_THRESHOLD:g}). " + HELP)),
        }

    def validate(self, attrs: dict[str, Any]) -> None:
        """`against` is required; the threshold is above 0."""
        if not str(attrs.get("against") or "").strip():
            raise serializers.ValidationError({"against": ["A regression names the release it plays against."]})
        if "threshold" in attrs and not attrs["threshold"] > 0:
            raise serializers.ValidationError({"threshold": ["The threshold is above 0 points."]})

    # ------------------------------------------------------------------------------- plan

    def plan(self, request: PlanRequest) -> Study:
        """The field on `against`, then on `versus`, every seed played by both (the same armies drawn where
        the two states hold the same cards)."""
        pairings = []
        for state, key in zip(STATES, ("against", "versus"), strict=True):
            release = release_of(request.game, request.inputs, key)
            try:
                pool, prepared = request.studies.field_pool(request.inputs, user=request.user, release=release)
            except InputError as exc:
                where = f"{key} ({state_slug(release)})"
                raise InputError(f"{where}: {exc}", [*exc.errors, (key, str(exc))]) from exc
            pairings.append(Pairing({"state": state, "catalogue": state_slug(release)}, prepared, False, pool=pool))
        return Study(request.game, self.name, pairings, request.per_pairing, paired=True)

    def play_unit(self, study: Study, unit: int, seed: int, tally: Tally) -> None:
        """Both states with this unit's seed."""
        for k, pairing in enumerate(study.pairings):
            play_unit_match(study, pairing, unit, seed, tally["pairings"][k])

    # ---------------------------------------------------------------------------- results

    def result_fields(self) -> dict[str, serializers.Field]:
        """The states, every member's change, and the gate."""
        return {
            "states": StatesSerializer(required=False, help_text="regression: the two catalogue states played."),
            "changes": ChangeRowSerializer(many=True, required=False, help_text=(
                "regression: every member of every field group, the largest |difference| first. " + HELP)),
            "gate": GateSerializer(required=False, help_text="regression: the verdict. " + HELP),
        }

    def results(self, batch: Batch, total: Tally, studies: GameStudies) -> dict[str, Any]:
        """Every match's figures, both states named, each member's change and the verdict."""
        threshold = threshold_of(batch.inputs)
        halves = [group_tables(studies, leg) for leg in total["pairings"]]
        changes = [change for group, key in studies.field_groups.items()
                   for change in group_changes(group, key, halves[0][group], halves[1][group], threshold)]
        changes.sort(key=lambda row: (row["difference"] is None, -abs(row["difference"] or 0), row["group"],
                                      row["member"]))
        return {**figures(merge_all(total["pairings"])), "states": states_of(batch), "changes": changes,
                "gate": verdict(changes, threshold), "draw": studies.field_draw}

    # ---------------------------------------------------------------------------- report

    def headline(self, batch: Batch, results: Mapping[str, Any], side: str) -> Headline:
        """The verdict, and the largest differences with their intervals."""
        gate = results.get("gate") or {}
        states = results.get("states") or {}
        rows = [row for row in results.get("changes") or [] if row["difference"] is not None][:HEADLINE_ROWS]
        shown = [change_shown(batch.game, row, names_of(batch.game, rows)) for row in rows]
        return Headline(
            f"{verdict_text(gate)}: {state_name(states, 'b')} against {state_name(states, 'a')}",
            outcomes=(Outcomes.of("every match of both states", results, sided=False),),
            ranked_title="The largest differences of delta (versus less against)", ranked_figure="difference",
            ranked=tuple(Ranked(row_["name"], row["difference"], row["difference_ci"], row_["url"])
                         for row, row_ in zip(rows, shown, strict=True)),
            ranked_difference=True, note=gate_note(gate))

    def about(self, batch: Batch) -> str:
        """`working vs core-1-0`, and its pool when one was given."""
        inputs = batch.inputs
        pool = inputs.get("pool")
        of = "" if not isinstance(pool, Mapping) or not pool else " (" + "; ".join(
            listed(value, key) if isinstance(value, list) else f"{key} {value}" for key, value in pool.items()) + ")"
        return f"{inputs.get('versus') or WORKING} vs {inputs.get('against')}{of}"

    def sides_swapped(self, batch: Batch) -> bool:
        """Never: both sides are drawn alike."""
        return False

    def report(self, batch: Batch, results: Mapping[str, Any], sort: str) -> dict[str, Any]:
        """The verdict, the moved members, then every member by |difference|."""
        gate = results.get("gate") or {}
        rows = list(results.get("changes") or [])
        names = names_of(batch.game, rows)
        shown = [change_shown(batch.game, row, names) for row in rows]
        states = results.get("states") or {}
        return {"regression": {
            "passed": gate.get("passed"), "verdict": verdict_text(gate), "threshold": gate.get("threshold"),
            "against": state_name(states, "a"), "versus": state_name(states, "b"), "note": gate_note(gate),
            "tables": [("regression-moved", "Moved beyond noise", [row for row in shown if row["moved"]]),
                       ("regression-all", "Every member, the largest difference first", shown)],
            "draw": results.get("draw"), "help": HELP}}

    def text(self, batch: Batch, results: Mapping[str, Any], labels: Mapping[str, Mapping[int, str]],
             seats: Mapping[str, str], studies: GameStudies) -> list[str]:
        """The moved members, then the verdict."""
        gate = results.get("gate") or {}
        moved = {(row["group"], row["member"]) for row in gate.get("moved", [])}
        rows = [row for row in results.get("changes") or [] if (row["group"], row["member"]) in moved]
        lines = ["", f"Moved beyond noise by {gate.get('threshold', 0):g} points or more: {len(rows)}"]
        if rows:
            lines += change_table(rows)
        for status in ("added", "removed"):
            if gate.get(status):
                lines.append(f"{status.capitalize()}: " + ", ".join(f"{row['member']} ({row['group']})"
                                                                     for row in gate[status]))
        return [*lines, "", gate_note(gate)]

    # ------------------------------------------------------------------------ the doors

    def add_arguments(self, group: _ArgumentGroup) -> None:
        """--against, --versus and --threshold."""
        group.add_argument("--against", default=None, metavar="RELEASE",
                           help="regression: the release the field is played on first (its name or slug).")
        group.add_argument("--versus", default=None, metavar="RELEASE",
                           help="regression: the release compared with it (default: the working catalogue).")
        group.add_argument("--threshold", type=float, default=None, metavar="POINTS",
                           help=f"regression: the gate's threshold in points (default {DEFAULT_THRESHOLD:g}).")

    def command_inputs(self, body: dict[str, Any], arguments: Mapping[str, Any]) -> None:
        """Each flag given set on the body."""
        for key in ("against", "versus", "threshold"):
            if arguments.get(key) is not None:
                body[key] = arguments[key]

    def form_fields(self, pages: GamePages) -> dict[str, forms.Field]:
        """The two releases and the threshold."""
        return {
            "against": forms.CharField(required=False, max_length=70, label="Against release",
                                       help_text="The release played first, by its name or slug."),
            "versus": forms.CharField(required=False, max_length=70, label="Versus release",
                                      help_text="Empty: the working catalogue."),
            "threshold": forms.FloatField(required=False, min_value=0, max_value=MAX_THRESHOLD,
                                          label="Gate threshold (points)", initial=DEFAULT_THRESHOLD),
        }

    def form_inputs(self, data: Mapping[str, Any], body: dict[str, Any]) -> None:
        """The releases named, and the threshold when given."""
        body["against"] = (data.get("against") or "").strip()
        if (data.get("versus") or "").strip():
            body["versus"] = data["versus"].strip()
        if data.get("threshold") is not None:
            body["threshold"] = data["threshold"]


# ------------------------------------------------------------------------------------- results


def group_changes(group: str, key: str, before: Sequence[Mapping[str, Any]], after: Sequence[Mapping[str, Any]],
                  threshold: float) -> list[dict[str, Any]]:
    """Each member of a group on either state: its rows on both and the change of its delta."""
    rows = [{row[key]: row for row in half} for half in (before, after)]
    return [{"group": group, "member": member, **change(rows[0].get(member), rows[1].get(member), threshold)}
            for member in sorted(set(rows[0]) | set(rows[1]))]


def change(before: Mapping[str, Any] | None, after: Mapping[str, Any] | None, threshold: float) -> dict[str, Any]:
    """A member's delta on both states and its difference (after less before) with its interval; `moved`
    when the interval excludes 0 and the difference is at least `threshold` points either way."""
    status = "added" if before is None else "removed" if after is None else "kept"
    answer = {"status": status, "a": member_delta(before), "b": member_delta(after), "difference": None,
              "difference_ci": None, "moved": False}
    if before is None or after is None or before["delta"] is None or after["delta"] is None:
        return answer
    # Independent intervals of paired halves: conservative (the shared seeds correlate the two deltas).
    difference, (low, high) = independent_difference(
        after["delta"], (after["delta_ci"]["low"], after["delta_ci"]["high"]),
        before["delta"], (before["delta_ci"]["low"], before["delta_ci"]["high"]))
    return {**answer, "difference": round(difference, 6), "difference_ci": {"low": round(low, 6), "high": round(high, 6)},
            "moved": (low > 0 or high < 0) and abs(difference) * 100 >= threshold}


def verdict(changes: Sequence[Mapping[str, Any]], threshold: float) -> dict[str, Any]:
    """Passed when no member moved; the members moved, added and removed."""

    def of(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        return [{"group": row["group"], "member": row["member"], "difference": row["difference"]} for row in rows]

    moved = [row for row in changes if row["moved"]]
    return {"passed": not moved, "threshold": threshold, "moved": of(moved),
            "added": of([row for row in changes if row["status"] == "added"]),
            "removed": of([row for row in changes if row["status"] == "removed"])}


def states_of(batch: Batch) -> dict[str, dict[str, str]]:
    """Both states as named: a release's slug and name, or `working`."""
    answer = {}
    for state, key in zip(STATES, ("against", "versus"), strict=True):
        given = batch.inputs.get(key)
        release = None
        if given is not None and str(given).strip().lower() != WORKING:
            try:
                release = release_called(batch.game, str(given))
            except UnknownRelease:  # deleted since it was planned: named as given
                answer[state] = {"catalogue": str(given), "name": str(given)}
                continue
        answer[state] = {"catalogue": state_slug(release), "name": WORKING if release is None else release.name}
    return answer


# ------------------------------------------------------------------------------------- words


def state_name(states: Mapping[str, Any], state: str) -> str:
    return str((states.get(state) or {}).get("name") or "?")


def verdict_text(gate: Mapping[str, Any]) -> str:
    return "PASS" if gate.get("passed") else "FAIL"


def gate_note(gate: Mapping[str, Any]) -> str:
    """The verdict in a sentence."""
    threshold = gate.get("threshold", DEFAULT_THRESHOLD)
    moved = gate.get("moved") or []
    if not moved:
        return f"PASS: no card or group moved beyond noise by {threshold:g} points or more."
    listed_ = ", ".join(f"{row['member']} ({charts.points(row['difference'])})" for row in moved)
    return f"FAIL: {len(moved)} moved beyond noise by {threshold:g} points or more: {listed_}."


def names_of(game: str, rows: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, str]]:
    """Display names of the rows' members that the catalogue names, by group then member."""
    by_group: dict[str, list[str]] = {}
    for row in rows:
        by_group.setdefault(row["group"], []).append(row["member"])
    return {group: member_names(game, group, members) for group, members in by_group.items()}


def change_shown(game: str, row: Mapping[str, Any], names: Mapping[str, Mapping[str, str]]) -> dict[str, Any]:
    """A member's change as the report's tables show it."""
    group, member = row["group"], row["member"]
    found = names.get(group, {})
    return {
        "group": GROUP_TITLES.get(group, group), "member": member, "name": found.get(member, member),
        "url": member_url(game, group, member, found), "status": row["status"], "moved": row["moved"],
        **{state: None if row[state] is None else {
            "appearances": row[state]["appearances"], "delta": charts.points(row[state]["delta"]),
            "ci": charts.interval(row[state]["delta_ci"], charts.points)} for state in STATES},
        "difference": charts.points(row["difference"]),
        "difference_ci": charts.interval(row["difference_ci"], charts.points),
    }


def change_table(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """Members' changes as a table of the command line."""
    return table(("group", "member", "delta against", "delta versus", "difference", "95% CI"), [
        (row["group"], row["member"], *(points(row[state]["delta"]) if row[state] else "—" for state in STATES),
         points(row["difference"]), ci(row["difference_ci"], points)) for row in rows], left=2)
