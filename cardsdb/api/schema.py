"""The OpenAPI schema as the service answers: every 4xx an operation can give, in the one error shape.

`postprocess` is a drf-spectacular postprocessing hook (SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"]). It

- adds the `Error` component (cardsdb.api.errors) and, to every operation, the error answers it can
  give: 400 (a body or query parameters), 401 (a bad token, anywhere), 403 (unsafe methods, staff-only
  operations), 404 (path parameters, pages past the end), 406, 409 (deletes of rows others protect, and the
  actions a view names in `may_conflict`),
  413 and 415 (bodies), 429 (throttling);
- lets anonymous clients in (`{}` in `security`) where the view's permissions let them in;
- closes the request bodies of serializers that refuse unknown keys (`additionalProperties: false`), and
  adds what a serializer declares per field in `field_schemas` (the JSON type of a JSONField);
- says that text holds no NUL (a pattern on string parameters and request properties), as the parsers
  and fields check;
- leaves out DRF's `format` query parameter (a renderer override; clients send an Accept header).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.db import models
from rest_framework.permissions import SAFE_METHODS
from rest_framework.settings import api_settings

from cardsdb.api.parsers import MAX_JSON_DEPTH
from cardsdb.api.serializers import StrictFieldsMixin

ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "Every error answer: a human `message`, a machine `code`, and details.",
    "properties": {
        "message": {"type": "string", "description": "What went wrong, for people."},
        "code": {"type": "string", "description": "What went wrong, for programs (docs/api.md lists them)."},
        "fields": {
            "type": "object",
            "description": "Input errors by dotted field path (`slots.3.line`); `non_field_errors` for the whole body.",
            "additionalProperties": {"type": "array", "items": {"type": "string"}},
        },
        "violations": {
            "type": "array",
            "description": "Rules a well-formed request breaks (`rule_violations`).",
            "items": {"type": "object", "additionalProperties": True},
        },
        "position": {"type": "integer", "minimum": 0, "description": "Offset of a query syntax error."},
        "retry_after": {"type": "integer", "minimum": 1, "description": "Seconds to wait (429)."},
        "uses": {
            "type": "object",
            "description": "What still uses the row (`protected`), by kind: e.g. `{\"collections\": 2, \"saved_armies\": 1}`.",
            "additionalProperties": {"type": "integer", "minimum": 1},
        },
        "reason": {"type": "string", "description": "Why the CSRF check failed (`csrf_failed`)."},
        "cards": {
            "type": "array",
            "description": "The cards a field study measured too loosely to be published (`not_publishable`).",
            "items": {"type": "object", "additionalProperties": True},
        },
    },
    "required": ["message", "code"],
    "additionalProperties": False,
}

DESCRIPTIONS = {
    "400": "Invalid input (`invalid`, with `fields`), a body that is not JSON or nests deeper than "
           f"{MAX_JSON_DEPTH} levels (`parse_error`), or a request that breaks the rules (`rule_violations`).",
    "401": "No credentials, or bad ones (`not_authenticated`, `authentication_failed`).",
    "403": "Signed in but not allowed (`permission_denied`), or a session request without its CSRF token "
           "(`csrf_failed`, with Django's `reason`).",
    "404": "No such row, or not yours; or a page past the last (`not_found`).",
    "406": "No answer in a media type the Accept header allows (`not_acceptable`).",
    "409": "The row is still in use by others (`protected`, a card with `uses`), another change took one of its "
           "unique values meanwhile (`conflict`), or a study cannot be published, played again or "
           "applied as it stands (`not_publishable`, with `cards`; `not_replayable`; `not_applicable`), or two studies cannot be "
           "compared (`not_comparable`).",
    "413": "The body is larger than the service takes (`too_large`).",
    "415": "A body media type this operation does not take (`unsupported_media_type`).",
    "429": "Too many requests (`throttled`, with `retry_after`).",
}

BODY_METHODS = {"post", "put", "patch"}
NO_NUL = "^[^\\x00]*$"


def error_response(status: str) -> dict[str, Any]:
    return {"description": DESCRIPTIONS[status], "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}


def _allows(view, method: str, user) -> bool:
    request = SimpleNamespace(method=method.upper(), user=user)
    try:
        return all(permission.has_permission(request, view) for permission in view.get_permissions())
    except Exception:
        return False


def _protected(view) -> bool:
    """Whether deleting a row of the view's model can be refused because other rows still use it: some
    model protects it, or one of the rows its deletion cascades to (followed through every level)."""
    queryset = getattr(view, "queryset", None)
    model = getattr(queryset, "model", None)
    seen: set = set()
    stack = [model] if model is not None else []
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        # Hidden relations (related_name="+") protect as well.
        relations = [
            field for field in current._meta.get_fields(include_hidden=True)
            if field.is_relation and field.auto_created and not field.concrete
        ]
        for relation in relations:
            on_delete = getattr(relation, "on_delete", None)
            if on_delete in (models.PROTECT, models.RESTRICT):
                return True
            if on_delete is models.CASCADE:
                stack.append(relation.related_model)
        stack.extend(parent for parent in current._meta.parents)
    return False


def _may_conflict(method: str, view) -> bool:
    """A delete of a row others protect, or an action the view names in `may_conflict`."""
    return (method == "delete" and _protected(view)) or getattr(view, "action", None) in getattr(view, "may_conflict", ())


def _error_statuses(operation: dict[str, Any], method: str, view) -> list[str]:
    parameters = operation.get("parameters", [])
    has_body = "requestBody" in operation or method in BODY_METHODS
    query = any(p.get("in") == "query" for p in parameters)
    path_params = any(p.get("in") == "path" for p in parameters)
    paged = any(p.get("in") == "query" and p.get("name") == "page" for p in parameters)
    signed_in = SimpleNamespace(is_authenticated=True, is_staff=False, is_superuser=False, pk=0)
    statuses = ["401", "406", "429"]
    if has_body or query:
        statuses.append("400")
    if method.upper() not in SAFE_METHODS or not _allows(view, method, signed_in):
        statuses.append("403")
    if path_params or paged:
        statuses.append("404")
    if _may_conflict(method, view):
        statuses.append("409")
    if has_body:
        statuses += ["413", "415"]
    return sorted(statuses)


def _component_serializers(generator) -> dict[str, type]:
    """Schema component name -> serializer class (request components end with `Request`)."""
    found = {}
    for component in generator.registry._components.values():
        serializer = component.object
        cls = serializer if isinstance(serializer, type) else type(serializer)
        if component.type == "schemas" and isinstance(cls, type):
            found[component.name] = cls
    return found


def _no_nul(schema: object) -> None:
    """Add the no-NUL pattern to every free string in a (request) schema."""
    if not isinstance(schema, dict):
        return
    if schema.get("type") == "string" and not ({"format", "enum", "pattern"} & set(schema)):
        schema["pattern"] = NO_NUL
    for key in ("properties", "patternProperties"):
        for item in schema.get(key, {}).values():
            _no_nul(item)
    for key in ("items", "additionalProperties"):
        _no_nul(schema.get(key))
    for key in ("allOf", "anyOf", "oneOf"):
        for item in schema.get(key, []):
            _no_nul(item)


def postprocess(result, generator, request, public):
    """Errors, anonymous access and closed request bodies, as described in the module docstring."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas["Error"] = ERROR_SCHEMA
    views = {(path, method.lower()): view for path, _regex, method, view in generator._get_paths_and_endpoints()}
    for path, operations in result.get("paths", {}).items():
        for method, operation in operations.items():
            view = views.get((path, method))
            if view is not None:
                _query_parameters(operation)
                _error_answers(operation, method, view)
                _anonymous_access(operation, method, view)
    for name, serializer in _component_serializers(generator).items():
        schema = schemas.get(name)
        if schema is not None and schema.get("type") == "object":
            _component(schema, name, serializer)
    return result


def _query_parameters(operation: dict[str, Any]) -> None:
    """Without DRF's `format`; free text holds no NUL; a list's parameters may be given empty (ignored)."""
    operation["parameters"] = [p for p in operation.get("parameters", []) if not _is_format(p)]
    if not operation["parameters"]:
        del operation["parameters"]
    query = [parameter for parameter in operation.get("parameters", []) if parameter.get("in") == "query"]
    for parameter in query:
        _no_nul(parameter.get("schema"))
    if any(parameter.get("name") == "page" for parameter in query):  # a list: it ignores empty values
        for parameter in query:
            _empty_ignored(parameter)


def _error_answers(operation: dict[str, Any], method: str, view) -> None:
    """Every error answer the operation can give, in the one error shape (those it documents kept)."""
    responses = operation.setdefault("responses", {})
    for status in _error_statuses(operation, method, view):
        responses.setdefault(status, error_response(status))


def _anonymous_access(operation: dict[str, Any], method: str, view) -> None:
    """`{}` in `security` where the view's permissions let an anonymous client in."""
    security = operation.setdefault("security", [])
    if _allows(view, method, AnonymousUser()) and {} not in security:
        security.append({})


def _component(schema: dict[str, Any], name: str, serializer: type) -> None:
    """What a serializer declares per field (`field_schemas`); a request body's text without NUL, closed when
    its serializer refuses unknown keys."""
    for field, extra in getattr(serializer, "field_schemas", {}).items():
        if field in schema.get("properties", {}):
            schema["properties"][field].update(extra)
    if not name.endswith("Request"):
        return
    _no_nul(schema)
    if issubclass(serializer, StrictFieldsMixin):
        schema["additionalProperties"] = False


def _empty_ignored(parameter: dict[str, Any]) -> None:
    """A list ignores a query parameter given empty (`?game=`) and names it in its `warnings`: OpenAPI's
    `allowEmptyValue` says an empty value is taken."""
    parameter["allowEmptyValue"] = True
    said = parameter.get("description", "")
    parameter["description"] = f"{said}\n\nEmpty: ignored, and named in `warnings`." if said else \
        "Empty: ignored, and named in `warnings`."


def _is_format(parameter: dict[str, Any]) -> bool:
    return parameter.get("in") == "query" and parameter.get("name") == api_settings.URL_FORMAT_OVERRIDE
