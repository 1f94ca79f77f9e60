"""The figures of a study as the command line prints them: plain tables, percentages, intervals.

`manage.py simulate_batch` prints what the study's kind measures (`StudyKind.headline`, as `headline_lines`),
the details of its matches (`details`), then what the kind adds (`StudyKind.text`), built from these pieces.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from simulate.study_kinds.base import Headline, Outcomes

FIELD_ROWS = 10  # rows of each end of a field group
HISTOGRAM_BINS = 20  # rounds are listed match by match up to this many distinct values



def pct(value: float | None) -> str:
    """A rate as a percentage to one place (— when there is none)."""
    return "—" if value is None else f"{value:.1%}"


def points(value: float | None) -> str:
    """A difference of rates, in percentage points."""
    return "—" if value is None else f"{value * 100:+.1f} pts"


def signed(value: float | None) -> str:
    """A difference of rates as signed points, bare, for a column headed in points (— when there is none)."""
    return "—" if value is None or math.isnan(value) else f"{value * 100:+.1f}"


def ci(bounds: Mapping[str, float] | None, show: Callable[[float | None], str] = pct) -> str:
    """An interval as `low – high`."""
    return "—" if not bounds else f"{show(bounds['low'])} – {show(bounds['high'])}"


def number(value: float | None, digits: int = 2) -> str:
    """A number to `digits` places (— when there is none)."""
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
    """The outcome cells of a row: played, wins, draws, losses, win rate and its interval."""
    played = figures.get("played", figures["wins"] + figures["draws"] + figures["losses"])
    return [played, figures["wins"], figures["draws"], figures["losses"], pct(figures["win_rate"]),
            ci(figures["win_rate_ci"])]


SIDES = {"a": "as given", "b": "swapped"}  # the matches of each half of a study that swaps sides
ONE_GAME_MARK = "*"
ONE_GAME_NOTE = (f"{ONE_GAME_MARK} effectively one game (or a few) replayed: the interval says how this policy plays, "
                 "not how the sides compare.")


def games(figures: Mapping[str, Any]) -> str:
    """The distinct games of a row (~ when estimated), marked when they were effectively one game."""
    counted = figures.get("distinct_games")
    if counted is None:
        return "—"
    mark = ONE_GAME_MARK if figures.get("one_game") else ""
    return f"{'' if counted['exact'] else '~'}{counted['count']}{mark}"


def figure_rows(label: str, rows: Sequence[tuple[str, Mapping[str, Any]]], sides: Sequence[str]) -> list[str]:
    """One row of outcomes per study part (opponent, agent, variant): side a's win rate with the sides as given
    and swapped, its mean rounds and decisiveness, its distinct games."""
    lines = table((label, *OUTCOME_HEADERS, f"{sides[0]} as given", f"{sides[0]} swapped", "rounds", "kept in wins",
                   "in losses", "games"), [
        (name, *outcome_cells(f), pct(f["by_first"]["a"]["win_rate"]), pct(f["by_first"]["b"]["win_rate"]),
         number(f["rounds"]["mean"]), pct(f["decisiveness"]["wins"]), pct(f["decisiveness"]["losses"]), games(f))
        for name, f in rows
    ])
    return lines + ([ONE_GAME_NOTE] if any(f.get("one_game") for _, f in rows) else [])


def outcomes_text(outcomes: Outcomes) -> str:
    """A headline's outcomes: W · D · L of a side, or the draws alone where no side is the one studied."""
    share = f"draws {pct(outcomes.draw_share)}"
    if not outcomes.sided:
        return f"{outcomes.whose}: {outcomes.played} matches, {outcomes.draws} drawn ({share})"
    return (f"{outcomes.whose}: W {outcomes.wins} · D {outcomes.draws} · L {outcomes.losses} of {outcomes.played} "
            f"({share})")


def headline_lines(head: Headline) -> list[str]:
    """What the study measures: its figure with its interval, its outcomes, its ranking, its note."""
    show = points if head.difference else pct
    lines = [f"{head.measures}: {show(head.value)} (95% CI {ci(head.interval, show)})"
             if head.value is not None or head.interval else head.measures,
             *([f"Warning: {head.warning}"] if head.warning else []),
             *(outcomes_text(outcomes) for outcomes in head.outcomes)]
    if head.ranked:
        show = points if head.ranked_difference else pct
        intervals = any(row.interval for row in head.ranked)
        lines += ["", head.ranked_title, *table(("#", "name", head.ranked_figure, *(["95% CI"] if intervals else [])), [
            (rank, row.name, show(row.value), *([ci(row.interval, show)] if intervals else []))
            for rank, row in enumerate(head.ranked, 1)], left=2)]
    return [*lines, *([head.note] if head.note else [])]


def details(figures: Mapping[str, Any], seats: Mapping[str, str], *, swapped: bool) -> list[str]:
    """Side a's outcomes with the sides as given and swapped (when they were), rounds, ends and decisiveness."""
    side = seats["a"]
    rounds, decisive = figures["rounds"], figures["decisiveness"]
    histogram = ", ".join(f"{r}: {n}" for r, n in rounds["histogram"].items()) \
        if len(rounds["histogram"]) <= HISTOGRAM_BINS else ""
    ends = ", ".join(f"{reason} {n}" for reason, n in figures["reasons"].items())
    sides = [*table((f"{side}, sides", *OUTCOME_HEADERS),
                    [(SIDES[half], *outcome_cells(figures["by_first"][half])) for half in ("a", "b")]), ""] \
        if swapped else []
    if figures.get("first_actor"):
        first = figures["first_actor"]
        sides += [f"The side that acted first: {pct(first['win_rate'])} (95% CI {ci(first['win_rate_ci'])}), "
                  f"W {first['wins']} · D {first['draws']} · L {first['losses']}", ""]
    acted = figures.get("by_acted_first")
    if acted:
        sides += [*table((f"{side}, who acted first", *OUTCOME_HEADERS),
                         [(f"{seats[half]} first", *outcome_cells(acted[half])) for half in ("a", "b")]), ""]
    return [
        *sides,
        f"Rounds: mean {number(rounds['mean'])}, min {rounds['min'] if rounds['min'] is not None else '—'}, "
        f"max {rounds['max'] if rounds['max'] is not None else '—'}" + (f" ({histogram})" if histogram else ""),
        f"Ends: {ends or '—'}",
        f"Decisiveness (share of its start the winner kept): in {side}'s wins {pct(decisive['wins'])}, "
        f"in its losses {pct(decisive['losses'])}",
        f"Distinct games: {games(figures).rstrip(ONE_GAME_MARK)}",
    ]


def field_group_lines(group: str, key: str, rows: Sequence[Mapping[str, Any]]) -> list[str]:
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
