"""`manage.py simulate_batch <game> --kind K ...`: a study of the balance lab from the command line.

The request is the JSON that POST /api/simulate/<game>/batches/ takes (`--input FILE`, `--inputs '<json>'`),
completed by flags for the common cases, and checked by the same serializer, so that a refusal reads like
the API's. The batch is stored like the API's, then played here in chunks with a progress bar on stderr
(or, with `--queue`, handed to the background and followed), and its figures printed as tables (or JSON).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Mapping, Sequence
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
from simulate.studies import LADDER_LEVELS

DEFAULT_COUNT = 100
POLL_SECONDS = 0.5  # how often `--queue` reads the batch's row
FIELD_ROWS = 10  # rows of each end of a field group
HISTOGRAM_BINS = 20  # rounds are listed match by match up to this many distinct values
OVER = (Batch.Status.DONE, Batch.Status.CANCELLED, Batch.Status.FAILED)


class Command(BaseCommand):
    help = ("Play a study of the balance lab (a batch of one kind) and print its figures. The request is the "
            "JSON of POST /api/simulate/<game>/batches/ (--input, --inputs), which the flags complete. Each "
            "game's own flags are listed under its name.")

    def add_arguments(self, parser):
        games = list(services.GAME_MATCHES)
        parser.add_argument("game", choices=games, help="The game to play.")
        parser.add_argument("--kind", choices=list(Batch.Kind.values), default=None,
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
        parser.add_argument("--json", action="store_true", help="Print the batch as JSON instead of tables.")
        known = "; ".join(f"{game}: {', '.join(agent_names(game))}" for game in games)
        parser.add_argument("--agents", nargs="+", default=None, metavar="NAME",
                            help=f"One agent per player ({known}; default greedy).")
        parser.add_argument("--max-rounds", type=int, default=None, help="Round cap (default: the game's).")
        study = parser.add_argument_group("Studies", "Set the inputs of a kind over the JSON.")
        study.add_argument("--levels", nargs="+", choices=LADDER_LEVELS, default=None,
                           help="ladder: the agents that play both sides in turn.")
        study.add_argument("--base", choices=["matchup", "field"], default=None,
                           help="whatif: the study played with and without the patch.")
        study.add_argument("--factions", action="store_true", help="matrix: every faction's strongest army.")
        study.add_argument("--patch", nargs="+", action="extend", default=None, metavar="CARD:FIELD=VALUE,...",
                           help="whatif: new values of a card, the fields the game's patch takes (a value is JSON, "
                                "e.g. a number or an ability, or else text), e.g. CARD:atk=12,hp=20.")
        for matches in services.GAME_MATCHES.values():  # every game's, since the game is not known yet
            matches.add_command_arguments(parser)
            matches.add_study_arguments(parser)

    def handle(self, *args, **opts):
        game = opts["game"]
        body, labels = request_body(game, opts)
        batch = store(game, body)
        batch = self.play(batch, queue=opts["queue"], quiet=opts["verbosity"] == 0)
        if opts["json"]:
            self.stdout.write(json.dumps(batch_json(batch), indent=2))
        else:
            self.stdout.write("\n".join(report(batch, labels)))
        if batch.status != Batch.Status.DONE:
            raise CommandError(f"Batch {batch.id} is {batch.status} after {batch.played} of {batch.count} matches"
                               + (f": {batch.error}" if batch.error else "."))

    def play(self, batch: Batch, *, queue: bool, quiet: bool) -> Batch:
        """Play the batch here (or follow it in the background) with a bar of matches played on stderr."""
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
            return batches.play_here(batch.id, progress=progress) or batch
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


def request_body(game: str, opts: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, dict[int, str]]]:
    """The API request of the study: the JSON given, the flags given set over it, the game's match flags
    filling the matchup (and options, agents) it leaves out. Also the labels of the entrants given by flags."""
    refuse_other_games_flags(game, opts)
    body = given_json(opts)
    matches = services.game_matches(game)
    kind = opts["kind"] or body.get("kind") or "matchup"
    seed = opts["seed"] if opts["seed"] is not None else body.get("seed")
    seed = services.new_seed() if seed is None else seed
    count = opts["count"] if opts["count"] is not None else body.get("count", DEFAULT_COUNT)
    body.update(kind=kind, count=count, seed=seed)
    for flag, key in (("swap_sides", "swap_sides"), ("until_ci_width", "until_ci_width"), ("levels", "levels"),
                      ("base", "base")):
        if opts[flag] is not None:
            body[key] = opts[flag]
    if opts["factions"]:
        body["factions"] = True
    try:
        inputs, agents = matches.command_request(opts, seed if isinstance(seed, int) else 0)
    except InputError as exc:
        raise CommandError(str(exc)) from exc
    needs_matchup = kind in ("matchup", "ladder") or (kind == "whatif" and body.get("base", "matchup") == "matchup")
    match_inputs = {key: value for key, value in inputs.items() if key != "options"}
    matchup_keys = set(getattr(matches.batch_request, "matchup_keys", ()) or match_inputs)
    if needs_matchup:
        if not matchup_keys & set(body):
            body.update(match_inputs)
    else:  # what every kind takes besides its sides (a mode, say)
        for key, value in match_inputs.items():
            if key not in matchup_keys:
                body.setdefault(key, value)
    defaults = validate_options(matches.game, None)
    options = {key: value for key, value in (inputs.get("options") or {}).items() if defaults.get(key) != value}
    if options and "options" not in body:
        body["options"] = options
    if opts["agents"] is not None:
        body["agents"] = agents
    try:
        labels = matches.study_command_inputs(body, kind, opts, seed if isinstance(seed, int) else 0)
    except InputError as exc:
        raise CommandError(str(exc)) from exc
    if opts["patch"] is not None:
        body["patch"] = [patch_entry(text) for text in opts["patch"]]
    return body, labels


def study_flags(matches: services.GameMatches) -> list[str]:
    """The destinations of a game's own study flags, read off a scratch parser it adds them to."""
    scratch = argparse.ArgumentParser(add_help=False)
    matches.add_study_arguments(scratch)
    return list(vars(scratch.parse_args([])))


def refuse_other_games_flags(game: str, opts: Mapping[str, Any]) -> None:
    """Every game's study flags are parsed (the game is not known before): another game's, given, are a
    mistake."""
    own = set(study_flags(services.game_matches(game)))
    for other, matches in services.GAME_MATCHES.items():
        given = [f"--{dest.replace('_', '-')}" for dest in study_flags(matches)
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


def patch_entry(text: str) -> dict[str, Any]:
    """`CARD:field=value,...` as a patch entry; each value is JSON (a number, an ability) or else text."""
    card, colon, changes = text.partition(":")
    if not colon or not card or not changes:
        raise CommandError(f"--patch {text!r}: give CARD:field=value,... (e.g. CARD:atk=12,hp=20).")
    values: dict[str, Any] = {}
    for part in top_level_split(changes):
        key, equals, value = part.partition("=")
        if not equals or not key.strip():
            raise CommandError(f"--patch {text!r}: {part!r} is not field=value.")
        try:
            values[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            values[key.strip()] = value.strip()
    return {"card": card.strip(), "changes": values}


def top_level_split(text: str) -> list[str]:
    """`text` split at the commas outside brackets, braces and strings (an ability spec keeps its own)."""
    parts, depth, quoted, start = [], 0, False, 0
    for index, char in enumerate(text):
        if quoted:
            quoted = char != '"' or text[index - 1] == "\\"
        elif char == '"':
            quoted = True
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:index])
            start = index + 1
    parts.append(text[start:])
    return [part for part in parts if part.strip()]


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
    bar.set_postfix_str(f"{batch.status}" + (f", win rate {rate:.1%}" if rate is not None else ""))


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


def pct(value: float | None) -> str:
    return "—" if value is None else f"{value:.1%}"


def points(value: float | None) -> str:
    """A difference of rates, in percentage points."""
    return "—" if value is None else f"{value * 100:+.1f} pts"


def ci(bounds: Mapping[str, float] | None, show: Callable[[float | None], str] = pct) -> str:
    return "—" if not bounds else f"{show(bounds['low'])} – {show(bounds['high'])}"


def number(value: float | None, digits: int = 2) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]], *, left: int = 1) -> list[str]:
    """Rows under their headers, the first `left` columns aligned left, the others right."""
    cells = [[str(cell) for cell in row] for row in rows]
    widths = [max(len(str(header)), *(len(row[i]) for row in cells)) for i, header in enumerate(headers)]

    def line(values: Sequence[str]) -> str:
        return "  ".join(value.ljust(width) if i < left else value.rjust(width)
                         for i, (value, width) in enumerate(zip(values, widths, strict=True))).rstrip()

    return [line(list(headers)), line(["-" * width for width in widths]), *(line(row) for row in cells)]


OUTCOME_HEADERS = ("played", "wins", "draws", "losses", "win rate", "95% CI")


def outcome_cells(figures: Mapping[str, Any]) -> list[Any]:
    played = figures.get("played", figures["wins"] + figures["draws"] + figures["losses"])
    return [played, figures["wins"], figures["draws"], figures["losses"], pct(figures["win_rate"]),
            ci(figures["win_rate_ci"])]


def figure_rows(label: str, rows: Sequence[tuple[str, Mapping[str, Any]]], sides: Sequence[str]) -> list[str]:
    """One row of outcomes per study part (opponent, agent, variant): its win rate by the side that held the
    first seat, its mean rounds and decisiveness."""
    return table((label, *OUTCOME_HEADERS, f"{sides[0]} first", f"{sides[1]} first", "rounds", "kept in wins",
                  "in losses"), [
        (name, *outcome_cells(f), pct(f["by_first"]["a"]["win_rate"]), pct(f["by_first"]["b"]["win_rate"]),
         number(f["rounds"]["mean"]), pct(f["decisiveness"]["wins"]), pct(f["decisiveness"]["losses"]))
        for name, f in rows
    ])


def headline(figures: Mapping[str, Any], seats: Mapping[str, str]) -> list[str]:
    """The win rate of side a with its interval, by first seat, rounds, ends and decisiveness."""
    side = seats["a"]
    rounds, decisive = figures["rounds"], figures["decisiveness"]
    histogram = ", ".join(f"{r}: {n}" for r, n in rounds["histogram"].items()) \
        if len(rounds["histogram"]) <= HISTOGRAM_BINS else ""
    ends = ", ".join(f"{reason} {n}" for reason, n in figures["reasons"].items())
    return [
        f"Win rate of {side}: {pct(figures['win_rate'])} (95% CI {ci(figures['win_rate_ci'])}), "
        f"{figures['wins']} wins, {figures['draws']} draws, {figures['losses']} losses of {figures['played']}",
        "",
        *table(("first seat", *OUTCOME_HEADERS),
               [(f"{seats[seat]} first", *outcome_cells(figures["by_first"][seat])) for seat in ("a", "b")]),
        "",
        f"Rounds: mean {number(rounds['mean'])}, min {rounds['min'] if rounds['min'] is not None else '—'}, "
        f"max {rounds['max'] if rounds['max'] is not None else '—'}" + (f" ({histogram})" if histogram else ""),
        f"Ends: {ends or '—'}",
        f"Decisiveness (share of its start the winner kept): in {side}'s wins {pct(decisive['wins'])}, "
        f"in its losses {pct(decisive['losses'])}",
    ]


def field_groups(group: str, key: str, rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """A field group (its rows keyed `key`) ranked by delta: its top and bottom FIELD_ROWS rows (all when
    they are few)."""
    if not rows:
        return [f"{group}: no appearances yet"]
    ranked = list(enumerate(rows, start=1))
    parts = [(f"{group}, all {len(rows)} by delta", ranked)] if len(rows) <= 2 * FIELD_ROWS else [
        (f"{group}, top {FIELD_ROWS} by delta", ranked[:FIELD_ROWS]),
        (f"{group}, bottom {FIELD_ROWS} by delta", ranked[-FIELD_ROWS:]),
    ]
    lines: list[str] = []
    for title, part in parts:
        lines += ["", title, *table(
            ("#", key, "appearances", "win rate", "95% CI", "without", "delta", "95% CI of delta", "flag"),
            [(rank, row[key], row["appearances"], pct(row["win_rate"]), ci(row["win_rate_ci"]),
              pct(row["without_win_rate"]), points(row["delta"]), ci(row["delta_ci"], points), row["flag"] or "")
             for rank, row in part], left=2)]
    return lines


def report(batch: Batch, labels: Mapping[str, Mapping[int, str]]) -> list[str]:
    """The batch's figures as readable tables, by its kind."""
    results = batch.results or {}
    matches = services.game_matches(batch.game)
    seats = dict(zip(("a", "b"), matches.side_names, strict=True))
    side = seats["a"]
    lines = [f"{Game(batch.game).label} {batch.kind} {batch.id}: {batch.status}, {batch.played} of {batch.count} "
             f"matches, {batch.per_pairing} per pairing from seed {batch.seed}"
             + (", sides swapped every second match" if batch.swap_sides else ""), ""]
    if not results:
        return [*lines, "No match was played."]
    if batch.kind != "whatif":
        lines += headline(results, seats)
    if batch.kind == "gauntlet":
        names = labels.get("opponents", {})
        lines += ["", "Opponents", *figure_rows("opponent", [
            (f"{row['opponent']}: {names[row['opponent']]}" if row["opponent"] in names else str(row["opponent"]), row)
            for row in results["opponents"]], matches.sides)]
    elif batch.kind == "ladder":
        lines += ["", "Agents (both sides)", *figure_rows("agent", [(row["agent"], row) for row in results["agents"]],
                                                           matches.sides)]
    elif batch.kind == "matrix":
        lines += matrix_tables(results, labels.get("entrants", {}))
    elif batch.kind == "field":
        for group, key in matches.field_groups.items():
            lines += field_groups(group, key, results.get(group, []))
    elif batch.kind == "whatif":
        lines += whatif_tables(results, side, matches.sides)
    return lines


def matrix_tables(results: Mapping[str, Any], labels: Mapping[int, str]) -> list[str]:
    grid = results["matrix"]
    names = [labels.get(i, name) for i, name in enumerate(grid["rows"])]
    cells = grid["cells"]
    rows = [(f"{i + 1} {name}", *("—" if cell is None else pct(cell["win_rate"]) for cell in cells[i]))
            for i, name in enumerate(names)]
    standings = [(rank, names[row["entrant"]], pct(row["mean_win_rate"]))
                 for rank, row in enumerate(results["standings"], start=1)]
    return ["", "Win rate of the row against the column (sides swapped every second match)",
            *table(("", *(str(j + 1) for j in range(len(names)))), rows),
            "", "Standings", *table(("#", "entrant", "mean win rate"), standings, left=2)]


def whatif_tables(results: Mapping[str, Any], side: str, sides: Sequence[str]) -> list[str]:
    difference = results["difference"]
    discordant = difference["discordant"]
    of = f"{side}'s win rate" if results["base"] == "matchup" else "the win rate of armies with a patched card"
    lines = [f"What-if on a {results['base']}, every seed played without and with the patch ({side}'s figures)",
             *figure_rows("variant", [(variant, results[variant]) for variant in ("baseline", "patched")], sides),
             "",
             f"Difference in {of} (patched − baseline): {points(difference['win_rate'])} "
             f"(95% CI {ci(difference['ci'], points)}) over {difference['pairs']} pairs on the same seeds; "
             f"baseline only {discordant['baseline_only']}, patched only {discordant['patched_only']}; "
             f"McNemar p = {results['p_value']:.4g}"]
    if results.get("patched_rows"):
        lines += ["", "Patched cards", *table(
            ("card", "baseline win rate", "delta", "patched win rate", "delta"),
            [(row["card"], *(value for variant in ("baseline", "patched") for value in (
                (pct(row[variant]["win_rate"]), points(row[variant]["delta"])) if row[variant] else ("—", "—"))))
             for row in results["patched_rows"]])]
    return lines
