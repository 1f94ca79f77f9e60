"""Akin Legends matches for the simulate services: a request (its serializers in `legends.api.matches`), its
team setup checked (every violation) and turned into an engine setup with the catalogue read once, and the
`manage.py simulate legends` flags.

Registered with `simulate.services.register_game_matches` by `LegendsConfig.ready()`.
"""

from __future__ import annotations

from argparse import ArgumentParser
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, cast

from legends import selectors
from legends.api.matches import (
    LegendsBatchInputSerializer,
    LegendsBatchSerializer,
    LegendsMatchInputSerializer,
    LegendsMatchSerializer,
)
from legends.choices import Mode
from legends.engine.setup import parse_teams
from legends.services import setup_validate
from legends.snapshot import TEAMS, catalogue_snapshot, legal_players, seat_agents
from simulate.engine.errors import InputError
from simulate.engine.runner import validate_options
from simulate.services import IllegalMatchSetup, PreparedMatch

RANDOM_SPIRITS = ("akin", "yulin")


def random_teams(mode: str) -> list[dict[str, Any]]:
    """The teams of a random setup (as the match page and `manage.py simulate legends` play one): spirits Akin and
    Yulin, players with legal counters, protectors and defenses left out, so that the match draws them from its
    seed (L6)."""
    return [{"spirit": spirit, "players": players}
            for spirit, players in zip(RANDOM_SPIRITS, legal_players(mode), strict=True)]


def setup_from_request(*, mode: str | None, setup: Mapping[str, Any] | None, user) -> tuple[str, list]:
    """The mode and raw teams of a setup given inline or as one of the user's saved setups; without a setup, a
    random setup of `mode` (default teams)."""
    if setup is None:
        mode = mode or Mode.TEAMS
        return mode, random_teams(mode)
    saved_mode: str | None
    if "setup" in setup:
        saved = selectors.team_setup_list(user=user).filter(pk=setup["setup"]).first()
        if saved is None:
            message = f"You have no saved team setup {setup['setup']}."
            raise InputError(message, [("setup.setup", message)])
        saved_mode, teams = saved.mode, saved.teams
    else:
        saved_mode, teams = setup.get("mode"), setup.get("teams")
    mode = mode or saved_mode
    if saved_mode and mode != saved_mode:
        message = f"The setup is for mode {saved_mode!r}, not {mode!r}."
        raise InputError(message, [("mode", message)])
    if mode is None:
        raise InputError("Give the mode (teams or duel).", [("mode", "This field is required.")])
    return mode, teams


class LegendsMatches:
    """Akin Legends as the simulate services play it: a team setup (teams or duel), seats in setup order."""

    game = "legends"
    sides = cast(tuple[str, str], tuple(str(team) for team in TEAMS))  # the two teams
    match_request = match_request_schema = LegendsMatchInputSerializer
    batch_request = batch_request_schema = LegendsBatchInputSerializer
    match_result = LegendsMatchSerializer
    batch_result = LegendsBatchSerializer

    def prepare(self, *, inputs: Mapping[str, Any], agents: Any, user) -> PreparedMatch:
        """The setup checked (its shape, then every rule violation), options, one agent per player."""
        mode, teams = setup_from_request(mode=inputs.get("mode"), setup=inputs.get("setup"), user=user)
        parsed = parse_teams(teams)  # a malformed setup is a SetupError naming every bad path
        report = setup_validate(mode=mode, teams=parsed)
        if not report["valid"]:
            raise IllegalMatchSetup(report["violations"], "The team setup breaks the rules.")
        options = validate_options(self.game, inputs.get("options"))
        seats = seat_agents(agents, sum(len(team.players) for team in parsed))
        return PreparedMatch(setup={"mode": mode, "teams": teams, "catalogue": catalogue_snapshot()},
                             agents=seats, options=options, stored_setup={"mode": mode, "teams": teams})

    def swapped(self, prepared: PreparedMatch) -> PreparedMatch:
        """Teams in the other order, each with its own agents."""
        first = len(prepared.setup["teams"][0]["players"])
        seats = list(prepared.agents)
        return replace(
            prepared,
            setup={**prepared.setup, "teams": prepared.setup["teams"][::-1]},
            stored_setup={**prepared.stored_setup, "teams": prepared.stored_setup["teams"][::-1]},
            agents=seats[first:] + seats[:first],
        )

    def add_command_arguments(self, parser: ArgumentParser) -> None:
        """--mode."""
        group = parser.add_argument_group("Akin Legends", "Every protector and defense is drawn from the seed.")
        group.add_argument("--mode", choices=list(Mode.values), default=Mode.TEAMS, help="Akin Legends mode.")

    def command_request(self, arguments: Mapping[str, Any], seed: int) -> tuple[dict[str, Any], Any]:
        """Spirits Akin and Yulin, players with legal counters, the round cap; one agent name plays every seat."""
        mode = arguments["mode"]
        teams = random_teams(mode)
        options = {} if arguments["max_rounds"] is None else {"max_rounds": arguments["max_rounds"]}
        agents = arguments["agents"]
        if agents is not None and len(agents) == 1:
            agents = agents[0]
        return {"mode": mode, "setup": {"mode": mode, "teams": teams}, "options": options}, agents
