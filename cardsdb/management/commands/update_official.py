"""`manage.py update_official [--apply] [FIXTURE ...]`: bring the official rows to a new release.

Dry run by default: it lists, per row and field, what it would change. With --apply it writes, in one
transaction, the rows nobody edited since they were loaded; edited rows are reported as conflicts and kept.
"""

from django.core.management.base import BaseCommand, CommandError
from django.db import DEFAULT_DB_ALIAS

from cardsdb import services


class Command(BaseCommand):
    help = (
        "Compare the official fixtures (a new release) with the database and report, per row and field, "
        "what would change. Nothing is written without --apply. A row edited since it was loaded "
        "(its fingerprint differs from the one recorded at load) is never overwritten: it is reported "
        "as a conflict, and the other rows of the same card are held back with it."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "fixtures", nargs="*", metavar="FIXTURE",
            help="Fixture files of the release (default: the project's fixtures/ files).",
        )
        mode = parser.add_mutually_exclusive_group()
        mode.add_argument("--dry-run", action="store_true", default=True,
                          help="Only report what would change (the default).")
        mode.add_argument("--apply", action="store_true", help="Write the changes.")
        parser.add_argument("--database", default=DEFAULT_DB_ALIAS, help="Database alias (default: default).")

    def handle(self, *args, **opts):
        try:
            plan = services.official_update(
                paths=opts["fixtures"] or None, apply=opts["apply"], using=opts["database"]
            )
        except services.OfficialFixtureError as exc:
            raise CommandError(str(exc)) from exc
        for line in services.describe_official_plan(plan, verbose=opts["verbosity"] >= 3):
            self.stdout.write(line)
        counts = {action: plan.count(action) for action in services.ACTIONS}
        verb = "" if plan.applied else "would be "
        self.stdout.write(
            f"{'Applied' if plan.applied else 'Dry run'}: {counts['update']} rows {verb}updated, "
            f"{counts['create']} {verb}created; {counts['conflict']} conflicts kept as they are, "
            f"{counts['held']} held back with them; {counts['retired']} no longer in the release (left in place); "
            f"{counts['unchanged']} unchanged."
        )
        if not plan.applied and (counts["update"] or counts["create"]):
            self.stdout.write("Nothing was written: run again with --apply to write these changes.")
