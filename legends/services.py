"""Rules that span several Akin Legends objects: team setup legality (L4-L6, L13)."""

from collections.abc import Sequence
from typing import NamedTuple

from cardsdb.models import Release
from legends import selectors, setup_codes
from legends.engine.setup import SetupCatalogue, Team, validate_setup


def setup_validate(*, mode: str, teams: Sequence[Team], catalogue: SetupCatalogue | None = None,
                   card_codes: dict[str, str] | None = None, release: Release | None = None) -> dict:
    """Check a team setup against the catalogue: `valid`, every violation, and what is left to draw.

    Pass `catalogue` (a selectors.setup_catalogue() snapshot) to check many setups with one read, or `release`
    to check against the cards as that release froze them.
    """
    report = validate_setup(mode, teams, catalogue or selectors.setup_catalogue(release))
    return {
        "valid": report.valid,
        "violations": list(report.violations),
        "to_draw": list(report.to_draw),
        "code": setup_codes.encode_setup(mode, teams, card_codes),
    }


def setup_from_code(code: str) -> dict:
    """The setup a code stands for (`mode`, `teams`) and its canonical code; SetupCodeError when it is not one."""
    mode, teams = setup_codes.decode_setup(code)
    return {"version": setup_codes.SETUP_CODE_VERSION, "mode": mode, "teams": setup_codes.teams_as_dicts(teams),
            "code": setup_codes.encode_setup(mode, teams)}


class UnknownCards(ValueError):
    """Cards a setup names that the catalogue does not hold as that kind, by dotted path (`teams.0.spirit`)."""

    def __init__(self, unknown: dict[str, str]):
        super().__init__(f"No such card {', '.join(repr(slug) for slug in unknown.values())}.")
        self.unknown = unknown


def setup_export_teams(teams: Sequence[Team]) -> list[dict]:
    """Each team with its spirit, protector and defenses as catalogue rows (what the card APIs show), in the
    setup's order; None where the setup leaves a card to draw. UnknownCards names every card that is not one."""
    rows = _setup_rows(teams)
    unknown = _unknown_cards(teams, rows)
    if unknown:
        raise UnknownCards(unknown)
    return [_team_export(team, rows) for team in teams]


class _SetupRows(NamedTuple):
    """The catalogue rows of the cards a setup names, by slug and kind."""

    spirits: dict
    protectors: dict
    defenses: dict


def _setup_rows(teams: Sequence[Team]) -> _SetupRows:
    """The rows of every spirit, protector and defense the teams name: one query a kind."""
    return _SetupRows(
        spirits={c.slug: c for c in selectors.spirit_list().filter(slug__in={t.spirit for t in teams if t.spirit})},
        protectors={c.slug: c for c in selectors.protector_list().filter(
            slug__in={t.protector for t in teams if t.protector})},
        defenses={c.slug: c for c in selectors.defense_list().filter(
            slug__in={d for t in teams for d in (t.defenses or ())})},
    )


def _unknown_cards(teams: Sequence[Team], rows: _SetupRows) -> dict[str, str]:
    """Each named card the catalogue does not hold as that kind, by dotted path (`teams.0.spirit`), in setup order."""
    unknown: dict[str, str] = {}
    for i, team in enumerate(teams):
        if team.spirit and team.spirit not in rows.spirits:
            unknown[f"teams.{i}.spirit"] = team.spirit
        if team.protector and team.protector not in rows.protectors:
            unknown[f"teams.{i}.protector"] = team.protector
        for j, slug in enumerate(team.defenses or ()):
            if slug not in rows.defenses:
                unknown[f"teams.{i}.defenses.{j}"] = slug
    return unknown


def _team_export(team: Team, rows: _SetupRows) -> dict:
    """One team with its cards as rows (None where the setup leaves a card to draw)."""
    return {
        "spirit": rows.spirits.get(team.spirit) if team.spirit else None,
        "players": [{"name": p.name, "counter": p.counter} for p in team.players],
        "protector": rows.protectors.get(team.protector) if team.protector else None,
        "defenses": None if team.defenses is None else [rows.defenses.get(d) for d in team.defenses],
    }
