"""The form that starts a study: a kind, simple fields for its common cases or its inputs as JSON, and the
batch's size. It only reads the form into the body POST /api/simulate/<game>/batches/ takes; that body is
checked by the game's own batch request serializer (simulate.pages.studies)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any, cast

from django import forms
from django.conf import settings
from rest_framework import exceptions

from cardsdb.api.parsers import load_json
from simulate.batches import MAX_PER_PAIRING
from simulate.engine.agents import agent_names
from simulate.pages.choices import Choice, Option, prefill, settle
from simulate.pages.games import GamePages, game_pages
from simulate.services import SEED_LIMIT, game_studies
from simulate.study_kinds import DEFAULT_KIND, KINDS, kind_choices, study_kind
from simulate.study_kinds.base import StudyKind
from simulate.study_kinds.matchup import MIN_CI_WIDTH

# What is set over the JSON inputs (every other field is replaced by them), and the choice between the two.
OVER_JSON = ("kind", "inputs_json", "count", "seed", "swap_sides", "until_ci_width", "patch_field")
INPUTS = "inputs"
MAX_LINKED = 4000  # a value a link gives a field without a bound of its own is cut there


def parsed_json(text: str) -> Any:
    """The text as the API reads a body (cardsdb.api.parsers.load_json): ValidationError if it is not JSON, or
    naming by its path each number no float holds and each string no database stores (`seed: ...`)."""
    try:
        return load_json(text)
    except exceptions.ParseError as exc:
        raise forms.ValidationError(str(exc.detail)) from None
    except exceptions.ValidationError as exc:
        detail = cast(dict[str, list[str]], exc.detail)  # load_json names each problem by its path
        raise forms.ValidationError(
            [f"{path}: {message}" for path, messages in detail.items() for message in messages]
        ) from None


def variant_choices(field: forms.Field) -> Iterable[tuple[Any, Any]]:
    """The (value, label) pairs of a kind's variant field (a ChoiceField of flat choices)."""
    return cast(Iterable[tuple[Any, Any]], cast(forms.ChoiceField, field).choices)


class StudyForm(forms.Form):
    """A study of one game. The simple fields are read for the chosen kind only; `inputs_json`, when given,
    replaces them. A field filled in that neither reads (another kind's, or one beside the JSON inputs) refuses
    the form by that field rather than being left out (`study_choices`)."""

    kind = forms.ChoiceField(choices=kind_choices, initial=DEFAULT_KIND, label="Kind of study")
    # The game's own simple fields (its sides or teams) come after the kind, from its pages.
    agent_a = forms.ChoiceField(required=False, label="Agent of side a")
    agent_b = forms.ChoiceField(required=False, label="Agent of side b")
    inputs_json = forms.CharField(
        required=False, max_length=settings.DATA_UPLOAD_MAX_MEMORY_SIZE, label="JSON inputs",
        widget=forms.Textarea(attrs={"rows": 6, "spellcheck": "false"}),
        help_text="The inputs exactly as POST /api/simulate/<game>/batches/ takes them for this kind "
                  "(e.g. {\"armies\": {...}}); when given, the fields above are not read (leave them as they "
                  "first show). Kind, count, seed, swap sides and the interval width below are set over it.")
    count = forms.IntegerField(min_value=1, max_value=MAX_PER_PAIRING, initial=100, label="Matches per pairing")
    seed = forms.IntegerField(required=False, min_value=0, max_value=SEED_LIMIT, label="Seed",
                              help_text="Empty: a random seed. Match i plays with seed + i.")
    swap_sides = forms.BooleanField(required=False, label="Swap sides every second match")
    until_ci_width = forms.FloatField(required=False, min_value=MIN_CI_WIDTH, max_value=1.0,
                                      label="Stop when the interval is this wide (matchup)",
                                      help_text=f"{MIN_CI_WIDTH} to 1; count is then the cap.")

    def __init__(self, *args, game: str, **kwargs):
        super().__init__(*args, label_suffix="", **kwargs)  # type: ignore[misc]  # never given positionally
        self.game = game
        self.pages = pages = game_pages(game)
        kind, *others = self.fields.items()
        agents, rest = others[:2], others[2:]
        own = [item for study in KINDS.values() for item in study.form_fields(pages).items()]
        self.fields = dict([kind, *pages.study_fields().items(), *agents, *own, *rest])
        names = [(name, name) for name in agent_names(game)]
        for name, label in zip(("agent_a", "agent_b"), pages.study_agent_labels, strict=True):
            cast(forms.ChoiceField, self.fields[name]).choices = names
            self.fields[name].initial = game_studies(game).study_agent
            self.fields[name].label = label
        for study in KINDS.values():  # picking an input of a variant (an agent of a what-if) chooses it
            for variant, base in study.form_variants().items():
                for name in base_reads(base, pages):
                    self.fields[name].widget.attrs.setdefault("data-choice", f"{study.variant_field}={variant}")
        self.field_kinds = field_kinds(pages)
        self.choices = self.study_choices()

    @property
    def shown_for(self) -> dict[str, str]:
        """For each field, the kinds that show it (space-separated), for the page's script."""
        return {name: " ".join(dict.fromkeys(reader.split("/")[0] for reader in readers))
                for name, readers in self.field_kinds.items()}

    def kind_parts(self) -> list[dict[str, Any]]:
        """Each kind's own part of the form: its legend and its fields."""
        return [{"kind": study.name, "legend": study.form_legend,
                 "fields": [self[name] for name in study.form_fields(self.pages)]}
                for study in KINDS.values() if study.form_fields(self.pages)]

    @classmethod
    def linked(cls, game: str, params: Mapping[str, str]) -> StudyForm:
        """The form as a link fills it in (`?army_a=<code>` beside the game, as the builders link here): a value
        the field cannot show is left out, and an option whose inputs the link alone fills is chosen."""
        fields = cls(game=game).fields
        initial: dict[str, Any] = {}
        for name, field in fields.items():
            if name not in params or isinstance(field, (forms.MultipleChoiceField, forms.BooleanField)):
                continue
            value = str(params[name])[:getattr(field, "max_length", None) or MAX_LINKED]
            if not isinstance(field, forms.ChoiceField) or field.valid_value(value):
                initial[name] = value
        form = cls(game=game, initial=initial)
        choosing = ["kind", *(study.variant_field for study in KINDS.values() if study.variant_field)]
        chosen = {name: str(initial.get(name, fields[name].initial or "")) for name in choosing}
        prefill(form.choices, chosen, {name for name, value in initial.items() if value}, set(params))
        form.initial.update({name: chosen[name] for name in choosing})
        return form

    def study_choices(self) -> tuple[Choice, ...]:
        """The kind of study, each kind's variants (a what-if's base), the game's own choices and the JSON
        inputs, each with the simple fields its options read (simulate.pages.choices)."""
        kinds = self.field_kinds

        def read_by(reader: str) -> tuple[str, ...]:
            return tuple(name for name, used in kinds.items() if reader in used or any(
                r.split("/")[0] == reader for r in used))

        by_kind = Choice("kind", "the kind of study", {value: Option(str(label), read_by(value))
                                                        for value, label in kind_choices()})
        variants = tuple(
            Choice(study.variant_field, f"the {study.label.lower()}", {
                value: Option(str(label), tuple(name for name, used in kinds.items() if f"{study.name}/{value}" in used))
                for value, label in variant_choices(self.fields[study.variant_field])}, within=("kind", study.name))
            for study in KINDS.values() if study.variant_field)
        simple = tuple(name for name in self.fields if name not in OVER_JSON)
        by_json = Choice(INPUTS, "the study's inputs", {
            "fields": Option("the fields above", simple, how="empty the JSON inputs"),
            "json": Option("the JSON inputs", ("inputs_json",))})
        return (by_kind, *variants, *(self.within_kinds(choice) for choice in self.pages.study_choices), by_json)

    def within_kinds(self, choice: Choice) -> Choice:
        """A game's choice within a role (`within=("role", "entrants")`) as a choice within the kind that reads
        that role."""
        if choice.within is None or choice.within[0] != "role":
            return choice
        reader = next((study.name for study in KINDS.values() if choice.within[1] in study.game_roles), "")
        return replace(choice, within=("kind", reader))

    def clean(self):
        """Every input filled in is read by the kind chosen (and its base, and the game's own choices), and none
        is filled in beside the JSON inputs, which replace them; each that is not is refused by its field."""
        data = cast(dict[str, Any], super().clean())  # Form.clean answers cleaned_data
        if "kind" not in data:
            return data
        chosen = {choice.name: self.chosen_value(choice.name) for choice in self.choices}
        filled = {name for name in self.fields if self.is_filled(name)}
        labels = {name: str(field.label) for name, field in self.fields.items()}
        for conflict in settle(self.choices, chosen, filled, labels):
            self.add_error(conflict.inputs[0], conflict.message)
        return data

    def chosen_value(self, name: str) -> str:
        """What a choice's field chooses, as its options name it (a tick box: "on" or "")."""
        if name == INPUTS:
            return "json" if self.cleaned_data.get("inputs_json") is not None else "fields"
        value = self.cleaned_data.get(name)
        if isinstance(value, bool):
            return "on" if value else ""
        return str(value or self.fields[name].initial or "")

    def is_filled(self, name: str) -> bool:
        """Whether a field says something other than what the form first shows (the first choice of a select)."""
        value, field = self.cleaned_data.get(name), self.fields[name]
        if value in (None, "", [], False):
            return False
        first = field.initial
        if first is None and isinstance(field, forms.ChoiceField) and not isinstance(field, forms.MultipleChoiceField):
            first = next((choice for choice, _ in cast(Iterable[tuple[Any, Any]], field.choices)), None)
        if isinstance(value, str):
            return lines(value) != lines(str(first or ""))
        return value != first

    def clean_inputs_json(self):
        text = self.cleaned_data["inputs_json"].strip()
        if not text:
            return None
        value = parsed_json(text)
        if not isinstance(value, dict):
            raise forms.ValidationError("Give a JSON object: the study's inputs, as the API takes them.")
        return value

    def request_body(self) -> dict[str, Any]:
        """The body of the study's API request (valid form only); InputError for an army that cannot be
        drawn or read."""
        data = self.cleaned_data
        seed = data["seed"]
        body = dict(data["inputs_json"]) if data["inputs_json"] is not None else self.simple_inputs(seed)
        body.update(kind=data["kind"], count=data["count"], swap_sides=data["swap_sides"])
        if seed is not None:
            body["seed"] = seed
        if data["until_ci_width"] is not None:
            body["until_ci_width"] = data["until_ci_width"]
        return body

    def field_for(self, path: str) -> str | None:
        """The field of this form that an error of the API at `path` is about, if any: the patch's paths
        belong to the patch fields when those built it (not the JSON inputs)."""
        if path in self.fields:
            return path
        if self.cleaned_data.get("inputs_json") is not None or "kind" not in self.cleaned_data:
            return None
        return study_kind(self.cleaned_data["kind"]).form_field_for(path)

    # ------------------------------------------------------------------------ the simple fields

    def simple_inputs(self, seed: int | None) -> dict[str, Any]:
        """The inputs of the chosen kind from the simple fields: the game's for the roles the kind (or its
        variant) reads, random entrants drawn from the seed, then the kind's own."""
        data, study = self.cleaned_data, study_kind(self.cleaned_data["kind"])
        variants = study.form_variants()
        chosen = variants.get(data.get(study.variant_field) or self.fields[study.variant_field].initial) \
            if variants else None
        read = chosen or study
        agents = "agent_a" in read.form_reads
        body = self.pages.study_inputs(data, read.game_roles, agents=agents, seed=seed)
        study.form_inputs(data, body)
        return body


def base_reads(study: StudyKind, pages: GamePages) -> set[str]:
    """The simple fields a kind reads as a variant of another (a what-if's base): the common ones it names and
    the game's for its roles."""
    game = {name for name, roles in pages.study_field_roles.items() if set(roles) & set(study.game_roles)}
    return set(study.form_reads) - {"until_ci_width"} | game


def field_kinds(pages: GamePages) -> dict[str, tuple[str, ...]]:
    """The kinds that read each simple field ("whatif/matchup": a what-if whose base is the matchup); a field
    no kind names is read by every kind, and one set over the JSON inputs is never refused (`OVER_JSON`)."""
    readers: dict[str, list[str]] = {}
    for study in KINDS.values():
        for name in base_reads(study, pages) | set(study.form_fields(pages)) | set(study.form_reads):
            readers.setdefault(name, []).append(study.name)
        for variant, base in study.form_variants().items():
            for name in base_reads(base, pages):
                readers.setdefault(name, []).append(f"{study.name}/{variant}")
    return {name: tuple(kinds) for name, kinds in readers.items() if name not in OVER_JSON}


def lines(text: str) -> list[str]:
    """The lines of a textarea that say something, stripped."""
    return [line.strip() for line in text.splitlines() if line.strip()]


def at_most_lines(limit: int, what: str) -> Callable[[str], None]:
    """A field validator: at most `limit` lines (of `what`, one a line)."""
    def validate(text: str) -> None:
        if len(lines(text)) > limit:
            raise forms.ValidationError(f"At most {limit} {what}, one a line.")
    return validate
