"""One error shape for every 4xx answer: `message`, `code`, and `fields` or `violations`.

A domain error (`cardsdb.errors.DomainError`) declares its own answer; Django's, the database's and DRF's
exceptions are converted here into the API exceptions that answer them.
"""

import logging
import math
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core import signals
from django.core.exceptions import (
    NON_FIELD_ERRORS,
    PermissionDenied,
    RequestDataTooBig,
    TooManyFieldsSent,
    TooManyFilesSent,
)
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import DataError
from django.db.models import ProtectedError, RestrictedError
from django.http import Http404, HttpResponsePermanentRedirect, JsonResponse
from django.http.multipartparser import MultiPartParserError
from django.middleware.csrf import REASON_NO_CSRF_COOKIE
from django.shortcuts import render
from django.urls import Resolver404, resolve
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import exception_handler as drf_exception_handler
from rest_framework.views import set_rollback

from cardsdb.api.parsers import MAX_JSON_DEPTH, RequestTooLarge, body_limit_message
from cardsdb.errors import DomainError

logger = logging.getLogger(__name__)
logger_request = logging.getLogger("django.request")


class Conflict(exceptions.APIException):
    status_code = status.HTTP_409_CONFLICT
    default_code = "conflict"
    default_detail = "The request conflicts with the current state."


class CsrfFailed(exceptions.PermissionDenied):
    """A write signed in by the session cookie without its CSRF token: DRF's SessionAuthentication refused it."""

    default_code = "csrf_failed"

    def __init__(self, reason: str):
        super().__init__(CSRF_API_MESSAGE, self.default_code)
        self.reason = reason


def _join(path: str, key: object) -> str:
    return f"{path}.{key}" if path else str(key)


def field_errors(detail) -> dict[str, list[str]]:
    """Flatten DRF's nested error detail into {dotted path: [messages]}.

    `{"armies": {"a": {"slots": [{}, {}, {}, {"line": ["..."]}]}}}` becomes `{"armies.a.slots.3.line": ["..."]}`;
    errors of a nested object as a whole (its `non_field_errors`) are named by the object's path.
    """
    fields: dict[str, list[str]] = {}

    def walk(value, path: str) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                key = str(key)
                walk(item, path if key in (api_settings.NON_FIELD_ERRORS_KEY, NON_FIELD_ERRORS) else _join(path, key))
        elif isinstance(value, (list, tuple)):
            for index, item in enumerate(value):
                walk(item, _join(path, index) if isinstance(item, (dict, list, tuple)) else path)
        else:
            fields.setdefault(path or api_settings.NON_FIELD_ERRORS_KEY, []).append(str(value))

    walk(detail, "")
    return fields or {api_settings.NON_FIELD_ERRORS_KEY: ["Invalid input."]}


def _first_message(fields: dict[str, list[str]]) -> str:
    for key, messages in fields.items():
        if messages:
            return messages[0] if key == api_settings.NON_FIELD_ERRORS_KEY else f"{key}: {messages[0]}"
    return "Invalid input."


def error_body(message: str, code: str, **details) -> dict:
    """Build the common error body."""
    return {"message": message, "code": code, **details}


def _plural(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def _in_json_decoding(exc: BaseException) -> bool:
    """Whether a RecursionError came from decoding JSON (a body nested too deeply), not from our code."""
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_globals.get("__name__", "").startswith("json."):
            return True
        tb = tb.tb_next
    return False


# How DRF's SessionAuthentication words a refused CSRF check (PermissionDenied), before Django's reason.
DRF_CSRF_FAILED = "CSRF Failed: "


def _csrf_refused(exc: exceptions.PermissionDenied) -> exceptions.APIException | None:
    """DRF's refused CSRF check, told from its other refusals by the wording."""
    if str(exc.detail).startswith(DRF_CSRF_FAILED):
        return CsrfFailed(str(exc.detail).removeprefix(DRF_CSRF_FAILED))
    return None


def _model_invalid(exc: DjangoValidationError) -> exceptions.APIException:
    """A model's own check (`full_clean`) refused: its messages by field."""
    detail = exc.message_dict if hasattr(exc, "error_dict") else {"non_field_errors": exc.messages}
    return exceptions.ValidationError(detail)


def _still_in_use(exc: ProtectedError | RestrictedError) -> exceptions.APIException:
    """A deletion that other rows keep from happening."""
    users = len(exc.protected_objects if isinstance(exc, ProtectedError) else exc.restricted_objects)
    them = "it" if users == 1 else "them"
    return Conflict(f"Still in use by {_plural(users, 'other row', 'other rows')}; remove {them} first.",
                    "protected")


def _nested_too_deeply(exc: RecursionError) -> exceptions.APIException | None:
    """A JSON body nested too deeply to decode (any other RecursionError is a bug, left a 500)."""
    if _in_json_decoding(exc):
        return exceptions.ParseError(f"JSON parse error - nested deeper than {MAX_JSON_DEPTH} levels.")
    return None


def _database_refused(exc: DataError) -> exceptions.APIException:
    """A value the database refuses (out of its range, unstorable text) that no check caught first."""
    logger.warning("Database refused a value: %s", exc)
    return exceptions.ValidationError({"non_field_errors": ["A value is outside what the database can store."]})


# Each exception DRF does not answer in our terms, with what makes the API exception that answers it (None: not
# this one after all); the first that answers wins.
# Each exception class (or classes) and how it is answered: an API exception, or None to leave it as it is.
CONVERSIONS: tuple[tuple[type[BaseException] | tuple[type[BaseException], ...], Callable[[Any], Exception | None]], ...] = (
    (exceptions.PermissionDenied, _csrf_refused),
    (DjangoValidationError, _model_invalid),
    (Http404, lambda exc: exceptions.NotFound()),
    (PermissionDenied, lambda exc: exceptions.PermissionDenied()),
    ((ProtectedError, RestrictedError), _still_in_use),
    (RequestDataTooBig, lambda exc: RequestTooLarge(body_limit_message(settings.DATA_UPLOAD_MAX_MEMORY_SIZE))),
    ((TooManyFieldsSent, TooManyFilesSent),
     lambda exc: exceptions.ParseError(str(exc) or "The request has too many form fields.")),
    (RecursionError, _nested_too_deeply),
    (DataError, _database_refused),
)


def _convert(exc):
    """Django, database and request-reading exceptions as the API exceptions that answer them (or exc itself)."""
    for kinds, conversion in CONVERSIONS:
        if isinstance(exc, kinds):
            converted = conversion(exc)
            if converted is not None:
                return converted
    return exc


def _domain_answer(exc: DomainError) -> Response:
    """A domain error answered as it declares: its status and code, its message and its details."""
    set_rollback()  # as DRF does for the errors it answers: a request's atomic block is not committed
    return Response(error_body(str(exc), exc.code, **exc.details()), status=exc.status)


def exception_handler(exc, context):
    """DRF exception handler that answers every error in the common shape, a server error (500) too."""
    if isinstance(exc, DomainError):
        return _domain_answer(exc)
    exc = _convert(exc)
    response = drf_exception_handler(exc, context)
    if response is None:
        return _server_error(exc, context)

    if isinstance(exc, exceptions.ValidationError):
        fields = field_errors(exc.detail)
        message = _first_message(fields)
        # Some input errors carry more than fields, e.g. the position of a query syntax error.
        response.data = error_body(message, "invalid", fields=fields, **getattr(exc, "extra", {}))
    elif isinstance(exc, CsrfFailed):
        response.data = error_body(str(exc.detail), exc.default_code, reason=exc.reason)
    elif isinstance(exc, exceptions.Throttled):
        body = error_body("Too many requests.", "throttled")
        if exc.wait is not None:  # type: ignore[attr-defined]  # set by Throttled(), missing from the stubs
            wait = max(1, math.ceil(exc.wait))  # type: ignore[attr-defined]
            body["message"] = f"Too many requests; try again in {_plural(wait, 'second', 'seconds')}."
            body["retry_after"] = wait
        response.data = body
    else:
        detail = exc.detail if isinstance(exc, exceptions.APIException) else str(exc)
        code = getattr(detail, "code", "") or getattr(exc, "default_code", "error")
        response.data = error_body(str(detail), code)
    return response


def _server_error(exc, context) -> Response:
    """A 500 in the common shape, logged and signalled as Django does, so that DEBUG shows no HTML page."""
    request = getattr(context.get("request"), "_request", None)
    signals.got_request_exception.send(sender=None, request=request)
    logger_request.error(
        "Internal Server Error: %s", getattr(request, "path", "?"), exc_info=(type(exc), exc, exc.__traceback__),
        extra={"status_code": 500, "request": request},
    )
    return Response(error_body(SERVER_ERROR_MESSAGE, "server_error"), status=status.HTTP_500_INTERNAL_SERVER_ERROR)


SERVER_ERROR_MESSAGE = "Internal server error; it has been logged."


def for_pages(request) -> bool:
    """Whether an error answers a person's page (HTML) rather than the API (the common JSON shape)."""
    return not request.path_info.startswith(("/api/", "/healthz"))


def page_error(request, status_code: int, message: str, *, heading: str = ""):
    """An error as a page of the site, for a person's browser; `heading` replaces the one its status gives."""
    # A server error may come from the database itself: its page reads no session and no user.
    template = "cardsdb/server_error.html" if status_code >= 500 else "cardsdb/error.html"
    context = {"status": status_code, "message": message, "heading": heading}
    return render(request, template, context, status=status_code)


def refusal(request, status_code: int, code: str, message: str):
    """A request refused before any view read it: the common shape under the API, the site's page elsewhere."""
    if for_pages(request):
        return page_error(request, status_code, message)
    return JsonResponse(error_body(message, code), status=status_code)


NOT_FOUND_MESSAGE = "There is no page at this address."


def not_found_view(request, exception=None):
    """Django-level 404 (unrouted URLs) in the common shape, or as a page outside the API."""
    if for_pages(request):
        return page_error(request, 404, NOT_FOUND_MESSAGE)
    return JsonResponse(error_body("Not found.", "not_found"), status=404)


@csrf_exempt
def api_not_found_view(request, path=""):
    """Any unrouted URL under /api/, DEBUG or not: a 404 in the common shape (never Django's HTML page).

    A URL that only lacks its trailing slash is redirected for GET and HEAD, as APPEND_SLASH would, and
    named in the message for other methods (whose body a redirect would lose). Exempt from CSRF, as
    every API view is: a refused token would answer Django's HTML 403 page.
    """
    if not request.path_info.endswith("/"):
        target = f"{request.path_info}/"
        match = _resolve(target)
        if match is not None and match.func is not api_not_found_view:
            location = request.get_full_path(force_append_slash=True)
            if request.method in ("GET", "HEAD"):
                return HttpResponsePermanentRedirect(location)
            return JsonResponse(
                error_body(f"Not found; the URL ends with a slash: {target}", "not_found"), status=404
            )
    return not_found_view(request)


def _resolve(path: str):
    try:
        return resolve(path)
    except Resolver404:
        return None


def bad_request_view(request, exception=None):
    if isinstance(exception, RequestDataTooBig):
        message = body_limit_message(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
        if for_pages(request):
            return page_error(request, 413, message)
        return JsonResponse(error_body(message, "too_large"), status=413)
    if isinstance(exception, MultiPartParserError):
        # A multipart body Django could not read, or a file sent to a form that takes none.
        return refusal(request, 400, "parse_error", str(exception) or "The form data could not be read.")
    if for_pages(request):
        return page_error(request, 400, "The request could not be read.")
    return JsonResponse(error_body("Bad request.", "bad_request"), status=400)


def permission_denied_view(request, exception=None):
    if for_pages(request):
        return page_error(request, 403, "You may not see this page.")
    return JsonResponse(
        error_body("You do not have permission to perform this action.", "permission_denied"),
        status=403,
    )


CSRF_HEADING = "The form could not be sent"
CSRF_PAGE_MESSAGE = ("Its security token was missing or out of date (the page may have been open a long time, or you "
                     "signed in or out in another tab). Reload the page and try again.")
CSRF_NO_COOKIE_MESSAGE = ("Your browser did not send this site's security cookie. Allow cookies for this site, then "
                          "reload the page and try again.")
CSRF_API_MESSAGE = ("CSRF check failed: a request signed in by the session cookie must send the csrftoken cookie's "
                    "value in the X-CSRFToken header (or authenticate with a token instead).")


def csrf_failure_view(request, reason: str = ""):
    """A refused CSRF check (CSRF_FAILURE_VIEW): the site's 403 page saying what to do, or the API's shape.

    Asked by htmx (a fragment's form), the page takes the whole window rather than the fragment's place.
    """
    if not for_pages(request):
        return JsonResponse(error_body(CSRF_API_MESSAGE, "csrf_failed", reason=reason), status=403)
    message = CSRF_NO_COOKIE_MESSAGE if reason == REASON_NO_CSRF_COOKIE else CSRF_PAGE_MESSAGE
    response = page_error(request, 403, message, heading=CSRF_HEADING)
    if request.headers.get("HX-Request") == "true":
        response["HX-Retarget"] = "body"
        response["HX-Reswap"] = "innerHTML"
    return response


def server_error_view(request):
    if for_pages(request):
        return page_error(request, 500, SERVER_ERROR_MESSAGE)
    return JsonResponse(error_body(SERVER_ERROR_MESSAGE, "server_error"), status=500)


def error_response(message: str, code: str, status_code: int, **details) -> Response:
    """A DRF response in the common error shape, for views that answer errors themselves."""
    return Response(error_body(message, code, **details), status=status_code)
