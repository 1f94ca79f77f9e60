"""What every request must be before any view, form or parser reads its body: one middleware, one place.

RequestChecksMiddleware runs before CSRF checks and sessions read anything, with the view resolved, and
answers (in the API's error shape under /api/, as the site's error page elsewhere):

- 405 `method_not_allowed`, with an Allow header, to a method an API endpoint never allows: for everyone,
  before credentials are checked (an anonymous POST to a read-only list is 405, not 401);
- 413 `too_large` to a Content-Length past the view's bound, before a byte is read: the bound is
  settings.DATA_UPLOAD_MAX_MEMORY_SIZE (1 MiB), or that plus CARD_IMAGE_MAX_BYTES for a view that takes
  files (an API view that parses with cardsdb.api.parsers.MultiPartParser, the admin of a model with a file);
- 411 `length_required` to a body sent without Content-Length (Transfer-Encoding: chunked): Django's WSGI
  handler would read none of it and the view would see an empty body;
- 400 `bad_request` to a Content-Length that is not a whole number;
- 415 `unsupported_media_type` to a charset other than UTF-8, UTF-16 or UTF-32 (cardsdb.api.parsers).

Views that take no file get an upload handler that refuses the first file of a multipart body (400), so a
form that takes no file never receives one, in memory or on disk.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.core.files.uploadhandler import FileUploadHandler
from django.db import models
from django.http import HttpRequest, HttpResponse
from django.http.multipartparser import MultiPartParserError

from cardsdb.api.parsers import (
    MultiPartParser,
    body_limit_message,
    charset_problem,
    declared_charset,
    file_body_limit,
)


class FileNotTaken(MultiPartParserError):
    """A multipart body carried a file to a view that takes none (Django and DRF answer it 400)."""


class NoFileUploadHandler(FileUploadHandler):
    """Refuses the first file part of a multipart body: the view takes no file, so none is stored anywhere."""

    def new_file(self, field_name, file_name, *args, **kwargs):
        raise FileNotTaken(f"This form takes no file (a file was sent as {field_name!r}).")

    def receive_data_chunk(self, raw_data, start):  # pragma: no cover - new_file refused the file
        return None

    def file_complete(self, file_size):  # pragma: no cover
        return None


def _model_has_files(model) -> bool:
    return any(isinstance(field, models.FileField) for field in model._meta.concrete_fields)


def takes_files(view_func: Callable) -> bool:
    """Whether a view takes uploaded files: an API view reading multipart with the bounded card-art parser,
    or an admin view of a model (or of an inline's model) with a file field."""
    cls = getattr(view_func, "cls", None)
    if cls is not None:
        parser_classes = getattr(view_func, "initkwargs", {}).get("parser_classes", cls.parser_classes)
        return any(issubclass(parser, MultiPartParser) for parser in parser_classes)
    model_admin = getattr(view_func, "model_admin", None)
    if model_admin is not None:
        inline_models = [inline.model for inline in model_admin.inlines]
        return any(_model_has_files(model) for model in (model_admin.model, *inline_models))
    return False


def allowed_methods(view_func: Callable) -> list[str] | None:
    """The methods an API (DRF) view answers, as its Allow header lists them; None for other views."""
    cls = getattr(view_func, "cls", None)
    if cls is None:
        return None
    actions = getattr(view_func, "actions", None)
    names = set(cls.http_method_names)
    if actions is not None:  # a ViewSet route: only the methods its router bound
        methods = {method for method in actions if method in names}
        if "options" in names:
            methods.add("options")
    else:
        methods = {method for method in names if hasattr(cls, method)}
    if "get" in methods and "head" in names:
        methods.add("head")
    order = [method.upper() for method in cls.http_method_names]
    return sorted((method.upper() for method in methods), key=order.index)


def body_limit(view_func: Callable) -> int | None:
    """The most bytes a request body to this view may have (None: no bound, as Django's setting allows)."""
    return file_body_limit() if takes_files(view_func) else settings.DATA_UPLOAD_MAX_MEMORY_SIZE


def _refuse(request: HttpRequest, status: int, code: str, message: str) -> HttpResponse:
    from cardsdb.api.errors import refusal

    return refusal(request, status, code, message)


def check_request(request: HttpRequest, view_func: Callable) -> HttpResponse | None:
    """The refusal of a request that no view should read, or None."""
    allowed = allowed_methods(view_func)
    if allowed is not None and request.method not in allowed:
        response = _refuse(request, 405, "method_not_allowed", f'Method "{request.method}" not allowed.')
        response["Allow"] = ", ".join(allowed)
        return response

    raw_length = request.META.get("CONTENT_LENGTH") or ""
    if not raw_length.strip():
        if request.META.get("HTTP_TRANSFER_ENCODING"):
            return _refuse(request, 411, "length_required",
                           "Send the request body with a Content-Length header (chunked bodies are not read).")
        length = 0
    elif raw_length.strip().isascii() and raw_length.strip().isdigit():
        length = int(raw_length)
    else:
        return _refuse(request, 400, "bad_request", "The Content-Length header is not a whole number.")
    limit = body_limit(view_func)
    if limit is not None and length > limit:
        return _refuse(request, 413, "too_large", body_limit_message(limit))

    if length and (problem := charset_problem(declared_charset(request.META.get("CONTENT_TYPE")))):
        return _refuse(request, 415, "unsupported_media_type", problem)

    if not takes_files(view_func) and not hasattr(request, "_files"):
        request.upload_handlers = [NoFileUploadHandler(request)]
    return None


class RequestChecksMiddleware:
    """Refuses, before anything reads the body, what check_request refuses (see the module's docstring)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(self, request, view_func, view_args, view_kwargs):
        return check_request(request, view_func)
