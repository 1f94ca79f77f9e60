"""The balance lab: a batch is a study of one `kind`, planned into pairings and played in chunks.

A study is a list of pairings (two armies or team setups, their agents and options), each played
`per_pairing` times: match i of a pairing with seed + i, the sides swapped in every odd match when asked.
A `field` pairing draws its two armies (or setups) from a pool with a generator of its own, seeded from the
match. A `whatif` plays every seed twice, without and with the patch, so that its unit of play is a pair of
matches; for every other kind a unit is one match, and unit u is match u % per_pairing of pairing
u // per_pairing.

Units are split into chunks. A chunk is played anywhere (a Celery worker, the service's thread, the
command line) into a tally of integer counts (simulate.engine.tally); storing it adds it to the batch's
tally once, in one transaction, so that results never depend on how, where or in which order chunks ran.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.db import IntegrityError, transaction
from django.utils import timezone

from simulate import services
from simulate.engine import runner
from simulate.engine.errors import InputError
from simulate.engine.tally import (
    DRAW,
    LOSS,
    WIN,
    Tally,
    ci_width,
    count_appearances,
    count_match,
    figures,
    group_rows,
    merge,
    new_tally,
    paired_figures,
)
from simulate.models import Batch, BatchChunk, ChunkClaim
from simulate.services import IllegalMatchSetup, PreparedMatch, game_matches

logger = logging.getLogger(__name__)

KINDS = tuple(Batch.Kind.values)
LADDER_LEVELS = ("random", "greedy", "search")
MAX_ENTRANTS = 8  # a matrix of 8 plays 28 pairings
MAX_OPPONENTS = 16
CHUNK_MATCHES = 500  # matches per chunk: a fraction of a second to a few seconds of one core (greedy)
SEARCH_CHUNK_MATCHES = 10  # a search match costs up to a second
CANCEL_CHECK_SECONDS = 1.0  # a chunk looks at most this often whether its batch was cancelled


@dataclass(frozen=True)
class Pairing:
    """Two sides, their agents and options; a field pairing draws its sides from `pool` match by match."""

    label: dict[str, Any]
    prepared: PreparedMatch
    swap: bool
    pool: Any = None
    patched: frozenset[str] = frozenset()  # what a what-if patched, to pair the outcomes of its armies


@dataclass(frozen=True)
class Study:
    game: str
    kind: str
    pairings: list[Pairing]
    per_pairing: int
    paired: bool  # a what-if: every unit plays each pairing with the same seed

    @property
    def patch_changes_nothing(self) -> bool:
        """A what-if whose patched half would play the very same matches as its baseline half."""
        half = len(self.pairings) // 2
        return self.paired and all((b.prepared, b.pool) == (p.prepared, p.pool) for b, p in zip(
            self.pairings[:half], self.pairings[half:], strict=True))

    @property
    def units(self) -> int:
        return self.per_pairing if self.paired else self.per_pairing * len(self.pairings)

    @property
    def matches_per_unit(self) -> int:
        return len(self.pairings) if self.paired else 1

    @property
    def count(self) -> int:
        return self.units * self.matches_per_unit


# ------------------------------------------------------------------------------------ planning


def _located(exc: InputError | IllegalMatchSetup, sides: Mapping[str, str], paths: tuple[str, str]) -> Exception:
    """The same refusal of one pairing, its paths those of the entrants in the request: `sides` maps the
    match request's prefix of each side (e.g. `armies.a`) to its side's name, `paths` are the entrants'."""
    where = dict(zip(sides, paths, strict=True))
    if isinstance(exc, IllegalMatchSetup):
        names = dict(zip(sides.values(), paths, strict=True))
        located = [{**v, "at": names.get(str(v.get("side", v.get("team"))), " / ".join(paths))} for v in exc.violations]
        return IllegalMatchSetup(located, f"{' / '.join(paths)}: {exc}")

    def moved(path: str) -> str:
        for prefix, entrant in where.items():
            if path == prefix or path.startswith(prefix + "."):
                return entrant + path[len(prefix):]
        return path

    errors = [(moved(path), reason) for path, reason in exc.errors]
    message = str(exc)
    for prefix, entrant in where.items():
        message = message.replace(prefix, entrant)
    return InputError(message, errors)


def _prepare_pair(game: str, inputs: Mapping[str, Any], first: Any, second: Any, user,
                  paths: tuple[str, str]) -> PreparedMatch:
    matches = game_matches(game)
    try:
        return services.prepare_match(game=game, inputs=matches.pair_inputs(inputs, first, second),
                                      agents=inputs.get("agents"), user=user)
    except (InputError, IllegalMatchSetup) as exc:
        raise _located(exc, matches.pair_paths, paths) from exc


def plan(*, game: str, kind: str, inputs: Mapping[str, Any], per_pairing: int, swap_sides: bool,
         user=None) -> Study:
    """The pairings of a study from its request; InputError or IllegalMatchSetup naming what is wrong."""
    user = user or AnonymousUser()
    matches = game_matches(game)
    if kind == "whatif":
        base = inputs.get("base", "matchup")
        baseline = plan(game=game, kind=base, inputs=inputs, per_pairing=per_pairing, swap_sides=swap_sides,
                        user=user)
        patch = matches.validated_patch(inputs.get("patch") or [], user=user)
        pairings = []
        for variant, patched in (("baseline", None), ("patched", patch)):
            for pairing in baseline.pairings:
                pool = pairing.pool if patched is None or pairing.pool is None else \
                    matches.patched_pool(pairing.pool, patched)
                prepared = pairing.prepared if patched is None or pairing.pool is not None else \
                    matches.patched_match(pairing.prepared, patched)
                pairings.append(replace(pairing, label={**pairing.label, "variant": variant}, prepared=prepared,
                                        pool=pool, patched=patched_members(inputs)))
        return Study(game, kind, pairings, per_pairing, paired=True)
    if kind == "matchup":
        prepared = services.prepare_match(game=game, inputs=inputs, agents=inputs.get("agents"), user=user)
        pairings = [Pairing({}, prepared, swap_sides)]
    elif kind == "ladder":
        levels = list(inputs.get("levels") or LADDER_LEVELS)
        prepared = services.prepare_match(game=game, inputs=inputs, agents=inputs.get("agents"), user=user)
        pairings = [Pairing({"agent": level}, replace(prepared, agents=matches.level_agents(prepared, level)),
                            swap_sides) for level in levels]
    elif kind == "gauntlet":
        subject, opponents = inputs["subject"], inputs["opponents"]
        pairings = [Pairing({"opponent": index},
                            _prepare_pair(game, inputs, subject, opponent, user, ("subject", f"opponents.{index}")), swap_sides)
                    for index, opponent in enumerate(opponents)]
    elif kind == "matrix":
        entrants = inputs["entrants"]
        if entrants == "factions":
            entrants = matches.strongest_entrants(inputs)
        pairings = [Pairing({"row": i, "col": j},
                            _prepare_pair(game, inputs, entrants[i], entrants[j], user, (f"entrants.{i}", f"entrants.{j}")), True)
                    for i in range(len(entrants)) for j in range(i + 1, len(entrants))]
    elif kind == "field":
        pool, prepared = matches.field_pool(inputs, user=user)
        pairings = [Pairing({}, prepared, False, pool=pool)]
    else:
        raise InputError(f"Unknown kind {kind!r}; known: {', '.join(KINDS)}.", [("kind", "unknown")])
    return Study(game, kind, pairings, per_pairing, paired=False)


def chunk_units(study: Study) -> int:
    """Units per chunk: about CHUNK_MATCHES matches (SEARCH_CHUNK_MATCHES when a look-ahead agent plays)."""
    searching = any("search" in services.seat_agent_names(p.prepared.agents) for p in study.pairings)
    matches = SEARCH_CHUNK_MATCHES if searching else CHUNK_MATCHES
    return max(1, matches // study.matches_per_unit)


def study_of(batch: Batch) -> Study:
    """The study of a stored batch, planned again from its request (for its owner)."""
    return plan(game=batch.game, kind=batch.kind, inputs=batch.inputs, per_pairing=batch.per_pairing,
                swap_sides=batch.swap_sides, user=batch.owner or AnonymousUser())


# ------------------------------------------------------------------------------------- playing


def new_chunk_tally(study: Study) -> Tally:
    tally: Tally = {"pairings": [new_tally() for _ in study.pairings]}
    for leg, pairing in zip(tally["pairings"], study.pairings, strict=True):
        if pairing.pool is not None:
            leg["groups"] = {}
    if study.paired:
        tally["pairs"] = [0, 0, 0, 0]  # both, baseline only, patched only, neither
    return tally


def play_unit_match(study: Study, pairing: Pairing, index: int, seed: int, leg: Tally) -> list[tuple[bool, bool]]:
    """Play match `index` of a pairing and count it in `leg`; for a what-if, whether each army won and
    whether the patch touches it (side a, touched, for a matchup)."""
    matches = game_matches(study.game)
    first, second = matches.sides
    prepared, features = pairing.prepared, None
    if pairing.pool is not None:
        setup, features = matches.field_match(pairing.pool, random.Random(f"field:{seed + index}"))
        prepared = replace(prepared, setup=setup)
    swapped = pairing.swap and index % 2 == 1
    played = matches.swapped(prepared) if swapped else prepared
    result = runner.play_match(study.game, setup=played.setup, agents=played.agents, seed=seed + index,
                               options=played.options, keep_log=False)
    seat_winner = result.winner
    winner = seat_winner
    if swapped and winner is not None:
        winner = second if winner == first else first
    outcome = DRAW if winner is None else WIN if winner == first else LOSS
    share = matches.kept_share(played.setup, result, seat_winner) if seat_winner is not None else 0.0
    count_match(leg, outcome=outcome, first="b" if swapped else "a", rounds=result.rounds, reason=result.reason,
                share=share)
    if features is None:
        return [(outcome == WIN, True)]
    wins = (winner == first, winner == second)
    # A game may add what a side did in the match (the cards it played, say) to what it fielded.
    counted = matches.played_features(features, result) if hasattr(matches, "played_features") else features
    for side_features, won in zip(counted, wins, strict=True):
        count_appearances(leg["groups"], side_features, won=won)
    if not pairing.patched:
        return []
    # Touched: the side fielded (or played) a patched card.
    return [(won, not pairing.patched.isdisjoint(member for members in side_features.values() for member in members))
            for side_features, won in zip(counted, wins, strict=True)]


def play_chunk(study: Study, seed: int, start: int, stop: int,
               cancelled: Callable[[], bool] | None = None) -> Tally | None:
    """Play units start..stop-1 into a tally; None if `cancelled` says so on the way."""
    tally = new_chunk_tally(study)
    legs = tally["pairings"]
    looked_at = time.monotonic()
    for unit in range(start, stop):
        if cancelled is not None and time.monotonic() - looked_at >= CANCEL_CHECK_SECONDS:
            if cancelled():
                return None
            looked_at = time.monotonic()
        if study.paired:
            half = len(study.pairings) // 2
            outcomes = [play_unit_match(study, p, unit, seed, legs[k]) for k, p in enumerate(study.pairings)]
            for k in range(half):  # baseline pairing k against patched pairing half + k
                # A side is paired when the patch touches it in either (a patch may change what is drawn).
                for (before, touched), (after, touched_after) in zip(outcomes[k], outcomes[half + k], strict=True):
                    if touched or touched_after:
                        tally["pairs"][0 if before and after else 1 if before else 2 if after else 3] += 1
        else:
            k, index = divmod(unit, study.per_pairing)
            play_unit_match(study, study.pairings[k], index, seed, legs[k])
    return tally


def chunk_bounds(batch: Batch, index: int) -> tuple[int, int]:
    """The units of chunk `index` of a batch."""
    start = index * batch.chunk_size
    return start, min(batch.plan["units"], start + batch.chunk_size)


# ------------------------------------------------------------------------------------- storing


def store_chunk(batch_id, index: int, tally: Tally, *, runner_name: str = "") -> bool:
    """Add one chunk's counts to its batch, once: False (and nothing added) when that chunk was stored
    already or the batch is over. Finishes the batch when it is complete (or its interval narrow enough)."""
    with transaction.atomic():
        batch = Batch.objects.select_for_update().filter(pk=batch_id).first()
        if batch is None or batch.status in (Batch.Status.DONE, Batch.Status.CANCELLED, Batch.Status.FAILED):
            return False
        start, stop = chunk_bounds(batch, index)
        played = sum(leg["matches"] for leg in tally["pairings"])
        try:
            with transaction.atomic():
                BatchChunk.objects.create(batch=batch, index=index, start=start, stop=stop, played=played,
                                          tally=tally, runner=runner_name[:100])
        except IntegrityError:
            return False
        ChunkClaim.objects.filter(batch=batch, index=index).delete()
        merged = merge(batch.tally["sum"], tally) if batch.tally.get("sum") else tally
        batch.tally = {**batch.tally, "sum": merged, "stored": batch.tally.get("stored", 0) + 1}
        batch.played += played
        now = timezone.now()
        batch.heartbeat_at = batch.updated_at = now
        if batch.status == Batch.Status.QUEUED:
            batch.status = Batch.Status.RUNNING
        prefix = _narrow_prefix(batch) if batch.until_ci_width is not None else None
        if prefix is not None or batch.tally["stored"] >= batch.chunks:
            finish(batch, prefix)
            ChunkClaim.objects.filter(batch=batch).delete()  # chunks still out when its interval was narrow
        else:
            batch.results = results_of(batch, merged)
            batch.summary = legacy_summary(batch, merged)
        batch.save()
    return True


def _narrow_prefix(batch: Batch) -> tuple[Tally, int] | None:
    """With `until_ci_width`: the sum of chunks 0..k-1 and k, for the first k at which the interval is
    narrow enough, every one of those chunks stored (so the stop is the same however chunks were spread)."""
    total: Tally | None = None
    limit = batch.until_ci_width
    if limit is None:
        return None
    rows = BatchChunk.objects.filter(batch=batch).order_by("index").only("index", "tally")
    for expected, row in enumerate(rows):
        if row.index != expected:  # a chunk before it is still to come
            return None
        total = row.tally if total is None else merge(total, row.tally)
        if ci_width(total["pairings"][0]) <= limit:
            return total, expected + 1
    return None


def finish(batch: Batch, prefix: tuple[Tally, int] | None = None) -> None:
    """Mark a complete batch done, its results read off every chunk it needs: all of them, or the `prefix`
    of chunks at which its interval became narrow enough (its sum, and how many chunks)."""
    total = batch.tally["sum"]
    if prefix is not None:
        total, used = prefix
        batch.tally = {**batch.tally, "sum": total, "stopped_at_chunk": used}
        batch.played = sum(leg["matches"] for leg in total["pairings"])
    batch.results = results_of(batch, total)
    batch.summary = legacy_summary(batch, total)
    batch.status = Batch.Status.DONE
    batch.finished_at = timezone.now()


def pending_chunks(batch: Batch) -> list[int]:
    stored = set(BatchChunk.objects.filter(batch=batch).values_list("index", flat=True))
    return [index for index in range(batch.chunks) if index not in stored]


# ------------------------------------------------------------------------------------- results


def results_of(batch: Batch, total: Tally) -> dict[str, Any]:
    """Everything measured of a batch, from its summed tally (see docs/simulate.md, "Studies")."""
    matches = game_matches(batch.game)
    legs = total["pairings"]
    overall = figures(merge_all(legs))
    kind, inputs = batch.kind, batch.inputs
    if kind == "matchup":
        return overall
    if kind == "ladder":
        levels = list(inputs.get("levels") or LADDER_LEVELS)
        return {**overall, "agents": [{"agent": level, **figures(leg)} for level, leg in zip(levels, legs, strict=True)]}
    if kind == "gauntlet":
        return {**overall, "opponents": [{"opponent": i, **figures(leg)} for i, leg in enumerate(legs)]}
    if kind == "matrix":
        return {**overall, **matrix_results(batch, legs)}
    if kind == "field":
        return {**overall, **field_rows(matches, legs[0])}
    if kind == "whatif":
        half = len(legs) // 2
        base = inputs.get("base", "matchup")
        sides = []
        for legs_of_variant in (legs[:half], legs[half:]):
            variant = figures(merge_all(legs_of_variant))
            if base == "field":
                variant.update(field_rows(matches, legs_of_variant[0]))
            sides.append(variant)
        paired = paired_figures(total["pairs"])
        answer = {"base": base, "baseline": sides[0], "patched": sides[1],
                  "difference": {"win_rate": paired["win_rate"], "ci": paired["ci"], "pairs": paired["pairs"],
                                 "discordant": paired["discordant"]},
                  "p_value": paired["p_value"]}
        if base == "field":
            patched = patched_members(inputs)
            # Each patched card's row in the first group that holds it (a patch may name cards of several
            # groups), keyed `card` as a patched row is.
            rows: list[dict[str, dict[str, Any]]] = [{}, {}]
            for i, side in enumerate(sides):
                for group, key in reversed(matches.field_groups.items()):
                    rows[i].update({row[key]: {**row, "card": row[key]} for row in side.get(group, [])})
            answer["patched_rows"] = [{"card": member, "baseline": rows[0].get(member),
                                       "patched": rows[1].get(member)} for member in sorted(patched)]
        return answer
    raise ValueError(kind)


def patched_members(inputs: Mapping[str, Any]) -> frozenset[str]:
    """The cards (protectors, summoning cards...) a what-if's patch changes."""
    return frozenset(entry["card"] for entry in inputs.get("patch") or [])


def merge_all(legs: Sequence[Tally]) -> Tally:
    total = new_tally()
    for leg in legs:
        merge(total, {key: value for key, value in leg.items() if key != "groups"})
    return total


def field_rows(matches, leg: Tally) -> dict[str, Any]:
    groups = leg.get("groups", {})
    return {group: group_rows(groups, group, key) for group, key in matches.field_groups.items()}


def matrix_results(batch: Batch, legs: Sequence[Tally]) -> dict[str, Any]:
    """The win-rate matrix (row against column, from the row's side) and each entrant's mean against the
    others."""
    entrants = batch.inputs["entrants"]
    size = len(entrants)
    names = batch.plan.get("names") or [f"entrant {i}" for i in range(size)]
    cells: list[list[dict[str, Any] | None]] = [[None] * size for _ in range(size)]
    k = 0
    for i in range(size):
        for j in range(i + 1, size):
            leg = legs[k]
            cells[i][j] = figures(leg)
            mirrored = new_tally()
            mirrored.update(wins=leg["losses"], losses=leg["wins"], draws=leg["draws"], matches=leg["matches"])
            cells[j][i] = {key: value for key, value in figures(mirrored).items()
                           if key in ("played", "wins", "draws", "losses", "win_rate", "win_rate_ci")}
            k += 1
    compact = [[None if cell is None else {key: cell[key] for key in ("played", "wins", "draws", "losses",
                                                                         "win_rate", "win_rate_ci")}
                for cell in row] for row in cells]
    standings: list[dict[str, Any]] = []
    for i in range(size):
        rates = [cell["win_rate"] for cell in compact[i] if cell is not None and cell["win_rate"] is not None]
        standings.append({"entrant": i, "name": names[i] if i < len(names) else f"entrant {i}",
                          "mean_win_rate": round(sum(rates) / len(rates), 6) if rates else None})
    standings.sort(key=lambda row: -(row["mean_win_rate"] or 0))
    return {"matrix": {"rows": names, "cols": names, "cells": compact}, "standings": standings}


def legacy_summary(batch: Batch, total: Tally) -> dict[str, Any]:
    """The batch's `summary` as it always read: wins per side as given, draws, reasons, rounds."""
    matches = game_matches(batch.game)
    all_legs = merge_all(total["pairings"])
    rounds = {int(r): n for r, n in all_legs["rounds"].items()}
    first, second = matches.sides
    summary = {"wins": {first: all_legs["wins"], second: all_legs["losses"]}, "draws": all_legs["draws"],
               "reasons": all_legs["reasons"], "rounds": {"total": sum(r * n for r, n in rounds.items())}}
    if rounds:
        summary["rounds"].update(min=min(rounds), max=max(rounds))
    return summary
