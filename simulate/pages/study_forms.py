"""The form that starts a study: a kind, simple fields for its common cases or its inputs as JSON, and the
batch's size. It only reads the form into the body POST /api/simulate/<game>/batches/ takes; that body is
checked by the game's own batch request serializer (simulate.pages.studies)."""

from __future__ import annotations

import io
import json
import random
from typing import Any

from django import forms
from django.conf import settings
from rest_framework import exceptions

from cardsdb.api.parsers import JSONParser
from legends.engine.vocabulary import MODES
from realms.studies import command_army
from simulate.batches import MAX_PER_PAIRING, MIN_CI_WIDTH
from simulate.engine.agents import agent_names
from simulate.engine.errors import InputError
from simulate.models import Batch
from simulate.services import SEED_LIMIT, game_matches
from simulate.studies import LADDER_LEVELS, MAX_ENTRANTS, MAX_OPPONENTS

GAMES = {"realms": "Echo Realms", "legends": "Akin Legends"}
KIND_HELP = {
    "matchup": "Two sides, many seeds: side a's win rate with its interval.",
    "gauntlet": "One subject against each of several opponents.",
    "matrix": "Every entrant against every other, sides swapped.",
    "field": "Random legal armies (teams): how each card, faction or class does.",
    "whatif": "A matchup or a field played with and without a patch of one card.",
    "ladder": "The matchup with both sides played by each agent level in turn.",
}
# Per game, what a patch's simple field may name (the game's patch serializer says what each means).
PATCH_FIELDS = {
    "realms": ["atk", "def", "spd", "hp", "cooldown", "position"],
    "legends": ["attack_1", "attack_2", "effect_kind", "effect_element", "copies", "duel_legal"],
}


def parsed_json(text: str) -> Any:
    """The text as the API's JSON parser reads a body (depth and text checked); ValidationError if not."""
    try:
        return JSONParser().parse(io.BytesIO(text.encode("utf-8", "surrogatepass")),
                                  parser_context={"encoding": "utf-8"})
    except exceptions.ParseError as exc:
        raise forms.ValidationError(str(exc.detail)) from None
    except exceptions.ValidationError as exc:
        raise forms.ValidationError(f"The JSON holds text no database can store: {exc.detail}") from None
    except UnicodeError:
        raise forms.ValidationError("The JSON is not valid UTF-8 text.") from None


class StudyForm(forms.Form):
    """A study of one game. The simple fields are read for the chosen kind only; `inputs_json`, when given,
    replaces them."""

    kind = forms.ChoiceField(choices=Batch.Kind.choices, initial="matchup", label="Kind of study")
    # Echo Realms sides: an army code, `random` or `faction:<slug>` (drawn from the seed).
    army_a = forms.CharField(required=False, max_length=200, initial="random", label="Army a",
                             help_text="An army code, random, or faction:SLUG (e.g. faction:arcane, a random army of that faction).")
    army_b = forms.CharField(required=False, max_length=200, initial="random", label="Army b",
                             help_text="The same choices as army a.")
    opponents = forms.CharField(required=False, max_length=4000, widget=forms.Textarea(attrs={"rows": 3}),
                                initial="random\nrandom", label="Opponents (gauntlet)",
                                help_text="One army a line; army a is the subject.")
    entrants = forms.CharField(required=False, max_length=4000, widget=forms.Textarea(attrs={"rows": 3}),
                               initial="random\nrandom\nrandom", label="Entrants (matrix)",
                               help_text="One army a line, 2 to 8.")
    factions = forms.BooleanField(required=False, label="Every faction's strongest army as the entrants")
    sets = forms.CharField(required=False, max_length=500, label="Card sets (field)",
                           help_text="Set codes separated by commas; empty: the official sets.")
    # Akin Legends: the mode; the teams are spirits Akin and Yulin, their protectors and defenses drawn.
    mode = forms.ChoiceField(required=False, choices=[(mode, mode) for mode in MODES], initial="teams",
                             label="Mode")
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
                  "(e.g. {\"armies\": {...}}); when given, the fields above are not read. Kind, count, seed, "
                  "swap sides and the interval width below are set over it.")
    count = forms.IntegerField(min_value=1, max_value=MAX_PER_PAIRING, initial=100, label="Matches per pairing")
    seed = forms.IntegerField(required=False, min_value=0, max_value=SEED_LIMIT, label="Seed",
                              help_text="Empty: a random seed. Match i plays with seed + i.")
    swap_sides = forms.BooleanField(required=False, label="Swap sides every second match")
    until_ci_width = forms.FloatField(required=False, min_value=MIN_CI_WIDTH, max_value=1.0,
                                      label="Stop when the interval is this wide (matchup)",
                                      help_text=f"{MIN_CI_WIDTH} to 1; count is then the cap.")

    def __init__(self, *args, game: str, **kwargs):
        super().__init__(*args, label_suffix="", **kwargs)
        self.game = game
        agents = [(name, name) for name in agent_names(game)]
        for name in ("agent_a", "agent_b"):
            self.fields[name].choices = agents
            self.fields[name].initial = "greedy"
        self.fields["patch_field"].choices = [(name, name) for name in PATCH_FIELDS[game]]
        if game == "legends":
            self.fields["agent_a"].label, self.fields["agent_b"].label = "Agents of team 0", "Agents of team 1"
        if game != "realms":
            for name in ("army_a", "army_b", "opponents", "entrants", "factions", "sets"):
                del self.fields[name]
        else:
            del self.fields["mode"]

    def clean_opponents(self):
        return self.at_most(self.cleaned_data["opponents"], MAX_OPPONENTS)

    def clean_entrants(self):
        return self.at_most(self.cleaned_data["entrants"], MAX_ENTRANTS)

    def at_most(self, text: str, limit: int) -> str:
        if len(lines(text)) > limit:
            raise forms.ValidationError(f"At most {limit} armies, one a line.")
        return text

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

    # ------------------------------------------------------------------------ the simple fields

    def simple_inputs(self, seed: int | None) -> dict[str, Any]:
        """The inputs of the chosen kind from the simple fields; random armies are drawn from the seed."""
        data, kind = self.cleaned_data, self.cleaned_data["kind"]
        base = data.get("base") or "matchup"
        matchup = kind in ("matchup", "ladder") or (kind == "whatif" and base == "matchup")
        rng = random.Random(seed)
        body: dict[str, Any] = {}
        if self.game == "realms":
            if matchup:
                body["armies"] = {"a": self.army(data["army_a"], "army_a", rng),
                                  "b": self.army(data["army_b"], "army_b", rng)}
            elif kind == "gauntlet":
                body["subject"] = self.army(data["army_a"], "army_a", rng)
                body["opponents"] = [self.army(spec, "opponents", rng) for spec in lines(data["opponents"])]
            elif kind == "matrix":
                if data["factions"]:
                    body["factions"] = True
                else:
                    body["entrants"] = [self.army(spec, "entrants", rng) for spec in lines(data["entrants"])]
            if kind in ("field", "whatif") and not matchup and data["sets"].strip():
                body["pool"] = {"sets": [code.strip() for code in data["sets"].split(",") if code.strip()]}
            if kind not in ("ladder", "field") and not (kind == "whatif" and base == "field"):
                body["agents"] = {"a": data["agent_a"] or "greedy", "b": data["agent_b"] or "greedy"}
        else:
            mode = data.get("mode") or "teams"
            request, _ = game_matches("legends").command_request({"mode": mode, "max_rounds": None, "agents": None},
                                                                 seed or 0)
            teams = request["setup"]["teams"]
            body["mode"] = mode
            if matchup:
                body["setup"] = request["setup"]
            elif kind == "gauntlet":
                body.update(subject=teams[0], opponents=[teams[1]])
            elif kind == "matrix":
                body["entrants"] = teams
            if kind not in ("ladder", "field") and not (kind == "whatif" and base == "field"):
                per_team = MODES[mode].players_per_team
                body["agents"] = [data["agent_a"] or "greedy"] * per_team + [data["agent_b"] or "greedy"] * per_team
        if kind == "ladder" and data["levels"]:
            body["levels"] = list(data["levels"])
        if kind == "whatif":
            body["base"] = base
            if data["patch_card"].strip():
                body["patch"] = [{"card": data["patch_card"].strip(),
                                  "changes": {data["patch_field"]: json_or_text(data["patch_value"])}}]
        return body

    def army(self, spec: str, field: str, rng: random.Random) -> dict[str, Any]:
        spec = spec.strip() or "random"
        if spec == "random" or spec.startswith("faction:"):
            try:
                return {"slots": command_army(spec, rng)}
            except InputError as exc:
                raise InputError(str(exc), [(field, str(exc))]) from exc
        return {"code": spec}


def lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def json_or_text(text: str) -> Any:
    """A simple field's value: a JSON number or boolean as such, anything else as text."""
    try:
        return json.loads(text)
    except ValueError:
        return text.strip()
