"""Request body parsers with bounds: charset, size, nesting depth, finite numbers, and text the databases can store.

The JSON parser is the default for every endpoint (REST_FRAMEWORK["DEFAULT_PARSER_CLASSES"]). It refuses

- a charset other than UTF-8, UTF-16 or UTF-32 (`charset=bz2`, `zlib`, `rot13`, `latin-1`, unknown names):
  415 `unsupported_media_type`. Python registers bytes-to-bytes codecs (bz2, zlib) under the same names as
  text encodings; decoding with one would inflate a small body into a huge one;
- a body longer than settings.DATA_UPLOAD_MAX_MEMORY_SIZE (1 MiB), as received or as decoded: 413
  `too_large` (Django's own check on what is received, answered by cardsdb.api.errors);
- JSON nested deeper than MAX_JSON_DEPTH levels: 400 `parse_error`;
- a number no float holds (`1e400`) and the `NaN`, `Infinity` and `-Infinity` literals: 400 `invalid`, with
  the dotted path of each such number in `fields` (`load_json`, which the pages' JSON boxes read through too);
- a string (value or key) holding a NUL character or a lone surrogate, which neither PostgreSQL nor
  UTF-8 can store: 400 `invalid`, with the dotted path of each such string in `fields`.

cardsdb.request_checks applies the same charset rule, and the body bounds, to every request before any
view or parser reads its body (forms, multipart and the pages included).
"""

from __future__ import annotations

import codecs
import json
import math
from typing import Any, cast

from django.conf import settings
from django.utils.http import parse_header_parameters
from rest_framework import exceptions, parsers, status
from rest_framework.settings import api_settings

# Objects and arrays inside one another, the body itself counting as level 1.
MAX_JSON_DEPTH = 32

NUL_MESSAGE = "Null characters are not allowed."
NOT_FINITE_MESSAGE = "A finite number is required."

# The charsets a body may be sent in: JSON's own (RFC 8259 says UTF-8, RFC 4627 also allowed UTF-16 and
# UTF-32), as Python's codec registry names them. Everything else is refused, bytes-to-bytes codecs first.
TEXT_ENCODINGS = frozenset({"utf-8", "utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le", "utf-32-be"})
SURROGATE_MESSAGE = "Unpaired surrogate characters (\\ud800-\\udfff) are not allowed."


class RequestTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "too_large"
    default_detail = "The request body is too large."


def body_limit_message(limit: int) -> str:
    return f"The request body is larger than {limit:,} bytes."


def file_body_limit() -> int | None:
    """The bound on a body that carries files (card art): the image bound plus 1 MiB of form fields."""
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    return None if limit is None else settings.CARD_IMAGE_MAX_BYTES + limit


def declared_charset(content_type: str | None) -> str | None:
    """The `charset` parameter of a Content-Type header, if it has one."""
    if not content_type:
        return None
    _media_type, params = parse_header_parameters(content_type)
    return params.get("charset")


def charset_problem(charset: str | None) -> str | None:
    """Why a body may not be read in this charset, or None for UTF-8, -16, -32 (and no charset: UTF-8)."""
    if charset is None:
        return None
    try:
        name = codecs.lookup(charset).name
    except LookupError:
        name = None
    if name in TEXT_ENCODINGS:
        return None
    shown = charset if len(charset) <= 40 and charset.isprintable() else f"{charset[:40]!r}..."
    return f"Charset {shown!r} is not accepted: send the body in UTF-8 (JSON also in UTF-16 or UTF-32)."


def text_encoding(content_type: str | None) -> str:
    """The codec to decode a body of this Content-Type with; UnsupportedMediaType for any other charset."""
    charset = declared_charset(content_type)
    if problem := charset_problem(charset):
        raise exceptions.UnsupportedMediaType(cast(str, content_type), detail=problem)  # it declared a charset
    return codecs.lookup(charset).name if charset else "utf-8"


def text_problem(text: str) -> str | None:
    """Why a string cannot be stored as text (NUL, lone surrogate), or None."""
    if "\x00" in text:
        return NUL_MESSAGE
    if any("\ud800" <= char <= "\udfff" for char in text):
        return SURROGATE_MESSAGE
    return None


def _join(path: str, key: object) -> str:
    return f"{path}.{key}" if path else str(key)


def check_json(data: Any) -> None:
    """Refuse nesting past MAX_JSON_DEPTH (ParseError), and numbers no float holds and unstorable text
    (ValidationError, each by its dotted path)."""
    problems: dict[str, list[str]] = {}
    stack: list[tuple[Any, str, int]] = [(data, "", 1)]
    while stack:
        value, path, depth = stack.pop()
        if isinstance(value, (dict, list)):
            if depth > MAX_JSON_DEPTH:
                raise exceptions.ParseError(f"JSON parse error - nested deeper than {MAX_JSON_DEPTH} levels.")
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for key, item in items:
                if isinstance(key, str) and (problem := text_problem(key)):
                    problems.setdefault(_join(path, repr(key)[1:-1]), []).append(f"Key: {problem}")
                    continue
                stack.append((item, _join(path, key), depth + 1))
        elif isinstance(value, str) and (problem := text_problem(value)):
            problems.setdefault(path or api_settings.NON_FIELD_ERRORS_KEY, []).append(problem)
        elif isinstance(value, float) and not math.isfinite(value):
            problems.setdefault(path or api_settings.NON_FIELD_ERRORS_KEY, []).append(NOT_FINITE_MESSAGE)
    if problems:
        raise exceptions.ValidationError(dict(sorted(problems.items())))


def load_json(text: str) -> Any:
    """JSON text as the API reads every body (and the pages their JSON boxes): ParseError for text that is not
    JSON or nests too deep, ValidationError naming by dotted path each number no float holds and each string
    no database stores."""
    try:
        # NaN and Infinity are read as floats, so that check_json names them by path as it does 1e400.
        data = json.loads(text, parse_constant=float)
    except RecursionError:
        raise exceptions.ParseError(f"JSON parse error - nested deeper than {MAX_JSON_DEPTH} levels.") from None
    except ValueError as exc:
        raise exceptions.ParseError(f"JSON parse error - {exc}") from None
    check_json(data)
    return data


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser, in UTF-8/16/32 only, bounded in decoded size and depth, and checked for numbers no
    float holds and text no database stores."""

    def parse(self, stream, media_type=None, parser_context=None):
        encoding = text_encoding(media_type)
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        # DRF hands over the body Django read (bounded by the same setting); a caller's stream is bounded here.
        raw = stream.read() if limit is None else stream.read(limit + 1)
        if limit is not None and len(raw) > limit:
            raise RequestTooLarge(body_limit_message(limit))
        try:
            text = raw.decode(encoding)
        except UnicodeDecodeError:
            raise exceptions.ParseError(f"JSON parse error - the body is not valid {encoding.upper()} text.") from None
        if limit is not None and len(text) > limit:
            raise RequestTooLarge(body_limit_message(limit))
        return load_json(text)


class MultiPartParser(parsers.MultiPartParser):
    """Multipart bodies (card art) up to the image bound plus 1 MiB of form fields; larger ones answer 413.

    The one parser that takes files: cardsdb.request_checks lets files reach a view only when it parses with
    this class (or is the admin of a model with a file)."""

    def parse(self, stream, media_type=None, parser_context=None):
        request = (parser_context or {}).get("request")
        limit = file_body_limit()
        text_encoding(media_type)
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0) if request is not None else 0
        except ValueError:
            length = 0
        if limit is not None and length > limit:
            raise RequestTooLarge(body_limit_message(limit))
        return super().parse(stream, media_type, parser_context)
