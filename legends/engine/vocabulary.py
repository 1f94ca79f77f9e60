"""Akin Legends rule constants, in one place: the models, choices, validators and engine import them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

TEAMS: Final = "teams"  # L5: 2 teams of 2 players
DUEL: Final = "duel"  # L5: the two-player variant

TEAM_COUNT: Final = 2  # L5: two teams in every mode
HAND_SIZE: Final = 7  # L5: the cards each player is dealt
REDRAW_SIZE: Final = 3  # L8: the cards a redraw discards and draws (a redraw_size protector raises it)
DUEL_DRAW: Final = 1  # L8: the cards a duel player draws after playing one
MAX_ROUNDS_DEFAULT: Final = 30  # L12: reached without a winner, the match is a draw
MAX_ROUNDS_LIMIT: Final = 200
MAX_ACTIONS_DEFAULT: Final = 5_000  # the hard cap on decisions of a match (a draw)
MAX_ACTIONS_LIMIT: Final = 100_000
MAX_COPIES: Final = 12  # the copies of one summoning card design a deck may hold
DEFENSE_ELEMENTS: Final = 2  # L2: a defense card requires two different elements; destroyed when both lie on it
ATTACK_ELEMENTS: Final = 2  # L3: a summoning card's attack elements (they may be equal)
FACE_UP_PASSES: Final = 1  # L7: a player's first card of a round is played face up, the next ones face down

# The seats, team 0 first: the core runner seats agents by these ids (a duel uses t0p0 and t1p0 only).
PLAYER_IDS: Final = ("t0p0", "t0p1", "t1p0", "t1p1")

# L3: the special effect of a summoning card.
DEFENSE: Final = "defense"
HEALING: Final = "healing"
BOOST: Final = "boost"
EFFECT_KINDS: Final = (DEFENSE, HEALING, BOOST)

# The actions of a decision. L8: a card is played as an attack with one of its elements or as its
# special effect, or the turn is a redraw; L9 step 1: the marker a heal removes; L9 step 4 and L10: the
# markers a team places.
ATTACK: Final = "attack"
EFFECT: Final = "effect"
REDRAW: Final = "redraw"
HEAL: Final = "heal"
ALLOCATE: Final = "allocate"

ANY_ELEMENT: Final = "any"  # a protector parameter that applies to every element

# Where a heal, a boost or a cancellation comes from: a summoning card, or the team's protector.
VIA_CARD: Final = "card"
VIA_PROTECTOR: Final = "protector"

# L5: each team takes the Akin card or the Yulin card. A catalogue that lists no spirits has these two.
DEFAULT_SPIRITS: Final = (("akin", "Akin"), ("yulin", "Yulin"))
MIN_SPIRITS: Final = 2  # two teams protect two different spirits

# The hooks of a round (rulings L7-L11) at which a protector effect may run, in round order.
HOOKS: Final = (
    "round_start",  # before the first turns (L7)
    "redraw",  # whenever a player of the team redraws instead of playing (L8)
    "before_second_turns",  # teams mode: after every first turn, before the face-down turns (L7, L13)
    "showdown_healing",  # showdown step 1 (L9)
    "showdown_boosts",  # showdown step 2 (L9)
    "showdown_defenses",  # showdown step 3 (L9)
    "round_end",  # after the counters are handed on (L11)
)
# No hook at allocation (L9 step 4): the cap is absolute, and where markers go is the team's decision.


@dataclass(frozen=True)
class ModeRules:
    """The numbers a mode fixes (L5, L7)."""

    teams: int
    players_per_team: int
    defenses_per_team: int
    passes: int  # the cards each player plays a round (L7)

    @property
    def players(self) -> int:
        """Players in a match: four in teams mode, two in a duel."""
        return self.teams * self.players_per_team

    @property
    def counters(self) -> int:
        """Turn counters in play, one a player (L5): numbered 1..counters."""
        return self.players

    def seat_counter(self, team: int, index: int) -> int:
        """A legal counter for a team's index-th player (L5): teams alternate, so team 0 holds 1 and 3, team 1
        holds 2 and 4 (a duel: 1 and 2)."""
        return team + index * self.teams + 1


MODES: Final[dict[str, ModeRules]] = {
    TEAMS: ModeRules(teams=TEAM_COUNT, players_per_team=2, defenses_per_team=3, passes=2),
    DUEL: ModeRules(teams=TEAM_COUNT, players_per_team=1, defenses_per_team=2, passes=3),
}
# The most defense cards a team has in any mode (3, in teams mode).
MAX_TEAM_DEFENSES: Final = max(rules.defenses_per_team for rules in MODES.values())
# The numbers of players a match seats, by mode (4 and 2).
SEAT_COUNTS: Final = frozenset(rules.players for rules in MODES.values())
