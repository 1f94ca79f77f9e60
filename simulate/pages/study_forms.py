"""The form that starts a study: a kind, simple fields for its common cases or its inputs as JSON, and the
batch's size. It only reads the form into the body POST /api/simulate/<game>/batches/ takes; that body is
checked by the game's own batch request serializer (simulate.pages.studies)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, cast

from django import forms
from django.conf import settings
from rest_framework import exceptions

from cardsdb.api.parsers import load_json
from simulate.batches import MAX_PER_PAIRING, MIN_CI_WIDTH
from simulate.engine.agents import agent_names
from simulate.models import Batch
from simulate.pages.choices import Choice, Option, prefill, settle
from simulate.pages.games import game_pages
from simulate.services import SEED_LIMIT
from simulate.studies import LADDER_LEVELS

KIND_HELP = {
    "matchup": "Two sides, many seeds: side a's win rate with its interval.",
    "gauntlet": "One subject against each of several opponents.",
    "matrix": "Every entrant against every other, sides swapped.",
    "field": "Random legal armies (teams): how each card, faction or class does.",
    "whatif": "A matchup or a field played with and without a patch of one card.",
    "ladder": "The matchup with both sides played by each agent level in turn.",
}

# The kinds of study that read each of the common simple fields ("whatif/matchup": a what-if whose base is the
# matchup); a field not named is read by every kind. The stat to change means nothing without its card.
FIELD_KINDS: dict[str, tuple[str, ...]] = {
    "agent_a": ("matchup", "gauntlet", "matrix", "whatif/matchup"),
    "agent_b": ("matchup", "gauntlet", "matrix", "whatif/matchup"),
    "levels": ("ladder",),
    "until_ci_width": ("matchup",),
    "base": ("whatif",), "patch_card": ("whatif",), "patch_value": ("whatif",),
}
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


class StudyForm(forms.Form):
    """A study of one game. The simple fields are read for the chosen kind only; `inputs_json`, when given,
    replaces them. A field filled in that neither reads (another kind's, or one beside the JSON inputs) refuses
    the form by that field rather than being left out (`study_choices`)."""

    kind = forms.ChoiceField(choices=Batch.Kind.choices, initial="matchup", label="Kind of study")
    # The game's own simple fields (its sides or teams) come after the kind, from its pages.
    agent_a = forms.ChoiceField(required=False, label="Agent of side a")
    agent_b = forms.ChoiceField(required=False, label="Agent of side b")
    levels = forms.MultipleChoiceField(required=False, choices=[(level, level) for level in LADDER_LEVELS],
                                       widget=forms.CheckboxSelectMultiple, label="Levels (ladder)",
                                       help_text="None ticked: every level.")
    base = forms.ChoiceField(required=False, choices=[("matchup", "the matchup above"), ("field", "a field")],
                             initial="matchup", label="What-if of")
    patch_card = forms.CharField(required=False, max_length=140, label="Card to patch (slug)")
    patch_field = forms.ChoiceField(required=False, label="Stat to change")
    patch_value = forms.CharField(required=False, max_length=200, label="Its new value",
                                  help_text="A number, true/false or an element's slug.")
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
        self.fields = dict([kind, *pages.study_fields().items(), *others])
        agents = [(name, name) for name in agent_names(game)]
        for name, label in zip(("agent_a", "agent_b"), pages.study_agent_labels, strict=True):
            cast(forms.ChoiceField, self.fields[name]).choices = agents
            self.fields[name].initial = "greedy"
            self.fields[name].label = label
        cast(forms.ChoiceField, self.fields["patch_field"]).choices = [(name, name) for name in pages.patch_fields]
        for name in ("agent_a", "agent_b"):  # picking an agent in a what-if makes it one of the matchup
            self.fields[name].widget.attrs["data-choice"] = "base=matchup"
        self.field_kinds = {**FIELD_KINDS, **pages.study_field_kinds}
        self.choices = self.study_choices()

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
        chosen = {name: str(initial.get(name, fields[name].initial or "")) for name in ("kind", "base")}
        prefill(form.choices, chosen, {name for name, value in initial.items() if value}, set(params))
        form.initial.update({name: chosen[name] for name in ("kind", "base")})
        return form

    def study_choices(self) -> tuple[Choice, ...]:
        """The kind of study, the what-if's base, the game's own choices and the JSON inputs, each with the
        simple fields its options read (simulate.pages.choices)."""
        kinds = self.field_kinds

        def read_by(kind: str) -> tuple[str, ...]:
            return tuple(name for name, used in kinds.items() if any(k.split("/")[0] == kind for k in used))

        by_kind = Choice("kind", "the kind of study",
                         {value: Option(str(label), read_by(value)) for value, label in Batch.Kind.choices})
        bases = cast(Iterable[tuple[str, str]], cast(forms.ChoiceField, self.fields["base"]).choices)  # a list
        by_base = Choice("base", "the what-if", {
            value: Option(str(label), tuple(name for name, used in kinds.items() if f"whatif/{value}" in used))
            for value, label in bases}, within=("kind", "whatif"))
        simple = tuple(name for name in self.fields if name not in OVER_JSON)
        by_json = Choice(INPUTS, "the study's inputs", {
            "fields": Option("the fields above", simple, how="empty the JSON inputs"),
            "json": Option("the JSON inputs", ("inputs_json",))})
        return (by_kind, by_base, *self.pages.study_choices, by_json)

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

    def clean_patch_value(self):
        value = self.cleaned_data["patch_value"]
        json_or_text(value)  # refused here, by this field, when it is a number no float holds
        return value

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
        if path.split(".")[0] == "patch" and self.cleaned_data.get("inputs_json") is None:
            return "patch_value" if ".changes." in path else "patch_card"
        return None

    # ------------------------------------------------------------------------ the simple fields

    def simple_inputs(self, seed: int | None) -> dict[str, Any]:
        """The inputs of the chosen kind from the simple fields; random armies are drawn from the seed."""
        data, kind = self.cleaned_data, self.cleaned_data["kind"]
        base = data.get("base") or "matchup"
        matchup = kind in ("matchup", "ladder") or (kind == "whatif" and base == "matchup")
        agents = kind not in ("ladder", "field") and not (kind == "whatif" and base == "field")
        body = self.pages.study_inputs(data, kind, matchup=matchup, agents=agents, seed=seed)
        if kind == "ladder" and data["levels"]:
            body["levels"] = list(data["levels"])
        if kind == "whatif":
            body["base"] = base
            if data["patch_card"].strip():
                body["patch"] = [{"card": data["patch_card"].strip(),
                                  "changes": {data["patch_field"]: json_or_text(data["patch_value"])}}]
        return body


def lines(text: str) -> list[str]:
    """The lines of a textarea that say something, stripped."""
    return [line.strip() for line in text.splitlines() if line.strip()]


def at_most_lines(limit: int, what: str) -> Callable[[str], None]:
    """A field validator: at most `limit` lines (of `what`, one a line)."""
    def validate(text: str) -> None:
        if len(lines(text)) > limit:
            raise forms.ValidationError(f"At most {limit} {what}, one a line.")
    return validate


def json_or_text(text: str) -> Any:
    """A simple field's value: JSON (a number, a boolean) as the API reads it, anything else as text;
    ValidationError for a number no float holds (1e400, NaN)."""
    try:
        return load_json(text)
    except exceptions.ParseError:
        return text.strip()
    except exceptions.ValidationError as exc:
        detail = cast(dict[str, list[str]], exc.detail)  # load_json names each problem by its path
        raise forms.ValidationError([str(message) for messages in detail.values() for message in messages]) from None
