"""How an Akin Legends match starts: the setup input checked (L4-L6), missing cards drawn (L6).

The setup is plain data:

    {"mode": "teams" | "duel",
     "teams": [{"spirit": "akin", "protector": <slug | protector dict | null>,
                "defenses": [<slug | defense dict>, ...] | null,
                "players": [{"name": "Ann", "counter": 1}, ...]}, ...],
     "catalogue": <see legends.engine.cards>}

A protector or defenses left null are drawn with the match generator (L6, G1), never a card
already in the match and, in a duel, never a protector that only teams mode can run; each draw
is recorded with the pool it was drawn from (`MatchStart.drawn`, logged in `match_start`). Player
ids are "t<team>p<index>" in the order the setup lists them ("t0p0", "t0p1", "t1p0", "t1p1";
a duel has "t0p0" and "t1p0"). Structure and legality are checked by `legends.engine.setup`
(the same validator the setup API uses); every problem is reported at once in a SetupError.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from legends.engine.cards import (
    Catalogue,
    DefenseCard,
    ProtectorCard,
    parse_catalogue,
    parse_defense,
    parse_protector,
)
from legends.engine.setup import SetupCatalogue, SetupFormatError, Team, parse_teams, validate_setup
from legends.engine.vocabulary import HAND_SIZE, MODES, TEAMS, ModeRules
from simulate.engine.checking import Checker
from simulate.engine.errors import SetupError

SETUP_KEYS: Final = ("mode", "teams", "catalogue")


def player_id(team: int, index: int) -> str:
    """The id of a team's index-th player: 't0p0', 't0p1', 't1p0', ..."""
    return f"t{team}p{index}"


@dataclass(frozen=True)
class SeatStart:
    """A player at the start: id, team, name and turn counter."""

    pid: str
    team: int
    name: str
    counter: int


@dataclass(frozen=True)
class TeamStart:
    """A team at the start: its spirit, protector, defense cards and players."""

    index: int
    spirit: str
    protector: ProtectorCard
    defenses: tuple[DefenseCard, ...]
    players: tuple[SeatStart, ...]


@dataclass(frozen=True)
class MatchStart:
    """A legal, complete setup: every card chosen, ready to deal."""

    mode: str
    rules: ModeRules
    catalogue: Catalogue
    teams: tuple[TeamStart, ...]
    drawn: tuple[dict[str, Any], ...]

    @property
    def players(self) -> tuple[SeatStart, ...]:
        """Every player, team 0 first, in setup order."""
        return tuple(p for t in self.teams for p in t.players)


def _fail(message: str, errors: list[tuple[str, str]]) -> SetupError:
    """A SetupError: `message`, then every (path, reason) behind it."""
    detail = "; ".join(f"{path}: {reason}" for path, reason in errors)
    return SetupError(f"{message}: {detail}" if detail else message, errors)


def _cannot_be_played(errors: list[tuple[str, str]]) -> SetupError:
    """The setup's fields or cards are wrong: every problem at once."""
    return _fail("The setup cannot be played", errors)


def normalize_setup(setup: Any, rng: random.Random) -> MatchStart:
    """A complete MatchStart from the setup input; cards not given are drawn from `rng` (L6)."""
    if isinstance(setup, MatchStart):
        return setup
    if not isinstance(setup, Mapping):
        raise SetupError("A setup is an object with mode, teams and catalogue.", [("setup", "type")])
    check = Checker()
    mode, catalogue, raw_teams = _setup_fields(check, setup)
    plain, extra_protectors, extra_defenses = _cards_given(check, raw_teams, catalogue)
    check.raise_if_failed(_cannot_be_played)
    try:
        teams = parse_teams(plain)
    except SetupFormatError as exc:
        raise _fail("The setup is not well formed", exc.errors) from exc
    protectors = {**catalogue.protectors, **extra_protectors}
    defenses = {**catalogue.defenses, **extra_defenses}
    _check_spirits_known(teams, catalogue.spirits)
    _check_rules(mode, teams, catalogue.spirits, protectors, defenses)
    rules = MODES[mode]
    built, drawn = _seat_teams(mode, teams, protectors, defenses, rng)
    _check_deck(catalogue, rules)
    return MatchStart(mode=mode, rules=rules, catalogue=catalogue, teams=tuple(built), drawn=tuple(drawn))


def _setup_fields(check: Checker, setup: Mapping[Any, Any]) -> tuple[str, Catalogue, list[Any]]:
    """The setup's mode, parsed catalogue and raw teams; SetupError listing what is wrong with them."""
    for key in sorted(set(setup) - set(SETUP_KEYS), key=str):
        check.fail(str(key), f"is not a setup field (known: {', '.join(SETUP_KEYS)})")
    mode = setup.get("mode")
    if mode not in MODES:
        check.fail("mode", f"must be one of {', '.join(MODES)} (got {mode!r})")
    try:
        catalogue = parse_catalogue(setup.get("catalogue"))
    except SetupError as exc:  # nothing further can be checked without the cards
        check.extend(exc.errors)
        raise _cannot_be_played(check.errors) from exc
    raw_teams = setup.get("teams")
    if not isinstance(raw_teams, list):
        check.fail("teams", "must be a list of teams")
        raw_teams = []
    check.raise_if_failed(_cannot_be_played)
    return str(mode), catalogue, raw_teams


def _card_slug(check: Checker, value: Any, kind: str, path: str, extra: dict[str, Any], catalogue: Catalogue) -> Any:
    """A slug from a slug or a card dict; a dict not in the catalogue is added to the match's cards."""
    if not isinstance(value, Mapping):
        return value
    slug = value.get("slug")
    if not isinstance(slug, str) or not slug:
        check.fail(f"{path}.slug", "is required (a non-empty string)")
        return None
    known = catalogue.protectors if kind == "protector" else catalogue.defenses
    if slug not in known and slug not in extra:
        card = (
            parse_protector(value, path, check, catalogue.elements)
            if kind == "protector"
            else parse_defense(value, path, check)
        )
        if card is not None:
            extra[slug] = card
    return slug


def _cards_given(
    check: Checker, raw_teams: list[Any], catalogue: Catalogue
) -> tuple[list[Any], dict[str, ProtectorCard], dict[str, DefenseCard]]:
    """The teams with every card given as a dict named by its slug, and the cards the dicts add to the match."""
    extra_protectors: dict[str, ProtectorCard] = {}
    extra_defenses: dict[str, DefenseCard] = {}
    plain: list[Any] = []
    for t, team in enumerate(raw_teams):
        if not isinstance(team, Mapping):
            plain.append(team)  # parse_teams names what is wrong with it
            continue
        copy = dict(team)
        if "protector" in copy:
            copy["protector"] = _card_slug(check, copy["protector"], "protector", f"teams[{t}].protector",
                                           extra_protectors, catalogue)
        if isinstance(copy.get("defenses"), list):
            copy["defenses"] = [
                _card_slug(check, d, "defense", f"teams[{t}].defenses[{i}]", extra_defenses, catalogue)
                for i, d in enumerate(copy["defenses"])
            ]
        plain.append(copy)
    return plain, extra_protectors, extra_defenses


def _check_spirits_known(teams: Sequence[Team], spirits: Sequence[str]) -> None:
    """Every spirit a team names is one of the catalogue's (its own, or the rulebook's Akin and Yulin: L5)."""
    check = Checker()
    for t, team in enumerate(teams):
        if team.spirit is not None and team.spirit not in spirits:
            check.fail(f"teams[{t}].spirit",
                       f"{team.spirit!r} is not a spirit card of the catalogue (known: {', '.join(spirits)})")
    check.raise_if_failed(lambda errors: _fail("The setup names spirits the catalogue does not have", errors))


def _check_rules(
    mode: str, teams: Sequence[Team], spirits: Sequence[str], protectors: Mapping[str, ProtectorCard],
    defenses: Mapping[str, DefenseCard],
) -> None:
    """The setup validator's rules (L4-L6, L13), as the setup API applies them; SetupError with every violation."""
    report = validate_setup(
        mode,
        teams,
        SetupCatalogue(
            spirits=frozenset(spirits),
            protectors={slug: card.duel_legal for slug, card in protectors.items()},
            defenses=frozenset(defenses),
        ),
    )
    if report.violations:
        raise SetupError(
            "The setup breaks the rules: " + " ".join(v["message"] for v in report.violations),
            [(v["code"], v["message"]) for v in report.violations],
        )


def _seat_teams(
    mode: str, teams: Sequence[Team], protectors: Mapping[str, ProtectorCard], defenses: Mapping[str, DefenseCard],
    rng: random.Random,
) -> tuple[list[TeamStart], list[dict[str, Any]]]:
    """Each team with its cards, those not given drawn (L6) team by team, and the record of every draw."""
    used_protectors = {t.protector for t in teams if t.protector is not None}
    used_defenses = {d for t in teams for d in (t.defenses or ())}
    drawn: list[dict[str, Any]] = []
    built: list[TeamStart] = []
    for index, team in enumerate(teams):
        protector_slug = team.protector
        if protector_slug is None:
            protector_slug = _draw_protector(mode, index, protectors, used_protectors, drawn, rng)
        defense_slugs = list(team.defenses) if team.defenses is not None else None
        if defense_slugs is None:
            defense_slugs = _draw_defenses(MODES[mode], index, defenses, used_defenses, drawn, rng)
        built.append(TeamStart(
            index=index,
            spirit=team.spirit or "",
            protector=protectors[protector_slug],
            defenses=tuple(defenses[slug] for slug in defense_slugs),
            players=tuple(
                SeatStart(pid=player_id(index, i), team=index, name=p.name, counter=p.counter)
                for i, p in enumerate(team.players)
            ),
        ))
    return built, drawn


def _draw_protector(
    mode: str, index: int, protectors: Mapping[str, ProtectorCard], used: set[str], drawn: list[dict[str, Any]],
    rng: random.Random,
) -> str:
    """L6: a protector for team `index` from those no team has, duel-legal in a duel (L13); the draw recorded."""
    pool = [slug for slug, card in protectors.items() if slug not in used and (mode == TEAMS or card.duel_legal)]
    if not pool:
        raise SetupError(f"No protector is left to draw for team {index}.", [(f"teams[{index}].protector", "draw")])
    slug = pool[rng.randrange(len(pool))]
    used.add(slug)
    drawn.append({"team": index, "kind": "protector", "cards": [slug], "pool": pool})
    return slug


def _draw_defenses(
    rules: ModeRules, index: int, defenses: Mapping[str, DefenseCard], used: set[str], drawn: list[dict[str, Any]],
    rng: random.Random,
) -> list[str]:
    """L6: the mode's number of defense cards for team `index` from those not in the match; the draw recorded."""
    pool = [slug for slug in defenses if slug not in used]
    if len(pool) < rules.defenses_per_team:
        raise SetupError(
            f"Only {len(pool)} defense cards are left to draw for team {index}.",
            [(f"teams[{index}].defenses", "draw")],
        )
    slugs = rng.sample(pool, rules.defenses_per_team)
    used.update(slugs)
    drawn.append({"team": index, "kind": "defense", "cards": list(slugs), "pool": pool})
    return slugs


def _check_deck(catalogue: Catalogue, rules: ModeRules) -> None:
    """L5: the summoning deck holds a full hand for every player."""
    deck_size = len(catalogue.cards)
    players = rules.players
    if deck_size < players * HAND_SIZE:
        raise SetupError(
            f"The summoning deck holds {deck_size} cards; {players} hands of {HAND_SIZE} need at least "
            f"{players * HAND_SIZE}.",
            [("catalogue.deck", "too small")],
        )


def setup_players(setup: Any) -> list[str]:
    """The player ids a setup seats, without validating the rest: 't0p0', 't0p1', 't1p0', ..."""
    if isinstance(setup, MatchStart):
        return [p.pid for p in setup.players]
    ids: list[str] = []
    teams = setup.get("teams") if isinstance(setup, Mapping) else None
    if isinstance(teams, Sequence) and not isinstance(teams, (str, bytes)):
        for t, team in enumerate(teams):
            players = team.get("players") if isinstance(team, Mapping) else None
            if isinstance(players, Sequence) and not isinstance(players, (str, bytes)):
                ids.extend(player_id(t, i) for i in range(len(players)))
    return ids
