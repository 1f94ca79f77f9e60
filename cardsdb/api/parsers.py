"""Request body parsers with bounds: size, nesting depth, and text the databases can store.

The JSON parser is the default for every endpoint (REST_FRAMEWORK["DEFAULT_PARSER_CLASSES"]). It refuses

- a body longer than settings.DATA_UPLOAD_MAX_MEMORY_SIZE (1 MiB): 413 `too_large` (Django's own check,
  answered by cardsdb.api.errors);
- JSON nested deeper than MAX_JSON_DEPTH levels: 400 `parse_error`;
- a string (value or key) holding a NUL character or a lone surrogate, which neither PostgreSQL nor
  UTF-8 can store: 400 `invalid`, with the dotted path of each such string in `fields`.
"""

from __future__ import annotations

import codecs
import json
from typing import Any

from django.conf import settings
from rest_framework import exceptions, parsers, status
from rest_framework.settings import api_settings
from rest_framework.utils import json as drf_json

# Objects and arrays inside one another, the body itself counting as level 1.
MAX_JSON_DEPTH = 32

NUL_MESSAGE = "Null characters are not allowed."
SURROGATE_MESSAGE = "Unpaired surrogate characters (\\ud800-\\udfff) are not allowed."


class RequestTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "too_large"
    default_detail = "The request body is too large."


def body_limit_message(limit: int) -> str:
    return f"The request body is larger than {limit:,} bytes."


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
    """Refuse nesting past MAX_JSON_DEPTH (ParseError) and unstorable text (ValidationError by path)."""
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
    if problems:
        raise exceptions.ValidationError(dict(sorted(problems.items())))


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser, bounded in depth and checked for text no database stores."""

    def parse(self, stream, media_type=None, parser_context=None):
        parser_context = parser_context or {}
        encoding = parser_context.get("encoding", settings.DEFAULT_CHARSET)
        try:
            decoded = codecs.getreader(encoding)(stream)
            parse_constant = drf_json.strict_constant if self.strict else None
            data = json.load(decoded, parse_constant=parse_constant)
        except RecursionError:
            raise exceptions.ParseError(
                f"JSON parse error - nested deeper than {MAX_JSON_DEPTH} levels."
            ) from None
        except ValueError as exc:
            raise exceptions.ParseError(f"JSON parse error - {exc}") from None
        check_json(data)
        return data


class MultiPartParser(parsers.MultiPartParser):
    """Multipart bodies (card art) up to the image bound plus 1 MiB of form fields; larger ones answer 413."""

    def parse(self, stream, media_type=None, parser_context=None):
        request = (parser_context or {}).get("request")
        limit = settings.CARD_IMAGE_MAX_BYTES + settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0) if request is not None else 0
        except ValueError:
            length = 0
        if length > limit:
            raise RequestTooLarge(body_limit_message(limit))
        return super().parse(stream, media_type, parser_context)
