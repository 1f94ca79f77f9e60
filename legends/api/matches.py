"""The Akin Legends match API: the bodies of a match and of a study (a team setup, inline or saved, and the
agents of its seats) and the matches and batches as the API answers them.

`legends.matches.LegendsMatches` names them for the simulate services.
"""

from __future__ import annotations

from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema_field
from rest_framework import serializers

from cardsdb.api.fields import TextChoiceField, TextField
from cardsdb.api.serializers import StrictSerializer
from legends.api.studies import MAX_PATCH, LegendsPatchSerializer, LegendsPoolSerializer
from legends.choices import Mode
from legends.engine.setup import MAX_DEFENSES, MAX_NAME, MAX_PLAYERS, MAX_SLUG, MAX_TEAMS
from legends.engine.vocabulary import (
    DEFENSE_ELEMENTS,
    MAX_ACTIONS_DEFAULT,
    MAX_ACTIONS_LIMIT,
    MAX_ROUNDS_DEFAULT,
    MAX_ROUNDS_LIMIT,
)
from legends.snapshot import TEAMS
from simulate.api.serializers import (
    BatchOptionsMixin,
    BatchResultSerializer,
    BatchSummarySerializer,
    MatchResultSerializer,
    WholeNumberField,
    batch_figures,
    id_field,
    one_of,
    seed_field,
)
from simulate.engine.agents import agent_names
from simulate.engine.games import get_game
from simulate.models import Match
from simulate.study_kinds import study_kind
from simulate.study_kinds.gauntlet import MAX_OPPONENTS
from simulate.study_kinds.matrix import MAX_ENTRANTS

# ------------------------------------------------------------------------------------ request

AGENT_NAMES = agent_names("legends")
SEATS = tuple(get_game("legends").players)  # t0p0, t0p1, t1p0, t1p1; a duel seats t0p0 and t1p0
REASONS = ("defenses_destroyed", "mutual_destruction", "max_rounds", "max_actions")


class LegendsPlayerSerializer(StrictSerializer):
    name = TextField(max_length=MAX_NAME)
    counter = WholeNumberField(help_text="Turn counter: 1 to 4 in teams mode, 1 to 2 in a duel (L5).")


class LegendsTeamSerializer(StrictSerializer):
    """One team; a protector or defenses left out (or null) are drawn with the match seed (L6)."""

    spirit = TextField(max_length=MAX_SLUG, required=False, allow_null=True, help_text="Spirit slug.")
    protector = TextField(max_length=MAX_SLUG, required=False, allow_null=True, help_text="Protector slug.")
    defenses = serializers.ListField(child=TextField(max_length=MAX_SLUG), max_length=MAX_DEFENSES, required=False,
                                     allow_null=True, help_text="Defense slugs.")
    players = LegendsPlayerSerializer(many=True, max_length=MAX_PLAYERS)


class LegendsInlineSetupSerializer(StrictSerializer):
    """A setup as in `POST /api/legends/setups/validate/`."""

    mode = TextChoiceField(choices=Mode.choices, required=False)
    teams = LegendsTeamSerializer(many=True, max_length=MAX_TEAMS, help_text="The two teams, team 0 first.")


class LegendsSavedSetupSerializer(StrictSerializer):
    setup = id_field(help_text="One of your saved team setups.")


@extend_schema_field(PolymorphicProxySerializer(
    component_name="LegendsSetup", resource_type_field_name=None,
    serializers=[LegendsInlineSetupSerializer, LegendsSavedSetupSerializer],
))
class LegendsSetupSerializer(StrictSerializer):
    """`{"mode": ..., "teams": [...]}`, or `{"setup": <id of one of your saved setups>}` alone."""

    mode = TextChoiceField(choices=Mode.choices, required=False)
    teams = LegendsTeamSerializer(many=True, max_length=MAX_TEAMS, required=False)
    setup = id_field(required=False)

    def validate(self, attrs):
        if "setup" in attrs:
            if set(attrs) != {"setup"}:
                raise serializers.ValidationError("A saved setup is given as {\"setup\": <id>} alone.")
        elif "teams" not in attrs:
            raise serializers.ValidationError({"teams": ["This field is required."]})
        return attrs


@extend_schema_field({
    "oneOf": [
        {"type": "string", "enum": list(AGENT_NAMES)},
        {"type": "array", "items": {"anyOf": [{"type": "string", "enum": list(AGENT_NAMES)}]}, "minItems": 1,
         "maxItems": len(SEATS)},
    ],
    "description": "One agent name per player (team 0 first), or one name for every seat (default greedy in a "
                   "match, softmax in a study).",
})
class AgentsField(serializers.Field):
    default_error_messages = {
        "shape": f"Give an agent name, or a list of 1 to {len(SEATS)} agent names (one per player).",
        "unknown": "Unknown agent {name!r}; known: " + ", ".join(AGENT_NAMES) + ".",
    }

    def to_internal_value(self, data):
        if isinstance(data, str):
            if data not in AGENT_NAMES:
                self.fail("unknown", name=data)
            return data
        if not isinstance(data, list) or not 1 <= len(data) <= len(SEATS):
            self.fail("shape")
        unknown = {str(i): [self.error_messages["unknown"].format(name=name)]
                   for i, name in enumerate(data) if not isinstance(name, str) or name not in AGENT_NAMES}
        if unknown:
            raise serializers.ValidationError(unknown)
        return data

    def to_representation(self, value):
        return value


class LegendsOptionsSerializer(StrictSerializer):
    max_rounds = WholeNumberField(min_value=1, max_value=MAX_ROUNDS_LIMIT, required=False,
                                  help_text=f"L12 (default {MAX_ROUNDS_DEFAULT}).")
    max_actions = WholeNumberField(min_value=1, max_value=MAX_ACTIONS_LIMIT, required=False,
                                   help_text=f"Hard cap on decisions (default {MAX_ACTIONS_DEFAULT:,}).")


class LegendsMatchInputSerializer(StrictSerializer):
    """`setup` is a setup as in `POST /api/legends/setups/validate/`, or `{"setup": <saved id>}`; without one, a
    random setup of `mode` (default teams): spirits Akin and Yulin, players with legal counters, protectors and
    defenses drawn with the match seed."""

    mode = TextChoiceField(choices=Mode.choices, required=False,
                           help_text="May be given here, in the setup, or both (then alike); without a setup, "
                                             "the mode of the random setup (default teams).")
    setup = LegendsSetupSerializer(required=False, help_text="The teams; absent: a random setup of `mode`.")
    agents = AgentsField(required=False)
    seed = seed_field(required=False, help_text="0 to 2^63 - 1; generated and returned when absent.")
    options = LegendsOptionsSerializer(required=False)


class LegendsBatchInputSerializer(BatchOptionsMixin, LegendsMatchInputSerializer):
    """A study (`kind`, default matchup) of Akin Legends matches; match i of each pairing uses seed + i. A kind
    that does not play one given setup gives the `mode` here."""

    matchup_keys = ("setup",)
    matchup_optional = True  # no setup: a random setup of `mode`, its cards drawn with each match's seed

    setup = LegendsSetupSerializer(required=False, help_text="matchup, ladder, whatif: the two teams; absent: a random "
                                                             "setup of `mode` (default teams).")
    subject = LegendsTeamSerializer(required=False, help_text="gauntlet: the team (team 0) that meets every opponent.")
    opponents = LegendsTeamSerializer(
        many=True, required=False, min_length=1, max_length=MAX_OPPONENTS,
        help_text="gauntlet: the teams it meets, one pairing each. A team sharing the subject's spirit or counters "
                  "takes those left.")
    entrants = LegendsTeamSerializer(
        many=True, required=False, max_length=MAX_ENTRANTS,
        help_text="matrix: the teams that each meet each other, sides swapped. Of two teams sharing a spirit or "
                  "counters, the later one takes those left.")
    pool = LegendsPoolSerializer(required=False,
                                 help_text="field (and a field what-if): what its random teams draw from.")
    patch = LegendsPatchSerializer(many=True, required=False, max_length=MAX_PATCH,
                                   help_text="whatif: new values of protectors or summoning cards, played in a "
                                             "sandbox copy of the catalogue.")

    def validate(self, attrs):
        """A study that does not play one given setup gives the mode its teams are played in."""
        attrs = super().validate(attrs)
        if not study_kind(attrs["kind"]).takes_matchup(attrs) and "mode" not in attrs:
            raise serializers.ValidationError({"mode": [f"A {attrs['kind']} gives the mode (teams or duel)."]})
        return attrs


# ------------------------------------------------------------------------------------ answers


class ByTeamField(serializers.ListField):
    """Figures kept by team name ("0", "1") answered as a list by team index, team 0 first."""

    def __init__(self, **kwargs):
        super().__init__(min_length=len(TEAMS), max_length=len(TEAMS), **kwargs)

    def to_representation(self, data):
        return super().to_representation([data.get(str(team), []) for team in TEAMS])


class LegendsDefenseLeftSerializer(serializers.Serializer):
    defense = serializers.CharField(help_text="Defense slug.")
    name = serializers.CharField()
    elements = serializers.ListField(child=serializers.CharField(), min_length=DEFENSE_ELEMENTS,
                                     max_length=DEFENSE_ELEMENTS)
    markers = serializers.ListField(child=serializers.CharField(), help_text="Elements marked on it so far.")


class LegendsTeamSurvivorsSerializer(serializers.Serializer):
    """Each team's standing defenses by team name ("0", "1"); the same as `remaining_defenses`."""

    def get_fields(self):
        return {str(team): LegendsDefenseLeftSerializer(many=True) for team in TEAMS}


class LegendsSeatAgentsSerializer(serializers.Serializer):
    """The agent of each seat (a duel seats t0p0 and t1p0)."""

    def get_fields(self):
        return {seat: one_of(AGENT_NAMES, required=seat.endswith("p0")) for seat in SEATS}


class LegendsPlayedOptionsSerializer(serializers.Serializer):
    max_rounds = serializers.IntegerField(min_value=1, max_value=MAX_ROUNDS_LIMIT)
    max_actions = serializers.IntegerField(min_value=1, max_value=MAX_ACTIONS_LIMIT)


class LegendsStoredSetupSerializer(serializers.Serializer):
    """The setup as given (a saved one read out); drawn cards are in the log's match_start."""

    mode = serializers.ChoiceField(choices=Mode.choices)
    teams = LegendsTeamSerializer(many=True)


class LegendsInputsSerializer(serializers.Serializer):
    """The request as given, but its seed (and a batch's count and swap_sides)."""

    mode = serializers.ChoiceField(choices=Mode.choices, required=False)
    setup = LegendsSetupSerializer(required=False, help_text="Absent for a random setup.")
    agents = AgentsField(required=False)
    options = LegendsOptionsSerializer(required=False)


class LegendsBatchInputsSerializer(LegendsInputsSerializer):
    """A study's request as given, but its seed, count, swap_sides and kind."""

    setup = LegendsSetupSerializer(required=False)
    subject = LegendsTeamSerializer(required=False)
    opponents = LegendsTeamSerializer(many=True, required=False)
    entrants = LegendsTeamSerializer(many=True, required=False)
    pool = LegendsPoolSerializer(required=False)
    patch = LegendsPatchSerializer(many=True, required=False)
    base = serializers.CharField(required=False)
    levels = serializers.ListField(child=serializers.CharField(), required=False)


class LegendsMatchSerializer(MatchResultSerializer):
    """An Akin Legends match as the API answers it."""

    game = one_of(["legends"])
    winner = serializers.SerializerMethodField()
    reason = one_of(REASONS, help_text="Why the match ended (mutual_destruction and the caps are draws).")
    survivors = LegendsTeamSurvivorsSerializer()
    remaining_defenses = ByTeamField(child=LegendsDefenseLeftSerializer(many=True), source="survivors",
                                     help_text="What is left of each team's defenses, by team index.")
    agents = LegendsSeatAgentsSerializer()
    options = LegendsPlayedOptionsSerializer(help_text="The options played, defaults filled in.")
    setup = LegendsStoredSetupSerializer()
    inputs = LegendsInputsSerializer()

    class Meta(MatchResultSerializer.Meta):
        fields = [*MatchResultSerializer.Meta.fields, "remaining_defenses"]
        read_only_fields = fields

    @extend_schema_field({"anyOf": [{"type": "integer", "enum": list(TEAMS)}], "nullable": True,
                          "description": "The winning team's index; null for a draw."})
    def get_winner(self, match: Match) -> int | None:
        return None if match.winner is None else int(match.winner)


class LegendsSummarySerializer(BatchSummarySerializer):
    wins = ByTeamField(child=serializers.IntegerField(min_value=0),
                       help_text="Wins by team index, as given in the request (swapped matches counted back).")


class LegendsBatchSerializer(BatchResultSerializer):
    """An Akin Legends batch as the API answers it."""

    game = one_of(["legends"])
    summary = serializers.SerializerMethodField()
    inputs = LegendsBatchInputsSerializer()

    @extend_schema_field(LegendsSummarySerializer)
    def get_summary(self, batch) -> dict:
        return LegendsSummarySerializer(batch_figures(batch, (str(team) for team in TEAMS))).data
