"""Suggest: from a published field study and a band, the smallest patch that brings every card inside the band.

The cards outside the band (or those the designer names) are screened: every number of each (`GameStudies.tuning`)
is moved one screen step the way that brings the card back, each a patched copy of the study's field played on the
same seeds as the field itself. The screen measures, per step, how far each move shifts the card's delta and the
other screened cards' deltas (the same armies are drawn in every copy, so the shifts are paired). From those
slopes a linear model predicts every screened card's delta after any patch, and NSGA-II (pymoo) searches the
patches for the front of balance error against the number of cards changed and the steps taken; the patch
answered is the one that brings every screened card inside the band with the fewest cards changed, then the
smallest steps (else the least error, the cards left outside said with why). Once the screen is done, a field
what-if of that patch confirms it on paired seeds, stopping as soon as its difference is decided.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
from django.db import transaction
from django.urls import reverse
from rest_framework import serializers

from cardsdb.api.fields import TextField
from simulate.engine.errors import InputError
from simulate.engine.tally import Tally, figures, group_rows, paired_figures
from simulate.pages.games import game_pages
from simulate.pages.report import member_names
from simulate.services import game_studies
from simulate.study_kinds.base import (
    PlanRequest,
    Study,
    StudyKind,
    count_card_pairs,
    merge_all,
    play_unit_match,
    relabelled,
)
from simulate.study_kinds.field import Kind as Field
from simulate.study_kinds.text import signed

if TYPE_CHECKING:
    from argparse import _ArgumentGroup

    from django import forms

    from simulate.models import Batch
    from simulate.pages.games import GamePages
    from simulate.services import GameStudies, Tuning

logger = logging.getLogger(__name__)

MAX_CARDS = 6  # cards one suggestion fixes: the worst ones outside the band
CONFIRM_SEEDS = 25_000  # the most seeds the confirming what-if plays (it stops once each card is placed)
FIELD_KEYS = ("pool", "mode", "agents", "options")  # what makes the study's field: the suggestion plays the same
ROUNDS = 3  # confirmations of one suggestion: its patch, then each refined from what the last one measured
GENERATIONS = 60
POPULATION = 48


# ------------------------------------------------------------------------------------------- the search


@dataclass(frozen=True)
class Option:
    """One way to change one card: a number moved `steps` units from its value."""

    field: str
    value: int
    steps: int
    before: int = 0  # its value now


@dataclass(frozen=True)
class Model:
    """The screen's linear model: each measure now (a screened card's delta, a targeted matchup's win rate),
    and how each option of each card shifts every measure (`shifts[c][o]`: a vector over the measures); each
    measure should lie within `band` of its aim (0 for a delta)."""

    cards: list[str]
    deltas: np.ndarray
    options: list[list[Option | None]]  # per card, None first: unchanged
    shifts: list[np.ndarray]  # per card: options x measures
    band: float | np.ndarray  # one for every measure, or each its own
    aims: np.ndarray | None = None  # where each measure should be (None: every one at 0)

    def evaluate(self, choice: np.ndarray) -> np.ndarray:
        """(error, cards changed, steps) of each row of choices: an option index per card."""
        rows = np.atleast_2d(choice).astype(int)
        predicted = np.tile(self.deltas, (len(rows), 1))
        for card, shifts in enumerate(self.shifts):
            predicted += shifts[rows[:, card]]
        excess = np.maximum(np.abs(predicted if self.aims is None else predicted - self.aims) - self.band, 0.0)
        taken = sum(steps[rows[:, card]] for card, steps in enumerate(self.steps))
        return np.column_stack([(excess ** 2).sum(axis=1), (rows > 0).sum(axis=1), taken])

    @cached_property
    def steps(self) -> list[np.ndarray]:
        """Per card, the steps each of its options takes (0: unchanged)."""
        return [np.array([0 if option is None else option.steps for option in options]) for options in self.options]

    def predicted(self, choice: Sequence[int]) -> np.ndarray:
        total = self.deltas.copy()
        for card, index in enumerate(choice):
            total += self.shifts[card][index]
        return total


def search(model: Model, seed: int) -> tuple[list[int], list[dict[str, Any]]]:
    """The chosen patch (an option index per card) and the front of error against cards changed, by NSGA-II
    over the options (pymoo), its first population seeded with no change and each card's best single change."""
    from pymoo.algorithms.moo.nsga2 import NSGA2
    from pymoo.core.problem import Problem
    from pymoo.operators.crossover.sbx import SBX
    from pymoo.operators.mutation.pm import PM
    from pymoo.operators.repair.rounding import RoundingRepair
    from pymoo.optimize import minimize

    width = len(model.cards)
    upper = np.array([len(options) - 1 for options in model.options], dtype=float)

    class Patches(Problem):
        def __init__(self) -> None:
            super().__init__(n_var=width, n_obj=3, xl=np.zeros(width), xu=upper, vtype=int)

        def _evaluate(self, x: np.ndarray, out: dict[str, Any], *args: Any, **kwargs: Any) -> None:
            out["F"] = model.evaluate(np.rint(x)).astype(float)

    starts = seeded_choices(model)
    population = np.vstack([starts, np.random.default_rng(seed).integers(0, upper + 1, size=(POPULATION, width))])
    algorithm = NSGA2(pop_size=POPULATION, sampling=population[:POPULATION].astype(float),
                      crossover=SBX(prob=0.9, eta=15, vtype=float, repair=RoundingRepair()),
                      mutation=PM(eta=20, vtype=float, repair=RoundingRepair()), eliminate_duplicates=True)
    found = minimize(Patches(), algorithm, ("n_gen", GENERATIONS), seed=seed, verbose=False)
    tried = np.vstack([starts, np.rint(np.atleast_2d(found.pop.get("X")))]).astype(int)
    scores = model.evaluate(tried)
    # The least error (no error at all first), then the fewest cards changed, then the fewest steps.
    first = min(range(len(tried)), key=lambda i: (round(float(scores[i][0]), 9), scores[i][1], scores[i][2],
                                                  list(tried[i])))
    best = [int(v) for v in tried[first]]
    front = []
    for changes in range(width + 1):
        at = [i for i in range(len(tried)) if scores[i][1] == changes]
        if at:
            least = min(at, key=lambda i: (scores[i][0], scores[i][2]))
            front.append({"changes": changes, "error": round(float(scores[least][0]), 8),
                          "steps": int(scores[least][2])})
    return best, front


def seeded_choices(model: Model) -> np.ndarray:
    """No change, and each card's best single option alone (the rest unchanged), and all of those together."""
    width = len(model.cards)
    rows = [np.zeros(width, dtype=int)]
    together = np.zeros(width, dtype=int)
    for card in range(width):
        candidates = []
        for index in range(len(model.options[card])):
            row = np.zeros(width, dtype=int)
            row[card] = index
            candidates.append((tuple(model.evaluate(row)[0]), index))
        best = min(candidates)[1]
        together[card] = best
        row = np.zeros(width, dtype=int)
        row[card] = best
        rows.append(row)
    rows.append(together)
    return np.array(rows)


# ------------------------------------------------------------------------------------------- the kind


class Kind(StudyKind):
    name = "suggest"
    label = "Suggest a fix"
    description = "From a published field study and a band: the smallest patch that brings every card inside it."
    template = "simulate/studies/suggest.html"
    keys = frozenset({"study", "band", "cards", "tune", "bounds"})
    has_overall = False
    details_note = " (of the unpatched field)"

    def fields(self) -> dict[str, serializers.Field]:
        return {
            "study": serializers.UUIDField(required=False, help_text=(
                "suggest: a published field study of the game (default: the one of its official sets published "
                "last); equilibrium: a finished matrix study whose entrants it plays, or a finished army search "
                "whose strongest armies it plays (8 at most).")),
            "cards": serializers.ListField(child=TextField(max_length=140), min_length=1,
                                           max_length=MAX_CARDS, required=False, help_text=(
                                               "suggest: the cards to fix (default: the ones outside the band, "
                                               f"the {MAX_CARDS} furthest).")),
            "tune": serializers.ListField(child=TextField(max_length=40), min_length=1, max_length=10,
                                          required=False, help_text=(
                                              "suggest: the numbers it may change (default every one the game "
                                              "tunes: a character's atk, def, spd, hp, cooldown; a summoning card's "
                                              "copies).")),
            "bounds": serializers.DictField(child=serializers.DictField(child=serializers.ListField(
                child=serializers.IntegerField(min_value=0, max_value=999), min_length=2, max_length=2)),
                required=False, help_text="suggest: per card and number, [low, high] it may take."),
        }

    def validate(self, attrs: dict[str, Any]) -> None:
        """A band above 0 (`band` is the sweep's field, read here too)."""
        if attrs.get("band") is not None and attrs["band"] <= 0:
            raise serializers.ValidationError({"band": ["The band is above 0 points."]})

    def prepared_inputs(self, inputs: dict[str, Any], studies: GameStudies) -> list[str]:
        """The field study it starts from (its id, its field and each card's delta) and the cards to fix."""
        source = measured_study(inputs, studies.game)
        rows = {row[studies.field_groups[studies.tuning_group]]: row
                for row in source.results.get(studies.tuning_group) or []}
        fix = cards_to_fix(rows, float(inputs.get("band", 3)) / 100, inputs.get("cards"))
        inputs["study"] = str(source.pk)
        inputs["fix"] = fix
        inputs["measured"] = {card: {key: rows[card][key] for key in ("delta", "delta_ci", "appearances")}
                              for card in fix}
        inputs.update({key: source.inputs[key] for key in FIELD_KEYS if key in source.inputs})
        return fix

    # ------------------------------------------------------------------------------- plan

    def plan(self, request: PlanRequest) -> Study:
        """The study's field as it is, then one patched copy per card and number it may change, moved one screen
        step the way that brings the card back, every copy on the same seeds."""
        studies = request.studies
        field = Field().pairings(request)[0]
        pairings = relabelled([field], variant="baseline")
        for card in request.inputs["fix"]:
            for option in screen_options(request.inputs, studies, card):
                patch = studies.validated_patch([{"card": card, "changes": {option.field: option.value}}],
                                                user=request.user)
                pairings.append(replace(field, pool=studies.patched_pool(field.pool, patch),
                                        label={"variant": "screen", "card": card, "field": option.field,
                                               "current": option.before, "value": option.value, "steps": option.steps},
                                        patched=frozenset({card})))
        if len(pairings) == 1:
            raise InputError("No number of these cards can move within its bounds.", [("tune", "nothing to move")])
        return Study(request.game, self.name, pairings, request.per_pairing, paired=True)

    # ------------------------------------------------------------------------------ tally

    def new_tally(self, study: Study) -> Tally:
        return {**super().new_tally(study), "pairs": [[0, 0, 0, 0] for _ in study.pairings[1:]]}

    def play_unit(self, study: Study, unit: int, seed: int, tally: Tally) -> None:
        """Every copy on this unit's seed; each screened copy's sides fielding its card paired with the field's."""
        played = [play_unit_match(study, p, unit, seed, tally["pairings"][k]) for k, p in enumerate(study.pairings)]
        for index, (pairing, match) in enumerate(zip(study.pairings[1:], played[1:], strict=True)):
            count_card_pairs(played[0], match, {pairing.label["card"]: tally["pairs"][index]})

    # ---------------------------------------------------------------------------- results

    def result_fields(self) -> dict[str, serializers.Field]:
        return {
            "screen": SuggestScreenRowSerializer(many=True, required=False, help_text="suggest: each screened move."),
            "suggestion": SuggestedPatchSerializer(required=False, help_text=(
                "suggest: the patch found, once the screen is complete (absent before).")),
            "confirmation": SuggestConfirmationSerializer(required=False, help_text=(
                "suggest: the field what-if that confirms the patch on paired seeds, and what it measured (the "
                "latest round).")),
            "confirmations": SuggestConfirmationSerializer(many=True, required=False, help_text=(
                f"suggest: every round done, at most {ROUNDS}: the search's patch, then each refined from what the "
                "round before measured.")),
        }

    def results(self, batch: Batch, total: Tally, studies: GameStudies) -> dict[str, Any]:
        legs = total["pairings"]
        group, key = studies.tuning_group, studies.field_groups[studies.tuning_group]
        base = {row[key]: row for row in group_rows(legs[0].get("groups", {}), group, key)}
        labels = [pairing_label(batch, index) for index in range(1, len(legs))]
        screen = [screen_row(label, base, {row[key]: row for row in group_rows(leg.get("groups", {}), group, key)},
                             pairs, batch.inputs["fix"])
                  for label, leg, pairs in zip(labels, legs[1:], total["pairs"], strict=True)]
        return {**figures(merge_all(legs[:1])), "screen": screen}

    def finished(self, batch: Batch) -> None:
        """Once the screen is done: the search for the patch, and the field what-if that confirms it, queued
        when this commits."""
        found = suggestion(batch, batch.results["screen"], game_studies(batch.game))
        batch.results = {**batch.results, "suggestion": found}
        patch = found["patch"]
        if patch:
            transaction.on_commit(lambda: queue_confirmation(batch, patch))

    def about(self, batch: Batch) -> str:
        fix = batch.inputs.get("fix") or batch.inputs.get("cards") or []
        return f"{', '.join(fix[:3])}{'…' if len(fix) > 3 else ''} within ±{batch.inputs.get('band', 3):g} points"

    def sides_swapped(self, batch: Batch) -> bool:
        return False

    def report(self, batch: Batch, results: Mapping[str, Any], sort: str) -> dict[str, Any]:
        return {"suggest": suggestion_report(batch, results)}

    def text(self, batch: Batch, results: Mapping[str, Any], labels: Mapping[str, Mapping[int, str]],
             seats: Mapping[str, str], studies: GameStudies) -> list[str]:
        return suggestion_lines(batch, results)

    # ------------------------------------------------------------------------ the doors

    def add_arguments(self, group: _ArgumentGroup) -> None:
        # --band is the sweep's flag, read here too: the band every card's delta should lie in.
        group.add_argument("--fix", nargs="+", default=None, metavar="CARD",
                           help="suggest: the cards to fix (default: the ones outside the band).")
        group.add_argument("--tune", nargs="+", default=None, metavar="FIELD",
                           help="suggest: the numbers it may change (default every one the game tunes).")
        group.add_argument("--from-study", default=None, metavar="ID",
                           help="suggest: the published field study (default the official sets' one published last).")

    def command_inputs(self, body: dict[str, Any], arguments: Mapping[str, Any]) -> None:
        for flag, key in (("band", "band"), ("fix", "cards"), ("tune", "tune"), ("from_study", "study")):
            if arguments.get(flag) is not None:
                body[key] = arguments[flag]

    def form_fields(self, pages: GamePages) -> dict[str, forms.Field]:
        from django import forms

        return {
            "suggest_study": forms.UUIDField(required=False, label="Field study (id)",
                                             help_text="Empty: the field study of the official sets published last."),
            "suggest_cards": forms.CharField(required=False, max_length=600, label="Cards to fix (slugs, commas)",
                                             help_text="Empty: the cards outside the band."),
            "band": forms.FloatField(required=False, min_value=0.5, max_value=50, initial=3,
                                     label="Band (± points)"),
        }

    def form_inputs(self, data: Mapping[str, Any], body: dict[str, Any]) -> None:
        cards = [card.strip() for card in (data.get("suggest_cards") or "").split(",") if card.strip()]
        if cards:
            body["cards"] = cards
        if data.get("band") is not None:
            body["band"] = data["band"]
        if data.get("suggest_study"):
            body["study"] = str(data["suggest_study"])

    def form_field_for(self, path: str) -> str | None:
        """Its refusals belong to its own fields."""
        return {"study": "suggest_study", "cards": "suggest_cards", "band": "band"}.get(path.split(".")[0])


# ------------------------------------------------------------------------------------------- planning


def measured_study(inputs: Mapping[str, Any], game: str) -> Batch:
    """The published field study a suggestion starts from; InputError at `study` when there is none."""
    from simulate.models import Batch
    from simulate.selectors import published_field_study

    if inputs.get("study"):
        source = Batch.objects.filter(pk=inputs["study"], game=game, kind=Field.name, status=Batch.Status.DONE,
                                      published_at__isnull=False).first()
        if source is None:
            raise InputError("No published field study of this game has this id.", [("study", "not found")])
        return source
    source = published_field_study(game=game)
    if source is None:
        raise InputError("No field study of this game's official sets is published yet: publish one, or name one.",
                         [("study", "none published")])
    return source


def cards_to_fix(rows: Mapping[str, Mapping[str, Any]], band: float, named: Sequence[str] | None) -> list[str]:
    """The cards named (each one the study measured), else the ones outside the band, furthest first."""
    unknown = [card for card in named or [] if card not in rows]
    if unknown:
        raise InputError(f"The study measured no {', '.join(unknown)}.", [("cards", "not measured")])
    outside = sorted((card for card, row in rows.items() if row["delta"] is not None and abs(row["delta"]) > band),
                     key=lambda card: (-abs(rows[card]["delta"]), card))
    fix = list(named) if named else outside[:MAX_CARDS]
    if not fix:
        raise InputError("Every card of the study lies inside the band: nothing to fix.", [("band", "nothing")])
    return fix


def screen_options(inputs: Mapping[str, Any], studies: GameStudies, card: str) -> list[Option]:
    """Each number of the card moved the way that brings the card back, twice: one screen step, and half-way to
    its bound (at least two steps further), so the model interpolates between measured moves, never beyond."""
    values = studies.patch_values(card) or {}
    delta = inputs["measured"][card]["delta"]
    allowed = inputs.get("tune") or list(studies.tuning)
    options = []
    for field in allowed:
        tuning = studies.tuning.get(field)
        now = values.get(field)
        if tuning is None or not isinstance(now, int):
            continue
        low, high = bounds_of(inputs, card, field, tuning)
        way = tuning.weakens if delta > 0 else -tuning.weakens
        room = (high - now) if way > 0 else (now - low)
        moves = sorted({min(room, tuning.screen_step), min(room, max(3 * tuning.screen_step, room // 2))} - {0})
        options += [Option(field, now + way * steps, steps, now) for steps in moves if steps > 0]
    return options


def bounds_of(inputs: Mapping[str, Any], card: str, field: str, tuning: Tuning) -> tuple[int, int]:
    """The designer's bounds of a card's number, inside the game's own."""
    given = ((inputs.get("bounds") or {}).get(card) or {}).get(field)
    if not given:
        return tuning.low, tuning.high
    return max(tuning.low, min(given)), min(tuning.high, max(given))


# ------------------------------------------------------------------------------------------- results


def pairing_label(batch: Batch, index: int) -> dict[str, Any]:
    """The label of pairing `index` as planned (read back from the frozen plan)."""
    return batch.frozen.data["pairings"][index]["label"] if batch.frozen else {}


def screen_row(label: Mapping[str, Any], base: Mapping[str, Any], moved: Mapping[str, Any], pairs: list[int],
               fix: Sequence[str]) -> dict[str, Any]:
    """A screened move: the paired difference of the sides fielding the card, and each screened card's delta
    shift (the same armies drawn with and without the move)."""

    def shift(card: str) -> float | None:
        before, after = base.get(card), moved.get(card)
        if not before or not after or before["delta"] is None or after["delta"] is None:
            return None
        return round(after["delta"] - before["delta"], 6)

    paired = paired_figures(pairs)
    return {"card": label.get("card"), "field": label.get("field"), "current": label.get("current"),
            "value": label.get("value"), "steps": int(label.get("steps", 1)),
            "difference": {key: paired[key] for key in ("win_rate", "ci", "pairs")},
            "shifts": {card: shift(card) for card in fix}}


def suggestion(batch: Batch, screen: Sequence[Mapping[str, Any]], studies: GameStudies) -> dict[str, Any]:
    """The model the screen gives, searched; the patch, its predictions and the cards it cannot fix."""
    fix = list(batch.inputs["fix"])
    measured = batch.inputs["measured"]
    band = float(batch.inputs.get("band", 3)) / 100
    model = build_model(batch, screen, fix, band)
    choice, front = search(model, batch.seed % 2**31)
    predicted = model.predicted(choice)
    patch, changes, left = [], [], []
    for index, card in enumerate(fix):
        option = model.options[index][choice[index]]
        now = float(predicted[index])
        if option is not None:
            patch.append({"card": card, "changes": {option.field: option.value}})
        changes.append({"card": card, "field": None if option is None else option.field,
                        "before": None if option is None else option.before,
                        "after": None if option is None else option.value,
                        "delta_before": measured[card]["delta"], "delta_before_ci": measured[card]["delta_ci"],
                        "predicted_delta": round(now, 6), "inside": abs(now) <= band})
        if abs(now) > band:
            left.append({"card": card, "why": why_left(model, index, card, now, band)})
    return {"band": band * 100, "patch": patch, "changes": changes, "unfixed": left, "front": front,
            "search": f"NSGA-II (pymoo), {GENERATIONS} generations of {POPULATION}, seed {batch.seed % 2**31}"}


def build_model(batch: Batch, screen: Sequence[Mapping[str, Any]], fix: list[str], band: float) -> Model:
    """Each card's options: every value of each number between its value and the furthest move screened, each
    screened card's shift interpolated linearly between the measured moves (never beyond them). A shift of
    another card counts only where it is larger than the move's own paired noise (about two standard errors):
    in a random field a card's change moves the others' deltas little, and the screen's noise would not."""
    measured = batch.inputs["measured"]
    deltas = np.array([float(measured[card]["delta"]) for card in fix])
    options: list[list[Option | None]] = []
    shifts: list[np.ndarray] = []
    for index, card in enumerate(fix):
        card_options: list[Option | None] = [None]
        card_shifts = [np.zeros(len(fix))]
        for field in dict.fromkeys(row["field"] for row in screen if row["card"] == card):
            moves = sorted((row for row in screen if row["card"] == card and row["field"] == field),
                           key=lambda row: row["steps"])
            points = [(0, np.zeros(len(fix)))] + [(row["steps"], measured_shifts(row, fix, index)) for row in moves]
            way = 1 if moves[0]["value"] > moves[0]["current"] else -1
            for steps in range(1, moves[-1]["steps"] + 1):
                card_options.append(Option(field, moves[0]["current"] + way * steps, steps, moves[0]["current"]))
                card_shifts.append(interpolated(points, steps))
        options.append(card_options)
        shifts.append(np.array(card_shifts))
    return Model(fix, deltas, options, shifts, aimed_band(measured, fix, band))


def aimed_band(measured: Mapping[str, Mapping[str, Any]], fix: list[str], band: float) -> np.ndarray:
    """The band the search aims each card at: the designer's, narrowed by the half-width of the card's interval
    before (at least to a quarter of it). A card predicted at the band's edge would be confirmed inside it only
    if its delta were known exactly; aimed inward by its own uncertainty, it can be."""
    return np.array([max(band / 4, band - (measured[card]["delta_ci"]["high"] - measured[card]["delta_ci"]["low"]) / 2)
                     for card in fix])


def measured_shifts(row: Mapping[str, Any], fix: list[str], own: int) -> np.ndarray:
    """A screened move's shift of each screened card's delta: its own card's always, another's only beyond the
    move's paired noise."""
    ci = row["difference"]["ci"]
    noise = (ci["high"] - ci["low"]) / 2
    values = []
    for index, card in enumerate(fix):
        shift = row["shifts"].get(card) or 0.0
        values.append(shift if index == own or abs(shift) > noise else 0.0)
    return np.array(values)


def interpolated(points: list[tuple[int, np.ndarray]], steps: int) -> np.ndarray:
    """The shifts at `steps`, linear between the two measured moves around it."""
    for (x0, y0), (x1, y1) in zip(points, points[1:], strict=False):
        if x0 <= steps <= x1:
            return y0 + (y1 - y0) * (steps - x0) / (x1 - x0)
    return points[-1][1]


def why_left(model: Model, index: int, card: str, predicted: float, band: float) -> str:
    """Why a card stays outside the band."""
    if len(model.options[index]) == 1:
        return "none of its numbers can move within its bounds"
    if all(abs(float(shift[index])) < 1e-9 for shift in model.shifts[index][1:]):  # nothing measured
        return "the screen saw no move of its numbers shift its delta"
    return (f"the closest the screened moves of its numbers get it is {predicted * 100:+.1f} points (band "
            f"±{band * 100:g}); apply this patch and suggest again from a new field study to go further")


def queue_confirmation(batch: Batch, patch: list[dict[str, Any]], round_: int = 1) -> None:
    """The field what-if of a suggestion's patch (round 1: the search's; then each refined), on the suggestion's
    field, stopping once each patched card is placed against the band."""
    from simulate import background, batches

    band = float(batch.inputs.get("band", 3))
    inputs = {"base": "field", "patch": patch, "confirms": str(batch.pk), "round": round_,
              "sequential": {"delta": max(0.25, band / 4)}, "band_edges": band_edges(batch, patch, band / 100)}
    inputs.update({key: batch.inputs[key] for key in FIELD_KEYS if key in batch.inputs})
    seeds = min(CONFIRM_SEEDS, batches.batch_limit(searching=False) // 2)
    try:
        confirmation = batches.create_batch(game=batch.game, kind="whatif", inputs=inputs, count=seeds,
                                            seed=batch.seed, user=batch.owner, client=batch.client)
    except Exception:  # the suggestion stands without it; its page offers to confirm again
        logger.exception("Suggestion %s: its confirming what-if was not queued", batch.pk)
        return
    with transaction.atomic():
        row = type(batch).objects.select_for_update().get(pk=batch.pk)
        row.results = {**(row.results or {}), "confirmation": confirmation_block(confirmation, {}, [])}
        row.save(update_fields=["results"])
    background.queue_batch(confirmation.id)


def round_changes(changes: Sequence[Mapping[str, Any]], patch: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The search's changes with the values a round's patch gives them."""
    values = {entry["card"]: entry["changes"] for entry in patch}
    return [{**change, "after": values.get(change["card"], {}).get(change["field"], change["after"])}
            for change in changes]


def refined_patch(batch: Batch, changes: Sequence[Mapping[str, Any]],
                  confirmed: Mapping[str, Mapping[str, Any]]) -> list[dict[str, Any]] | None:
    """A round's patch refined from what its confirmation measured: each card it did not place inside the band
    moved to where the line through its delta before (at its value before) and its confirmed delta (at its value
    in the round) crosses zero, within its bounds; the cards placed inside kept. None when nothing moves. The
    confirmed delta holds what the screen's model left out: every other patched card's change at once."""
    tuning = game_studies(batch.game).tuning
    patch, moved = [], False
    for change in changes:
        if change["field"] is None:
            continue
        after, found = change["after"], confirmed.get(change["card"])
        if found is not None and found["verdict"] != "inside" and found["shift"] and after != change["before"]:
            slope = found["shift"] / (after - change["before"])
            low, high = bounds_of(batch.inputs, change["card"], change["field"], tuning[change["field"]])
            value = min(high, max(low, round(after - found["delta"] / slope)))
            moved, after = moved or value != after, value
        patch.append({"card": change["card"], "changes": {change["field"]: after}})
    return patch if moved else None


def band_edges(batch: Batch, patch: list[dict[str, Any]], band: float) -> dict[str, list[float]]:
    """Per patched card, the band its delta should land in as edges of the paired difference of the sides
    fielding it (the confirmation's sequential test places that difference against them): a shift `s` of those
    sides' win rate moves the card's delta by about s / (1 - share), share being the sides fielding it."""
    from simulate.models import Batch

    source = Batch.objects.filter(pk=batch.inputs["study"]).values_list("results", flat=True).first() or {}
    sides = 2 * int(source.get("played") or 0)
    edges = {}
    for entry in patch:
        measured = batch.inputs["measured"][entry["card"]]
        keep = 1 - (measured["appearances"] / sides if sides else 0.0)
        edges[entry["card"]] = [round((-band - measured["delta"]) * keep, 6), round((band - measured["delta"]) * keep, 6)]
    return edges


# ------------------------------------------------------------------------------------------- confirmation


def confirmation_of(batch: Batch) -> Batch | None:
    """The field what-if that confirms a suggestion's patch, the latest if several."""
    from simulate.models import Batch

    return (Batch.objects.filter(game=batch.game, kind="whatif", inputs__confirms=str(batch.pk))
            .defer("tally").order_by("-created_at").first())


def verdict(delta: float | None, ci: Mapping[str, float] | None, band: float) -> str:
    """inside: the whole interval lies in the band; outside: wholly out of it; else unsure."""
    if delta is None or not ci:
        return "unmeasured"
    if -band <= ci["low"] and ci["high"] <= band:
        return "inside"
    if ci["low"] > band or ci["high"] < -band:
        return "outside"
    return "unsure"


def confirmed_rows(confirmation: Batch | None, changes: list[dict[str, Any]],
                   band: float) -> tuple[dict[str, dict[str, Any]], list[dict[str, Any]]]:
    """Each patched card's delta after the patch as the confirmation measured it, and the other cards the patch
    pushed out of the band (wholly outside it with the patch, not without).

    The confirmation draws the same armies with and without the patch, so the shift of a card's delta between
    its halves is measured paired, far closer than either half's delta: the delta after is the field study's
    delta before plus that shift, its interval the field study's combined with the paired difference's (of the
    sides fielding the card, scaled by the share of sides without it)."""
    if confirmation is None or confirmation.status != "done":
        return {}, []
    results = confirmation.results or {}
    halves = {row["card"]: row for row in results.get("patched_rows") or []}
    confirmed = {}
    for change in changes:
        found = confirmed_delta(results, halves.get(change["card"]), change, band)
        if found is not None:
            confirmed[change["card"]] = found
    return confirmed, pushed_out(confirmation, set(halves), band)


def confirmed_delta(results: Mapping[str, Any], row: Mapping[str, Any] | None, change: Mapping[str, Any],
                    band: float) -> dict[str, Any] | None:
    """One patched card's delta after the patch, its interval and verdict; None where either half lacks it."""
    before, after = (row or {}).get("baseline"), (row or {}).get("patched")
    if not before or not after or None in (before["delta"], after["delta"], change["delta_before"]):
        return None
    delta = change["delta_before"] + after["delta"] - before["delta"]
    by_card = (results.get("card_differences") or {}).get(change["card"]) or results.get("difference") or {}
    paired = by_card.get("ci") or {"low": -1.0, "high": 1.0}
    sides = 2 * int((results.get("baseline") or {}).get("played") or 0)
    share = before["appearances"] / sides if sides else 0.0
    ci_before = change["delta_before_ci"]
    half = math.hypot((ci_before["high"] - ci_before["low"]) / 2,
                      (paired["high"] - paired["low"]) / 2 / max(1e-9, 1 - share))
    ci = {"low": round(delta - half, 6), "high": round(delta + half, 6)}
    return {"delta": round(delta, 6), "delta_ci": ci, "shift": round(delta - change["delta_before"], 6),
            "verdict": verdict(delta, ci, band)}


def pushed_out(confirmation: Batch, patched: set[str], band: float) -> list[dict[str, Any]]:
    """The unpatched cards wholly outside the band with the patch and not without it."""
    results = confirmation.results or {}
    group = game_studies(confirmation.game).tuning_group
    key = game_studies(confirmation.game).field_groups[group]
    unpatched = {row[key]: row for row in (results.get("baseline") or {}).get(group) or []}
    pushed = []
    for row in (results.get("patched") or {}).get(group) or []:
        was = unpatched.get(row[key]) or {}
        if row[key] not in patched and verdict(row["delta"], row["delta_ci"], band) == "outside" \
                and verdict(was.get("delta"), was.get("delta_ci"), band) != "outside":
            pushed.append({"card": row[key], "delta": row["delta"], "delta_ci": row["delta_ci"]})
    return pushed


def record_confirmation(confirmation: Batch) -> None:
    """A confirming what-if done: what it measured kept in its suggestion's results (`confirmation`)."""
    from simulate.models import Batch

    suggestion_row = Batch.objects.select_for_update().filter(pk=confirmation.inputs["confirms"]).first()
    if suggestion_row is None or not (suggestion_row.results or {}).get("suggestion"):
        return
    found = suggestion_row.results["suggestion"]
    changes = round_changes(found["changes"], confirmation.inputs["patch"])
    confirmed, pushed = confirmed_rows(confirmation, changes, found["band"] / 100)
    block = confirmation_block(confirmation, confirmed, pushed)
    rounds = [*(done for done in suggestion_row.results.get("confirmations") or [] if done["round"] != block["round"]),
              block]
    suggestion_row.results = {**suggestion_row.results, "confirmation": block, "confirmations": rounds}
    suggestion_row.save(update_fields=["results"])
    refined = refined_patch(suggestion_row, changes, confirmed) if block["round"] < ROUNDS else None
    if refined is not None:
        transaction.on_commit(lambda: queue_confirmation(suggestion_row, refined, block["round"] + 1))


def confirmation_block(confirmation: Batch, confirmed: Mapping[str, Any], pushed: list[dict[str, Any]]) -> dict[str, Any]:
    return {"batch": str(confirmation.pk), "status": confirmation.status, "played": confirmation.played,
            "round": int(confirmation.inputs.get("round", 1)), "patch": confirmation.inputs.get("patch") or [],
            "sequential": (confirmation.results or {}).get("sequential"), "cards": confirmed, "pushed": pushed}


# ------------------------------------------------------------------------------------------- report


def suggestion_report(batch: Batch, results: Mapping[str, Any]) -> dict[str, Any]:
    """What the suggestion partial shows."""
    found = results.get("suggestion") or {}
    band = float(batch.inputs.get("band", 3)) / 100
    confirmation = confirmation_of(batch)
    changes = round_changes(found.get("changes", []), confirmation.inputs.get("patch") or [] if confirmation else [])
    confirmed, pushed = confirmed_rows(confirmation, changes, band)
    cards = [change["card"] for change in changes] or list(batch.inputs.get("fix") or [])
    named = namer(batch, cards + [row["card"] for row in pushed])
    return {
        "found": bool(found), "band": band * 100, "seeds": batch.per_pairing, "search": found.get("search", ""), "front": found.get("front", []),
        "changes": [{**change, **named(change["card"]), "confirmed": confirmed.get(change["card"]),
                     "searched": searched["after"]} for change, searched in zip(changes, found.get("changes", []),
                                                                                strict=True)],
        "rounds": [rounds_row(done) for done in results.get("confirmations") or []],
        "unfixed": [{**row, **named(row["card"])} for row in found.get("unfixed", [])],
        "screen": [{**row, **named(row["card"])} for row in results.get("screen", [])],
        "confirmation": confirmation_shown(confirmation),
        "again": f"{reverse('study-new')}?game={batch.game}&kind=suggest&band={band * 100:g}&suggest_cards="
                 + ",".join(cards),
        "pushed": [{**row, **named(row["card"])} for row in pushed],
    }


def rounds_row(done: Mapping[str, Any]) -> dict[str, Any]:
    """A confirmation round as the report lists it: its patch in words and how many cards it placed where."""
    verdicts = [card["verdict"] for card in done["cards"].values()]
    return {"round": done["round"], "url": reverse("study-detail", args=[done["batch"]]), "played": done["played"],
            "patch": ", ".join(f"{entry['card']} {field} {value}" for entry in done["patch"]
                               for field, value in entry["changes"].items()),
            **{verdict: verdicts.count(verdict) for verdict in ("inside", "outside", "unsure")},
            "pushed": len(done.get("pushed") or [])}


def namer(batch: Batch, cards: list[str]) -> Callable[[str], dict[str, Any]]:
    """A card's slug, name and page link, the names read once."""
    names = member_names(batch.game, game_studies(batch.game).tuning_group, cards)
    card_page = game_pages(batch.game).card_page

    def named(card: str) -> dict[str, Any]:
        return {"card": card, "name": names.get(card, card),
                "url": reverse(card_page, args=[card]) if card in names else None}

    return named


def confirmation_shown(confirmation: Batch | None) -> dict[str, Any] | None:
    if confirmation is None:
        return None
    return {"id": str(confirmation.pk), "status": confirmation.status, "played": confirmation.played,
            "sequential": (confirmation.results or {}).get("sequential"),
            "url": reverse("study-detail", args=[confirmation.pk])}


def interval(ci: Mapping[str, float] | None) -> str:
    return "—" if not ci else f"{ci['low'] * 100:+.1f} to {ci['high'] * 100:+.1f}"


def suggestion_lines(batch: Batch, results: Mapping[str, Any]) -> list[str]:
    """The command line's lines: the screen, then the patch with each card's delta before and predicted."""
    lines = ["", "Screened moves (the card's delta shift, points)"]
    for row in results.get("screen", []):
        lines.append(f"  {row['card']} {row['field']} {row['current']} → {row['value']}: "
                     f"{signed(row['shifts'].get(row['card']))} ({row['difference']['pairs']} pairs)")
    found = results.get("suggestion")
    if not found:
        return [*lines, "", "The search runs once the screen is complete."]
    lines += ["", f"Suggested patch (band ±{found['band']:g} points; {found['search']})"]
    for change in found["changes"]:
        what = "unchanged" if change["field"] is None else f"{change['field']} {change['before']} → {change['after']}"
        lines.append(f"  {change['card']}: {what}; delta {signed(change['delta_before'])} "
                     f"({interval(change['delta_before_ci'])}) → predicted {signed(change['predicted_delta'])}")
    lines += [f"  not fixed: {row['card']}: {row['why']}" for row in found["unfixed"]]
    lines += ["", "Least predicted error by cards changed: " + ", ".join(
        f"{row['changes']}: {row['error']:.5f}" for row in found["front"])]
    if found["patch"]:
        lines.append("A field what-if of this patch confirms it on paired seeds once this study is done.")
    for done in results.get("confirmations") or []:
        row = rounds_row(done)
        lines.append(f"Confirmation round {row['round']} ({row['played']} games): {row['patch']}; inside "
                     f"{row['inside']}, unsure {row['unsure']}, outside {row['outside']}, pushed out {row['pushed']}")
    return lines


# ------------------------------------------------------------------------------------------- schema


class SuggestScreenDifferenceSerializer(serializers.Serializer):
    win_rate = serializers.FloatField(allow_null=True)
    ci = serializers.DictField(child=serializers.FloatField())
    pairs = serializers.IntegerField(min_value=0)


class SuggestScreenRowSerializer(serializers.Serializer):
    card = serializers.CharField()
    field = serializers.CharField()
    value = serializers.IntegerField(help_text="The value screened.")
    current = serializers.IntegerField(help_text="Its value when the study was created.")
    steps = serializers.IntegerField(min_value=1)
    difference = SuggestScreenDifferenceSerializer(help_text="The sides fielding the card: moved less as it is, paired by seed.")
    shifts = serializers.DictField(child=serializers.FloatField(allow_null=True), help_text=(
        "Each screened card's delta shift with this move (rates), the same armies drawn with and without it."))


class SuggestChangeSerializer(serializers.Serializer):
    card = serializers.CharField()
    field = serializers.CharField(allow_null=True, help_text="The number changed; null: left as it is.")
    before = serializers.JSONField(allow_null=True)
    after = serializers.JSONField(allow_null=True)
    delta_before = serializers.FloatField(allow_null=True, help_text="As the field study measured it.")
    delta_before_ci = serializers.DictField(child=serializers.FloatField())
    predicted_delta = serializers.FloatField(help_text="As the screen's linear model predicts it after the patch.")
    inside = serializers.BooleanField(help_text="The prediction lies inside the band.")


class SuggestUnfixedSerializer(serializers.Serializer):
    card = serializers.CharField()
    why = serializers.CharField()


class SuggestFrontSerializer(serializers.Serializer):
    changes = serializers.IntegerField(min_value=0)
    error = serializers.FloatField(help_text="The predicted squared excess outside the band, summed (rates).")
    steps = serializers.IntegerField(min_value=0)


class SuggestPatchEntrySerializer(serializers.Serializer):
    card = serializers.CharField()
    changes = serializers.DictField()


class SuggestedPatchSerializer(serializers.Serializer):
    band = serializers.FloatField(help_text="± points.")
    patch = SuggestPatchEntrySerializer(many=True, help_text="The patch, as a what-if takes it.")
    changes = SuggestChangeSerializer(many=True)
    unfixed = SuggestUnfixedSerializer(many=True, help_text="The cards it could not bring inside the band, and why.")
    front = SuggestFrontSerializer(many=True, help_text="The least predicted error with each number of cards changed.")
    search = serializers.CharField()


def shown_change(change: Mapping[str, Any]) -> str:
    """A change in words (`atk 11 → 8`)."""
    if change["field"] is None:
        return "unchanged"
    return f"{change['field']} {change['before']} → {change['after']}"



class SuggestConfirmedSerializer(serializers.Serializer):
    delta = serializers.FloatField(help_text="The card's delta after the patch: the field study's plus the shift.")
    delta_ci = serializers.DictField(child=serializers.FloatField())
    shift = serializers.FloatField(help_text="The shift of its delta, measured paired on the same armies.")
    verdict = serializers.ChoiceField(choices=["inside", "outside", "unsure", "unmeasured"], help_text=(
        "inside: the whole interval lies in the band; outside: wholly out of it."))


class SuggestPushedSerializer(serializers.Serializer):
    card = serializers.CharField()
    delta = serializers.FloatField(allow_null=True)
    delta_ci = serializers.DictField(child=serializers.FloatField())


class SuggestConfirmationSerializer(serializers.Serializer):
    batch = serializers.UUIDField(help_text="The confirming what-if.")
    status = serializers.CharField()
    played = serializers.IntegerField(min_value=0)
    round = serializers.IntegerField(min_value=1, required=False, help_text=(
        "1: the search's patch; then each refined from what the round before measured."))
    patch = SuggestPatchEntrySerializer(many=True, required=False, help_text="The patch this round confirms.")
    sequential = serializers.DictField(allow_null=True, help_text="Its sequential test (as a what-if's).")
    cards = serializers.DictField(child=SuggestConfirmedSerializer(), help_text="Each patched card, once it is done.")
    pushed = SuggestPushedSerializer(many=True, help_text="Other cards it measured wholly outside the band with the patch "
                                                   "and not without.")
