"""The balance lab in the browser: start a study of either game, follow it while it plays, read its report.

A study is started exactly as POST /api/simulate/<game>/batches/ starts one: the same throttles, the game's
batch request serializer, `batches.create_batch` with the same client, handed to the background after
commit. Its page reads the batch as the API's retrieve does, and polls a fragment (htmx) until it is over.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.paginator import InvalidPage, Paginator
from django.db import transaction
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST
from rest_framework.exceptions import ValidationError

from cardsdb.api.errors import exception_handler, page_error
from cardsdb.api.filters import query_parameter_errors
from cardsdb.pages.throttles import throttle_scope
from cardsdb.pages.wording import named_violations
from simulate import applying, background, batches, comparison, pinning, publishing, replays, selectors
from simulate.api.views import client_ident, hand_over, start_batch
from simulate.engine.errors import InputError
from simulate.filtersets import BatchFilter
from simulate.models import Batch
from simulate.pages.games import UnknownGamePages, default_game, game_pages, game_title, game_titles
from simulate.pages.report import DEFAULT_SORT, SORTS, compared_shown, details, figures, headline
from simulate.pages.study_forms import StudyForm
from simulate.services import IllegalMatchSetup, game_matches
from simulate.study_kinds import KINDS, study_kind

RUNNING = (Batch.Status.QUEUED, Batch.Status.RUNNING)
# Said alike whether the study does not exist or is another account's.
NO_SUCH_STUDY = ("There is no study at this address, or it is private: a study started while signed in is seen "
                 "only by its account.")
RECENT_STUDIES = 10
STUDIES_PAGE_SIZE = 25
COMPARE_CHOICES = 50  # the user's other studies offered to compare a study with


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
    recent = [study_row(batch) for batch in selectors.batch_list(user=request.user).defer("tally", "results")
              .order_by("-created_at")[:RECENT_STUDIES]]
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


# ------------------------------------------------------------------------------------ the list


@require_http_methods(["GET", "HEAD"])
def study_list(request):
    """Your studies, newest first, filtered as the API's list filters them (kind, status, game), a page at a
    time."""
    errors = query_parameter_errors(request.GET)
    filters = BatchFilter(request.GET, queryset=selectors.batch_list(user=request.user)
                          .defer("tally", "results", "summary").order_by("-created_at"))
    if not errors and not filters.is_valid():
        errors = {name: [str(message) for message in messages] for name, messages in filters.errors.items()}
    page_obj, status = None, 400 if errors else 200
    if not errors:
        paginator = Paginator(filters.qs, STUDIES_PAGE_SIZE)
        number = request.GET.get("page", "1")
        try:
            page_obj = paginator.page(number)
        except InvalidPage:
            errors, status = {"page": [f"There is no page “{number}”: the pages go from 1 to "
                                       f"{paginator.num_pages}."]}, 404
    rows = [study_row(batch) for batch in page_obj.object_list] if page_obj else []
    return render(request, "simulate/pages/study_list.html", {
        "nav": "studies", "form": filters.form, "errors": errors, "page_obj": page_obj, "rows": rows,
    }, status=status)


def study_row(batch: Batch) -> dict[str, Any]:
    """A study as the list shows it: its kind and what it is of, in words."""
    kind = KINDS.get(batch.kind)
    return {"batch": batch, "label": kind.label if kind else batch.kind, "about": kind.about(batch) if kind else ""}


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
        "nav": "studies", **state_context(batch, sort, request.user), "game_name": game_title(batch.game),
        "sides_swapped": study_kind(batch.kind).sides_swapped(batch), "played_as": pinning.catalogue_report(batch),
        "kind": study_kind(batch.kind), "samples": sample_rows(batch),
    })


def study_progress(request, batch_id):
    """The part of the study page that changes: polled every second while the study plays."""
    batch = visible_batch(request, batch_id)
    return render(request, "simulate/pages/study_state.html", {**state_context(batch, DEFAULT_SORT, request.user),
                                                                "oob": True})


@require_POST
def study_cancel(request, batch_id):
    """Stop a queued or running study, as POST /api/simulate/batches/{id}/cancel/ does."""
    batches.cancel_batch(visible_batch(request, batch_id))
    return redirect("study-detail", batch_id=batch_id)


@throttle_scope("batches")
@require_POST
def study_rerun(request, batch_id):
    """Queue the study again from what it froze, as POST /api/simulate/batches/{id}/rerun/ does."""
    try:
        batch = batches.rerun_batch(visible_batch(request, batch_id), user=request.user,
                                    client=client_ident(request))
    except (batches.NotReplayable, batches.TooManyBatches) as exc:
        return page_error(request, exc.status, str(exc))
    transaction.on_commit(lambda: hand_over(batch.id))
    return redirect("study-detail", batch_id=batch.id)


@require_POST
def study_publish(request, batch_id):
    """Staff: publish the study, or withdraw it (`withdraw` in the form), as .../publish/ does."""
    if not request.user.is_staff:
        return page_error(request, 403, "Only staff publish studies.")
    batch = visible_batch(request, batch_id)
    try:
        if request.POST.get("withdraw"):
            publishing.unpublish(batch)
        else:
            publishing.publish(batch, user=request.user)
    except publishing.NotPublishable as exc:
        return page_error(request, exc.status, str(exc), heading="Not published")
    return redirect("study-detail", batch_id=batch_id)


@require_POST
def study_apply(request, batch_id):
    """Staff: apply a what-if's patch to the catalogue, as .../apply/ does; then the first patched card's page,
    whose errata show the new version."""
    return _patch_edit(request, batch_id, applying.apply_patch, "Not applied")


@require_POST
def study_undo(request, batch_id):
    """Staff: undo a what-if's applied patch, as .../undo/ does; then the first patched card's page."""
    return _patch_edit(request, batch_id, applying.undo_patch, "Not undone")


def _patch_edit(request, batch_id, edit, heading: str):
    if not request.user.is_staff:
        return page_error(request, 403, "Only staff edit the catalogue.")
    try:
        edited = edit(visible_batch(request, batch_id), user=request.user)
    except applying.NotApplicable as exc:
        return page_error(request, exc.status, str(exc), heading=heading)
    except DjangoValidationError as exc:
        return page_error(request, 400, "A change breaks the card's rules: " + "; ".join(exc.messages),
                          heading=heading)
    first = edited[0]  # its app is its game, and each game's card page is named "<game>-card"
    return redirect(f"{first['model'].split('.')[0]}-card", slug=first["slug"])


SAMPLE_PAIRINGS = 12  # pairings whose sample matches the study page lists (every one through the API)


def sample_rows(batch: Batch) -> list[dict[str, Any]]:
    """The sample matches a finished study kept, grouped by pairing, for its page."""
    if batch.status != Batch.Status.DONE or batch.frozen_id is None:
        return []
    rows: dict[int, dict[str, Any]] = {}
    for sample in replays.samples_of(batch):
        label = ", ".join(f"{key} {value}" for key, value in sample["pairing_label"].items())
        row = rows.setdefault(sample["pairing"], {"pairing": sample["pairing"], "label": label, "samples": []})
        row["samples"].append(sample)
    return list(rows.values())[:SAMPLE_PAIRINGS]


@require_POST
def study_replay(request, batch_id):
    """Play one of the study's matches again with its log (as .../replay/ does), then open it in the viewer."""
    batch = visible_batch(request, batch_id)
    try:
        pairing, index = int(request.POST.get("pairing", "")), int(request.POST.get("match", ""))
        match = replays.replay(batch, pairing=pairing, match=index)
    except ValueError:
        return page_error(request, 400, "Give the pairing and the match to replay, as whole numbers.")
    except InputError as exc:
        return page_error(request, 400, str(exc))
    except batches.NotReplayable as exc:
        return page_error(request, exc.status, str(exc))
    return redirect("match-replay", match_id=match.pk)


def state_context(batch: Batch, sort: str, user) -> dict[str, Any]:
    running = batch.status in RUNNING
    context: dict[str, Any] = {"batch": batch, "running": running, "sort": sort,
                               "sorts": [(value, label) for value, (_, label) in SORTS.items()]}
    if not running and batch.played:
        context["report"] = report(batch, sort)
    if batch.status == Batch.Status.DONE:
        context["compare_choices"] = [study_row(other) for other in comparable_with(batch, user)]
    return context


def comparable_with(batch: Batch, user) -> list[Batch]:
    """The user's other finished studies of the batch's kind and game, newest first, as many as a select
    shows."""
    return list(selectors.batch_list(user=user).filter(kind=batch.kind, game=batch.game, status=Batch.Status.DONE)
                .exclude(pk=batch.pk).defer("tally", "results", "summary").order_by("-finished_at")[:COMPARE_CHOICES])


# ------------------------------------------------------------------------------------ comparing


@require_http_methods(["GET", "HEAD"])
def study_compare(request):
    """Two finished studies of one kind and one game side by side (?a=<id>&b=<id>), as the API compares them."""
    errors = query_parameter_errors(request.GET)
    if errors:
        return page_error(request, 400, " ".join(f"{name}: {' '.join(reasons)}" for name, reasons in errors.items()))
    try:
        first, second = comparison.comparable(user=request.user, a=request.GET.get("a"), b=request.GET.get("b"))
    except InputError as exc:
        return page_error(request, 400, f"{exc} " + " ".join(f"{path}: {reason}" for path, reason in exc.errors))
    except comparison.NotComparable as exc:
        return page_error(request, exc.status, str(exc))
    except Http404 as exc:
        return page_error(request, 404, str(exc))
    return render(request, "simulate/pages/study_compare.html", {
        "nav": "studies", "game_name": game_title(first.game), **compared_shown(comparison.compare(first, second)),
    })


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
                              "details": details(kind.details_of(results), side, swapped=kind.sides_swapped(batch),
                                                 sided=kind.has_overall)}
    if kind.has_overall:
        answer["overall"] = figures(results, f"Win rate of {side}")
    return {**answer, **kind.report(batch, results, sort)}
