"""`manage.py simulate_batch <game> --kind K ...`: a study of the balance lab from the command line.

The request is the JSON that POST /api/simulate/<game>/batches/ takes (`--input FILE`, `--inputs '<json>'`),
completed by flags for the common cases, and checked by the same serializer, so that a refusal reads like
the API's. The batch is stored like the API's, then played here in chunks on one process per core (`--processes`)
with a progress bar on stderr (or, with `--queue`, handed to the background and followed), and its figures
printed as tables (or JSON).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from rest_framework.exceptions import ValidationError
from tqdm import tqdm

from cardsdb.api.errors import exception_handler
from cardsdb.choices import Game
from simulate import background, batches, services
from simulate.api.serializers import study_inputs
from simulate.engine.agents import agent_names
from simulate.engine.errors import InputError
from simulate.engine.runner import validate_options
from simulate.models import Batch
from simulate.study_kinds import DEFAULT_KIND, KINDS, kind_names, stopping, study_kind
from simulate.study_kinds.text import details, headline_lines

DEFAULT_COUNT = 100
POLL_SECONDS = 0.5  # how often `--queue` reads the batch's row
OVER = (Batch.Status.DONE, Batch.Status.CANCELLED, Batch.Status.FAILED)


class Command(BaseCommand):
    help = ("Play a study of the balance lab (a batch of one kind) and print its figures. The request is the "
            "JSON of POST /api/simulate/<game>/batches/ (--input, --inputs), which the flags complete. Each "
            "game's own flags are listed under its name.")

    def add_arguments(self, parser):
        games = list(services.GAME_MATCHES)
        parser.add_argument("game", choices=games, help="The game to play.")
        parser.add_argument("--kind", choices=kind_names(), default=None,
                            help="The study (default: the JSON's kind, else matchup).")
        parser.add_argument("--count", type=int, default=None,
                            help=f"Matches of each pairing (default: the JSON's count, else {DEFAULT_COUNT}).")
        parser.add_argument("--seed", type=int, default=None,
                            help="Match i of each pairing plays with seed + i; random armies are drawn from it "
                                 "(default: random).")
        parser.add_argument("--swap-sides", action="store_true", default=None,
                            help="Swap the sides every second match.")
        parser.add_argument("--until-ci-width", type=float, default=None, metavar="W",
                            help="matchup: stop once the 95%% interval of the win rate is at most W wide.")
        given = parser.add_mutually_exclusive_group()
        given.add_argument("--input", type=Path, default=None, metavar="FILE.json",
                           help="The request body as the API takes it, from a file.")
        given.add_argument("--inputs", default=None, metavar="JSON", help="The request body, inline.")
        parser.add_argument("--queue", action="store_true",
                            help="Hand the batch to the background (Celery workers when CELERY_BROKER_URL is "
                                 "set) and follow it, instead of playing it in this process.")
        parser.add_argument("--processes", type=positive, default=os.cpu_count() or 1, metavar="N",
                            help="Play here on N processes, each taking chunks in turn (default: one per core, "
                                 f"{os.cpu_count() or 1} here).")
        parser.add_argument("--json", action="store_true", help="Print the batch as JSON instead of tables.")
        known = "; ".join(f"{game}: {', '.join(agent_names(game))}" for game in games)
        study_agents = "; ".join(f"{game}: {services.game_studies(game).study_agent}" for game in games)
        parser.add_argument("--agents", nargs="+", default=None, metavar="NAME",
                            help=f"One agent per player ({known}; default {study_agents}).")
        parser.add_argument("--max-rounds", type=int, default=None, help="Round cap (default: the game's).")
        study = parser.add_argument_group("Studies", "Set the inputs of a kind over the JSON.")
        for kind in KINDS.values():
            kind.add_arguments(study)
        for game in games:  # every game's, since the game is not known yet
            services.game_matches(game).add_command_arguments(parser)
            services.game_studies(game).add_study_arguments(parser)

    def handle(self, *args, **opts):
        game = opts["game"]
        body, labels = request_body(game, opts)
        batch = store(game, body)
        batch = self.play(batch, queue=opts["queue"], quiet=opts["verbosity"] == 0, processes=opts["processes"])
        if opts["json"]:
            self.stdout.write(json.dumps(batch_json(batch), indent=2))
        else:
            self.stdout.write("\n".join(report(batch, labels)))
        if batch.status != Batch.Status.DONE:
            raise CommandError(f"Batch {batch.id} is {batch.status} after {batch.played} of {batch.count} matches"
                               + (f": {batch.error}" if batch.error else "."))

    def play(self, batch: Batch, *, queue: bool, quiet: bool, processes: int) -> Batch:
        """Play the batch here on `processes` processes (or follow it in the background) with a bar of matches
        played on stderr."""
        bar = tqdm(total=batch.count, unit="match", desc=f"{batch.kind} {str(batch.id)[:8]}",
                   file=RawStream(self.stderr), disable=quiet, dynamic_ncols=True)

        def progress(row: Batch) -> None:
            advance(bar, row)
            if row.status in OVER and not queue:
                raise Over(row)  # stopped early by its interval, or cancelled: no chunk is left to play

        try:
            if queue:
                background.queue_batch(batch.id)
                return follow(batch.id, progress)
            return batches.play_on_cores(batch.id, processes=processes, progress=progress) or batch
        except Over as over:
            return over.batch
        except KeyboardInterrupt:
            if queue:
                where = "on the Celery workers" if batches.uses_broker() else \
                    "when the service next looks for batches left without a runner"
                raise CommandError(f"Stopped following batch {batch.id}; it goes on {where} "
                                   f"(GET /api/simulate/batches/{batch.id}/).") from None
            batch = batches.cancel_batch(batch)
            raise CommandError(f"Interrupted: batch {batch.id} cancelled after {batch.played} of {batch.count} "
                               "matches.") from None
        finally:
            bar.close()


# ------------------------------------------------------------------------------------- request


def positive(text: str) -> int:
    """A whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is less than 1")
    return value


def request_body(game: str, opts: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, dict[int, str]]]:
    """The API request of the study: the JSON given, the flags given set over it, the game's match flags
    filling the matchup (and options, agents) it leaves out. Also the labels of the entrants given by flags."""
    refuse_other_games_flags(game, opts)
    body = given_json(opts)
    seed = opts["seed"] if opts["seed"] is not None else body.get("seed")
    seed = services.new_seed() if seed is None else seed
    body.update(kind=opts["kind"] or body.get("kind") or DEFAULT_KIND, seed=seed,
                count=opts["count"] if opts["count"] is not None else body.get("count", DEFAULT_COUNT))
    for key in ("swap_sides", "until_ci_width"):
        if opts[key] is not None:
            body[key] = opts[key]
    kind = KINDS.get(body["kind"])
    if kind is None:  # refused by the request's serializer, as the API refuses it
        return body, {}
    kind.command_inputs(body, opts)
    seed_drawn = seed if isinstance(seed, int) else 0
    try:
        add_match_flags(game, body, opts, seed_drawn, matchup=kind.takes_matchup(body))
        labels = services.game_studies(game).study_command_inputs(body, kind.roles(body), opts, seed_drawn)
    except InputError as exc:
        raise CommandError(str(exc)) from exc
    return body, labels


def add_match_flags(game: str, body: dict[str, Any], opts: Mapping[str, Any], seed: int, *, matchup: bool) -> None:
    """The game's match flags over the body: the matchup when the kind plays one the JSON does not give (else
    only what every kind takes besides its sides, a mode say), options other than the defaults, the agents
    when given."""
    matches = services.game_matches(game)
    inputs, agents = matches.command_request(opts, seed)
    match_inputs = {key: value for key, value in inputs.items() if key != "options"}
    matchup_keys = set(getattr(matches.batch_request, "matchup_keys", ()) or match_inputs)
    if matchup and not matchup_keys & set(body):
        body.update(match_inputs)
    elif not matchup:
        for key, value in match_inputs.items():
            if key not in matchup_keys:
                body.setdefault(key, value)
    defaults = validate_options(matches.game, None)
    options = {key: value for key, value in (inputs.get("options") or {}).items() if defaults.get(key) != value}
    if options and "options" not in body:
        body["options"] = options
    if opts["agents"] is not None:
        body["agents"] = agents


def study_flags(studies: services.GameStudies) -> list[str]:
    """The destinations of a game's own study flags, read off a scratch parser it adds them to."""
    scratch = argparse.ArgumentParser(add_help=False)
    studies.add_study_arguments(scratch)
    return list(vars(scratch.parse_args([])))


def refuse_other_games_flags(game: str, opts: Mapping[str, Any]) -> None:
    """Every game's study flags are parsed (the game is not known before): another game's, given, are a
    mistake."""
    own = set(study_flags(services.game_studies(game)))
    for other, studies in services.GAME_STUDIES.items():
        given = [f"--{dest.replace('_', '-')}" for dest in study_flags(studies)
                 if dest not in own and opts.get(dest) is not None]
        if given:
            raise CommandError(f"{', '.join(given)}: {Game(other).label} flags; give the {Game(game).label} inputs "
                               "with --input or --inputs.")


def given_json(opts: Mapping[str, Any]) -> dict[str, Any]:
    if opts["input"] is not None:
        try:
            text, where = opts["input"].read_text(), str(opts["input"])
        except OSError as exc:
            raise CommandError(f"--input: cannot read {opts['input']}: {exc.strerror}") from exc
    elif opts["inputs"] is not None:
        text, where = opts["inputs"], "--inputs"
    else:
        return {}
    try:
        body = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CommandError(f"{where} is not JSON: {exc}") from exc
    if not isinstance(body, dict):
        raise CommandError(f"{where} is not a JSON object (the request body of POST .../batches/).")
    return body


def store(game: str, body: dict[str, Any]) -> Batch:
    """The batch of a request, checked and stored exactly as POST .../batches/ does."""
    request = services.game_matches(game).batch_request(data=body)
    if not request.is_valid():
        raise refusal(ValidationError(request.errors))
    given = request.validated_data
    try:
        return batches.create_batch(
            game=game, kind=given["kind"], inputs=study_inputs(given, body), count=given["count"],
            seed=given.get("seed"), swap_sides=given["swap_sides"], until_ci_width=given.get("until_ci_width"),
        )
    except (InputError, services.IllegalMatchSetup) as exc:
        raise refusal(exc) from exc


def refusal(exc: Exception) -> CommandError:
    """The API's answer to a refused request, as lines: its message, then every field or rule violation."""
    answer = exception_handler(exc, {}).data
    message = str(answer["message"])
    lines = [message]
    for path, reasons in answer.get("fields", {}).items():
        lines.extend(f"  {path}: {reason}" for reason in reasons if reason != message and f"{path}: {reason}" not in message)
    for violation in answer.get("violations", []):
        where = ", ".join(f"{key} {violation[key]}" for key in ("at", "side", "team", "player", "slot", "card")
                          if violation.get(key) is not None)
        lines.append(f"  {where + ': ' if where else ''}{violation['message']} ({violation['code']})")
    return CommandError("\n".join(lines))


# ------------------------------------------------------------------------------------- playing


class Over(Exception):
    """The batch played here is over before its last chunk."""

    def __init__(self, batch: Batch):
        super().__init__(batch.pk)
        self.batch = batch


class RawStream:
    """A command's stderr as tqdm writes to it: text as given (no line ending added, no error style)."""

    def __init__(self, wrapper):
        self.wrapper = wrapper

    def write(self, text: str) -> None:
        self.wrapper.write(text, style_func=lambda s: s, ending="")

    def flush(self) -> None:
        self.wrapper.flush()

    def __getattr__(self, name):
        return getattr(self.wrapper, name)


def advance(bar: tqdm, batch: Batch) -> None:
    """The bar at the batch's matches played (fewer than its count when its interval stopped it early)."""
    if batch.status == Batch.Status.DONE and batch.played < (bar.total or 0):
        bar.total = batch.played
    bar.update(batch.played - bar.n)
    rate = (batch.results or {}).get("win_rate")
    test = stopping.progress_text((batch.results or {}).get("sequential"))
    bar.set_postfix_str(f"{batch.status}" + (f", win rate {rate:.1%}" if rate is not None else "")
                        + (f", {test}" if test else ""))


def follow(batch_id, progress: Callable[[Batch], None]) -> Batch:
    """Poll a batch the background plays until it is over, reporting each read."""
    batch = Batch.objects.get(pk=batch_id)
    while True:
        progress(batch)
        if batch.status in OVER:
            return batch
        time.sleep(POLL_SECONDS)
        batch.refresh_from_db()


def batch_json(batch: Batch) -> dict[str, Any]:
    return {"id": str(batch.id), "game": batch.game, "kind": batch.kind, "status": batch.status,
            "played": batch.played, "count": batch.count, "per_pairing": batch.per_pairing, "seed": batch.seed,
            "swap_sides": batch.swap_sides, "results": batch.results}


# ------------------------------------------------------------------------------------- tables


def report(batch: Batch, labels: Mapping[str, Mapping[int, str]]) -> list[str]:
    """The batch's figures as readable tables: what its kind measures, the details, then what its kind adds."""
    results = batch.results or {}
    studies = services.game_studies(batch.game)
    seats = dict(zip(("a", "b"), studies.side_names, strict=True))
    kind = study_kind(batch.kind)
    lines = [f"{Game(batch.game).label} {batch.kind} {batch.id}: {batch.status}, {batch.played} of {batch.count} "
             f"matches, {batch.per_pairing} per pairing from seed {batch.seed}"
             + (", sides swapped every second match" if kind.sides_swapped(batch) else ""), ""]
    if not results:
        return [*lines, "No match was played."]
    details_of = kind.details_of(results)
    lines += [*headline_lines(kind.headline(batch, results, seats["a"])), ""]
    if details_of:
        lines += details(details_of, seats, swapped=kind.sides_swapped(batch))
    return lines + kind.text(batch, results, labels, seats, studies)
