"""Targets: the win rates a designer intends between factions or armies ("Tribal beats Arcane 55–45"), and the
smallest patch that fits those matchups to them.

A target between two factions is a field of its first faction's armies against its second's (each side a random
legal army of its faction's cards); between two of the request's `entrants`, their matchup; sides swapped every
second match. Without a patch the study screens: every number of each
card of the targeted factions (or of the cards named) moved both ways, each a patched copy of the matchups that
card plays in, on the same seeds as the matchups themselves, so each move's shift of a matchup's win rate is
measured paired. The screen's slopes make the same linear model a suggestion searches (NSGA-II, pymoo), its
measures the matchups' win rates and its aims the targets; once the screen is done, a targets study of the patch
found confirms it on paired seeds, stopping once each matchup's shift is decided. With a patch given, the study is
that check: the matchups with and without the patch, and each target's verdict.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np
from django.db import transaction
from django.urls import reverse
from rest_framework import serializers

from cardsdb.api.fields import TextField
from cardsdb.api.serializers import StrictSerializer
from simulate.api.fields import NumberField
from simulate.engine.errors import InputError
from simulate.engine.tally import WIN, Tally, figures, paired_figures
from simulate.study_kinds import stopping
from simulate.study_kinds.base import (
    Headline,
    Outcomes,
    Pairing,
    PlanRequest,
    Study,
    StudyKind,
    merge_all,
    pair_index,
    play_unit_match,
)
from simulate.study_kinds.suggest import (
    FIELD_KEYS,
    GENERATIONS,
    POPULATION,
    Model,
    Option,
    SuggestFrontSerializer,
    SuggestPatchEntrySerializer,
    SuggestScreenDifferenceSerializer,
    bounds_of,
    interpolated,
    pairing_label,
    search,
)
from simulate.study_kinds.text import pct, signed, table
from simulate.study_kinds.whatif import patched_pairings

if TYPE_CHECKING:
    from argparse import _ArgumentGroup

    from django import forms

    from simulate.models import Batch
    from simulate.pages.games import GamePages
    from simulate.services import GameStudies

logger = logging.getLogger(__name__)

MAX_TARGETS = 4
MAX_SCREENED = 400  # patched copies of the matchups a screen plays each seed
SCREEN_STEPS = 2  # a move is this many screen steps each way (less where a bound is nearer)
CONFIRM_SEEDS = 4000  # the most seeds the check plays (it stops once each matchup is placed against its band)
VERDICTS = ("inside", "outside", "unsure")


class TargetSerializer(StrictSerializer):
    """One intended relation: faction `a`'s win rate against faction `b`."""

    a = TextField(max_length=60, help_text="A faction (its slug), or an entrant by its number from 1.")
    b = TextField(max_length=60, help_text="Another faction, or another entrant (two of a kind).")
    win_rate = NumberField(min_value=1, max_value=99, help_text="a's intended win rate against b, in points "
                                                                "(55: a beats b 55–45).")


class Kind(StudyKind):
    name = "targets"
    label = "Fit to targets"
    description = "Intended win rates between factions, and the smallest patch that fits the matchups to them."
    template = "simulate/studies/targets.html"
    keys = frozenset({"targets", "entrants", "band", "cards", "tune", "bounds", "pool", "patch", "sequential"})
    has_overall = False  # each target's matchup is its own figure
    has_patch = True  # with a patch given: the check of that patch, which staff may apply
    details_note = " (of every targeted matchup, unpatched)"
    form_reads = ("band",)  # the suggestion's band, read here too

    def fields(self) -> dict[str, serializers.Field]:
        return {"targets": TargetSerializer(many=True, required=False, help_text=(
            f"targets: 1 to {MAX_TARGETS} intended win rates between factions, or between entrants."))}

    def validate(self, attrs: dict[str, Any]) -> None:
        """Targets given, each of two factions or two entrants (by number, within `entrants`), each pair once; a
        band above 0; a sequential test only of a patch."""
        targets = attrs.get("targets") or []
        if not 1 <= len(targets) <= MAX_TARGETS:
            raise serializers.ValidationError({"targets": [f"Give 1 to {MAX_TARGETS} targets: "
                                                           '[{"a": ..., "b": ..., "win_rate": 55}].']})
        seen: set[frozenset[str]] = set()
        for index, target in enumerate(targets):
            refusal = target_refusal(target, seen, len(attrs.get("entrants") or []))
            if refusal:
                raise serializers.ValidationError({"targets": {str(index): [refusal]}})
            seen.add(frozenset((target["a"], target["b"])))
        if attrs.get("band") is not None and attrs["band"] <= 0:
            raise serializers.ValidationError({"band": ["The band is above 0 points."]})
        if attrs.get("sequential") and not attrs.get("patch"):
            raise serializers.ValidationError({"sequential": ["Only the check of a patch stops once decided."]})

    def prepared_inputs(self, inputs: dict[str, Any], studies: GameStudies) -> list[str]:
        """Each target's name (`Tribal against Arcane`, `army 1 (...) against army 2 (...)`); InputError at the
        faction no card of the game has."""
        names = studies.faction_names()
        entrants = inputs.get("entrants") or []
        for index, target in enumerate(inputs["targets"]):
            for side in ("a", "b"):
                if not target[side].isdecimal() and target[side] not in names:
                    message = f"No faction {target[side]!r}" + (f"; known: {', '.join(sorted(names))}." if names
                                                                 else ": this game has no factions.")
                    raise InputError(message, [(f"targets.{index}.{side}", message)])

        def named(side: str) -> str:
            if side.isdecimal():
                return studies.entrant_name(entrants[int(side) - 1], int(side) - 1)
            return names[side]

        return [f"{named(target['a'])} against {named(target['b'])}" for target in inputs["targets"]]

    # ------------------------------------------------------------------------------- plan

    def plan(self, request: PlanRequest) -> Study:
        """Each target's matchup; then each matchup patched (a check), or a copy of each matchup per screened
        move of a card it draws (a screen), every copy on the same seeds."""
        studies, inputs = request.studies, request.inputs
        baseline = [matchup(request, index, target) for index, target in enumerate(inputs["targets"])]
        drawn = [set(studies.pool_cards_of(p.pool) if p.pool is not None else studies.setup_cards(p.prepared.setup))
                 for p in baseline]
        if inputs.get("patch"):
            patch = studies.validated_patch(inputs["patch"], user=request.user)
            copies = [replace(p, label={**p.label, "variant": "patched"}, patched=frozenset(patch))
                      for p in patched_pairings(studies, baseline, patch)]
            return Study(request.game, self.name, [*baseline, *copies], request.per_pairing, paired=True)
        copies = []
        for card in screened_cards(inputs, drawn):
            for option in screen_moves(inputs, studies, card):
                drawing = [pairing for pairing, cards in zip(baseline, drawn, strict=True) if card in cards]
                try:
                    patch = studies.validated_patch([{"card": card, "changes": {option.field: option.value}}],
                                                    user=request.user)
                    patched = patched_pairings(studies, drawing, patch)
                except InputError:  # a value the card's own rules refuse (an ability's cooldown): no candidate
                    continue
                copies += [replace(pairing, patched=frozenset({card}), label={
                    **pairing.label, "variant": "screen", "card": card, "field": option.field,
                    "current": option.before, "value": option.value}) for pairing in patched]
        if not copies:
            raise InputError("No number of these cards can move within its bounds.", [("tune", "nothing to move")])
        if len(copies) > MAX_SCREENED:
            message = (f"The screen would play {len(copies)} patched copies of the matchups a seed (at most "
                       f"{MAX_SCREENED}): name the `cards` to change, or fewer numbers to `tune`.")
            raise InputError(message, [("cards", message)])
        return Study(request.game, self.name, [*baseline, *copies], request.per_pairing, paired=True)

    def look_units(self, inputs: Mapping[str, Any]) -> int | None:
        return stopping.look_units(inputs)

    def stop_rule(self, batch: Batch) -> Callable[[Tally], bool] | None:
        """A check with `sequential` stops once each matchup's shift is placed against its band (`band_edges`)."""
        return stopping.stop_rule(batch, lambda total: total["pairs"], lambda total: batch.plan.get("names") or [])

    # ------------------------------------------------------------------------------ tally

    def new_tally(self, study: Study) -> Tally:
        """The legs, and per copy the pairs of its matchup's first side: [both won, unpatched only, patched
        only, neither]."""
        return {**super().new_tally(study), "pairs": [[0, 0, 0, 0] for _ in study.pairings[study.baseline_size:]]}

    def play_unit(self, study: Study, unit: int, seed: int, tally: Tally) -> None:
        """Every matchup and copy on this unit's seed; each copy's first side paired with its matchup's."""
        played = [play_unit_match(study, p, unit, seed, tally["pairings"][k]) for k, p in enumerate(study.pairings)]
        size = study.baseline_size
        for pairs, pairing, match in zip(tally["pairs"], study.pairings[size:], played[size:], strict=True):
            before = played[pairing.label["target"]]
            pairs[pair_index(before.outcome == WIN, match.outcome == WIN)] += 1

    # ---------------------------------------------------------------------------- results

    def result_fields(self) -> dict[str, serializers.Field]:
        return {
            "targets": TargetRowSerializer(many=True, required=False, help_text=(
                "targets: each target's matchup as it is, its first faction's win rate.")),
            "target_screen": TargetScreenRowSerializer(many=True, required=False, help_text=(
                "targets: each screened move, its matchup's shift paired by seed.")),
            "target_patched": TargetRowSerializer(many=True, required=False, help_text=(
                "targets, with a patch: each matchup with the patch, its shift paired by seed and its verdict.")),
            "target_suggestion": TargetSuggestionSerializer(required=False, help_text=(
                "targets: the patch found, once the screen is complete (absent before).")),
            "target_confirmation": TargetConfirmationSerializer(required=False, help_text=(
                "targets: the check of the patch found, on paired seeds, and what it measured.")),
            # "sequential" is the what-if's field, answered the same.
        }

    def results(self, batch: Batch, total: Tally, studies: GameStudies) -> dict[str, Any]:
        targets = batch.inputs["targets"]
        band = band_of(batch.inputs)
        legs, size = total["pairings"], len(targets)
        names = batch.plan.get("names") or []
        rows = [target_row(target, figures(legs[i]), band, names[i] if i < len(names) else "")
                for i, target in enumerate(targets)]
        answer: dict[str, Any] = {**figures(merge_all(legs[:size])), "targets": rows}
        if batch.inputs.get("patch"):
            answer["target_patched"] = [
                {**target_row(target, figures(leg), band, row["name"]), "shift": shift_of(pairs)}
                for target, leg, pairs, row in zip(targets, legs[size:], total["pairs"], rows, strict=True)]
            sequential = stopping.results(batch, total, total["pairs"], names=[row["name"] for row in rows])
            if sequential is not None:
                answer["sequential"] = sequential
        else:
            answer["target_screen"] = [{**{key: label.get(key) for key in ("target", "card", "field", "current",
                                                                            "value")}, "shift": shift_of(pairs)}
                                       for label, pairs in zip(screen_labels(batch, size, len(legs)), total["pairs"],
                                                               strict=True)]
        return answer

    def finished(self, batch: Batch) -> None:
        """A screen done: the search, and the check of its patch queued when this commits; a check that
        confirms a screen: what it measured kept in the screen's results."""
        if batch.inputs.get("confirms"):
            record_confirmation(batch)
            return
        if batch.inputs.get("patch"):
            return
        found = suggestion(batch, batch.results["target_screen"], batch.results["targets"])
        batch.results = {**batch.results, "target_suggestion": found}
        if found["patch"]:
            transaction.on_commit(lambda: queue_confirmation(batch, found["patch"]))

    def headline(self, batch: Batch, results: Mapping[str, Any], side: str) -> Headline:
        """Each matchup against its target."""
        rows = results.get("target_patched") or results.get("targets") or []
        what = "with the patch" if results.get("target_patched") else "as it is"
        return Headline(f"Each targeted matchup {what}: its first faction's win rate against the target",
                        outcomes=(Outcomes.of("every targeted matchup", results, sided=False),),
                        note="; ".join(f"{row['name']}: {pct(row['win_rate'])} (target {row['target']:g}%, "
                                       f"{row['verdict']})" for row in rows))

    def about(self, batch: Batch) -> str:
        """Each target in words (`Tribal against Arcane at 65%`), and whether it checks a patch."""
        targets = batch.inputs.get("targets") or []
        names = (batch.plan or {}).get("names") or [f"{t['a']} against {t['b']}" for t in targets]
        said = [f"{name} at {t['win_rate']:g}%" for name, t in zip(names, targets, strict=False)]
        return ", ".join(said[:2]) + ("…" if len(said) > 2 else "") + (" (a patch)" if batch.inputs.get("patch") else "")

    def sides_swapped(self, batch: Batch) -> bool:
        return True

    def report(self, batch: Batch, results: Mapping[str, Any], sort: str) -> dict[str, Any]:
        return {"targets": targets_report(batch, results)}

    def text(self, batch: Batch, results: Mapping[str, Any], labels: Mapping[str, Mapping[int, str]],
             seats: Mapping[str, str], studies: GameStudies) -> list[str]:
        return targets_lines(batch, results)

    # ------------------------------------------------------------------------ the doors

    def add_arguments(self, group: _ArgumentGroup) -> None:
        # --band, --fix, --tune are the suggestion's flags, read here too.
        group.add_argument("--target", nargs=3, action="append", default=None, metavar=("A", "B", "WIN_RATE"),
                           help="targets: faction A's intended win rate against faction B, in points (repeatable).")

    def command_inputs(self, body: dict[str, Any], arguments: Mapping[str, Any]) -> None:
        if arguments.get("target"):
            body["targets"] = [{"a": a, "b": b, "win_rate": number_or_text(rate)} for a, b, rate in arguments["target"]]
        for flag, key in (("band", "band"), ("fix", "cards"), ("tune", "tune")):
            if arguments.get(flag) is not None:
                body[key] = arguments[flag]

    def form_fields(self, pages: GamePages) -> dict[str, forms.Field]:
        from django import forms

        return {"targets_text": forms.CharField(
            required=False, max_length=600, widget=forms.Textarea(attrs={"rows": 3}), label="Targets",
            help_text="One a line: a faction, another, the first's intended win rate in points "
                      "(tribal arcane 55). The band is the suggestion's."),
            "targets_cards": forms.CharField(required=False, max_length=600, label="Cards to change (slugs, commas)",
                                             help_text="Empty: every card of the targeted factions.")}

    def form_inputs(self, data: Mapping[str, Any], body: dict[str, Any]) -> None:
        targets = []
        for line in (data.get("targets_text") or "").splitlines():
            words = line.replace(",", " ").split()
            if words:
                targets.append({"a": words[0], "b": words[1] if len(words) > 1 else "",
                                "win_rate": number_or_text(words[2]) if len(words) > 2 else None})
        if targets:
            body["targets"] = targets
        cards = [card.strip() for card in (data.get("targets_cards") or "").split(",") if card.strip()]
        if cards:
            body["cards"] = cards
        if data.get("band") is not None:
            body["band"] = data["band"]

    def form_field_for(self, path: str) -> str | None:
        return {"targets": "targets_text", "cards": "targets_cards", "band": "band"}.get(path.split(".")[0])


# ------------------------------------------------------------------------------------------- planning


def target_refusal(target: Mapping[str, Any], seen: set[frozenset[str]], entrants: int) -> str:
    """Why a target cannot be played ("" when it can): the same side twice, a pair already given, one faction
    and one entrant, an entrant's number beyond the entrants."""
    pair = frozenset((target["a"], target["b"]))
    if len(pair) < 2 or pair in seen:
        return "Two different sides, each pair once."
    numbers = [target[side] for side in ("a", "b") if target[side].isdecimal()]
    if len(numbers) == 1:
        return "Two factions, or two entrants by their numbers: not one of each."
    if any(not 1 <= int(number) <= entrants for number in numbers):
        return f"An entrant's number is 1 to {entrants}, the `entrants` given."
    return ""


def matchup(request: PlanRequest, index: int, target: Mapping[str, Any]) -> Pairing:
    """A target's matchup, sides swapped every second match: a field of two factions' armies, or two entrants."""
    label = {"variant": "baseline", "target": index}
    if target["a"].isdecimal():
        first, second = int(target["a"]) - 1, int(target["b"]) - 1
        entrants = request.inputs["entrants"]
        return Pairing(label, request.prepare_pair(entrants[first], entrants[second],
                                                   (f"entrants.{first}", f"entrants.{second}")), True)
    pool, prepared = request.studies.faction_pool(request.inputs, target["a"], target["b"], user=request.user,
                                                  path=f"targets.{index}")
    return Pairing(label, prepared, True, pool=pool)


def number_or_text(text: str) -> Any:
    """A number given as text, as a number; else the text (refused as not a number)."""
    try:
        return float(text)
    except ValueError:
        return text


def band_of(inputs: Mapping[str, Any]) -> float:
    return float(inputs.get("band", 3)) / 100


def screened_cards(inputs: Mapping[str, Any], drawn: Sequence[set[str]]) -> list[str]:
    """The cards named, else every card a targeted matchup draws; InputError for a named card none draws."""
    every = sorted(set().union(*drawn))
    named = inputs.get("cards")
    if not named:
        return every
    unknown = [card for card in named if card not in every]
    if unknown:
        message = f"No targeted matchup draws {', '.join(unknown)}."
        raise InputError(message, [("cards", message)])
    return list(named)


def screen_moves(inputs: Mapping[str, Any], studies: GameStudies, card: str) -> list[Option]:
    """Each number of the card moved both ways, twice each: SCREEN_STEPS screen steps, and half-way to its bound
    (at least one step further), each no further than the bound, so the model interpolates between measured
    moves, never beyond them."""
    values = studies.patch_values(card) or {}
    moves = []
    for field in inputs.get("tune") or list(studies.tuning):
        tuning, now = studies.tuning.get(field), values.get(field)
        if tuning is None or not isinstance(now, int):
            continue
        low, high = bounds_of(inputs, card, field, tuning)
        for room, way in ((high - now, 1), (now - low, -1)):
            near = SCREEN_STEPS * tuning.screen_step
            for steps in sorted({min(room, near), min(room, max(near + tuning.screen_step, room // 2))} - {0}):
                if steps > 0:
                    moves.append(Option(field, now + way * steps, steps, now))
    return moves


# ------------------------------------------------------------------------------------------- results


def screen_labels(batch: Batch, start: int, end: int) -> list[dict[str, Any]]:
    return [pairing_label(batch, index) for index in range(start, end)]


def shift_of(pairs: list[int]) -> dict[str, Any]:
    """The paired shift of a matchup's first side's win rate, with its interval."""
    paired = paired_figures(pairs)
    return {key: paired[key] for key in ("win_rate", "ci", "pairs")}


def verdict(rate: float | None, ci: Mapping[str, float] | None, target: float, band: float) -> str:
    """inside: the whole interval lies within the band of the target; outside: wholly out of it; else unsure."""
    if rate is None or not ci:
        return "unsure"
    if target - band <= ci["low"] and ci["high"] <= target + band:
        return "inside"
    if ci["low"] > target + band or ci["high"] < target - band:
        return "outside"
    return "unsure"


def target_row(target: Mapping[str, Any], measured: Mapping[str, Any], band: float, name: str) -> dict[str, Any]:
    aim = float(target["win_rate"]) / 100
    return {"a": target["a"], "b": target["b"], "name": name or f"{target['a']} against {target['b']}",
            "target": float(target["win_rate"]), "played": measured["played"], "wins": measured["wins"],
            "draws": measured["draws"], "losses": measured["losses"], "win_rate": measured["win_rate"],
            "win_rate_ci": measured["win_rate_ci"],
            "verdict": verdict(measured["win_rate"], measured["win_rate_ci"], aim, band)}


def suggestion(batch: Batch, screen: Sequence[Mapping[str, Any]], rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The model the screen gives, searched: the patch, each matchup's predicted win rate, what stays out."""
    band = band_of(batch.inputs)
    model = build_model(screen, rows, band)
    choice, front = search(model, batch.seed % 2**31)
    predicted = model.predicted(choice)
    patch, changes = [], []
    for card, options, index in zip(model.cards, model.options, choice, strict=True):
        option = options[index]
        if option is not None:
            patch.append({"card": card, "changes": {option.field: option.value}})
            changes.append({"card": card, "field": option.field, "before": option.before, "after": option.value})
    targets, unfixed = [], []
    for index, row in enumerate(rows):
        now = round(float(predicted[index]), 6)
        inside = abs(now - row["target"] / 100) <= band
        targets.append({"name": row["name"], "target": row["target"], "win_rate_before": row["win_rate"],
                        "win_rate_before_ci": row["win_rate_ci"], "predicted": now, "inside": inside})
        if not inside:
            unfixed.append({"name": row["name"], "why": why_left(model, index, now, row["target"], band)})
    return {"band": band * 100, "patch": patch, "changes": changes, "targets": targets, "unfixed": unfixed,
            "front": front, "search": f"NSGA-II (pymoo), {GENERATIONS} generations of {POPULATION}, "
                                      f"seed {batch.seed % 2**31}"}


def build_model(screen: Sequence[Mapping[str, Any]], rows: Sequence[Mapping[str, Any]], band: float) -> Model:
    """Per card, every value of each number between the two furthest moves screened, each matchup's shift
    interpolated linearly between them (a matchup that does not draw the card: none)."""
    size = len(rows)
    cards = list(dict.fromkeys(row["card"] for row in screen))
    options: list[list[Option | None]] = []
    shifts: list[np.ndarray] = []
    for card in cards:
        mine = [row for row in screen if row["card"] == card]
        found = [found for field in dict.fromkeys(row["field"] for row in mine)
                 for found in field_options([row for row in mine if row["field"] == field], size)]
        options.append([None, *(option for option, _ in found)])
        shifts.append(np.array([np.zeros(size), *(shift for _, shift in found)]))
    return Model(cards, np.array([float(row["win_rate"] or 0.0) for row in rows]), options, shifts, band,
                 aims=np.array([row["target"] / 100 for row in rows]))


def field_options(moves: Sequence[Mapping[str, Any]], size: int) -> list[tuple[Option, np.ndarray]]:
    """One number's values between its furthest moves either way, each with its shift of every matchup."""
    moved: dict[int, np.ndarray] = {}
    for row in moves:
        moved.setdefault(row["value"] - row["current"], np.zeros(size))[row["target"]] = row["shift"]["win_rate"] or 0.0
    points = sorted([(0, np.zeros(size)), *moved.items()], key=lambda point: point[0])
    field, current = moves[0]["field"], moves[0]["current"]
    return [(Option(field, current + offset, abs(offset), current), interpolated(points, offset))
            for offset in range(points[0][0], points[-1][0] + 1) if offset]


def why_left(model: Model, index: int, predicted: float, target: float, band: float) -> str:
    if all(abs(float(shift[index])) < 1e-9 for card in model.shifts for shift in card):
        return "the screen saw no move of the cards it may change shift this matchup"
    return (f"the closest the screened moves get it is {predicted * 100:.1f}% (target {target:g}% ± {band * 100:g}); "
            "apply this patch and fit again to go further, or let it change more cards or numbers")


def queue_confirmation(batch: Batch, patch: list[dict[str, Any]]) -> None:
    """The check of a screen's patch: the same targets with the patch, stopping once each matchup's shift is
    placed against the band around its target (a quarter of the band its indifference)."""
    from simulate import background, batches

    band = band_of(batch.inputs)
    # Each matchup's shift placed against the band around its target, from where the screen measured it.
    edges = {row["name"]: [round(row["target"] / 100 - band - row["win_rate"], 6),
                           round(row["target"] / 100 + band - row["win_rate"], 6)] for row in batch.results["targets"]}
    inputs = {"targets": batch.inputs["targets"], "patch": patch, "confirms": str(batch.pk),
              "sequential": {"delta": max(0.25, band * 100 / 4)}, "band_edges": edges}
    inputs.update({key: batch.inputs[key] for key in ("band", *FIELD_KEYS) if key in batch.inputs})
    try:
        confirmation = batches.create_batch(game=batch.game, kind="targets", inputs=inputs, count=CONFIRM_SEEDS,
                                            seed=batch.seed, user=batch.owner, client=batch.client)
    except Exception:  # the suggestion stands without it; its page offers to check it again
        logger.exception("Targets %s: the check of its patch was not queued", batch.pk)
        return
    with transaction.atomic():
        row = type(batch).objects.select_for_update().get(pk=batch.pk)
        row.results = {**(row.results or {}), "target_confirmation": confirmation_block(confirmation)}
        row.save(update_fields=["results"])
    background.queue_batch(confirmation.id)


def confirmation_block(confirmation: Batch) -> dict[str, Any]:
    results = confirmation.results or {}
    return {"batch": str(confirmation.pk), "status": confirmation.status, "played": confirmation.played,
            "sequential": results.get("sequential"), "targets": results.get("target_patched") or []}


def record_confirmation(confirmation: Batch) -> None:
    """A check of a screen's patch done: what it measured kept in the screen's results."""
    from simulate.models import Batch

    screen = Batch.objects.select_for_update().filter(pk=confirmation.inputs["confirms"]).first()
    if screen is None or not (screen.results or {}).get("target_suggestion"):
        return
    screen.results = {**screen.results, "target_confirmation": confirmation_block(confirmation)}
    screen.save(update_fields=["results"])


# ------------------------------------------------------------------------------------------- report


def targets_report(batch: Batch, results: Mapping[str, Any]) -> dict[str, Any]:
    """What the targets partial shows."""
    from simulate.models import Batch

    confirmation = results.get("target_confirmation")
    if confirmation:
        row = Batch.objects.filter(pk=confirmation["batch"]).defer("tally").first()
        if row is not None and row.status == Batch.Status.DONE:
            confirmation = confirmation_block(row)
        confirmation = {**confirmation, "url": reverse("study-detail", args=[confirmation["batch"]]),
                        "sequential": stopping.shown(confirmation.get("sequential"))}
    return {"band": band_of(batch.inputs) * 100, "rows": results.get("targets") or [],
            "patched": results.get("target_patched") or [], "screen": results.get("target_screen") or [],
            "found": results.get("target_suggestion"), "confirmation": confirmation, "seeds": batch.per_pairing,
            "sequential": stopping.shown(results.get("sequential"))}


def targets_lines(batch: Batch, results: Mapping[str, Any]) -> list[str]:
    """The command line's lines: each matchup against its target, then the screen's patch or the check's."""
    rows = results.get("targets") or []
    patched = {row["name"]: row for row in results.get("target_patched") or []}
    lines = ["", f"Targets (band ±{band_of(batch.inputs) * 100:g} points)",
             *table(("matchup", "target", "now", "95% interval", *(("patched", "shift", "verdict") if patched else
                                                                     ("verdict",))),
                    [(row["name"], f"{row['target']:g}%", pct(row["win_rate"]), interval_text(row["win_rate_ci"]),
                      *((pct(patched[row["name"]]["win_rate"]), signed(patched[row["name"]]["shift"]["win_rate"]),
                         patched[row["name"]]["verdict"]) if patched else (row["verdict"],))) for row in rows])]
    found = results.get("target_suggestion")
    if found:
        lines += ["", f"Suggested patch ({found['search']})",
                  *(f"  {c['card']}: {c['field']} {c['before']} → {c['after']}" for c in found["changes"]),
                  *(f"  {t['name']}: predicted {pct(t['predicted'])} (target {t['target']:g}%)" for t in found["targets"]),
                  *(f"  not fitted: {row['name']}: {row['why']}" for row in found["unfixed"])]
        if found["patch"]:
            lines.append("A targets study of this patch checks it on paired seeds once this one is done.")
    elif results.get("target_screen") is not None:
        lines += ["", "The search runs once the screen is complete."]
    return [*lines, *stopping.text_lines(results.get("sequential"))]


def interval_text(ci: Mapping[str, float] | None) -> str:
    return "—" if not ci else f"{pct(ci['low'])} to {pct(ci['high'])}"


# ------------------------------------------------------------------------------------------- schema


class TargetRowSerializer(serializers.Serializer):
    a = serializers.CharField()
    b = serializers.CharField()
    name = serializers.CharField()
    target = serializers.FloatField(help_text="a's intended win rate against b, in points.")
    played = serializers.IntegerField(min_value=0)
    wins = serializers.IntegerField(min_value=0)
    draws = serializers.IntegerField(min_value=0)
    losses = serializers.IntegerField(min_value=0)
    win_rate = serializers.FloatField(allow_null=True)
    win_rate_ci = serializers.DictField(child=serializers.FloatField())
    verdict = serializers.ChoiceField(choices=list(VERDICTS), help_text=(
        "inside: the whole interval lies within the band of the target; outside: wholly out of it."))
    shift = SuggestScreenDifferenceSerializer(required=False, help_text=(
        "With a patch: the shift it made (patched less unpatched), paired by seed."))


class TargetScreenRowSerializer(serializers.Serializer):
    target = serializers.IntegerField(min_value=0, help_text="The target whose matchup this move was played in.")
    card = serializers.CharField()
    field = serializers.CharField()
    current = serializers.IntegerField()
    value = serializers.IntegerField()
    shift = SuggestScreenDifferenceSerializer(help_text="Patched less unpatched, paired by seed.")


class TargetChangeSerializer(serializers.Serializer):
    card = serializers.CharField()
    field = serializers.CharField()
    before = serializers.IntegerField()
    after = serializers.IntegerField()


class TargetPredictionSerializer(serializers.Serializer):
    name = serializers.CharField()
    target = serializers.FloatField()
    win_rate_before = serializers.FloatField(allow_null=True)
    win_rate_before_ci = serializers.DictField(child=serializers.FloatField())
    predicted = serializers.FloatField(help_text="As the screen's linear model predicts it with the patch.")
    inside = serializers.BooleanField()


class TargetUnfixedSerializer(serializers.Serializer):
    name = serializers.CharField()
    why = serializers.CharField()


class TargetSuggestionSerializer(serializers.Serializer):
    band = serializers.FloatField(help_text="± points.")
    patch = SuggestPatchEntrySerializer(many=True, help_text="The patch, as a what-if or a targets check takes it.")
    changes = TargetChangeSerializer(many=True)
    targets = TargetPredictionSerializer(many=True)
    unfixed = TargetUnfixedSerializer(many=True, help_text="The matchups it could not bring within the band.")
    front = SuggestFrontSerializer(many=True, help_text="The least predicted error with each number of cards changed.")
    search = serializers.CharField()


class TargetConfirmationSerializer(serializers.Serializer):
    batch = serializers.UUIDField(help_text="The targets study that checks the patch.")
    status = serializers.CharField()
    played = serializers.IntegerField(min_value=0)
    sequential = serializers.DictField(allow_null=True, help_text="Its sequential test (as a what-if's).")
    targets = TargetRowSerializer(many=True, help_text="Each matchup with the patch, once it is done.")
