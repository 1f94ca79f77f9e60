"""The balance lab in the browser: start a study of either game, follow it while it plays, read its report.

A study is started exactly as POST /api/simulate/<game>/batches/ starts one: the same throttles, the game's
batch request serializer, `batches.create_batch` with the same client, handed to the background after
commit. Its page reads the batch as the API's retrieve does, and polls a fragment (htmx) until it is over.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST
from rest_framework.exceptions import ValidationError

from cardsdb.api.errors import exception_handler, page_error
from cardsdb.pages.throttles import throttle_scope
from cardsdb.pages.wording import named_violations
from simulate import background, batches, selectors
from simulate.api.views import start_batch
from simulate.engine.errors import InputError
from simulate.models import Batch
from simulate.pages import charts
from simulate.pages.games import UnknownGamePages, default_game, game_pages, game_title, game_titles
from simulate.pages.study_forms import KIND_HELP, StudyForm
from simulate.services import IllegalMatchSetup, game_matches

RUNNING = (Batch.Status.QUEUED, Batch.Status.RUNNING)
# Said alike whether the study does not exist or is another account's.
NO_SUCH_STUDY = ("There is no study at this address, or it is private: a study started while signed in is seen "
                 "only by its account.")
RECENT_STUDIES = 10
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


# ------------------------------------------------------------------------------------ starting


@throttle_scope("batches")
@require_http_methods(["GET", "POST"])
def study_new(request):
    """The form of every kind of study, and the signed-in user's recent studies."""
    game = request.GET.get("game", default_game())
    try:
        pages = game_pages(game)
    except UnknownGamePages:
        return page_error(request, 400, f"Unknown game; give one of {', '.join(game_titles())}.")
    status, refusal = 200, None
    if request.method == "POST":
        background.resume_soon()
        form = StudyForm(request.POST, game=game)
        if form.is_valid():
            try:
                batch = start_study(request, game, form.request_body())
            except batches.TooManyBatches as exc:
                status, refusal = 429, {"message": str(exc), "fields": [], "violations": []}
            except (ValidationError, InputError, IllegalMatchSetup) as exc:
                status, refusal = 400, refusal_of(exc, form)
            else:
                return redirect("study-detail", batch_id=batch.id)
        else:
            status = 400
    else:
        form = StudyForm.linked(game, request.GET)
    recent = selectors.batch_list(user=request.user).order_by("-created_at")[:RECENT_STUDIES]
    return render(request, "simulate/pages/study_new.html", {
        "nav": "studies", "form": form, "game": game, "game_name": pages.title, "games": game_titles(),
        "game_form": pages.study_form_template,
        "kinds": KIND_HELP, "refusal": refusal, "recent": recent,
    }, status=status)


def start_study(request, game: str, body: dict[str, Any]) -> Batch:
    """Check and store the study as BatchCreateView does (ValidationError when refused)."""
    data = game_matches(game).batch_request(data=body)
    data.is_valid(raise_exception=True)
    return start_batch(game=game, body=body, data=data, request=request)


def refusal_of(exc: Exception, form: StudyForm) -> dict[str, Any]:
    """The API's answer to a refused study (its message, fields by path, rule violations); a field of the
    form (count, seed...) gets its own messages inline."""
    if isinstance(exc, InputError) and all(form.field_for(path) for path, _ in exc.errors) and exc.errors:
        for path, reason in exc.errors:  # an army or a patch of the simple fields that could not be used
            form.add_error(form.field_for(path), reason)
        return {"message": str(exc), "fields": [], "violations": []}
    answer = exception_handler(exc, {}).data
    fields: list[dict[str, Any]] = []
    for path, reasons in answer.get("fields", {}).items():
        if field := form.field_for(path):
            for reason in reasons:
                form.add_error(field, reason)
        else:
            fields.extend({"path": path, "reason": reason} for reason in reasons)
    return {"message": answer["message"], "fields": fields, "violations": named_violations(answer.get("violations", []))}


# ------------------------------------------------------------------------------------ reading


def visible_batch(request, batch_id) -> Batch:
    """The batch as the API's retrieve finds it (yours, or any anonymous one), or 404."""
    background.resume_soon()
    batch = selectors.batch_visible(user=request.user).filter(pk=batch_id).defer("tally").first()
    if batch is None:
        raise Http404(NO_SUCH_STUDY)
    return batch


def study_detail(request, batch_id):
    batch = visible_batch(request, batch_id)
    sort = request.GET.get("sort", DEFAULT_SORT)
    if sort not in SORTS:
        return page_error(request, 400, f"Unknown order; give one of {', '.join(SORTS)}.")
    return render(request, "simulate/pages/study_detail.html", {
        "nav": "studies", **state_context(batch, sort), "game_name": game_title(batch.game),
    })


def study_progress(request, batch_id):
    """The part of the study page that changes: polled every second while the study plays."""
    batch = visible_batch(request, batch_id)
    return render(request, "simulate/pages/study_state.html", {**state_context(batch, DEFAULT_SORT), "oob": True})


@require_POST
def study_cancel(request, batch_id):
    """Stop a queued or running study, as POST /api/simulate/batches/{id}/cancel/ does."""
    batches.cancel_batch(visible_batch(request, batch_id))
    return redirect("study-detail", batch_id=batch_id)


def state_context(batch: Batch, sort: str) -> dict[str, Any]:
    running = batch.status in RUNNING
    context: dict[str, Any] = {"batch": batch, "running": running, "sort": sort,
                               "sorts": [(value, label) for value, (_, label) in SORTS.items()]}
    if not running and batch.played:
        context["report"] = report(batch, sort)
    return context


# ------------------------------------------------------------------------------------ the report


def report(batch: Batch, sort: str) -> dict[str, Any]:
    """What the report shows of a batch's results, with its charts and its numbers as text."""
    results = batch.results or {}
    side, other = game_pages(batch.game).side_names
    answer: dict[str, Any] = {"side": side, "other": other, "kind": batch.kind}
    figures_of = results if batch.kind != "whatif" else results.get("baseline", {})
    if batch.kind != "whatif":
        answer["overall"] = figures(results, f"Win rate of {side}")
    answer["details"] = details(figures_of, side)
    if batch.kind == "gauntlet":
        answer["rows"] = [{"name": f"Opponent {row['opponent'] + 1}", **figures(row, f"Against opponent "
                                                                                   f"{row['opponent'] + 1}", axis=False)}
                          for row in results.get("opponents", [])]
    elif batch.kind == "ladder":
        answer["rows"] = [{"name": row["agent"], **figures(row, f"Both sides {row['agent']}", axis=False)}
                          for row in results.get("agents", [])]
    elif batch.kind == "matrix":
        answer["matrix"] = matrix(results)
    elif batch.kind == "field":
        answer["groups"] = field_groups(batch, results, sort)
    elif batch.kind == "whatif":
        answer["whatif"] = whatif(batch, results, sort)
    return answer


def figures(row: Mapping[str, Any], label: str, *, axis: bool = True) -> dict[str, Any]:
    return {
        "played": row.get("played", row.get("wins", 0) + row.get("draws", 0) + row.get("losses", 0)),
        "wins": row.get("wins", 0), "draws": row.get("draws", 0), "losses": row.get("losses", 0),
        "win_rate": charts.pct(row.get("win_rate")), "ci": charts.interval(row.get("win_rate_ci")),
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


def matrix(results: Mapping[str, Any]) -> dict[str, Any]:
    grid = results.get("matrix") or {}
    names, cells = grid.get("rows", []), grid.get("cells", [])
    rows = []
    for i, name in enumerate(names):
        row = []
        for j, cell in enumerate(cells[i] if i < len(cells) else []):
            if cell is None:
                row.append({"self": True, "against": names[j]})
            else:
                row.append({"against": names[j], "rate": charts.pct(cell["win_rate"], 0),
                            "exact": charts.pct(cell["win_rate"]), "ci": charts.interval(cell["win_rate_ci"]),
                            "colour": charts.heat_colour(cell["win_rate"]), "wins": cell["wins"],
                            "draws": cell["draws"], "losses": cell["losses"]})
        rows.append({"name": name, "cells": row})
    standings = [{"name": row["name"], "rate": charts.pct(row["mean_win_rate"])} for row in results.get("standings", [])]
    return {"cols": names, "rows": rows, "standings": standings}


def field_groups(batch: Batch, results: Mapping[str, Any], sort: str) -> list[dict[str, Any]]:
    """A table per group of a field study (cards, factions, classes; protectors, defenses, summoning cards),
    in the order asked for; card names link to their pages."""
    groups = game_matches(batch.game).field_groups
    key, _ = SORTS[sort]
    descending = sort.startswith("-")
    tables = []
    for group, member_key in groups.items():
        rows = results.get(group) or []
        names = member_names(batch.game, group, [row[member_key] for row in rows])
        shown = [field_row(batch.game, group, row, member_key, names) for row in rows]
        present = [row for row in shown if row[key] is not None]
        present.sort(key=lambda row: (row[key], row["name"]), reverse=descending)
        tables.append({"group": group, "title": GROUP_TITLES.get(group, group), "sort_key": key,
                       "descending": descending,
                       "rows": present + [row for row in shown if row[key] is None]})
    return tables


def field_row(game: str, group: str, row: Mapping[str, Any], member_key: str, names: Mapping[str, str]) -> dict:
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


def patch_entries(batch: Batch) -> list[dict[str, Any]]:
    """The patch as given, each card named and linked to its page."""
    entries = [entry for entry in batch.inputs.get("patch") or [] if isinstance(entry, dict)]
    slugs = [str(entry.get("card")) for entry in entries]
    names: dict[str, str] = {}
    for group in game_matches(batch.game).field_groups:
        names.update(member_names(batch.game, group, slugs))
    return [{"card": slug, "name": names.get(slug, slug), "changes": entry.get("changes") or {},
             "url": reverse(game_pages(batch.game).card_page, args=[slug]) if slug in names else None}
            for slug, entry in zip(slugs, entries, strict=True)]


def whatif(batch: Batch, results: Mapping[str, Any], sort: str) -> dict[str, Any]:
    side = game_pages(batch.game).side_names[0]
    difference = results.get("difference") or {}
    ci = difference.get("ci")
    span = max([0.1, *(abs(ci[end]) for end in ("low", "high"))]) if ci else 1.0
    answer = {
        "base": results.get("base", "matchup"),
        "baseline": figures(results.get("baseline") or {}, f"Baseline win rate of {side}"),
        "patched": figures(results.get("patched") or {}, f"Patched win rate of {side}"),
        "difference": {
            "value": charts.points(difference.get("win_rate")), "ci": charts.interval(ci, charts.points),
            "pairs": difference.get("pairs", 0), "discordant": difference.get("discordant") or {},
            "chart": charts.difference_chart(difference.get("win_rate"), ci, label="Patched less baseline",
                                             span=min(1.0, round(span + 0.05, 1))),
        },
        "p_value": charts.probability(results.get("p_value")),
        "patch": patch_entries(batch),
    }
    if answer["base"] == "field":
        names: dict[str, str] = {}
        for group in game_matches(batch.game).field_groups:
            names.update(member_names(batch.game, group, [row["card"] for row in results.get("patched_rows", [])]))
        answer["patched_rows"] = [
            {"member": row["card"], "name": names.get(row["card"], row["card"]),
             "url": reverse(game_pages(batch.game).card_page, args=[row["card"]]) if row["card"] in names else None,
             "baseline": None if row["baseline"] is None else field_row(batch.game, "", row["baseline"], "card", {}),
             "patched": None if row["patched"] is None else field_row(batch.game, "", row["patched"], "card", {})}
            for row in results.get("patched_rows", [])]
    return answer
