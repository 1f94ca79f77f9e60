"""The pieces of a study's report page that kinds share: the headline (what the kind measures), a block of
figures with its chart, the details of the matches (sides as given and swapped, rounds, ends, decisiveness)
and a field study's tables of members.

Each kind's `StudyKind.report` builds what its own partial shows from these (simulate/study_kinds/).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from django.urls import reverse

from simulate.pages import charts
from simulate.pages.games import game_pages
from simulate.services import game_studies

if TYPE_CHECKING:
    from simulate.comparison import Comparison
    from simulate.study_kinds.base import Headline, Outcomes

# A field table's orders: the query value, the row's key, and how it reads.
SORTS = {
    "-delta": ("delta", "delta, highest first"), "delta": ("delta", "delta, lowest first"),
    "-win_rate": ("win_rate", "win rate, highest first"), "win_rate": ("win_rate", "win rate, lowest first"),
    "-appearances": ("appearances", "appearances, most first"), "appearances": ("appearances", "appearances, fewest first"),
    "name": ("name", "name, A to Z"), "-name": ("name", "name, Z to A"),
}
DEFAULT_SORT = "-delta"
SIDES = {"a": "As given", "b": "Swapped"}  # the matches of each half of a study that swaps sides
ACTED_FIRST = {"a": "{side} acted first", "b": "The other side acted first"}  # by_acted_first's halves
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


def headline(head: Headline) -> dict[str, Any]:
    """What the study measures, as the report's first panel shows it."""
    show = charts.points if head.difference else charts.pct
    ranked = charts.points if head.ranked_difference else charts.pct
    return {
        "measures": head.measures, "value": show(head.value), "interval": charts.interval(head.interval, show),
        "has_value": head.value is not None or bool(head.interval), "difference": head.difference,
        "outcomes": [outcomes_shown(outcomes) for outcomes in head.outcomes],
        "ranked_title": head.ranked_title, "ranked_figure": head.ranked_figure.capitalize(),
        "ranked_intervals": any(row.interval for row in head.ranked),
        "ranked": [{"name": row.name, "url": row.url, "value": ranked(row.value),
                    "interval": charts.interval(row.interval, ranked)} for row in head.ranked],
        "note": head.note, "warning": head.warning,
    }


def outcomes_shown(outcomes: Outcomes) -> dict[str, Any]:
    return {"whose": outcomes.whose, "sided": outcomes.sided, "played": outcomes.played, "wins": outcomes.wins,
            "draws": outcomes.draws, "losses": outcomes.losses, "draw_share": charts.pct(outcomes.draw_share)}


def details(results: Mapping[str, Any], side: str, *, swapped: bool, sided: bool = True) -> dict[str, Any]:
    """Side a's outcomes with the sides as given and swapped (when some matches swapped them), rounds (with
    their histogram), how matches ended, how decisive the wins were."""
    rounds = results.get("rounds") or {}
    decisive = results.get("decisiveness") or {}
    halves = results.get("by_first") or {}
    acted = results.get("by_acted_first") or {}
    return {
        "sides": [{"half": SIDES[half], **figures(halves[half], f"{side}, sides {SIDES[half].lower()}", axis=False)}
                  for half in SIDES if half in halves] if swapped else [],
        "first_actor": results.get("first_actor") and figures(results["first_actor"], "The side that acted first",
                                                             axis=False),
        "acted_first": [{"who": ACTED_FIRST[half].format(side=side).capitalize(),
                         **figures(acted[half], ACTED_FIRST[half].format(side=side), axis=False)}
                        for half in ACTED_FIRST if half in acted] if sided else [],
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
                       "rows": present + [row for row in shown if row[key] is None],
                       "fix_link": fix_link(batch, group)})
    return tables


def fix_link(batch: Any, group: str) -> str | None:
    """Where a flagged card of a published field study opens a suggestion of a fix (its slug to add), else None:
    the study form, linked to the suggestion kind with this study."""
    if batch.published_at is None or group != game_studies(batch.game).tuning_group:
        return None
    return f"{reverse('study-new')}?game={batch.game}&kind=suggest&suggest_study={batch.pk}&suggest_cards="


def field_row(game: str, group: str, row: Mapping[str, Any], member_key: str, names: Mapping[str, str]) -> dict:
    """A member's row of a field table, named and linked to its card's page when it is a card."""
    member = row[member_key]
    return {
        "member": member, "name": names.get(member, member), "url": member_url(game, group, member, names),
        "appearances": row["appearances"], "wins": row["wins"], "win_rate": row["win_rate"],
        "delta": row["delta"], "flag": row["flag"],
        "win_rate_text": charts.pct(row["win_rate"]), "win_rate_ci": charts.interval(row["win_rate_ci"]),
        "without": charts.pct(row["without_win_rate"]), "delta_text": charts.points(row["delta"]),
        "delta_ci": charts.interval(row["delta_ci"], charts.points),
    }


def member_url(game: str, group: str, member: str, names: Mapping[str, str]) -> str | None:
    """The page of a field group's member, when it is a card of the catalogue."""
    pages = game_pages(game)
    return reverse(pages.card_page, args=[member]) if group in pages.card_groups and member in names else None


def member_names(game: str, group: str, slugs: Sequence[str]) -> dict[str, str]:
    """Display names of a field group's members by slug (one query), as the game names them."""
    return game_pages(game).member_names(group, slugs)


# ------------------------------------------------------------------------------------- comparing


def compared_shown(comparison: Comparison) -> dict[str, Any]:
    """Two studies side by side as the compare page shows them: which they are, their headlines, and what
    their kind compares (a field's members, a what-if's patched cards)."""
    from simulate.study_kinds import study_kind  # the kinds import this module: here, not at the top

    first, second = comparison.a, comparison.b
    kind = study_kind(first.kind)
    members = comparison.compared.get("members")
    patched = comparison.compared.get("patched_cards")
    return {
        "label": kind.label, "game": first.game,
        "studies": [{"name": name, "batch": batch, "about": kind.about(batch),
                     "headline": headline(comparison.headlines[name])} for name, batch in (("a", first), ("b", second))],
        "members": None if members is None else members_shown(first.game, members),
        "patched": None if not patched else patched_shown(first.game, patched),
    }


def members_shown(game: str, rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """A field comparison's rows, named (one query per group) and linked."""
    names: dict[str, dict[str, str]] = {}
    for group in {row["group"] for row in rows}:
        names[group] = member_names(game, group, [row["member"] for row in rows if row["group"] == group])
    shown = []
    for row in rows:
        group, member, interval = row["group"], row["member"], row["difference_ci"]
        shown.append({
            "group": GROUP_TITLES.get(group, group), "name": names[group].get(member, member),
            "url": member_url(game, group, member, names[group]),
            "a": delta_shown(row["a"]), "b": delta_shown(row["b"]),
            "difference": charts.points(row["difference"]), "difference_ci": charts.interval(interval, charts.points),
            "higher": None if not interval else "a" if interval["low"] > 0 else "b" if interval["high"] < 0 else None,
        })
    return shown


def delta_shown(row: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A member's delta with its interval, as text (None where the study never fielded it)."""
    if row is None:
        return None
    return {"appearances": row["appearances"], "delta": charts.points(row["delta"]),
            "ci": charts.interval(row["delta_ci"], charts.points)}


def patched_shown(game: str, rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """A what-if comparison's patched cards, each with its delta without and with the patch in both studies."""
    names: dict[str, str] = {}
    for group in game_studies(game).field_groups:
        names.update(member_names(game, group, [row["card"] for row in rows]))
    return [{"name": names.get(row["card"], row["card"]),
             "variants": [{"study": study, "variant": variant,
                           "row": delta_shown((row[study] or {}).get(variant))}
                          for study in ("a", "b") for variant in ("baseline", "patched")]}
            for row in rows]
