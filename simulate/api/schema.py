"""The simulate API's OpenAPI schema, made from the registered games: each game's own request and answer
serializers, a oneOf of them (told apart by `game`) where one view serves every game, and the events of
a match's log from each game's declared event fields (G1: a log's events carry exactly those fields)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, PolymorphicProxySerializer

from cardsdb.api.pagination import MAX_PAGE_SIZE, WARNINGS_SCHEMA
from simulate import services
from simulate.api.serializers import AppliedPatchSerializer, ReplayRequestSerializer, SampleSerializer
from simulate.engine.games import get_game

if TYPE_CHECKING:
    from simulate.api.views import EveryGameViewSet, GameRequestView


def by_game(component: str, kind: str, many: bool = False) -> PolymorphicProxySerializer:
    """A oneOf of every game's `kind` serializer (`match_result`, `batch_result`), told apart by `game`."""
    return PolymorphicProxySerializer(
        component_name=component, resource_type_field_name="game", many=many,
        serializers={game: getattr(matches, kind) for game, matches in sorted(services.GAME_MATCHES.items())},
    )


def event_schemas() -> list[dict[str, Any]]:
    """One closed object per event type of every game: its `type`, and exactly its fields (any JSON value);
    also each other set of fields the type had in an earlier schema version, since stored matches keep the
    log they were played with. A set of fields two games or versions share is listed once."""
    shapes: dict[tuple[str, frozenset[str]], dict[str, Any]] = {}
    for game in sorted(services.GAME_MATCHES):
        rules = get_game(game)
        versions = [(rules.schema_version, rules.event_fields),
                    *sorted(rules.past_event_fields.items(), reverse=True)]
        for version, event_fields in versions:
            for kind, fields in event_fields.items():
                key = (kind, frozenset(fields))
                if key in shapes:
                    continue
                shapes[key] = {
                    "type": "object",
                    "title": f"{game} {kind}" + ("" if version == rules.schema_version else f" (schema {version})"),
                    "properties": {"type": {"type": "string", "enum": [kind]}, **{name: {} for name in fields}},
                    "required": ["type", *fields],
                    "additionalProperties": False,
                }
    return list(shapes.values())


def log_page_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["count", "next", "previous", "warnings", "results"],
        "properties": {
            "count": {"type": "integer", "minimum": 0, "description": "Events in the log."},
            "next": {"type": "string", "format": "uri", "nullable": True},
            "previous": {"type": "string", "format": "uri", "nullable": True},
            "warnings": WARNINGS_SCHEMA,
            "results": {
                "type": "array",
                "description": "Events in order, each with exactly the fields its game declares for its "
                               "type (the rules pages of docs/ describe them).",
                "items": {"oneOf": event_schemas()},
            },
        },
    }


LOG_PARAMETERS = [
    OpenApiParameter("page", {"type": "integer", "minimum": 1}, OpenApiParameter.QUERY,
                     description="A page number from 1; past the last page answers 404."),
    OpenApiParameter("page_size", {"type": "integer", "minimum": 1, "maximum": MAX_PAGE_SIZE}, OpenApiParameter.QUERY,
                     description=f"Events per page, 1 to {MAX_PAGE_SIZE}."),
]


# A study's actions that answer it with their own status, or a conflict with its state (in the error shape).
STUDY_ACTIONS = {
    "rerun": (202, "A study stored before studies kept what they played (`not_replayable`)."),
    "publish": (200, "A study not finished, or a field study measuring some card less closely than ±5 points "
                     "(`not_publishable`, with `cards`)."),
    "apply": (200, "Not a finished what-if, or a patched card edited or deleted since it measured it "
                   "(`not_applicable`)."),
    "undo": (200, "Not a what-if, or a patched card not as its patch left it: never applied, undone already, or "
                  "edited since (`not_applicable`)."),
}


class GameRequestSchema(AutoSchema):
    """A view playing one game: the game's own request (`view.request_schema` names which) and answer."""

    def get_request_serializer(self):
        view = cast("GameRequestView", self.view)
        return getattr(view.game_matches(), view.request_schema)

    def get_response_serializers(self):
        view = cast("GameRequestView", self.view)
        return {view.answer_status: getattr(view.game_matches(), view.answer)}

    def _get_request_body(self, *args, **kwargs):
        body = super()._get_request_body(*args, **kwargs)
        if body is not None:
            # A oneOf of shapes is not known to require a body, though every shape does; a request whose fields
            # are all optional (a match of a random setup) may come without one.
            request = self.get_request_serializer()
            if isinstance(request, type):
                request = request()
            body["required"] = isinstance(request, PolymorphicProxySerializer) or any(
                field.required for field in request.fields.values())
        return body


class EveryGameSchema(AutoSchema):
    """A viewset reading rows of every game: each answers as its game does (`view.answer` names how)."""

    def get_request_serializer(self):
        action = getattr(self.view, "action", None)
        if action in ("cancel", "rerun", "publish", "apply", "undo", "samples"):
            return None  # they take no body
        if action == "replay":
            return ReplayRequestSerializer
        return super().get_request_serializer()

    def get_response_serializers(self):
        if getattr(self.view, "action", None) == "log":
            return {200: log_page_schema()}
        view = cast("EveryGameViewSet", self.view)
        if view.action == "samples":
            return {200: SampleSerializer(many=True)}
        if view.action == "replay":
            return {201: by_game("Match", "match_result"), 409: OpenApiResponse(
                response={"$ref": "#/components/schemas/Error"},
                description="A study stored before studies kept what they played (`not_replayable`).")}
        name = "Match" if view.answer == "match_result" else "Batch"
        answer = by_game(name, view.answer, many=view.action == "list")
        if view.action in STUDY_ACTIONS:
            code, conflict = STUDY_ACTIONS[view.action]
            return {code: AppliedPatchSerializer if view.action in ("apply", "undo") else answer,
                    409: OpenApiResponse(response={"$ref": "#/components/schemas/Error"}, description=conflict)}
        return answer

    def get_override_parameters(self):
        parameters = super().get_override_parameters()
        return [*parameters, *LOG_PARAMETERS] if getattr(self.view, "action", None) == "log" else parameters
