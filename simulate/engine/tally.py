"""Counts of played matches that add up: a chunk of a batch counts its matches in a tally, and the tallies of
all chunks summed give the batch's. Every count is an integer (a surviving-HP share is counted in
millionths), so the sum is exact and the same however the matches were split into chunks.

Outcomes are from side a's point of view (team 0 in Akin Legends): `WIN`, `DRAW` or `LOSS`.

How varied the matches were is counted in a bounded sketch (`GAMES`): the SKETCH_SIZE smallest fingerprints of
the matches' results (a k-minimum-values sketch), each with its matches. The sketch of a sum is the same however
the matches were split: a fingerprint left out of a chunk's sketch had SKETCH_SIZE smaller ones there, so it is
left out of the sum's too, and every fingerprint kept has all its matches.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

from simulate.engine.stats import difference_interval, mcnemar_p, paired_difference_interval, wilson

WIN, DRAW, LOSS = 1, 0, -1
SHARE_UNIT = 1_000_000  # surviving-HP shares are counted in millionths
GAMES = "games"  # a tally's sketch of distinct games: {fingerprint (16 hex digits): matches}
ACTED_FIRST = "acted_first"  # a tally's outcomes of side a by the side that acted first
SAMPLES = "samples"  # a tally's sample matches by outcome: the indexes of its first matches of each
SAMPLES_KEPT = 3
SKETCH_SIZE = 64  # fingerprints a sketch keeps: exact below this many distinct games, an estimate from there
HASH_SPACE = 2 ** 64
# A pairing was effectively one game when at least ONE_GAME_MIN_MATCHES were played and they hold at most one
# distinct game per ONE_GAME_MATCHES_PER_GAME matches (nine in ten or more replayed a game already played).
ONE_GAME_MIN_MATCHES = 10
ONE_GAME_MATCHES_PER_GAME = 10

Tally = dict[str, Any]


def new_tally() -> Tally:
    """The tally of no match."""
    return {
        "matches": 0, "wins": 0, "draws": 0, "losses": 0,
        # [wins, draws, losses] of side a by the side that held the first seat (the halves of a study that
        # swaps sides), and by the side that acted first in the match (where the game has one)
        "first": {"a": [0, 0, 0], "b": [0, 0, 0]},
        ACTED_FIRST: {"a": [0, 0, 0], "b": [0, 0, 0]},
        "rounds": {}, "reasons": {},
        # [sum of the winner's surviving-HP share in millionths, matches] for side a's wins and its losses
        "margin": {"wins": [0, 0], "losses": [0, 0]},
        GAMES: {},
        # The first SAMPLES_KEPT matches (by index in their pairing) of each outcome: replayed on request
        SAMPLES: {"wins": [], "draws": [], "losses": []},
    }


def fingerprint(*parts: Any) -> str:
    """A stable 64-bit hash (16 hex digits) of a match's result as JSON: the same on every machine and run,
    unlike Python's `hash`. Parts that JSON cannot hold are written as their text."""
    text = json.dumps(parts, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


def count_match(tally: Tally, *, outcome: int, first: str, rounds: int, reason: str, share: float,
                game: str) -> None:
    """Count one match: its outcome for side a, who held the first seat, its rounds and end, the share
    of its starting HP (or defenses) the winner kept (ignored for a draw) and its result's `fingerprint`."""
    key = {WIN: "wins", DRAW: "draws", LOSS: "losses"}[outcome]
    tally["matches"] += 1
    tally[key] += 1
    tally["first"][first][(WIN, DRAW, LOSS).index(outcome)] += 1
    tally["rounds"][str(rounds)] = tally["rounds"].get(str(rounds), 0) + 1
    tally["reasons"][reason] = tally["reasons"].get(reason, 0) + 1
    if outcome != DRAW:
        margin = tally["margin"]["wins" if outcome == WIN else "losses"]
        margin[0] += round(min(max(share, 0.0), 1.0) * SHARE_UNIT)
        margin[1] += 1
    sketch = tally[GAMES]
    sketch[game] = sketch.get(game, 0) + 1
    if len(sketch) > SKETCH_SIZE:
        del sketch[max(sketch)]


def count_acted_first(tally: Tally, *, outcome: int, side: str) -> None:
    """Count a match's outcome for side a by `side`, the side (as given) that acted first in it."""
    tally.setdefault(ACTED_FIRST, {"a": [0, 0, 0], "b": [0, 0, 0]})[side][(WIN, DRAW, LOSS).index(outcome)] += 1


def merge_sketches(into: dict[str, int], other: Mapping[str, int]) -> dict[str, int]:
    """Two sketches of distinct games as one: their fingerprints' matches added, the SKETCH_SIZE smallest kept
    (fixed-width hex digits sort as the numbers they write)."""
    for key, matches in other.items():
        into[key] = into.get(key, 0) + matches
    for key in sorted(into)[SKETCH_SIZE:]:
        del into[key]
    return into


def keep_sample(tally: Tally, *, outcome: int, index: int) -> None:
    """Keep match `index` as a sample of its outcome if it is among the first SAMPLES_KEPT of it."""
    kept = tally.setdefault(SAMPLES, {}).setdefault({WIN: "wins", DRAW: "draws", LOSS: "losses"}[outcome], [])
    if len(kept) < SAMPLES_KEPT or index < kept[-1]:
        kept[:] = sorted({*kept, index})[:SAMPLES_KEPT]


def merge_samples(into: dict[str, list[int]], other: Mapping[str, list[int]]) -> dict[str, list[int]]:
    """Two tallies' samples as one: the first SAMPLES_KEPT matches of each outcome of both, whatever the split."""
    for outcome, indexes in other.items():
        into[outcome] = sorted({*into.get(outcome, []), *indexes})[:SAMPLES_KEPT]
    return into


def count_appearances(groups: dict[str, dict[str, list[int]]], features: Mapping[str, Iterable[str]],
                      *, won: bool) -> None:
    """Count one army (or team) of a field study: for each group (cards, factions...), each of its members
    appears once, with a win if the army won. `groups["all"]["armies"]` counts every army."""
    every = groups.setdefault("all", {}).setdefault("armies", [0, 0])
    every[0] += 1
    every[1] += int(won)
    for group, members in features.items():
        rows = groups.setdefault(group, {})
        for member in set(members):
            row = rows.setdefault(member, [0, 0])
            row[0] += 1
            row[1] += int(won)


def merge(into: Any, other: Any) -> Any:
    """`into` plus `other`, both tallies of the same shape (nested dicts and lists of integers); the sum
    is the same in any order."""
    if isinstance(into, dict) and isinstance(other, dict):
        for key, value in other.items():
            if key == GAMES:
                into[key] = merge_sketches(into.get(key, {}), value)
            elif key == SAMPLES:
                into[key] = merge_samples(into.get(key, {}), value)
            else:
                into[key] = merge(into[key], value) if key in into else _copy(value)
        return into
    if isinstance(into, list) and isinstance(other, list):
        if len(into) != len(other):
            raise ValueError("tallies of different shapes")
        return [merge(a, b) for a, b in zip(into, other, strict=True)]
    if isinstance(into, int) and isinstance(other, int):
        return into + other
    raise ValueError(f"cannot add {type(other).__name__} to {type(into).__name__}")


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copy(item) for item in value]
    return value


# ------------------------------------------------------------------------------------ figures


def rate(successes: int, trials: int) -> dict[str, Any]:
    """A rate with its 95% Wilson interval (null when nothing was tried)."""
    low, high = wilson(successes, trials)
    return {"win_rate": round(successes / trials, 6) if trials else None,
            "win_rate_ci": {"low": round(low, 6), "high": round(high, 6)}}


def outcome_figures(wins: int, draws: int, losses: int) -> dict[str, Any]:
    """Wins, draws, losses and the win rate (draws are not wins) with its interval."""
    return {"wins": wins, "draws": draws, "losses": losses, **rate(wins, wins + draws + losses)}


def distinct_games(sketch: Mapping[str, int]) -> dict[str, Any]:
    """The distinct games a sketch saw: exact below SKETCH_SIZE of them, else the k-minimum-values estimate
    (k − 1) / (the k-th smallest fingerprint as a share of the hash space), at least k."""
    if len(sketch) < SKETCH_SIZE:
        return {"count": len(sketch), "exact": True}
    kth = (int(max(sketch), 16) + 1) / HASH_SPACE
    return {"count": max(SKETCH_SIZE, round((SKETCH_SIZE - 1) / kth)), "exact": False}


def variety(tally: Tally) -> dict[str, Any]:
    """How varied the tally's matches were: `distinct_games` (null for a tally counted without a sketch),
    `one_game` when they were effectively one game (or a few replayed), and the warning a reader is shown."""
    sketch = tally.get(GAMES)
    played = tally["matches"]
    if sketch is None or (played and not sketch):  # matches counted before games were
        return {"distinct_games": None, "one_game": False, "one_game_warning": None}
    games = distinct_games(sketch)
    if not games["exact"]:  # an estimate past the matches played says only that every match differed
        games["count"] = min(games["count"], played)
    one_game = (games["exact"] and played >= ONE_GAME_MIN_MATCHES
                and games["count"] * ONE_GAME_MATCHES_PER_GAME <= played)
    warning = None
    if one_game:
        what = "one game" if games["count"] == 1 else f"{games['count']} games replayed"
        warning = (f"These {played:,} matches were effectively {what}: the interval says how this policy plays, "
                   "not how the sides compare.")
    return {"distinct_games": games, "one_game": one_game, "one_game_warning": warning}


def figures(tally: Tally) -> dict[str, Any]:
    """What a designer reads of a tally: outcomes and win rate, the same by first seat, rounds (mean,
    min, max, histogram), ends, how decisive the wins and losses were, and how varied the matches were."""
    histogram = {int(r): n for r, n in tally["rounds"].items()}
    played = tally["matches"]
    total_rounds = sum(r * n for r, n in histogram.items())
    by_first = {side: outcome_figures(*counts) for side, counts in tally["first"].items()}
    acted = tally.get(ACTED_FIRST)
    # Tallies counted before who acted first was, or of a game without a first player, leave it out.
    by_acted_first = {side: outcome_figures(*counts) for side, counts in acted.items()} \
        if acted and sum(map(sum, acted.values())) == played else None
    # The side that acted first, whichever it was: its wins are side a's when a acted first, b's otherwise.
    first_actor = None if acted is None or by_acted_first is None else outcome_figures(
        acted["a"][0] + acted["b"][2], acted["a"][1] + acted["b"][1], acted["a"][2] + acted["b"][0])
    margin = tally["margin"]
    return {
        "played": played,
        **outcome_figures(tally["wins"], tally["draws"], tally["losses"]),
        "by_first": by_first,
        "by_acted_first": by_acted_first,
        "first_actor": first_actor,
        "rounds": {
            "mean": round(total_rounds / played, 3) if played else None,
            "min": min(histogram) if histogram else None,
            "max": max(histogram) if histogram else None,
            "histogram": {str(r): histogram[r] for r in sorted(histogram)},
        },
        "reasons": dict(sorted(tally["reasons"].items())),
        "decisiveness": {
            "wins": round(margin["wins"][0] / margin["wins"][1] / SHARE_UNIT, 4) if margin["wins"][1] else None,
            "losses": (round(margin["losses"][0] / margin["losses"][1] / SHARE_UNIT, 4)
                       if margin["losses"][1] else None),
        },
        **variety(tally),
    }


def interval(bounds: tuple[float, float]) -> dict[str, float]:
    return {"low": round(bounds[0], 6), "high": round(bounds[1], 6)}


def group_rows(groups: Mapping[str, Mapping[str, list[int]]], group: str, key: str) -> list[dict[str, Any]]:
    """The rows of one group of a field study, ranked by `delta` (the member's win rate less that of the
    armies without it), highest first. `flag` is `over` or `under` where the delta's 95% interval
    excludes zero."""
    armies, army_wins = groups.get("all", {}).get("armies", [0, 0])
    rows = []
    for member, (appearances, wins) in groups.get(group, {}).items():
        without, without_wins = armies - appearances, army_wins - wins
        low, high = difference_interval(wins, appearances, without_wins, without)
        delta = wins / appearances - without_wins / without if appearances and without else None
        rows.append({
            key: member, "appearances": appearances, "wins": wins, **rate(wins, appearances),
            "without_win_rate": round(without_wins / without, 6) if without else None,
            "delta": None if delta is None else round(delta, 6),
            "delta_ci": interval((low, high)),
            "flag": "over" if low > 0 else "under" if high < 0 else None,
        })
    rows.sort(key=lambda row: (-(row["delta"] if row["delta"] is not None else -2.0), row[key]))
    return rows


def paired_figures(pairs: list[int]) -> dict[str, Any]:
    """The paired comparison of a what-if: [both, baseline only, patched only, neither] counts of
    successes on the same seeds; the difference (patched less baseline) with its interval and McNemar's
    exact p-value."""
    both, baseline_only, patched_only, neither = pairs
    n = sum(pairs)
    return {
        "pairs": n,
        "discordant": {"baseline_only": baseline_only, "patched_only": patched_only},
        "win_rate": round((patched_only - baseline_only) / n, 6) if n else None,
        "ci": interval(paired_difference_interval(both, baseline_only, patched_only, neither)),
        "p_value": round(mcnemar_p(baseline_only, patched_only), 6),
    }


def ci_width(tally: Tally) -> float:
    """The width of the win rate's 95% interval (1 before the first match)."""
    low, high = wilson(tally["wins"], tally["matches"])
    return high - low
