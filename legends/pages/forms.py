"""Forms of the Akin Legends pages: how the gallery shows the API's filters, and the setup builder's fields.

The gallery filters are the API's FilterSets themselves (legends/filtersets.py); this module only gives
their fields labels and select boxes. The builder's form turns its fields into the JSON the API's setup
validation takes (`mode` and `teams`), bounded as that serializer bounds it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, cast

from django import forms
from django.core.exceptions import NON_FIELD_ERRORS
from django.forms import BoundField
from django.urls import reverse

from cardsdb.filtersets import MAX_INTEGER
from cardsdb.models import CardSet
from legends import selectors
from legends.choices import Mode
from legends.engine.setup import MAX_NAME, MAX_SLUG, Team
from legends.engine.vocabulary import MAX_TEAM_DEFENSES, MODES, TEAM_COUNT, TEAMS
from legends.models import TeamSetup

NO_FILTER = ("", "(no filter)")
YES_NO = [NO_FILTER, ("true", "Yes"), ("false", "No")]

# The filters each kind's gallery shows (every other filter of its FilterSet still works from the URL).
# "" is every kind at once: only the filters all kinds share.
SHOWN_FILTERS: dict[str, tuple[str, ...]] = {
    "": ("name", "set"),
    "spirits": ("name", "set"),
    "protectors": ("name", "set", "effect_kind", "hook", "element", "duel_legal"),
    "defenses": ("name", "set", "element"),
    "summoning-cards": ("name", "set", "element", "attack", "effect_kind", "effect_element", "double"),
}
ELEMENT_FILTERS = ("element", "attack", "effect_element")
LABELS = {
    "name": "Name contains",
    "set": "Set",
    "effect_kind": "Effect",
    "hook": "When it runs",
    "element": "Element",
    "attack": "Attack element",
    "effect_element": "Effect element",
    "duel_legal": "Duel-legal",
    "double": "Both attacks one element",
}
HELP = {
    ("protectors", "element"): "The element the effect names.",
    ("defenses", "element"): "Defenses requiring this element.",
    ("summoning-cards", "element"): "On any face: either attack or the effect.",
}


def element_choices() -> list[tuple[str, str]]:
    return [(e.slug, f"{e.icon} {e.name}") for e in selectors.element_list()]


def shown_filter_fields(kind: str, filter_form: forms.Form) -> list[BoundField]:
    """The fields of a FilterSet's form that the gallery of `kind` shows, with labels and select boxes.

    Only the widgets change: each field still validates what the API's filter validates.
    """
    elements = element_choices()
    sets = [(s.code, s.name) for s in CardSet.objects.filter(game="legends").order_by("release_date", "code")]
    shown = []
    for name in SHOWN_FILTERS[kind]:
        form_field = filter_form.fields[name]
        form_field.label = LABELS.get(name, form_field.label)
        form_field.help_text = HELP.get((kind, name), "")
        if name in ELEMENT_FILTERS:
            extra = [("any", "Any element (effects that take every element)")] if kind == "protectors" else []
            form_field.widget = forms.Select(choices=[NO_FILTER, *elements, *extra])
        elif name == "set":
            form_field.widget = forms.Select(choices=[NO_FILTER, *sets])
        elif isinstance(form_field, forms.NullBooleanField):
            form_field.widget = forms.Select(choices=YES_NO)
        elif isinstance(form_field, forms.ChoiceField):
            form_field.widget = forms.Select(
                choices=[NO_FILTER, *((value, label) for value, label in cast(Iterable[tuple[Any, Any]], form_field.choices) if value)])
        if isinstance(form_field.widget, forms.Select):
            # A value given in the URL but not offered here (`element=fire,water`) is shown as it is.
            form_field.widget.choices = _with_current(list(form_field.widget.choices), filter_form.data.get(name))
        if form_field.help_text:
            form_field.widget.attrs["aria-describedby"] = f"help-{name}"
        # A fresh bound field: validating the form cached the ones made with the old labels.
        shown.append(form_field.get_bound_field(filter_form, name))
    return shown


# --------------------------------------------------------------------------- the setup builder

# The builder shows the shape a legal setup has: two teams, and per team the mode's players and defenses.
MAX_PLAYERS_SHOWN = max(rules.players_per_team for rules in MODES.values())
MAX_DEFENSES_SHOWN = MAX_TEAM_DEFENSES


def _with_current(choices: list[tuple[Any, Any]], value: Any, note: str = "not offered here") -> list[tuple[Any, Any]]:
    """The choices, plus the current value when it is none of them (a card deleted since a setup was saved, a
    filter of two elements), so the form shows what is in effect and the validation names it."""
    if value in (None, "") or any(str(value) == str(choice) for choice, _ in choices):
        return choices
    return [*choices, (value, f"{value} ({note})")]


def player_number(team: int, index: int, per_team: int) -> int:
    """A player's number in setup order, team 0 first (Player 1 to 4; a duel's Player 1 and 2): the order the
    API takes their agents in, and the names a random setup gives them."""
    return team * per_team + index + 1


@dataclass
class TeamFields:
    """The bound fields of one team, in the order the builder shows them."""

    number: int  # the team's index, as the API, the replays and the rules' messages name it: Team 0, Team 1
    spirit: BoundField
    protector: BoundField
    defenses: list[BoundField] = field(default_factory=list)
    players: list[tuple[BoundField, BoundField]] = field(default_factory=list)


class SetupForm(forms.Form):
    """A team setup as the builder edits it; `setup_data()` is the API's validate input (`mode`, `teams`).

    A blank spirit is none (a violation); a blank protector, or every defense blank, is drawn at match time;
    a player without a name is left out (a violation of the player count).
    """

    mode = forms.ChoiceField(choices=Mode.choices, initial=TEAMS, label="Mode")
    name = forms.CharField(max_length=TeamSetup._meta.get_field("name").max_length, required=False,
                           label="Setup name", help_text="To save it.")
    setup = forms.IntegerField(min_value=1, max_value=MAX_INTEGER, required=False, widget=forms.HiddenInput)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        spirits = [(c.slug, c.name) for c in selectors.spirit_list()]
        protectors = [(c.slug, c.name if c.duel_legal else f"{c.name} (teams only)") for c in selectors.protector_list()]
        defenses = [(c.slug, f"{c.name} ({c.element_1.name} + {c.element_2.name})") for c in selectors.defense_list()]
        counters = max(rules.counters for rules in MODES.values())
        per_team = MODES[self.current_mode].players_per_team
        for t in range(TEAM_COUNT):
            self.fields[f"t{t}_spirit"] = self._card_field("Spirit", [("", "(none)"), *spirits], f"t{t}_spirit")
            self.fields[f"t{t}_protector"] = self._card_field(
                "Protector", [("", "Draw one at match time"), *protectors], f"t{t}_protector")
            for d in range(MAX_DEFENSES_SHOWN):
                self.fields[f"t{t}_defense_{d}"] = self._card_field(
                    f"Defense {d + 1}", [("", "(draw)"), *defenses], f"t{t}_defense_{d}")
            for p in range(MAX_PLAYERS_SHOWN):
                number = player_number(t, p, per_team)
                self.fields[f"t{t}_player_{p}_name"] = forms.CharField(
                    max_length=MAX_NAME, required=False, label=f"Player {number} name")
                key = f"t{t}_player_{p}_counter"
                self.fields[key] = forms.IntegerField(
                    min_value=-MAX_INTEGER, max_value=MAX_INTEGER, required=False, label=f"Player {number} counter",
                    widget=forms.Select(choices=_with_current([(n, str(n)) for n in range(1, counters + 1)],
                                                              self._current(key))))

        # Another mode shows other fields: htmx replaces the builder with the page for the new mode. The switch
        # aborts a check of the form on its way; a check due after it waits its turn (the form's "queue last")
        # and is not sent once its form has been replaced, so it never undoes the switch. Its input event stops
        # here (`consume`), so the form's own check does not start for it (an event filter would need eval,
        # which the site's CSP refuses).
        self.fields["mode"].widget.attrs.update({
            "hx-post": reverse("setup-builder"), "hx-trigger": "input consume", "hx-target": "#builder",
            "hx-select": "#builder", "hx-swap": "outerHTML", "hx-sync": "closest form:replace",
        })

    def _current(self, key: str) -> Any:
        return self.data.get(key) if self.is_bound else self.initial.get(key)

    def _card_field(self, label: str, choices: list[tuple[str, str]], key: str) -> forms.CharField:
        # A slug as the API takes it (any string up to its length); the validation says which is no card.
        return forms.CharField(max_length=MAX_SLUG, required=False, label=label,
                               widget=forms.Select(choices=_with_current(choices, self._current(key), "not in the catalogue")))

    @property
    def current_mode(self) -> str:
        """The mode the form is shown in: the chosen one when it is one, teams otherwise."""
        value = self._current("mode")
        return value if value in MODES else TEAMS

    def team_fields(self) -> list[TeamFields]:
        rules = MODES[self.current_mode]
        return [
            TeamFields(
                number=t,
                spirit=self[f"t{t}_spirit"],
                protector=self[f"t{t}_protector"],
                defenses=[self[f"t{t}_defense_{d}"] for d in range(rules.defenses_per_team)],
                players=[(self[f"t{t}_player_{p}_name"], self[f"t{t}_player_{p}_counter"])
                         for p in range(rules.players_per_team)],
            )
            for t in range(TEAM_COUNT)
        ]

    def field_title(self, name: str) -> str:
        """A field's label with its team (`Team 1: Spirit`): labels repeat from team to team."""
        label = str(self.fields[name].label) if name in self.fields else name
        if name.startswith("t") and name[1:2].isdigit():
            return f"Team {int(name[1])}: {label}"
        return label

    def labelled_errors(self) -> list[str]:
        return [f"{self.field_title(name)}: {message}" if name != NON_FIELD_ERRORS else str(message)
                for name, found in self.errors.items() for message in found]

    def setup_data(self) -> dict[str, Any]:
        """The setup as `POST /api/legends/setups/validate/` takes it (call after is_valid)."""
        mode = self.cleaned_data["mode"]
        rules = MODES[mode]
        teams = []
        for t in range(TEAM_COUNT):
            value = self.cleaned_data.get
            defenses = [value(f"t{t}_defense_{d}") for d in range(rules.defenses_per_team)]
            defenses = [slug for slug in defenses if slug]
            players = []
            for p in range(rules.players_per_team):
                name = value(f"t{t}_player_{p}_name")
                if name:
                    players.append({"name": name, "counter": value(f"t{t}_player_{p}_counter")})
            teams.append({
                "spirit": value(f"t{t}_spirit") or None,
                "protector": value(f"t{t}_protector") or None,
                "defenses": defenses or None,
                "players": players,
            })
        return {"mode": mode, "teams": teams}


def default_setup_initial(mode: str) -> dict[str, Any]:
    """A setup to start from: the two spirits, cards drawn, counters dealt so teammates alternate."""
    spirits = list(selectors.spirit_list().values_list("slug", flat=True)[:TEAM_COUNT])
    rules = MODES[mode]
    initial: dict[str, Any] = {"mode": mode}
    for t in range(TEAM_COUNT):
        if t < len(spirits):
            initial[f"t{t}_spirit"] = spirits[t]
        for p in range(rules.players_per_team):
            # Named in setup order, as a random setup names them; counters dealt so that teammates alternate.
            initial[f"t{t}_player_{p}_name"] = f"Player {player_number(t, p, rules.players_per_team)}"
            initial[f"t{t}_player_{p}_counter"] = rules.seat_counter(t, p)
    return initial


def setup_initial(mode: str, teams: tuple[Team, ...] | list[Team]) -> tuple[dict[str, Any], list[str]]:
    """The builder's fields for a setup, and what of it the builder cannot show (beyond the mode's shape)."""
    rules = MODES.get(mode, MODES[TEAMS])
    initial: dict[str, Any] = {"mode": mode}
    cut: list[str] = []
    if len(teams) > TEAM_COUNT:
        cut.append(f"the teams past the first {TEAM_COUNT}")
    for t, team in enumerate(teams[:TEAM_COUNT]):
        initial[f"t{t}_spirit"] = team.spirit or ""
        initial[f"t{t}_protector"] = team.protector or ""
        for d, slug in enumerate((team.defenses or ())[: rules.defenses_per_team]):
            initial[f"t{t}_defense_{d}"] = slug
        for p, player in enumerate(team.players[: rules.players_per_team]):
            initial[f"t{t}_player_{p}_name"] = player.name
            initial[f"t{t}_player_{p}_counter"] = player.counter
        extra_defenses = len(team.defenses or ()) - rules.defenses_per_team
        if extra_defenses > 0:
            cut.append(f"team {t}'s defenses past the first {rules.defenses_per_team}")
        if len(team.players) > rules.players_per_team:
            cut.append(f"team {t}'s players past the first {rules.players_per_team}")
    return initial, cut
