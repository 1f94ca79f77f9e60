"""What the match and study pages need of each game, and the registry of the games that have pages.

Nothing in simulate/pages knows a game. Each game app registers its `GamePages` from its `ready()`, next
to its `GameMatches`: its title, how its match form reads into the API's match request, the templates of
its parts of the match and study forms, its study inputs from the simple fields, how its report names
sides and cards, and the script that draws its replay board.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from django import forms

    from simulate.pages.choices import Choice
    from simulate.pages.match_forms import MatchForm


class MatchPages(Protocol):
    """A game app's part in the match and replay pages."""

    game: str  # the game's name, as `simulate.services.game_matches` knows it
    title: str  # the game's name as the pages show it

    # The match page.
    # (The members a game sets to its own subclass, or a tuple or a dict, are read-only here.)
    @property
    def match_form(self) -> type[MatchForm]:
        """Reads the posted form (its `fields`) into the API's match request."""

    match_form_template: str  # the game's part of the match form (its sides or setup), included by the page
    saved_name: str  # what a signed-in user saves and the form offers ("armies"), as the page names it
    winner_noun: str  # what wins a match ("side"), in the list of recent matches

    def initial_match_values(self) -> dict[str, str]:
        """The match form's fields as it first shows (every name of `match_form.fields`)."""

    def match_choices(self, user) -> dict[str, Any]:
        """What the match form's selects offer `user`: agents, sources, saved entries..."""

    def match_sections(self, values: Mapping[str, str], errors: Mapping[str, list[str]],
                       violations: Mapping[str, list[dict]]) -> dict[str, Any]:
        """The game's parts of the match form as its template shows them, each with its messages."""

    # The replay page.
    replay_board_script: str  # the static path of the script that draws the game's board for the viewer
    replay_seat_views: bool  # whether the viewer offers to show the match as one seat saw it

    def winner_label(self, winner: str | None, events: Sequence[dict]) -> str:
        """The winner of a played match as the replay page names it (not None: a draw)."""



class StudyPages(Protocol):
    """A game app's part in the study form and report: its simple fields by the parts of a study they give
    (`roles`: the matchup's sides, a subject, opponents, entrants, a pool), which the kinds read."""

    game: str
    title: str

    # The study form.
    study_form_template: str  # the game's part of the study form, included by the page
    study_agent_labels: tuple[str, str]  # the labels of the agent fields, first side first

    # (The members a game sets to a tuple or a dict of its own are read-only here.)
    @property
    def patch_fields(self) -> Sequence[str]:
        """What a what-if patch's simple field may change."""

    @property
    def study_field_roles(self) -> Mapping[str, tuple[str, ...]]:
        """The roles each of the game's simple fields gives (a study kind reads the roles in its `game_roles`); a
        field not named is read by every kind. An input filled in that the chosen kind leaves out is refused."""

    @property
    def study_choices(self) -> Sequence[Choice]:
        """The game's own choices among its simple fields (simulate.pages.choices); one `within=("role", R)`
        applies to the kind that reads role R."""

    def study_fields(self) -> dict[str, forms.Field]:
        """The game's own simple fields of the study form, by name (a new set on every call)."""

    def study_inputs(self, data: Mapping[str, Any], roles: Sequence[str], *, agents: bool,
                     seed: int | None) -> dict[str, Any]:
        """The study inputs the game's simple fields give for `roles` (random entrants drawn from `seed`): the
        sides of a `matchup`, a `subject`, `opponents`, `entrants`, a field's `pool`, and the agents when
        `agents`; InputError at the field that cannot be read."""

    # The study report.
    side_names: tuple[str, str]  # the two sides as the report names them, first side first
    card_page: str  # the URL name of a card's page, which takes its slug
    card_groups: frozenset[str]  # the field groups whose members are cards (their rows link to the card page)

    def member_names(self, group: str, slugs: Sequence[str]) -> dict[str, str]:
        """Display names of a field group's members by slug (one query); none for a group whose members are
        their own names."""


class GamePages(MatchPages, StudyPages, Protocol):
    """A game app's pages: both parts, registered together."""


GAME_PAGES: dict[str, GamePages] = {}


class UnknownGamePages(LookupError):
    """A game with no pages registered."""


def register_game_pages(pages: GamePages) -> None:
    """Give a game its match and study pages (called from the game app's `ready()`)."""
    GAME_PAGES[pages.game] = pages


def game_pages(game: str) -> GamePages:
    """The registered pages of `game`; UnknownGamePages for a game that has none."""
    pages = GAME_PAGES.get(game)
    if pages is None:
        raise UnknownGamePages(game)
    return pages


def registered_games() -> list[GamePages]:
    """Every game with pages, in the order they registered (the order of the game tabs)."""
    return list(GAME_PAGES.values())


def game_titles() -> dict[str, str]:
    """Each game's title by its name, in registration order."""
    return {pages.game: pages.title for pages in GAME_PAGES.values()}


def default_game() -> str:
    """The game a page shows when none is asked for: the first registered."""
    return next(iter(GAME_PAGES), "")


def game_title(game: str) -> str:
    """The title of `game`, or its name when it has no pages."""
    pages = GAME_PAGES.get(game)
    return pages.title if pages else game
