"""The pieces of a study's report page that kinds share: a block of figures with its chart, the details of
the matches (first seat, rounds, ends, decisiveness) and a field study's tables of members.

Each kind's `StudyKind.report` builds what its own partial shows from these (simulate/study_kinds/).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.urls import reverse

from simulate.pages import charts
from simulate.pages.games import game_pages
from simulate.services import game_studies

# A field table's orders: the query value, the row's key, and how it reads.
SORTS = {
    "-delta": ("delta", "delta, highest first"), "delta": ("delta", "delta, lowest first"),
    "-win_rate": ("win_rate", "win rate, highest first"), "win_rate": ("win_rate", "win rate, lowest first"),
    "-appearances": ("appearances", "appearances, most first"), "appearances": ("appearances", "appearances, fewest first"),
    "name": ("name", "name, A to Z"), "-name": ("name", "name, Z to A"),
}
DEFAULT_SORT = "-delta"
GROUP_TITLES = {"cards": "Cards", "factions": "Factions", "classes": "Classes", "protectors": "Protectors",
                "defenses": "Defense cards", "summoning_cards": "Summoning cards"}



def figures(row: Mapping[str, Any], label: str, *, axis: bool = True) -> dict[str, Any]:
    """A row of outcome figures as a block of the report shows them, with its win-rate chart."""
    return {
        "played": row.get("played", row.get("wins", 0) + row.get("draws", 0) + row.get("losses", 0)),
        "wins": row.get("wins", 0), "draws": row.get("draws", 0), "losses": row.get("losses", 0),
        "win_rate": charts.pct(row.get("win_rate")), "ci": charts.interval(row.get("win_rate_ci")),
        "one_game_warning": row.get("one_game_warning"),
        "chart": charts.win_rate_chart(row.get("win_rate"), row.get("win_rate_ci"), label=label, axis=axis,
                                       width=charts.WIDTH if axis else 200),
    }


def details(results: Mapping[str, Any], side: str) -> dict[str, Any]:
    """By first seat, rounds (with their histogram), how matches ended, how decisive the wins were."""
    rounds = results.get("rounds") or {}
    decisive = results.get("decisiveness") or {}
    return {
        "by_first": [{"seat": seat, **figures(row, f"{side} when {seat} held the first seat", axis=False)}
                     for seat, row in (results.get("by_first") or {}).items()],
        "rounds": {"mean": rounds.get("mean"), "min": rounds.get("min"), "max": rounds.get("max"),
                   "chart": charts.histogram_chart(rounds.get("histogram"), label="Matches by rounds played")},
        "reasons": sorted((results.get("reasons") or {}).items(), key=lambda pair: (-pair[1], pair[0])),
        "decisiveness": {"wins": charts.pct(decisive.get("wins")), "losses": charts.pct(decisive.get("losses"))},
    }


def field_groups(batch: Any, results: Mapping[str, Any], sort: str) -> list[dict[str, Any]]:
    """A table per group of a field study (cards, factions, classes; protectors, defenses, summoning cards),
    in the order asked for; card names link to their pages."""
    groups = game_studies(batch.game).field_groups
    key, _ = SORTS[sort]
    descending = sort.startswith("-")
    sides = 2 * results.get("played", 0)  # every match draws two sides
    tables = []
    for group, member_key in groups.items():
        rows = results.get(group) or []
        names = member_names(batch.game, group, [row[member_key] for row in rows])
        shown = [{**field_row(batch.game, group, row, member_key, names),
                  "share": charts.pct(row["appearances"] / sides if sides else None)} for row in rows]
        present = [row for row in shown if row[key] is not None]
        present.sort(key=lambda row: (row[key], row["name"]), reverse=descending)
        tables.append({"group": group, "title": GROUP_TITLES.get(group, group), "sort_key": key,
                       "descending": descending,
                       "rows": present + [row for row in shown if row[key] is None]})
    return tables


def field_row(game: str, group: str, row: Mapping[str, Any], member_key: str, names: Mapping[str, str]) -> dict:
    """A member's row of a field table, named and linked to its card's page when it is a card."""
    member = row[member_key]
    name = names.get(member, member)
    pages = game_pages(game)
    linked = group in pages.card_groups and member in names
    return {
        "member": member, "name": name,
        "url": reverse(pages.card_page, args=[member]) if linked else None,
        "appearances": row["appearances"], "wins": row["wins"], "win_rate": row["win_rate"],
        "delta": row["delta"], "flag": row["flag"],
        "win_rate_text": charts.pct(row["win_rate"]), "win_rate_ci": charts.interval(row["win_rate_ci"]),
        "without": charts.pct(row["without_win_rate"]), "delta_text": charts.points(row["delta"]),
        "delta_ci": charts.interval(row["delta_ci"], charts.points),
    }


def member_names(game: str, group: str, slugs: Sequence[str]) -> dict[str, str]:
    """Display names of a field group's members by slug (one query), as the game names them."""
    return game_pages(game).member_names(group, slugs)
