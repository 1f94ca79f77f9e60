"""What-if: a base study (a matchup or a field) played with and without a patch of cards, every seed twice;
the difference paired by seed, with McNemar's exact test. A composition: the base kind plans, plays and reads
each half, the what-if pairs them."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from django import forms
from django.core.management.base import CommandError
from django.urls import reverse
from rest_framework import exceptions, serializers

import simulate.study_kinds as registry
from cardsdb.api.parsers import load_json
from simulate.api.fields import one_of
from simulate.api.figures import GROUP_ROWS, FiguresSerializer, IntervalSerializer, with_groups
from simulate.engine.tally import WIN, Tally, paired_figures
from simulate.pages import charts
from simulate.pages.games import game_pages
from simulate.pages.report import field_row, figures, member_names
from simulate.services import game_matches, game_studies
from simulate.study_kinds import stopping
from simulate.study_kinds.base import (
    Headline,
    Outcomes,
    Pairing,
    PlanRequest,
    Played,
    Study,
    StudyKind,
    count_card_pairs,
    pair_index,
    play_unit_match,
    relabelled,
)
from simulate.study_kinds.text import figure_rows, pct, points, table

if TYPE_CHECKING:
    from argparse import _ArgumentGroup

    from simulate.models import Batch
    from simulate.pages.games import GamePages
    from simulate.services import GameStudies

BASES = ("matchup", "field")
VARIANTS = ("baseline", "patched")


def patched_members(inputs: Mapping[str, Any]) -> frozenset[str]:
    """The cards (protectors, summoning cards...) a what-if's patch changes."""
    return frozenset(entry["card"] for entry in inputs.get("patch") or [])


VariantSerializer = with_groups("WhatifVariantSerializer", FiguresSerializer)


class DiscordantSerializer(serializers.Serializer):
    baseline_only = serializers.IntegerField(min_value=0)
    patched_only = serializers.IntegerField(min_value=0)


class DifferenceSerializer(serializers.Serializer):
    win_rate = serializers.FloatField(allow_null=True, help_text="Patched less baseline, paired by seed.")
    ci = IntervalSerializer(help_text="Newcombe's 95% interval for paired rates.")
    pairs = serializers.IntegerField(min_value=0)
    discordant = DiscordantSerializer()


class PatchedRowSerializer(serializers.Serializer):
    card = serializers.CharField()
    baseline = GROUP_ROWS["cards"](allow_null=True)
    patched = GROUP_ROWS["cards"](allow_null=True)


class Kind(StudyKind):
    name = "whatif"
    label = "What-if"
    description = "A matchup or a field played with and without a patch of one card."
    template = "simulate/studies/whatif.html"
    has_patch = True
    keys = frozenset({"patch", "base", "sequential"})
    form_legend = "What-if patch"
    variant_field = "base"  # the form reads what its base reads, as a variant of the what-if
    details_note = " (baseline)"
    has_overall = False

    @staticmethod
    def base(attrs: Mapping[str, Any]) -> StudyKind:
        """The kind played with and without the patch."""
        return registry.study_kind(attrs.get("base", "matchup"))

    # ------------------------------------------------------------------------------ inputs

    def fields(self) -> dict[str, serializers.Field]:
        """`base`: the kind played with and without the patch."""
        return {"base": one_of(BASES, required=False, help_text="whatif: the study played with and without the patch."),
                "sequential": stopping.request_field()}

    def takes_matchup(self, attrs: Mapping[str, Any]) -> bool:
        """It reads the matchup when its base does."""
        return self.base(attrs).takes_matchup(attrs)

    def roles(self, attrs: Mapping[str, Any]) -> tuple[str, ...]:
        """Its base's."""
        return self.base(attrs).roles(attrs)

    def allowed_keys(self, attrs: Mapping[str, Any]) -> set[str]:
        """The patch, the base and what its base reads."""
        return set(self.keys) | set(self.base(attrs).keys)

    def validate(self, attrs: dict[str, Any]) -> None:
        """A patch is required."""
        if not attrs.get("patch"):
            raise serializers.ValidationError({"patch": ["A whatif gives a patch: [{\"card\": ..., \"changes\": {...}}]."]})

    # ------------------------------------------------------------------------------- plan

    def plan(self, request: PlanRequest) -> Study:
        """The base's pairings twice, as they are and with the patched cards in place, every seed played by
        both halves."""
        baseline = self.base(request.inputs).plan(request).pairings
        patch = request.studies.validated_patch(request.inputs.get("patch") or [], user=request.user)
        members = patched_members(request.inputs)
        pairings = [*relabelled(baseline, variant="baseline"),
                    *relabelled(patched_pairings(request.studies, baseline, patch), variant="patched")]
        return Study(request.game, self.name, [replace(p, patched=members) for p in pairings], request.per_pairing,
                     paired=True)

    def look_units(self, inputs: Mapping[str, Any]) -> int | None:
        """A chunk of pairs between two looks at its sequential test, when it runs one."""
        return stopping.look_units(inputs)

    def stop_rule(self, batch: Batch) -> Callable[[Tally], bool] | None:
        """With `sequential`: stop once the paired difference is decided (of each patched card's sides, on a
        field: a patch may raise one card and lower another)."""
        return stopping.stop_rule(batch, tested_pairs, lambda total: sorted(total.get("card_pairs") or {}))

    def finished(self, batch: Batch) -> None:
        """A what-if confirming a suggestion tells it what it measured."""
        if batch.inputs.get("confirms"):
            from simulate.study_kinds.suggest import record_confirmation

            record_confirmation(batch)

    # ------------------------------------------------------------------------------ tally

    def new_tally(self, study: Study) -> Tally:
        """The base's tally and the pairs: both won, baseline only, patched only, neither; on a field, those of
        each patched card's sides too."""
        tally = {**super().new_tally(study), "pairs": [0, 0, 0, 0]}
        if study.pairings[0].pool is not None:
            tally["card_pairs"] = {card: [0, 0, 0, 0] for card in sorted(study.pairings[0].patched)}
        return tally

    def play_unit(self, study: Study, unit: int, seed: int, tally: Tally) -> None:
        """Play every pairing with this unit's seed; pair each baseline side with itself patched."""
        half = len(study.pairings) // 2
        played = [play_unit_match(study, p, unit, seed, tally["pairings"][k]) for k, p in enumerate(study.pairings)]
        for before, after in zip(played[:half], played[half:], strict=True):
            count_pairs(tally["pairs"], before, after)
            if "card_pairs" in tally:
                count_card_pairs(before, after, tally["card_pairs"])

    # ---------------------------------------------------------------------------- results

    def result_fields(self) -> dict[str, serializers.Field]:
        """Its base, both halves, their difference and test, the patched cards' rows."""
        return {
            "base": one_of(BASES, required=False),
            "baseline": VariantSerializer(required=False),
            "patched": VariantSerializer(required=False),
            "difference": DifferenceSerializer(required=False),
            "p_value": serializers.FloatField(min_value=0, max_value=1, required=False,
                                              help_text="McNemar's exact test, paired by seed."),
            "patched_rows": PatchedRowSerializer(many=True, required=False,
                                                 help_text="field what-if: the patched cards' rows."),
            "card_differences": serializers.DictField(child=DifferenceSerializer(), required=False, help_text=(
                "field what-if: per patched card, the sides fielding it, patched less baseline, paired by seed.")),
            "sequential": stopping.SequentialResultSerializer(required=False, help_text=(
                "With `sequential`: its test, the games it took and what a fixed count would have needed.")),
        }

    def results(self, batch: Batch, total: Tally, studies: GameStudies) -> dict[str, Any]:
        """Each half as its base reads it, and their difference paired by seed."""
        base = self.base(batch.inputs)
        half = len(total["pairings"]) // 2
        sides = [base.results(batch, {"pairings": legs}, studies)
                 for legs in (total["pairings"][:half], total["pairings"][half:])]
        paired = paired_figures(total["pairs"])
        answer = {"base": base.name, "baseline": sides[0], "patched": sides[1],
                  "difference": {key: paired[key] for key in ("win_rate", "ci", "pairs", "discordant")},
                  "p_value": paired["p_value"]}
        rows = base.patched_rows(sides, patched_members(batch.inputs), studies)
        if rows is not None:
            answer["patched_rows"] = rows
        sequential = stopping.results(batch, total, tested_pairs(total), names=sorted(total.get("card_pairs") or {}))
        if sequential is not None:
            answer["sequential"] = sequential
        if total.get("card_pairs"):
            answer["card_differences"] = {card: difference_of(pairs) for card, pairs in total["card_pairs"].items()}
        return answer

    # ---------------------------------------------------------------------------- report

    def details_of(self, results: Mapping[str, Any]) -> Mapping[str, Any]:
        """The details shown are the baseline's."""
        return results.get("baseline", {})

    def headline(self, batch: Batch, results: Mapping[str, Any], side: str) -> Headline:
        """The paired difference (patched less baseline) with its interval, both halves' outcomes, and the
        discordant pairs with McNemar's test."""
        difference = results.get("difference") or {}
        discordant = difference.get("discordant") or {}
        on_matchup = results.get("base", "matchup") == "matchup"
        of = f"{side}'s win rate" if on_matchup else "the win rate of the sides fielding a patched card"
        halves = tuple(Outcomes.of(f"{variant} ({side})" if on_matchup else f"{variant} (every match)",
                                   results.get(variant) or {}, sided=on_matchup) for variant in VARIANTS)
        return Headline(
            f"Patched less baseline: {of}, paired by seed", difference.get("win_rate"), difference.get("ci"),
            difference=True, outcomes=halves,
            note=f"{difference.get('pairs', 0)} pairs on the same seeds: won only without the patch "
                 f"{discordant.get('baseline_only', 0)}, only with it {discordant.get('patched_only', 0)}; "
                 f"McNemar's exact test p = {charts.probability(results.get('p_value'))}.")

    def compared(self, first: Batch, second: Batch) -> dict[str, Any]:
        """Each patched card's rows without and with the patch in both studies (what-ifs of a field)."""
        rows = [{row["card"]: row for row in (batch.results or {}).get("patched_rows") or []}
                for batch in (first, second)]
        if not rows[0] and not rows[1]:
            return {}
        return {"patched_cards": [{"card": card, "a": pair(rows[0].get(card)), "b": pair(rows[1].get(card))}
                                  for card in sorted(set(rows[0]) | set(rows[1]))]}

    def about(self, batch: Batch) -> str:
        """The patch in short (`merlin atk → 9`), and its base when it is a field."""
        changes = "; ".join(f"{entry.get('card')} " + ", ".join(f"{field} → {value}" for field, value in
                                                               (entry.get("changes") or {}).items())
                            for entry in batch.inputs.get("patch") or [] if isinstance(entry, Mapping))
        return f"{changes} (on a field)" if batch.inputs.get("base") == "field" else changes

    def sides_swapped(self, batch: Batch) -> bool:
        """As its base swaps them."""
        return self.base(batch.inputs).sides_swapped(batch)

    def report(self, batch: Batch, results: Mapping[str, Any], sort: str) -> dict[str, Any]:
        """Both halves' figures, the difference with its chart, the patch, the patched cards' rows."""
        side = game_pages(batch.game).side_names[0]
        difference = results.get("difference") or {}
        interval = difference.get("ci")
        span = max([0.1, *(abs(interval[end]) for end in ("low", "high"))]) if interval else 1.0
        answer = {
            "base": results.get("base", "matchup"),
            "baseline": figures(results.get("baseline") or {}, f"Baseline win rate of {side}"),
            "patched": figures(results.get("patched") or {}, f"Patched win rate of {side}"),
            "difference": {
                "value": charts.points(difference.get("win_rate")), "ci": charts.interval(interval, charts.points),
                "pairs": difference.get("pairs", 0), "discordant": difference.get("discordant") or {},
                "chart": charts.difference_chart(difference.get("win_rate"), interval, label="Patched less baseline",
                                                 span=min(1.0, round(span + 0.05, 1))),
            },
            "p_value": charts.probability(results.get("p_value")),
            "patch": patch_entries(batch),
            "sequential": stopping.shown(results.get("sequential")),
        }
        if answer["base"] == "field":
            answer["patched_rows"] = patched_rows_shown(batch, results.get("patched_rows", []))
        return {"whatif": answer}

    def text(self, batch: Batch, results: Mapping[str, Any], labels: Mapping[str, Mapping[int, str]],
             seats: Mapping[str, str], studies: GameStudies) -> list[str]:
        """Both halves and the patched cards' rows (the difference leads the report)."""
        side, sides = seats["a"], game_matches(batch.game).sides
        lines = ["", f"What-if on a {results['base']}, every seed played without and with the patch ({side}'s "
                     "figures)",
                 *figure_rows("variant", [(variant, results[variant]) for variant in VARIANTS], sides)]
        lines += stopping.text_lines(results.get("sequential"))
        if results.get("patched_rows"):
            lines += ["", "Patched cards", *table(
                ("card", "baseline win rate", "delta", "patched win rate", "delta"),
                [(row["card"], *(value for variant in VARIANTS for value in (
                    (pct_of(row[variant]), points(row[variant]["delta"])) if row[variant] else ("—", "—"))))
                 for row in results["patched_rows"]])]
        return lines

    # ------------------------------------------------------------------------ the doors

    def add_arguments(self, group: _ArgumentGroup) -> None:
        """--base, --patch and --sequential."""
        stopping.add_argument(group)
        group.add_argument("--base", choices=list(BASES), default=None,
                           help="whatif, sweep: the study played with and without the patch (each value).")
        group.add_argument("--patch", nargs="+", action="extend", default=None, metavar="CARD:FIELD=VALUE,...",
                           help="whatif: new values of a card, the fields the game's patch takes (a value is JSON, "
                                "e.g. a number or an ability, or else text), e.g. CARD:atk=12,hp=20.")

    def command_inputs(self, body: dict[str, Any], arguments: Mapping[str, Any]) -> None:
        """--base and --patch set on the body."""
        if arguments["base"] is not None:
            body["base"] = arguments["base"]
        if arguments["patch"] is not None:
            body["patch"] = [patch_entry(text) for text in arguments["patch"]]
        stopping.command_input(body, arguments)

    def form_fields(self, pages: GamePages) -> dict[str, forms.Field]:
        """Its base, and a patch of one stat of one card."""
        return {
            "base": forms.ChoiceField(required=False, choices=[("matchup", "the matchup above"), ("field", "a field")],
                                      initial="matchup", label="What-if of"),
            "patch_card": forms.CharField(required=False, max_length=140, label="Card to patch (slug)"),
            "patch_field": forms.ChoiceField(required=False, label="Stat to change",
                                             choices=[(name, name) for name in pages.patch_fields]),
            "patch_value": forms.CharField(required=False, max_length=200, label="Its new value",
                                           help_text="A number, true/false or an element's slug.",
                                           validators=[json_or_text]),
            **stopping.form_fields(),
        }

    def form_inputs(self, data: Mapping[str, Any], body: dict[str, Any]) -> None:
        """The base, and the patch when a card is named."""
        body["base"] = data.get("base") or "matchup"
        if data["patch_card"].strip():
            body["patch"] = [{"card": data["patch_card"].strip(),
                              "changes": {data["patch_field"]: json_or_text(data["patch_value"])}}]
        stopping.form_input(data, body)

    def form_variants(self) -> dict[str, StudyKind]:
        """Its bases, each reading its own simple fields."""
        return {base: registry.study_kind(base) for base in BASES}

    def form_field_for(self, path: str) -> str | None:
        """The patch's paths belong to the patch fields."""
        if path.split(".")[0] == "patch":
            return "patch_value" if ".changes." in path else "patch_card"
        return None


def patched_pairings(studies: GameStudies, pairings: Sequence[Pairing], patch: Any) -> list[Pairing]:
    """The pairings with a validated patch's cards in place (in their pool, or in their match)."""
    return [replace(p, pool=studies.patched_pool(p.pool, patch)) if p.pool is not None
            else replace(p, prepared=studies.patched_match(p.prepared, patch)) for p in pairings]


def count_pairs(pairs: list[int], before: Played, after: Played) -> None:
    """Count one unit's outcomes without (`before`) and with a patch (`after`) of the same seed in `pairs`:
    [both won, baseline only, patched only, neither]."""
    # A side is paired when the patch touches it in either (a patch may change what is drawn).
    for (won, touched), (won_after, touched_after) in zip(outcomes(before), outcomes(after), strict=True):
        if touched or touched_after:
            pairs[pair_index(won, won_after)] += 1


def outcomes(match: Played) -> list[tuple[bool, bool]]:
    """Whether each side this unit pairs won, and whether the patch touches it: side a of a given matchup
    (always touched), else each drawn side that fielded a patched card."""
    if match.features is None:
        return [(match.outcome == WIN, True)]
    return list(zip(match.wins, match.touched, strict=True)) if match.touched else []


def tested_pairs(total: Tally) -> list[list[int]]:
    """The pairs its sequential test reads: each patched card's on a field, else side a's."""
    by_card = total.get("card_pairs")
    return [by_card[card] for card in sorted(by_card)] if by_card else [total["pairs"]]


def difference_of(pairs: list[int]) -> dict[str, Any]:
    paired = paired_figures(pairs)
    return {key: paired[key] for key in ("win_rate", "ci", "pairs", "discordant")}


def pair(row: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A patched card's row without and with the patch, as a comparison keeps it."""
    if row is None:
        return None
    return {variant: None if row[variant] is None else {key: row[variant][key] for key in (
        "appearances", "win_rate", "delta", "delta_ci")} for variant in VARIANTS}


def pct_of(row: Mapping[str, Any]) -> str:
    """A row's win rate as text."""
    return pct(row["win_rate"])


def patch_entries(batch: Batch) -> list[dict[str, Any]]:
    """The patch as given, each card named and linked to its page."""
    entries = [entry for entry in batch.inputs.get("patch") or [] if isinstance(entry, dict)]
    slugs = [str(entry.get("card")) for entry in entries]
    names: dict[str, str] = {}
    for group in game_studies(batch.game).field_groups:
        names.update(member_names(batch.game, group, slugs))
    return [{"card": slug, "name": names.get(slug, slug), "changes": entry.get("changes") or {},
             "url": reverse(game_pages(batch.game).card_page, args=[slug]) if slug in names else None}
            for slug, entry in zip(slugs, entries, strict=True)]


def patched_rows_shown(batch: Batch, rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The patched cards' rows of a field what-if, named and linked."""
    names: dict[str, str] = {}
    for group in game_studies(batch.game).field_groups:
        names.update(member_names(batch.game, group, [row["card"] for row in rows]))
    card_page = game_pages(batch.game).card_page
    return [{"member": row["card"], "name": names.get(row["card"], row["card"]),
             "url": reverse(card_page, args=[row["card"]]) if row["card"] in names else None,
             "baseline": None if row["baseline"] is None else field_row(batch.game, "", row["baseline"], "card", {}),
             "patched": None if row["patched"] is None else field_row(batch.game, "", row["patched"], "card", {})}
            for row in rows]


# ------------------------------------------------------------------------ a patch as typed


def patch_entry(text: str) -> dict[str, Any]:
    """`CARD:field=value,...` as a patch entry; each value is JSON (a number, an ability) or else text."""
    card, colon, changes = text.partition(":")
    if not colon or not card or not changes:
        raise CommandError(f"--patch {text!r}: give CARD:field=value,... (e.g. CARD:atk=12,hp=20).")
    values: dict[str, Any] = {}
    for part in top_level_split(changes):
        key, equals, value = part.partition("=")
        if not equals or not key.strip():
            raise CommandError(f"--patch {text!r}: {part!r} is not field=value.")
        try:
            values[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            values[key.strip()] = value.strip()
    return {"card": card.strip(), "changes": values}


def top_level_split(text: str) -> list[str]:
    """`text` split at the commas outside brackets, braces and strings (an ability spec keeps its own)."""
    parts, depth, quoted, start = [], 0, False, 0
    for index, char in enumerate(text):
        if quoted:
            quoted = char != '"' or text[index - 1] == "\\"
        elif char == '"':
            quoted = True
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:index])
            start = index + 1
    parts.append(text[start:])
    return [part for part in parts if part.strip()]


def json_or_text(text: str) -> Any:
    """A simple field's value: JSON (a number, a boolean) as the API reads it, anything else as text;
    ValidationError for a number no float holds (1e400, NaN)."""
    try:
        return load_json(text)
    except exceptions.ParseError:
        return text.strip()
    except exceptions.ValidationError as exc:
        detail = exc.detail
        listed = detail.values() if isinstance(detail, dict) else [detail]
        raise forms.ValidationError([str(message) for messages in listed for message in messages]) from None
