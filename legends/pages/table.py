"""The Akin Legends table tracker (`/legends/table/`): a page for players at a physical table, one phone shared.

The server renders the setup form and hands the rule numbers of legends/engine/vocabulary.py to the page's
script (legends/static/legends/table.js), which keeps the game in the browser (localStorage): the defenses
and their markers, the round, the turn counters and whose turn it is, a log and an undo history.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from legends.choices import Mode
from legends.engine.setup import MAX_NAME
from legends.engine.vocabulary import (
    DEFENSE_ELEMENTS,
    FACE_UP_PASSES,
    MAX_ROUNDS_DEFAULT,
    MAX_ROUNDS_LIMIT,
    MAX_TEAM_DEFENSES,
    MODES,
    TEAMS,
    ModeRules,
)
from legends.pages.forms import player_number


def seats(rules: ModeRules) -> list[dict[str, Any]]:
    """A mode's players in setup order (Player 1 first, team by team), each with its team, the form field of
    its name and the counter it holds in the first round (L5: teammates never play one after the other)."""
    return [
        {"field": f"t{team}p{index}", "team": team, "number": player_number(team, index, rules.players_per_team),
         "counter": rules.seat_counter(team, index)}
        for team in range(rules.teams)
        for index in range(rules.players_per_team)
    ]


def table_rules() -> dict[str, Any]:
    """What the script needs of the rules, from the vocabulary: each mode's teams, defenses, passes and seats."""
    return {
        "modes": {
            mode: {"teams": rules.teams, "defenses": rules.defenses_per_team, "passes": rules.passes,
                   "counters": rules.counters, "seats": seats(rules)}
            for mode, rules in MODES.items()
        },
        "defense_elements": DEFENSE_ELEMENTS,  # L2: both on a defense destroy it
        "face_up_passes": FACE_UP_PASSES,  # L7: the first card of a round face up, the next ones face down
        "max_defenses": MAX_TEAM_DEFENSES,
        "max_rounds": MAX_ROUNDS_DEFAULT,  # L12: the last round ended with both teams standing is a draw
        "max_rounds_limit": MAX_ROUNDS_LIMIT,
    }


class TableForm(forms.Form):
    """The game to track: its mode, the players' names (blank: "Player 1" ...), the defenses of a team and the
    rounds before a draw. The name fields are the teams mode's; in a duel the script hides each team's second
    player."""

    mode = forms.ChoiceField(choices=Mode.choices, initial=TEAMS, label="Mode")
    defenses = forms.IntegerField(
        min_value=1, max_value=MAX_TEAM_DEFENSES, initial=MODES[TEAMS].defenses_per_team, label="Defenses per team",
        help_text="The rulebook's number for the mode is filled in when the mode is chosen.")
    max_rounds = forms.IntegerField(
        min_value=1, max_value=MAX_ROUNDS_LIMIT, initial=MAX_ROUNDS_DEFAULT, label="Rounds before a draw",
        help_text="A game still undecided when this round ends is a draw, as in the service's matches.")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["defenses"].widget.attrs["aria-describedby"] = "help-defenses"
        self.fields["max_rounds"].widget.attrs["aria-describedby"] = "help-max-rounds"
        for seat in seats(MODES[TEAMS]):
            self.fields[seat["field"]] = forms.CharField(
                max_length=MAX_NAME, required=False, label=f"Player {seat['number']} name",
                help_text=f"Team {seat['team'] + 1}, counter {seat['counter']} in round 1.")
            self.fields[seat["field"]].widget.attrs.update(
                {"autocomplete": "off", "aria-describedby": f"help-{seat['field']}"})

    def teams(self) -> list[tuple[int, list[forms.BoundField]]]:
        """Each team's number (Team 1, Team 2) and the name fields of its players."""
        rules = MODES[TEAMS]
        by_team: dict[int, list[forms.BoundField]] = {team: [] for team in range(rules.teams)}
        for seat in seats(rules):
            by_team[seat["team"]].append(self[seat["field"]])
        return [(team + 1, fields) for team, fields in by_team.items()]


def table_page(request: HttpRequest) -> HttpResponse:
    """The tracker's page: the setup form and the empty tracker, which the script fills in."""
    form = TableForm()
    return render(request, "legends/pages/table.html",
                  {"form": form, "teams": form.teams(), "rules": table_rules(), "nav": "legends-table"})
