"""Rules that span several Akin Legends objects: team setup legality (L4-L6, L13)."""

from collections.abc import Sequence

from legends import selectors, setup_codes
from legends.engine.setup import SetupCatalogue, Team, validate_setup


def setup_validate(*, mode: str, teams: Sequence[Team], catalogue: SetupCatalogue | None = None,
                   card_codes: dict[str, str] | None = None) -> dict:
    """Check a team setup against the catalogue: `valid`, every violation, and what is left to draw.

    Pass `catalogue` (a selectors.setup_catalogue() snapshot) to check many setups with one read.
    """
    report = validate_setup(mode, teams, catalogue or selectors.setup_catalogue())
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
