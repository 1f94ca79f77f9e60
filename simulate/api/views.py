"""Simulate API: play a match synchronously, read it back, page through its log."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, permissions, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response
from rest_framework.views import APIView

from cardsdb.api.errors import RuleViolations, error_response
from simulate import selectors, services
from simulate.api.serializers import LegendsMatchInputSerializer, MatchSerializer, RealmsMatchInputSerializer
from simulate.engine.errors import MatchInputError, OptionsError, UnknownAgentError

# Request fields an engine error may name itself; other names are inside the field given.
TOP_LEVEL_FIELDS = {"agents", "options", "setup", "armies", "formation", "seed", "mode"}


def match_input_error(exc: MatchInputError, field: str) -> Response:
    """A 400 naming each bad part of the engine input (options, agents, setup)."""
    fields: dict[str, list[str]] = {}
    for key, reason in exc.errors:
        name = key if key.split(".")[0] in TOP_LEVEL_FIELDS else f"{field}.{key}" if key else field
        fields.setdefault(name, []).append(reason)
    fields = fields or {field: [str(exc)]}
    return error_response(str(exc), "invalid", status.HTTP_400_BAD_REQUEST, fields=fields)


def play_and_answer(request, play) -> Response:
    """Run `play()` (which returns a stored Match) and answer 201, or the 400 its failure calls for."""
    try:
        match = play()
    except services.IllegalMatchSetup as exc:
        raise RuleViolations(exc.violations, str(exc)) from exc
    except services.MatchRequestError as exc:
        return error_response(str(exc), "invalid", status.HTTP_400_BAD_REQUEST, fields=exc.fields)
    except UnknownAgentError as exc:
        return match_input_error(exc, "agents")
    except OptionsError as exc:
        return match_input_error(exc, "options")
    except MatchInputError as exc:
        return match_input_error(exc, "setup")
    body = MatchSerializer(match, context={"request": request}).data
    return Response(body, status=status.HTTP_201_CREATED)


class RealmsMatchCreateView(APIView):
    """Play an Echo Realms match now and store it (201 with its result and a link to its log)."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(request=RealmsMatchInputSerializer, responses={201: MatchSerializer})
    def post(self, request):
        data = RealmsMatchInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        given = data.validated_data
        agents = dict(given.get("agents") or {"a": "greedy", "b": "greedy"})
        inputs = {key: request.data[key] for key in ("armies", "formation", "options") if key in request.data}
        return play_and_answer(request, lambda: services.play_realms_match(
            inputs=inputs, agents=agents, seed=given.get("seed"), user=request.user
        )[0])


class LegendsMatchCreateView(APIView):
    """Play an Akin Legends match now and store it (201 with its result and a link to its log)."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(request=LegendsMatchInputSerializer, responses={201: MatchSerializer})
    def post(self, request):
        data = LegendsMatchInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        given = data.validated_data
        inputs = {key: request.data[key] for key in ("mode", "setup", "options") if key in request.data}

        def play():
            mode, teams = services.legends_setup_from_request(
                mode=given.get("mode"), setup=given["setup"], user=request.user
            )
            return services.play_legends_match(
                inputs=inputs, mode=mode, teams=teams, agents=given.get("agents", "greedy"),
                seed=given.get("seed"), user=request.user,
            )[0]

        return play_and_answer(request, play)


class MatchViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Matches: your own, and any match played anonymously (by its id)."""

    serializer_class = MatchSerializer
    permission_classes = [permissions.AllowAny]
    filterset_fields = ["game", "winner"]
    ordering_fields = ["created_at", "rounds"]

    def get_queryset(self):
        if self.action == "list":
            return selectors.match_list(user=self.request.user)
        return selectors.match_visible(user=self.request.user)

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    @action(detail=True, methods=["get"])
    def log(self, request, pk=None):
        """The match's events in order, paginated (`page`, `page_size` up to 200)."""
        match = self.get_object()
        page = self.paginate_queryset(match.events)
        return self.get_paginated_response(page)
