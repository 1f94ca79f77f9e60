"""Rules that span several Akin Legends objects: team setup legality (L4-L6, L13)."""

from collections.abc import Sequence

from legends import selectors
from legends.engine.setup import SetupCatalogue, Team, validate_setup


def setup_validate(*, mode: str, teams: Sequence[Team], catalogue: SetupCatalogue | None = None) -> dict:
    """Check a team setup against the catalogue: `valid`, every violation, and what is left to draw.

    Pass `catalogue` (a selectors.setup_catalogue() snapshot) to check many setups with one read.
    """
    report = validate_setup(mode, teams, catalogue or selectors.setup_catalogue())
    return {
        "valid": report.valid,
        "violations": list(report.violations),
        "to_draw": list(report.to_draw),
    }
