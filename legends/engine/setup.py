"""Team setup: its structure (parse_teams) and its legality under rulings L4-L6 and L13 (validate_setup).

A setup is a mode ("teams" or "duel") and a list of teams, each
    {"spirit": "<slug>", "protector": "<slug>", "defenses": ["<slug>", ...],
     "players": [{"name": "...", "counter": 1}, ...]}
`protector` and `defenses` may be omitted (or null): they are then drawn at match time (L6)
and reported in `to_draw`. Structural problems raise SetupFormatError; rule problems are
returned, every one of them, as violations with a stable code and their place.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from legends.engine.vocabulary import DUEL, MODES, TEAM_COUNT, ModeRules
from simulate.engine.checking import Checker
from simulate.engine.errors import SetupError

MAX_TEAMS: Final = 8
MAX_PLAYERS: Final = 8
MAX_DEFENSES: Final = 10
MAX_NAME: Final = 60
MAX_SLUG: Final = 140

# The violation codes, each with the ruling it applies (docs/legends-catalogue.md lists them).
CODES = {
    "team_count": "L5",
    "player_count": "L5",
    "spirit_missing": "L5",
    "spirit_duplicate": "L5",
    "protector_duplicate": "L4",
    "protector_not_allowed": "L4, L13",
    "defense_count": "L5",
    "defense_duplicate": "L5",
    "unknown_card": "L1-L5",
    "counter_invalid": "L5",
    "counter_adjacent": "L5, L7, L11",
}


# One violation of a setup rule: code, message, and where it applies (team, player, card).
Violation = dict[str, Any]


class SetupFormatError(SetupError):
    """A setup that is not shaped as the spec says; `errors` lists (path, reason) pairs."""

    def __init__(self, errors: list[tuple[str, str]]) -> None:
        """Every (path, reason) pair, joined as the message."""
        super().__init__("; ".join(f"{path}: {reason}" for path, reason in errors), errors)


@dataclass(frozen=True)
class Player:
    """One player as given: a name and a turn counter."""

    name: str
    counter: int


@dataclass(frozen=True)
class Team:
    """One team as given: None for a protector or defenses to be drawn at match time."""

    spirit: str | None
    players: tuple[Player, ...]
    protector: str | None = None
    defenses: tuple[str, ...] | None = None


@dataclass(frozen=True)
class SetupCatalogue:
    """The card slugs a setup may name, by kind; protectors map to whether a duel allows them."""

    spirits: frozenset[str]
    protectors: Mapping[str, bool]
    defenses: frozenset[str]


@dataclass(frozen=True)
class SetupReport:
    """What the validator found: every violation, and the cards left to draw at match time."""

    violations: tuple[Violation, ...]
    to_draw: tuple[dict[str, Any], ...]

    @property
    def valid(self) -> bool:
        """Whether the setup breaks no rule."""
        return not self.violations


TEAM_KEYS = frozenset({"spirit", "protector", "defenses", "players"})
PLAYER_KEYS = frozenset({"name", "counter"})


def _slug(check: Checker, value: Any, path: str) -> str | None:
    """A card slug, or None (noted) when it is not one."""
    if not isinstance(value, str) or not value.strip():
        check.fail(path, "must be a card slug (a non-empty string)")
        return None
    if len(value) > MAX_SLUG:
        check.fail(path, f"must be at most {MAX_SLUG} characters")
        return None
    return value


def _optional_slug(check: Checker, data: dict[str, Any], key: str, path: str) -> str | None:
    """The slug at `key`, None when absent."""
    value = data.get(key)
    return None if value is None else _slug(check, value, f"{path}.{key}")


def _name(check: Checker, value: Any, path: str) -> str | None:
    """A player's name: a non-empty string of at most MAX_NAME characters, stripped."""
    if not isinstance(value, str) or not value.strip():
        check.fail(path, "is required (a non-empty string)")
        return None
    if len(value) > MAX_NAME:
        check.fail(path, f"must be at most {MAX_NAME} characters")
        return None
    return value.strip()


def _counter(check: Checker, value: Any, path: str) -> int | None:
    """A turn counter: an integer (its range is a rule of the mode, checked by `validate_setup`)."""
    if value is None:
        check.fail(path, "is required")
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        check.fail(path, "must be an integer")
        return None
    return value


def _player(check: Checker, raw: Any, path: str) -> Player | None:
    """One player, or None (noted)."""
    data = check.obj(raw, path)
    if data is None:
        return None
    check.unknown_keys(data, PLAYER_KEYS, path)
    name = _name(check, data.get("name"), f"{path}.name")
    counter = _counter(check, data.get("counter"), f"{path}.counter")
    if name is None or counter is None:
        return None
    return Player(name=name, counter=counter)


def _defenses(check: Checker, items: Any, path: str) -> tuple[str, ...] | None:
    """A team's defense card slugs, or None (noted) when they are not a list of at most MAX_DEFENSES."""
    if not isinstance(items, list):
        check.fail(path, "must be a list of card slugs (or null to draw them)")
        return None
    if len(items) > MAX_DEFENSES:
        check.fail(path, f"must hold at most {MAX_DEFENSES} cards")
        return None
    slugs = [_slug(check, item, f"{path}[{i}]") for i, item in enumerate(items)]
    return tuple(slug for slug in slugs if slug is not None)


def _players(check: Checker, items: Any, path: str) -> tuple[Player, ...]:
    """A team's players (required, a list of at most MAX_PLAYERS), those that are well formed."""
    if items is None:
        check.fail(path, "is required")
        return ()
    if not isinstance(items, list):
        check.fail(path, "must be a list")
        return ()
    if len(items) > MAX_PLAYERS:
        check.fail(path, f"must hold at most {MAX_PLAYERS} players")
        return ()
    parsed = [_player(check, item, f"{path}[{i}]") for i, item in enumerate(items)]
    return tuple(player for player in parsed if player is not None)


def _team(check: Checker, raw: Any, path: str) -> Team | None:
    """One team, or None (noted) when one of its fields is wrong."""
    data = check.obj(raw, path)
    if data is None:
        return None
    check.unknown_keys(data, TEAM_KEYS, path)
    mark = check.mark()
    spirit = _optional_slug(check, data, "spirit", path)
    protector = _optional_slug(check, data, "protector", path)
    raw_defenses = data.get("defenses")
    defenses = None if raw_defenses is None else _defenses(check, raw_defenses, f"{path}.defenses")
    players = _players(check, data.get("players"), f"{path}.players")
    if check.failed_since(mark):
        return None
    return Team(spirit=spirit, players=players, protector=protector, defenses=defenses)


def parse_teams(raw: Any, path: str = "teams") -> tuple[Team, ...]:
    """Check the structure of a setup's teams and return them frozen; raise SetupFormatError with every problem."""
    if not isinstance(raw, list):
        raise SetupFormatError([(path, "must be a list of teams")])
    if len(raw) > MAX_TEAMS:
        raise SetupFormatError([(path, f"must hold at most {MAX_TEAMS} teams")])
    check = Checker()
    teams = [_team(check, item, f"{path}[{i}]") for i, item in enumerate(raw)]
    check.raise_if_failed(SetupFormatError)
    return tuple(team for team in teams if team is not None)


def team_as_dict(team: Team) -> dict[str, Any]:
    """The JSON form of a team (omitted cards stay null)."""
    return {
        "spirit": team.spirit,
        "protector": team.protector,
        "defenses": None if team.defenses is None else list(team.defenses),
        "players": [{"name": p.name, "counter": p.counter} for p in team.players],
    }


def _count(count: int, noun: str) -> str:
    """`count` things in words: "1 player", "3 players"."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _violation(code: str, message: str, team: int | None = None, player: int | None = None,
               card: str | None = None) -> Violation:
    return {"code": code, "message": message, "team": team, "player": player, "card": card}


def _check_spirits(teams: Sequence[Team], catalogue: SetupCatalogue, out: list[Violation]) -> None:
    holders: dict[str, int] = {}
    for index, team in enumerate(teams):
        if team.spirit is None:
            out.append(_violation("spirit_missing", f"Team {index} has no spirit card (Akin or Yulin).", index))
        elif team.spirit not in catalogue.spirits:
            out.append(_violation("unknown_card", f"{team.spirit!r} is not a spirit card.", index, card=team.spirit))
        elif team.spirit in holders:
            out.append(_violation(
                "spirit_duplicate",
                f"Team {index} takes the spirit {team.spirit!r}, already taken by team {holders[team.spirit]}; "
                "the two teams protect different spirits.",
                index, card=team.spirit,
            ))
        else:
            holders[team.spirit] = index


def _check_protectors(mode: str, teams: Sequence[Team], catalogue: SetupCatalogue, out: list[Violation]) -> None:
    holders: dict[str, int] = {}
    for index, team in enumerate(teams):
        slug = team.protector
        if slug is None:
            continue
        if slug not in catalogue.protectors:
            out.append(_violation("unknown_card", f"{slug!r} is not a protector card.", index, card=slug))
            continue
        if mode == DUEL and not catalogue.protectors[slug]:
            out.append(_violation(
                "protector_not_allowed", f"The protector {slug!r} is removed from the two-player variant.",
                index, card=slug,
            ))
        if slug in holders:
            out.append(_violation(
                "protector_duplicate",
                f"Team {index} takes the protector {slug!r}, already taken by team {holders[slug]}; "
                "protectors are unique.",
                index, card=slug,
            ))
        else:
            holders[slug] = index


def _check_defenses(rules: ModeRules, teams: Sequence[Team], catalogue: SetupCatalogue, out: list[Violation]) -> None:
    holders: dict[str, int] = {}
    for index, team in enumerate(teams):
        if team.defenses is None:
            continue
        if len(team.defenses) != rules.defenses_per_team:
            out.append(_violation(
                "defense_count",
                f"Team {index} has {_count(len(team.defenses), 'defense card')}; each team has "
                f"exactly {rules.defenses_per_team} (or none given, to draw them).",
                index,
            ))
        for slug in team.defenses:
            if slug not in catalogue.defenses:
                out.append(_violation("unknown_card", f"{slug!r} is not a defense card.", index, card=slug))
            elif slug in holders:
                where = "this team" if holders[slug] == index else f"team {holders[slug]}"
                out.append(_violation(
                    "defense_duplicate",
                    f"The defense {slug!r} is already used by {where}; no card is used twice in a match.",
                    index, card=slug,
                ))
            else:
                holders[slug] = index


def _check_players(rules: ModeRules, teams: Sequence[Team], out: list[Violation]) -> None:
    for index, team in enumerate(teams):
        if len(team.players) != rules.players_per_team:
            out.append(_violation(
                "player_count",
                f"Team {index} has {_count(len(team.players), 'player')}; each team has {rules.players_per_team}.",
                index,
            ))


def _check_counters(rules: ModeRules, teams: Sequence[Team], out: list[Violation]) -> None:
    holders: dict[int, tuple[int, int]] = {}
    valid_counters: dict[int, list[int]] = {}
    for t, team in enumerate(teams):
        for p, player in enumerate(team.players):
            counter = player.counter
            if not 1 <= counter <= rules.counters:
                out.append(_violation(
                    "counter_invalid",
                    f"{player.name} holds counter {counter}; the counters are numbered 1 to {rules.counters}.",
                    t, p,
                ))
            elif counter in holders:
                other_team, other_player = holders[counter]
                other = teams[other_team].players[other_player].name
                out.append(_violation(
                    "counter_invalid",
                    f"{player.name} holds counter {counter}, already held by {other}; "
                    f"the counters 1 to {rules.counters} go one to each player.",
                    t, p,
                ))
            else:
                holders[counter] = (t, p)
                valid_counters.setdefault(t, []).append(counter)
    # Counters run 1..N then wrap to 1 again (L7, L11), so in teams mode teammates alternate
    # exactly when their counters have the same parity (1 and 3, or 2 and 4).
    if rules.players_per_team == 1:  # a team of one has no teammate to alternate with
        return
    for t, team in enumerate(teams):
        counters = valid_counters.get(t, [])
        if len(team.players) != rules.players_per_team or len(counters) != len(team.players):
            continue
        if len({counter % TEAM_COUNT for counter in counters}) > 1:
            names = " and ".join(player.name for player in team.players)
            shown = " and ".join(str(counter) for counter in counters)
            out.append(_violation(
                "counter_adjacent",
                f"Teammates {names} hold counters {shown}, so they play one after the other; "
                "give a team 1 and 3, or 2 and 4.",
                t,
            ))


def validate_setup(mode: str, teams: Sequence[Team], catalogue: SetupCatalogue) -> SetupReport:
    """Check a setup against rulings L4-L6 and L13; return every violation and the cards left to draw."""
    if mode not in MODES:
        raise SetupFormatError([("mode", f"must be one of {', '.join(MODES)} (got {mode!r})")])
    rules = MODES[mode]
    violations: list[Violation] = []
    if len(teams) != rules.teams:
        violations.append(_violation(
            "team_count", f"A setup has exactly {rules.teams} teams (got {len(teams)}).",
        ))
    _check_players(rules, teams, violations)
    _check_spirits(teams, catalogue, violations)
    _check_protectors(mode, teams, catalogue, violations)
    _check_defenses(rules, teams, catalogue, violations)
    _check_counters(rules, teams, violations)

    to_draw: list[dict[str, Any]] = []
    for index, team in enumerate(teams):
        if team.protector is None:
            to_draw.append({"team": index, "kind": "protector", "count": 1})
        if team.defenses is None:
            to_draw.append({"team": index, "kind": "defense", "count": rules.defenses_per_team})
    return SetupReport(violations=tuple(violations), to_draw=tuple(to_draw))
