"""One error shape for every 4xx answer: `message`, `code`, and `fields` or `violations`."""

from django.core.exceptions import PermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import ProtectedError, RestrictedError
from django.http import Http404, JsonResponse
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from simulate.engine.errors import (
    InputError,
    OptionsError,
    SetupError,
    SpecError,
    UnknownAgentError,
    UnknownGameError,
)
from simulate.services import IllegalMatchSetup


class Conflict(exceptions.APIException):
    status_code = status.HTTP_409_CONFLICT
    default_code = "conflict"
    default_detail = "The request conflicts with the current state."


class RuleViolations(exceptions.APIException):
    """A request that is well formed but breaks the game's rules, with every violation."""

    status_code = status.HTTP_400_BAD_REQUEST
    default_code = "rule_violations"
    default_detail = "The request breaks the rules."

    def __init__(self, violations: list[dict], message: str | None = None):
        super().__init__(message or self.default_detail, self.default_code)
        self.violations = violations


class InvalidInput(exceptions.ValidationError):
    """Input refused below the API (by an engine or a service): its own message, fields by dotted path."""

    def __init__(self, message: str, fields: dict[str, list[str]]):
        super().__init__(fields)
        self.message = message


# The request field the paths of an engine error start from; other input errors give request paths.
INPUT_ERROR_FIELDS = (
    (OptionsError, "options"),
    (UnknownAgentError, "agents"),
    (SetupError, "setup"),
    (SpecError, "setup"),
    (UnknownGameError, "game"),
)


def input_error_fields(exc: InputError) -> dict[str, list[str]]:
    """{dotted request path: [reasons]} for an engine input error (`teams[0].players` reads `teams.0.players`)."""
    root = next((field for kind, field in INPUT_ERROR_FIELDS if isinstance(exc, kind)), "")
    fields: dict[str, list[str]] = {}
    for path, reason in exc.errors:
        dotted = path.replace("[", ".").replace("]", "")
        if root and dotted != root and not dotted.startswith(f"{root}."):
            dotted = f"{root}.{dotted}" if dotted else root
        fields.setdefault(dotted or "non_field_errors", []).append(reason)
    return fields or {root or "non_field_errors": [str(exc)]}


def _field_errors(detail) -> dict:
    """Flatten DRF's nested error detail into {field: [messages]} (nested keys dotted)."""
    if isinstance(detail, dict):
        return {str(key): _messages(value) for key, value in detail.items()}
    return {"non_field_errors": _messages(detail)}


def _messages(value):
    if isinstance(value, dict):
        return {str(key): _messages(item) for key, item in value.items()}
    if isinstance(value, list):
        if all(isinstance(item, str) for item in value):
            return [str(item) for item in value]
        return [_messages(item) for item in value]
    return [str(value)]


def _first_message(fields: dict) -> str:
    for key, value in fields.items():
        while isinstance(value, (list, dict)) and value:
            value = value[0] if isinstance(value, list) else next(iter(value.values()))
        if isinstance(value, str):
            return value if key == "non_field_errors" else f"{key}: {value}"
    return "Invalid input."


def error_body(message: str, code: str, **details) -> dict:
    """Build the common error body."""
    return {"message": message, "code": code, **details}


def exception_handler(exc, context):
    """DRF exception handler that answers every error in the common shape."""
    if isinstance(exc, DjangoValidationError):
        detail = exc.message_dict if hasattr(exc, "error_dict") else {"non_field_errors": exc.messages}
        exc = exceptions.ValidationError(detail)
    elif isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    elif isinstance(exc, (ProtectedError, RestrictedError)):
        users = len(exc.protected_objects if isinstance(exc, ProtectedError) else exc.restricted_objects)
        exc = Conflict(f"Still in use by {users} other object(s); remove those first.", "protected")
    elif isinstance(exc, InputError):
        exc = InvalidInput(str(exc), input_error_fields(exc))
    elif isinstance(exc, IllegalMatchSetup):
        exc = RuleViolations(exc.violations, str(exc))

    response = drf_exception_handler(exc, context)
    if response is None:
        return None

    if isinstance(exc, RuleViolations):
        response.data = error_body(str(exc.detail), exc.default_code, violations=exc.violations)
    elif isinstance(exc, exceptions.ValidationError):
        fields = _field_errors(exc.detail)
        message = exc.message if isinstance(exc, InvalidInput) else _first_message(fields)
        # Some input errors carry more than fields, e.g. the position of a query syntax error.
        response.data = error_body(message, "invalid", fields=fields, **getattr(exc, "extra", {}))
    else:
        detail = exc.detail if isinstance(exc, exceptions.APIException) else str(exc)
        code = getattr(detail, "code", None) or getattr(exc, "default_code", "error")
        body = error_body(str(detail), code)
        if isinstance(exc, exceptions.Throttled) and exc.wait is not None:
            body["retry_after"] = int(exc.wait)
        response.data = body
    return response


def not_found_view(request, exception=None):
    """Django-level 404 (unrouted URLs) in the common shape."""
    return JsonResponse(error_body("Not found.", "not_found"), status=404)


def bad_request_view(request, exception=None):
    return JsonResponse(error_body("Bad request.", "bad_request"), status=400)


def permission_denied_view(request, exception=None):
    return JsonResponse(
        error_body("You do not have permission to perform this action.", "permission_denied"),
        status=403,
    )


def server_error_view(request):
    return JsonResponse(error_body("Internal server error.", "server_error"), status=500)


def error_response(message: str, code: str, status_code: int, **details) -> Response:
    """A DRF response in the common error shape, for views that answer errors themselves."""
    return Response(error_body(message, code, **details), status=status_code)
