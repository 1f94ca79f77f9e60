"""`manage.py cleanup_simulations`: end the games with people left idle, and delete the anonymous matches, games
with people and batches past their expiry."""

from django.core.management.base import BaseCommand, CommandError

from simulate import seating, services
from simulate.conf import setting


class Command(BaseCommand):
    help = ("End the games with people left idle past their bound, and delete the matches, games with people and "
            "batches played anonymously more than SIMULATE_ANONYMOUS_EXPIRY_DAYS days ago (default 7); those of "
            "signed-in users are kept. Celery beat runs it hourly on the workers.")

    def add_arguments(self, parser):
        parser.add_argument("--days", type=int, default=None,
                            help="Expiry in days for this run (default: SIMULATE_ANONYMOUS_EXPIRY_DAYS).")
        parser.add_argument("--dry-run", action="store_true", help="Count what would be deleted, delete nothing.")

    def handle(self, *args, **opts):
        days = setting("SIMULATE_ANONYMOUS_EXPIRY_DAYS") if opts["days"] is None else opts["days"]
        if days < 1:
            raise CommandError(f"--days must be at least 1 (got {days}).")
        if not opts["dry_run"]:
            self.stdout.write(f"Ended {seating.end_idle_games()} game(s) with people left idle for "
                              f"{seating.IDLE_HOURS} hours.")
        counts = services.delete_expired_simulations(days=days, dry_run=opts["dry_run"])
        verb = "Would delete" if opts["dry_run"] else "Deleted"
        self.stdout.write(f"{verb} {counts['matches']} anonymous match(es), {counts['games']} anonymous game(s) "
                          f"with people and {counts['batches']} batch(es) older than {days} day(s).")
