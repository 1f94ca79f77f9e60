"""The figures of a study as the API answers them, shared by the kinds that read them: outcomes with their
interval, by sides as given and swapped, rounds, ends, decisiveness, and a field's rows of members."""

from __future__ import annotations

from rest_framework import serializers

from simulate.api.fields import one_of


class IntervalSerializer(serializers.Serializer):
    low = serializers.FloatField()
    high = serializers.FloatField()


class OutcomeFiguresSerializer(serializers.Serializer):
    """Side a's (team 0's) wins, draws and losses, and its win rate (draws are not wins) with a 95% Wilson
    interval."""

    played = serializers.IntegerField(min_value=0, required=False)
    wins = serializers.IntegerField(min_value=0)
    draws = serializers.IntegerField(min_value=0)
    losses = serializers.IntegerField(min_value=0)
    win_rate = serializers.FloatField(min_value=0, max_value=1, allow_null=True, help_text="null before a match.")
    win_rate_ci = IntervalSerializer()


class ByFirstSerializer(serializers.Serializer):
    """Side a's outcomes split by the halves of a study that swaps sides (the key is kept from when the split
    was named for the first seat; who acted first is `by_acted_first`)."""

    a = OutcomeFiguresSerializer(help_text="The matches played with the sides as given.")
    b = OutcomeFiguresSerializer(help_text="The matches played with the two sides swapped (every second match of "
                                           "a pairing that swaps), still counted for side a.")


class StudyRoundsSerializer(serializers.Serializer):
    mean = serializers.FloatField(min_value=0, allow_null=True)
    min = serializers.IntegerField(min_value=0, allow_null=True)
    max = serializers.IntegerField(min_value=0, allow_null=True)
    histogram = serializers.DictField(child=serializers.IntegerField(min_value=0), help_text="Matches by rounds played.")


class DistinctGamesSerializer(serializers.Serializer):
    count = serializers.IntegerField(min_value=0, help_text="Distinct games among the matches (two matches are one "
                                                            "game when their first seat and whole result are).")
    exact = serializers.BooleanField(help_text="Whether `count` is exact (fewer than 64 distinct games) or an "
                                               "estimate from the 64 smallest fingerprints.")


class VarietySerializer(serializers.Serializer):
    """How varied the matches were: a policy that plays the same game every time makes every interval narrow."""

    distinct_games = DistinctGamesSerializer(required=False, allow_null=True,
                                             help_text="null for figures counted before games were.")
    one_game = serializers.BooleanField(required=False, help_text=(
        "At least 10 matches holding at most one distinct game per 10 matches: effectively one game (or a few) "
        "replayed, so the interval says how the agents play, not how the sides compare."))
    one_game_warning = serializers.CharField(required=False, allow_null=True,
                                             help_text="What a reader is told when `one_game`; null otherwise.")


class DecisivenessSerializer(serializers.Serializer):
    wins = serializers.FloatField(allow_null=True, help_text="Mean share of its starting strength (HP, or defense cards) side a kept in its wins.")
    losses = serializers.FloatField(allow_null=True, help_text="The same of side b in side a's losses.")


class ByActedFirstSerializer(serializers.Serializer):
    """Side a's outcomes split by the side whose player acted first in the match."""

    a = OutcomeFiguresSerializer(help_text="The matches in which side a (team 0) acted first.")
    b = OutcomeFiguresSerializer(help_text="The matches in which side b (team 1) acted first.")


FIRST_ACTOR_HELP = ("The outcomes of the side that acted first, whichever side it was: how much acting first is "
                    "worth; null for figures counted before it was.")


class FiguresSerializer(VarietySerializer, OutcomeFiguresSerializer):
    by_first = ByFirstSerializer()
    by_acted_first = ByActedFirstSerializer(
        required=False, allow_null=True,
        help_text="Side a's outcomes by who acted first (the game's first player, or the team whose turn comes "
                  "first); null for figures counted before it was.")
    first_actor = OutcomeFiguresSerializer(required=False, allow_null=True, help_text=FIRST_ACTOR_HELP)
    rounds = StudyRoundsSerializer()
    reasons = serializers.DictField(child=serializers.IntegerField(min_value=0), help_text="Matches by how they ended.")
    decisiveness = DecisivenessSerializer()


def group_row_serializer(key: str, what: str) -> type[serializers.Serializer]:
    """A row of a field study's group: one member (`key`) and how the armies or teams fielding it did."""
    fields = {
        key: serializers.CharField(help_text=f"The {what}."),
        "appearances": serializers.IntegerField(min_value=0, help_text="Armies (teams) that fielded it; a member of both sides of a match counts twice."),
        "wins": serializers.IntegerField(min_value=0, help_text="Wins of those armies."),
        "win_rate": serializers.FloatField(allow_null=True),
        "win_rate_ci": IntervalSerializer(),
        "without_win_rate": serializers.FloatField(allow_null=True, help_text="The win rate of the armies without it."),
        "delta": serializers.FloatField(allow_null=True, help_text="win_rate - without_win_rate."),
        "delta_ci": IntervalSerializer(help_text="Newcombe's 95% interval of the delta."),
        "flag": one_of(["over", "under"], allow_null=True, help_text="over / under where delta_ci excludes 0."),
    }
    name = "".join(part.title() for part in key.split("_"))
    return type(f"Field{name}RowSerializer", (serializers.Serializer,), fields)


FIELD_GROUPS = {  # every game's field groups: the results key, the row's key, what a row is
    "cards": ("card", "card (slug)"), "factions": ("faction", "faction (slug)"), "classes": ("class", "class"),
    "protectors": ("protector", "protector (slug)"), "defenses": ("defense", "defense card (slug)"),
    "summoning_cards": ("summoning_card", "summoning card (slug)"),
}
GROUP_ROWS = {group: group_row_serializer(key, what) for group, (key, what) in FIELD_GROUPS.items()}


def group_fields() -> dict[str, serializers.Field]:
    """A field study's rows of every game's groups, each a list ranked by delta (a new set on every call)."""
    return {group: row(many=True, required=False, help_text=f"Field study: per {FIELD_GROUPS[group][0]}, ranked by delta.")
            for group, row in GROUP_ROWS.items()}


def with_groups(name: str, base: type[serializers.Serializer]) -> type[serializers.Serializer]:
    """`base` with the rows of every group (what a field study adds)."""
    return type(name, (base,), group_fields())


INTERVAL_SCHEMA = {"type": "object", "additionalProperties": False, "required": ["low", "high"],
                   "properties": {"low": {"type": "number"}, "high": {"type": "number"}}}
DISTINCT_GAMES_SCHEMA = {"type": "object", "nullable": True, "additionalProperties": False,
                         "required": ["count", "exact"],
                         "properties": {"count": {"type": "integer", "minimum": 0}, "exact": {"type": "boolean"}}}
