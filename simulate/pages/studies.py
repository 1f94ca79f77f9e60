"""The balance lab in the browser: start a study of either game, follow it while it plays, read its report.

A study is started exactly as POST /api/simulate/<game>/batches/ starts one: the same throttles, the game's
batch request serializer, `batches.create_batch` with the same client, handed to the background after
commit. Its page reads the batch as the API's retrieve does, and polls a fragment (htmx) until it is over.
"""

from __future__ import annotations

from typing import Any

from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST
from rest_framework.exceptions import ValidationError

from cardsdb.api.errors import exception_handler, page_error
from cardsdb.pages.throttles import throttle_scope
from cardsdb.pages.wording import named_violations
from simulate import background, batches, selectors
from simulate.api.views import start_batch
from simulate.engine.errors import InputError
from simulate.models import Batch
from simulate.pages.games import UnknownGamePages, default_game, game_pages, game_title, game_titles
from simulate.pages.report import DEFAULT_SORT, SORTS, details, figures, headline
from simulate.pages.study_forms import StudyForm
from simulate.services import IllegalMatchSetup, game_matches
from simulate.study_kinds import KINDS, study_kind

RUNNING = (Batch.Status.QUEUED, Batch.Status.RUNNING)
# Said alike whether the study does not exist or is another account's.
NO_SUCH_STUDY = ("There is no study at this address, or it is private: a study started while signed in is seen "
                 "only by its account.")
RECENT_STUDIES = 10


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
        "kinds": {name: kind.description for name, kind in KINDS.items()}, "refusal": refusal, "recent": recent,
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
        "sides_swapped": study_kind(batch.kind).sides_swapped(batch),
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
    """What the report shows of a batch's results: what its kind measures (its headline, with the overall
    chart of a kind that has one), what its kind adds (its partial, `template`), and the details."""
    results = batch.results or {}
    kind = study_kind(batch.kind)
    side, other = game_pages(batch.game).side_names
    answer: dict[str, Any] = {"side": side, "other": other, "kind": batch.kind, "template": kind.template,
                              "headline": headline(kind.headline(batch, results, side)),
                              "details_note": kind.details_note,
                              "details": details(kind.details_of(results), side, swapped=kind.sides_swapped(batch))}
    if kind.has_overall:
        answer["overall"] = figures(results, f"Win rate of {side}")
    return {**answer, **kind.report(batch, results, sort)}
