"""Akin Legends matches for the simulate services: the request, its team setup checked (every
violation) and turned into an engine setup with the catalogue read once, and the
`manage.py simulate legends` flags.

Registered with `simulate.services.register_game_matches` by `LegendsConfig.ready()`.
"""

from __future__ import annotations

from argparse import ArgumentParser
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from rest_framework import serializers

from legends import selectors
from legends.choices import Mode
from legends.engine.cards import Catalogue, parse_catalogue
from legends.engine.setup import parse_teams
from legends.services import setup_validate
from simulate.api.serializers import BatchOptionsMixin
from simulate.engine.errors import InputError
from simulate.engine.runner import validate_options
from simulate.models import Match
from simulate.services import SEED_LIMIT, IllegalMatchSetup, PreparedMatch

TEAMS = (0, 1)
DEFAULT_AGENT = "greedy"

# ------------------------------------------------------------------------------------ request


class LegendsMatchInputSerializer(serializers.Serializer):
    """`setup` is a setup as in `POST /api/legends/setups/validate/`, or `{"setup": <saved id>}`."""

    mode = serializers.ChoiceField(choices=Mode.choices, required=False)
    setup = serializers.DictField()
    agents = serializers.JSONField(
        required=False, help_text="One agent name per player (team 0 first), or one name for every seat."
    )
    seed = serializers.IntegerField(required=False, min_value=0, max_value=SEED_LIMIT)
    options = serializers.DictField(required=False)

    def validate_setup(self, value):
        if "setup" in value:
            if set(value) != {"setup"} or isinstance(value["setup"], bool) or not isinstance(value["setup"], int):
                raise serializers.ValidationError("A saved setup is given as {\"setup\": <id>} alone.")
        elif not isinstance(value.get("teams"), list):
            raise serializers.ValidationError("`teams` must be a list of two teams.")
        return value

    def validate_agents(self, value):
        names = [value] if isinstance(value, str) else value
        if not isinstance(names, list) or not names or not all(isinstance(n, str) and n for n in names):
            raise serializers.ValidationError("Give an agent name, or a list of agent names (one per player).")
        return value


class LegendsBatchInputSerializer(BatchOptionsMixin, LegendsMatchInputSerializer):
    """A legends match request, plus how many matches to play; match i uses seed + i."""


# ------------------------------------------------------------------------ catalogue snapshot


def catalogue_snapshot() -> Catalogue:
    """The Akin Legends catalogue as the engine's frozen catalogue (five queries, whatever its size), parsed
    once for every match it serves."""
    raw = {
        "elements": [element.slug for element in selectors.element_list()],
        "spirits": [{"slug": s.slug, "name": s.name} for s in selectors.spirit_list()],
        "protectors": [
            {"slug": p.slug, "name": p.name, "effect": p.effect, "duel_legal": p.duel_legal}
            for p in selectors.protector_list()
        ],
        "defenses": [
            {"slug": d.slug, "name": d.name, "elements": [d.element_1.slug, d.element_2.slug]}
            for d in selectors.defense_list()
        ],
        "deck": [
            {"slug": c.slug, "name": c.name, "attacks": [c.attack_1.slug, c.attack_2.slug],
             "effect": {"kind": c.effect_kind, "element": c.effect_element.slug}, "copies": c.copies}
            for c in selectors.summoning_card_list()
        ],
    }
    return parse_catalogue(raw)


# ------------------------------------------------------------------------------- preparation


def setup_from_request(*, mode: str | None, setup: Mapping[str, Any], user) -> tuple[str, list]:
    """The mode and raw teams of a setup given inline or as one of the user's saved setups."""
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


def seat_agents(agents: str | list[str] | None, players: int) -> list[str]:
    """One agent name per player: the names given, or one name for every seat."""
    if agents is None or isinstance(agents, str):
        return [agents or DEFAULT_AGENT] * players
    if len(agents) != players:
        raise InputError(f"Give {players} agents (one per player) or one name for every seat.",
                         [("agents", f"expected {players} names, got {len(agents)}")])
    return list(agents)


class LegendsMatches:
    """Akin Legends as the simulate services play it: a team setup (teams or duel), seats in setup order."""

    game = "legends"
    sides = tuple(str(team) for team in TEAMS)
    match_request = LegendsMatchInputSerializer
    batch_request = LegendsBatchInputSerializer

    def prepare(self, *, inputs: Mapping[str, Any], agents: Any, user) -> PreparedMatch:
        """The setup checked (its shape, then every rule violation), options, one agent per player."""
        mode, teams = setup_from_request(mode=inputs.get("mode"), setup=inputs["setup"], user=user)
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

    def shown_winner(self, winner: str | None) -> int | None:
        """The winning team's index (0 or 1), or None for a draw."""
        return None if winner is None else int(winner)

    def result_fields(self, match: Match) -> dict[str, Any]:
        """`remaining_defenses`: what is left of each team's defenses, team 0 first."""
        return {"remaining_defenses": [match.survivors.get(str(team), []) for team in TEAMS]}

    def add_command_arguments(self, parser: ArgumentParser) -> None:
        """--mode."""
        group = parser.add_argument_group("Akin Legends", "Every protector and defense is drawn from the seed.")
        group.add_argument("--mode", choices=list(Mode.values), default=Mode.TEAMS, help="Akin Legends mode.")

    def command_request(self, arguments: Mapping[str, Any], seed: int) -> tuple[dict[str, Any], Any]:
        """Spirits Akin and Yulin, players with legal counters, the round cap; one agent name plays every seat."""
        mode = arguments["mode"]
        per_team = 2 if mode == Mode.TEAMS else 1
        counters = [1, 3, 2, 4] if per_team == 2 else [1, 2]
        teams = [
            {"spirit": spirit,
             "players": [{"name": f"Player {team * per_team + i + 1}", "counter": counters[team * per_team + i]}
                         for i in range(per_team)]}
            for team, spirit in zip(TEAMS, ("akin", "yulin"), strict=True)
        ]
        options = {} if arguments["max_rounds"] is None else {"max_rounds": arguments["max_rounds"]}
        agents = arguments["agents"]
        if agents is not None and len(agents) == 1:
            agents = agents[0]
        return {"mode": mode, "setup": {"mode": mode, "teams": teams}, "options": options}, agents
