"""The match form of each game: the posted fields read into the body the API's match request takes, and
the refusals (serializer errors, engine input errors, rule violations) put back next to the fields.

The form only gathers; the game's own `match_request` serializer validates the body, exactly as
`POST /api/simulate/<game>/matches/` does, and `simulate.services.play_match` plays it.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from cardsdb.api.errors import field_errors, input_error_fields
from legends import selectors as legends_selectors
from legends.choices import Mode
from legends.matches import AGENT_NAMES as LEGENDS_AGENTS
from legends.matches import setup_from_request
from legends.services import setup_from_code
from legends.setup_codes import SetupCodeError
from realms import selectors as realms_selectors
from realms.matches import AGENT_NAMES as REALMS_AGENTS
from realms.matches import SIDES
from realms.snapshot import DEFAULT_AGENTS
from realms.studies import command_army
from simulate.engine.errors import InputError
from simulate.services import IllegalMatchSetup, game_matches, new_seed

GAMES = {"realms": "Echo Realms", "legends": "Akin Legends"}
SOURCES = {"code": "Army code", "saved": "One of my saved armies", "random": "A random legal army",
           "formation": "Drafted in a Formation Round, from the whole catalogue (both sides)"}
SETUP_SOURCES = {"random": "Random setup (protectors and defenses drawn)", "code": "Setup code",
                 "saved": "One of my saved setups"}
MAX_TEXT = 4000  # longer than any code the serializers take: a longer value is cut before anything reads it
NON_FIELD = "form"


def posted(data: Mapping[str, str], name: str) -> str:
    return str(data.get(name, "")).strip()[:MAX_TEXT]


def whole_number_or_text(value: str) -> int | str:
    """A typed number as the JSON integer the serializers take; anything else as given, for them to refuse."""
    if value.isascii() and value.isdigit() and len(value) <= 30:
        return int(value)
    return value


@dataclass
class MatchForm:
    """What a person filled in, the API body it makes, and the messages by form field."""

    game: str
    values: dict[str, str]
    body: dict[str, Any] = field(default_factory=dict)
    errors: dict[str, list[str]] = field(default_factory=dict)
    violations: dict[str, list[dict]] = field(default_factory=dict)
    request: Any = None  # the game's match request serializer, once the body was checked

    def add(self, name: str, message: str) -> None:
        self.errors.setdefault(name, []).append(message)

    def is_valid(self) -> bool:
        """The body checked by the game's match request serializer; its errors put by the fields."""
        if self.errors:
            return False
        data = self.request = game_matches(self.game).match_request(data=self.body)
        if data.is_valid():
            return True
        for path, messages in field_errors(data.errors).items():
            for message in messages:
                self.add(self.field_of(path), message)
        return False

    def refused(self, exc: InputError | IllegalMatchSetup) -> None:
        """A refusal of `play_match` (an input error at request paths, or rule violations) by the fields."""
        if isinstance(exc, IllegalMatchSetup):
            for violation in exc.violations:
                self.violations.setdefault(self.violation_field(violation), []).append(violation)
            self.add(NON_FIELD, str(exc))
            return
        for path, messages in input_error_fields(exc).items():
            for message in messages:
                self.add(self.field_of(path), message)

    def field_of(self, path: str) -> str:
        raise NotImplementedError

    def violation_field(self, violation: dict) -> str:
        return NON_FIELD


class RealmsForm(MatchForm):
    """Side a and side b (an army code, a saved army, a random legal army, or both drafted in a Formation
    Round), an agent each, a seed."""

    def read(self, user) -> RealmsForm:
        seed_text = self.values["seed"]
        seed = whole_number_or_text(seed_text) if seed_text else new_seed()
        # Random armies are drawn from the match seed, side a first, as `manage.py simulate` draws them.
        rng = random.Random(seed if isinstance(seed, int) else 0)
        armies = {}
        drafted = [side for side in SIDES if self.values[f"{side}_source"] == "formation"]
        if drafted:
            for side in (side for side in SIDES if side not in drafted):
                self.add(f"{side}_source", "A Formation Round drafts both armies: choose it for both sides.")
            self.body = {"formation": {}, "agents": {side: self.values[f"agent_{side}"] for side in SIDES},
                         "seed": seed}
            return self
        for side in SIDES:
            source = self.values[f"{side}_source"]
            if source == "code":
                armies[side] = {"code": self.values[f"{side}_code"]}
            elif source == "saved":
                armies[side] = {"army": whole_number_or_text(self.values[f"{side}_army"])}
            elif source == "random":
                try:
                    armies[side] = {"slots": command_army("random", rng)}
                except InputError as exc:
                    self.add(f"{side}_source", str(exc))
            else:
                self.add(f"{side}_source", "Choose how this side's army is given.")
        self.body = {"armies": armies, "agents": {side: self.values[f"agent_{side}"] for side in SIDES},
                     "seed": seed}
        return self

    def field_of(self, path: str) -> str:
        parts = path.split(".")
        if parts[0] == "armies" and len(parts) > 1 and parts[1] in SIDES:
            return f"{parts[1]}_source"
        if parts[0] == "formation" and len(parts) > 2 and parts[2] in SIDES:
            return f"{parts[2]}_source"
        if parts[0] == "agents" and len(parts) > 1 and parts[1] in SIDES:
            return f"agent_{parts[1]}"
        if parts[0] == "seed":
            return "seed"
        return NON_FIELD

    def violation_field(self, violation: dict) -> str:
        return f"{violation['side']}_source" if violation.get("side") in SIDES else NON_FIELD


class LegendsForm(MatchForm):
    """A setup (random, by code or saved), an agent per team, a seed."""

    def read(self, user) -> LegendsForm:
        seed_text = self.values["seed"]
        seed = whole_number_or_text(seed_text) if seed_text else new_seed()
        source, mode = self.values["setup_source"], self.values["mode"]
        body: dict[str, Any] = {}
        if source == "random":
            if mode in Mode.values:
                body, _ = game_matches("legends").command_request({"mode": mode, "max_rounds": None, "agents": None},
                                                                  seed if isinstance(seed, int) else 0)
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
        if len(players) != 2 or not all(isinstance(seats, list) and seats for seats in players):
            return first  # a setup of another shape is refused where the match is prepared
        return [name for seats, name in zip(players, (first, second), strict=True) for _ in seats]

    def field_of(self, path: str) -> str:
        root = path.split(".")[0]
        return {"setup": "setup_source", "mode": "mode", "agents": "agents", "seed": "seed"}.get(root, NON_FIELD)

    def violation_field(self, violation: dict) -> str:
        return "setup_source"


REALMS_FIELDS = ("a_source", "a_code", "a_army", "b_source", "b_code", "b_army", "agent_a", "agent_b", "seed")
LEGENDS_FIELDS = ("setup_source", "mode", "setup_code", "setup_saved", "agent_0", "agent_1", "seed")


def initial_values(game: str) -> dict[str, str]:
    """The form as it first shows: random armies (or a random teams setup), the default agents."""
    if game == "realms":
        return {"a_source": "random", "b_source": "random", "a_code": "", "b_code": "", "a_army": "",
                "b_army": "", "agent_a": DEFAULT_AGENTS["a"], "agent_b": DEFAULT_AGENTS["b"], "seed": ""}
    return {"setup_source": "random", "mode": Mode.TEAMS, "setup_code": "", "setup_saved": "",
            "agent_0": "greedy", "agent_1": "greedy", "seed": ""}


def bound_form(game: str, data: Mapping[str, str], user) -> MatchForm:
    """The posted form of `game`, read into its API body."""
    if game == "realms":
        return RealmsForm("realms", {name: posted(data, name) for name in REALMS_FIELDS}).read(user)
    return LegendsForm("legends", {name: posted(data, name) for name in LEGENDS_FIELDS}).read(user)


def choices(game: str, user) -> dict[str, Any]:
    """What the form's selects offer: agents, the user's saved armies or setups, the modes."""
    if game == "realms":
        return {"agents": REALMS_AGENTS, "sources": SOURCES, "saved": realms_selectors.army_list(user=user)}
    return {"agents": LEGENDS_AGENTS, "sources": SETUP_SOURCES, "modes": Mode.choices,
            "saved": legends_selectors.team_setup_list(user=user)}


def form_sections(game: str, values: dict[str, str], errors: dict[str, list[str]],
                  violations: dict[str, list[dict]]) -> dict[str, Any]:
    """The form's parts as its template shows them: each side (or the setup) and each agent, with what was
    filled in and the messages about it."""
    if game == "realms":
        sides = [{"side": side, "source": values[f"{side}_source"], "code": values[f"{side}_code"],
                  "army": values[f"{side}_army"], "errors": errors.get(f"{side}_source", []),
                  "violations": violations.get(f"{side}_source", [])} for side in SIDES]
        agents = [{"name": f"agent_{side}", "label": f"Agent of side {side}", "value": values[f"agent_{side}"],
                   "errors": errors.get(f"agent_{side}", [])} for side in SIDES]
    else:
        sides = []
        agents = [{"name": f"agent_{team}", "label": f"Agent of team {team}", "value": values[f"agent_{team}"],
                   "errors": errors.get("agents", []) if team == 0 else []} for team in (0, 1)]
    return {"sides": sides, "agent_fields": agents, "form_errors": errors.get(NON_FIELD, []),
            "setup_errors": errors.get("setup_source", []), "setup_violations": violations.get("setup_source", []),
            "mode_errors": errors.get("mode", []), "seed_errors": errors.get("seed", [])}
