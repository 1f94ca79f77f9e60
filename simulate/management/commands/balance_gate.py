"""`manage.py balance_gate --against RELEASE`: the check a designer runs before publishing a release.

A regression study (simulate/study_kinds/regression.py): the field played on `--against` and on `--versus`
(the working catalogue by default) with the same seeds. It is `manage.py simulate_batch --kind regression`,
request, storage, play on every core and tables included; it prints the cards and groups that moved beyond
noise and PASS or FAIL, and fails (exit status 1) when one moved by the threshold or more, so that a pipeline
can run it.
"""

from __future__ import annotations

import os
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from simulate import services
from simulate.management.commands import simulate_batch
from simulate.models import Batch
from simulate.study_kinds.regression import DEFAULT_THRESHOLD, Kind, gate_note

DEFAULT_COUNT = 2000  # matches per state: a broken card's delta moves far beyond noise at this size


class Command(BaseCommand):
    help = ("Play a field on a release and on the working catalogue (or another release) with the same seeds, "
            "print the cards and groups whose deltas moved beyond noise, and fail (exit status 1) when one moved "
            "by the threshold or more.")

    def add_arguments(self, parser):
        games = list(services.GAME_MATCHES)
        parser.add_argument("--game", choices=games, default=games[0] if games else None,
                            help=f"The game (default {games[0] if games else '—'}).")
        parser.add_argument("--against", required=True, metavar="RELEASE",
                            help="The release played first, by its name or slug.")
        parser.add_argument("--versus", default=None, metavar="RELEASE",
                            help="The release compared with it (default: the working catalogue).")
        parser.add_argument("--count", type=simulate_batch.positive, default=DEFAULT_COUNT, metavar="N",
                            help=f"Matches per state (default {DEFAULT_COUNT}).")
        parser.add_argument("--seed", type=int, default=None,
                            help="Match i of each state plays with seed + i, its armies drawn from it (default: random).")
        parser.add_argument("--threshold", type=float, default=DEFAULT_THRESHOLD, metavar="POINTS",
                            help=f"A move of at least this many points beyond noise fails (default {DEFAULT_THRESHOLD:g}).")
        parser.add_argument("--processes", type=simulate_batch.positive, default=os.cpu_count() or 1, metavar="N",
                            help=f"Play on N processes (default: one per core, {os.cpu_count() or 1} here).")

    def handle(self, *args: Any, **opts: Any) -> None:
        game = opts["game"]
        batch_command = simulate_batch.Command()
        batch_command.stdout, batch_command.stderr = self.stdout, self.stderr  # its progress bar on our stderr
        # simulate_batch's own parser gives every flag it reads its default (a game's mode, the agents...).
        argv = [game, "--kind", Kind.name, "--against", opts["against"], "--count", str(opts["count"]),
                "--threshold", str(opts["threshold"]), "--processes", str(opts["processes"]),
                *(["--versus", opts["versus"]] if opts["versus"] is not None else []),
                *(["--seed", str(opts["seed"])] if opts["seed"] is not None else [])]
        given = vars(batch_command.create_parser("manage.py", "simulate_batch").parse_args(argv))
        body, labels = simulate_batch.request_body(game, given)
        batch = simulate_batch.store(game, body)
        batch = batch_command.play(batch, queue=False, quiet=opts["verbosity"] == 0, processes=opts["processes"])
        self.stdout.write("\n".join(simulate_batch.report(batch, labels)))
        if batch.status != Batch.Status.DONE:
            raise CommandError(f"Batch {batch.id} is {batch.status} after {batch.played} of {batch.count} matches"
                               + (f": {batch.error}" if batch.error else "."))
        gate = (batch.results or {}).get("gate") or {}
        if not gate.get("passed"):
            raise CommandError(gate_note(gate))
