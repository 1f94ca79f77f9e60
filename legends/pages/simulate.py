"""Akin Legends in the match and study pages (simulate/pages): its match form (a setup, an agent per team), its
parts of the study form, and how its replays and reports name teams and cards."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from django import forms

from legends import selectors
from legends.api.matches import AGENT_NAMES
from legends.choices import Mode
from legends.engine.vocabulary import MODES, TEAM_COUNT
from legends.matches import setup_from_request
from legends.services import setup_from_code
from legends.setup_codes import SetupCodeError
from legends.snapshot import STUDY_AGENT
from simulate.engine.errors import InputError
from simulate.engine.seated import PERSON
from simulate.pages.choices import Choice, Option
from simulate.pages.match_forms import NON_FIELD, MatchForm, whole_number_or_text
from simulate.services import game_matches

SETUP_SOURCES = {"random": "Random setup (protectors and defenses drawn)", "code": "Setup code",
                 "saved": "One of my saved setups"}
GAME = "legends"
FIRST_MODE = Mode.TEAMS  # the mode the match form first shows


def random_setup(mode: str, seed: int) -> dict[str, Any]:
    """The match request of a random setup of `mode` drawn from `seed`, as `manage.py simulate` draws it."""
    body, _ = game_matches(GAME).command_request({"mode": mode, "max_rounds": None, "agents": None}, seed)
    return body


class LegendsForm(MatchForm):
    """A setup (random, by code or saved), an agent per team, a seed."""

    fields = ("setup_source", "mode", "setup_code", "setup_saved", "agent_0", "agent_1", "seed")
    choices = (Choice("setup_source", "the setup", {
        "random": Option(SETUP_SOURCES["random"]),
        "code": Option(SETUP_SOURCES["code"], ("setup_code",), needs_input=True),
        "saved": Option(SETUP_SOURCES["saved"], ("setup_saved",), needs_input=True),
    }),)
    input_labels = {"setup_code": "Setup code", "setup_saved": "Saved setup"}

    def read(self, user) -> LegendsForm:
        seed = self.seed()
        source, mode = self.values["setup_source"], self.values["mode"]
        body: dict[str, Any] = {}
        if source == "random":
            if mode in Mode.values:
                body = random_setup(mode, seed if isinstance(seed, int) else 0)
                body.pop("options", None)
            else:
                body = {"mode": mode, "setup": {"teams": []}}
        elif source == "code":
            try:
                decoded = setup_from_code(self.values["setup_code"])
                body = {"setup": {"mode": decoded["mode"], "teams": decoded["teams"]}}
            except SetupCodeError as exc:
                self.add("setup_source", f"Bad setup code: {exc}")
        elif source == "saved":
            body = {"setup": {"setup": whole_number_or_text(self.values["setup_saved"])}}
        else:
            self.add("setup_source", "Choose how the setup is given.")
        if source in ("code", "saved") and mode != FIRST_MODE:
            # A setup code or a saved setup plays in its own mode: a mode picked must be that one (the match
            # request refuses another by the mode field).
            body["mode"] = mode
        body["agents"] = self.agents(body.get("setup"), user)
        body["seed"] = seed
        self.body = body
        return self

    def agents(self, setup: dict | None, user) -> str | list[str]:
        """One name for every seat when both teams play alike; otherwise one per player, team by team."""
        first, second = self.values["agent_0"], self.values["agent_1"]
        if first == second or not setup:
            return first
        teams = setup.get("teams")
        if "setup" in setup:
            try:
                _, teams = setup_from_request(mode=None, setup=setup, user=user)
            except InputError:
                return first  # the saved setup is refused where the match is prepared
        players = [team.get("players") if isinstance(team, dict) else None for team in teams or []]
        if len(players) != TEAM_COUNT or not all(isinstance(seats, list) and seats for seats in players):
            return first  # a setup of another shape is refused where the match is prepared
        seated = cast(list[list[Any]], players)  # (checked above: two lists of seats)
        return [name for seats, name in zip(seated, (first, second), strict=True) for _ in seats]

    def field_of(self, path: str) -> str:
        root = path.split(".")[0]
        return {"setup": "setup_source", "mode": "mode", "agents": "agents", "seed": "seed"}.get(root, NON_FIELD)

    def violation_field(self, violation: dict) -> str:
        return "setup_source"


class LegendsPages:
    """Akin Legends' `simulate.pages.games.GamePages`."""

    game = GAME
    title = "Akin Legends"

    match_form = LegendsForm
    match_form_template = "legends/pages/match_form.html"
    saved_name = "setups"
    winner_noun = "team"

    replay_board_script = "legends/replay_board.js"
    replay_seat_views = True  # hands are hidden: the viewer can show what one seat saw

    study_form_template = "legends/pages/study_form.html"
    study_agent_labels = ("Agents of team 0", "Agents of team 1")
    patch_fields = ("attack_1", "attack_2", "effect_kind", "effect_element", "copies", "duel_legal")
    # A field draws its teams: the kinds that read given teams play the setup code's (the parts of a study it
    # gives: the matchup's teams, a subject and its opponent, entrants).
    study_field_roles = {"setup_code": ("matchup", "subject", "opponents", "entrants")}
    study_choices = ()

    side_names = ("team 0", "team 1")
    card_page = "legends-card"
    card_groups = frozenset({"protectors", "defenses", "summoning_cards"})

    def initial_match_values(self) -> dict[str, str]:
        """A random teams setup, greedy agents."""
        return {"setup_source": "random", "mode": FIRST_MODE, "setup_code": "", "setup_saved": "",
                "agent_0": "greedy", "agent_1": "greedy", "seed": ""}

    def match_choices(self, user) -> dict[str, Any]:
        return {"agents": [PERSON, *AGENT_NAMES], "sources": SETUP_SOURCES, "modes": Mode.choices,
                "saved": selectors.team_setup_list(user=user)}

    def match_sections(self, values: Mapping[str, str], errors: Mapping[str, list[str]],
                       violations: Mapping[str, list[dict]]) -> dict[str, Any]:
        """The setup (its source, its mode) and each team's agent."""
        agents = [{"name": f"agent_{team}", "label": f"Agent of team {team}", "value": values[f"agent_{team}"],
                   "errors": errors.get("agents", []) if team == 0 else []} for team in (0, 1)]
        return {"agent_fields": agents, "setup_errors": errors.get("setup_source", []),
                "setup_violations": violations.get("setup_source", []), "mode_errors": errors.get("mode", [])}

    def winner_label(self, winner: str | None, events: Sequence[dict]) -> str:
        """A team, with its spirit."""
        if winner is None:
            return "None: a draw"
        teams = events[0].get("teams", []) if events and events[0].get("type") == "match_start" else []
        spirit = next((team["spirit"]["name"] for team in teams if team.get("team") == int(winner)), None)
        return f"Team {winner} ({spirit})" if spirit else f"Team {winner}"

    def study_fields(self) -> dict[str, forms.Field]:
        """The mode, and the teams: a setup's code, or spirits Akin and Yulin with their protectors and defenses
        drawn."""
        return {
            "mode": forms.ChoiceField(required=False, choices=[(mode, mode) for mode in MODES], initial=FIRST_MODE,
                                      label="Mode"),
            "setup_code": forms.CharField(
                required=False, max_length=4000, label="Setup code",
                help_text="Its two teams play (team 0 is a gauntlet's subject), in the setup's mode; empty: spirits "
                          "Akin and Yulin, their protectors and defenses drawn.",
                widget=forms.TextInput(attrs={"data-choice": "base=matchup", "spellcheck": "false",
                                              "autocomplete": "off"})),
        }

    def study_inputs(self, data: Mapping[str, Any], roles: Sequence[str], *, agents: bool,
                     seed: int | None) -> dict[str, Any]:
        """The mode, and the teams of the roles asked for: the setup code's, else a random setup's."""
        mode = data.get("mode") or FIRST_MODE
        code = (data.get("setup_code") or "").strip()
        if code and set(roles) & set(self.study_field_roles["setup_code"]):
            setup = study_setup(code, mode)
            mode = setup["mode"]
        else:
            setup = random_setup(mode, seed or 0)["setup"]
        teams = setup["teams"]
        body: dict[str, Any] = {"mode": mode}
        if "matchup" in roles:
            body["setup"] = setup
        if "subject" in roles:
            body["subject"] = teams[0]
        if "opponents" in roles:
            body["opponents"] = [teams[1]]
        if "entrants" in roles:
            body["entrants"] = teams
        if agents:
            per_team = MODES[mode].players_per_team
            body["agents"] = [data["agent_a"] or STUDY_AGENT] * per_team + [data["agent_b"] or STUDY_AGENT] * per_team
        return body

    def member_names(self, group: str, slugs: Sequence[str]) -> dict[str, str]:
        """Protectors, defenses and summoning cards by slug."""
        lists = {"protectors": selectors.protector_list, "defenses": selectors.defense_list,
                 "summoning_cards": selectors.summoning_card_list}
        if group in lists:
            return dict(lists[group]().filter(slug__in=slugs).values_list("slug", "name"))
        return {}


def study_setup(code: str, mode: str) -> dict[str, Any]:
    """The setup of the study form's setup code (`mode` and `teams`); InputError at the code, or at the mode
    when one other than the first shown was picked and the code's is not that one."""
    try:
        decoded = setup_from_code(code)
    except SetupCodeError as exc:
        raise InputError(f"Bad setup code: {exc}", [("setup_code", f"Bad setup code: {exc}")]) from exc
    if mode != FIRST_MODE and decoded["mode"] != mode:
        message = f"The setup code is a {decoded['mode']} setup, not {mode}: pick its mode, or another code."
        raise InputError(message, [("mode", message)])
    return {"mode": decoded["mode"], "teams": decoded["teams"]}
