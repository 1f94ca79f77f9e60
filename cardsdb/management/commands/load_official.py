"""`manage.py load_official [FIXTURE ...]`: add the official rows that are missing; never change a row."""

from django.core.management.base import BaseCommand, CommandError
from django.db import DEFAULT_DB_ALIAS

from cardsdb import services


class Command(BaseCommand):
    help = (
        "Load the official sets: create every official row that is missing, in one transaction, and leave "
        "every existing row as it is (staff edits, uploaded art). Running it again changes nothing. "
        "A new release is brought in by update_official."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "fixtures", nargs="*", metavar="FIXTURE",
            help="Fixture files (default: " + ", ".join(f"fixtures/{n}" for n in services.OFFICIAL_FIXTURE_NAMES) + ").",
        )
        parser.add_argument("--database", default=DEFAULT_DB_ALIAS, help="Database alias (default: default).")

    def handle(self, *args, **opts):
        """Load the missing official rows; list every row at verbosity 2; say what was done."""
        try:
            plan = services.official_load(paths=opts["fixtures"] or None, using=opts["database"])
        except services.OfficialFixtureError as exc:
            raise CommandError(str(exc)) from exc
        if opts["verbosity"] >= 2:
            for line in services.describe_official_plan(plan):
                self.stdout.write(line)
        if opts["verbosity"] >= 1:
            for line in load_summary(plan):
                self.stdout.write(line)


def load_summary(plan: services.OfficialPlan) -> list[str]:
    """What a load did, in a sentence (and a note when rows differ from the release)."""
    created = plan.count(services.CREATE)
    deleted = plan.count(services.CONFLICT)
    held = plan.count(services.HELD)
    present = [p for p in plan.rows if p.action == services.UNCHANGED]
    adopted = [p for p in present if p.record is None]
    differing = [p for p in adopted if p.reason]
    summary = f"Official sets: {created} rows created, {len(present)} already present and left as they are"
    if adopted:
        summary += f" ({len(adopted)} recorded as official now"
        summary += f", {len(differing)} of them differing from the release)" if differing else ")"
    if deleted or held:
        summary += f"; {deleted + held} deleted since they were loaded and left deleted"
    lines = [summary + "."]
    if differing:
        lines.append("Rows that differ from the release are kept; update_official lists them as conflicts.")
    return lines
