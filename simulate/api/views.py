"""Simulate API: play a match synchronously, read it back, page through its log."""

from django.db import transaction
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, permissions, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response
from rest_framework.views import APIView

from cardsdb.api.errors import RuleViolations, error_response
from simulate import selectors, services
from simulate.api.serializers import (
    BatchSerializer,
    LegendsBatchInputSerializer,
    LegendsMatchInputSerializer,
    MatchSerializer,
    RealmsBatchInputSerializer,
    RealmsMatchInputSerializer,
)
from simulate.engine.errors import InputError, OptionsError, UnknownAgentError
from simulate.models import Batch
from simulate.tasks import run_batch

# Request fields an engine error may name itself; other names are inside the field given.
TOP_LEVEL_FIELDS = {"agents", "options", "setup", "armies", "formation", "seed", "mode"}


def match_input_error(exc: InputError, field: str) -> Response:
    """A 400 naming each bad part of the engine input (options, agents, setup)."""
    fields: dict[str, list[str]] = {}
    for key, reason in exc.errors:
        name = key if key.split(".")[0] in TOP_LEVEL_FIELDS else f"{field}.{key}" if key else field
        fields.setdefault(name, []).append(reason)
    fields = fields or {field: [str(exc)]}
    return error_response(str(exc), "invalid", status.HTTP_400_BAD_REQUEST, fields=fields)


# What playing (or checking) a match can refuse because of the request.
REFUSALS = (services.IllegalMatchSetup, services.MatchRequestError, InputError)


def refusal_response(exc: Exception) -> Response:
    """The 400 a refused match request calls for (rule violations are raised in the common shape)."""
    if isinstance(exc, services.IllegalMatchSetup):
        raise RuleViolations(exc.violations, str(exc)) from exc
    if isinstance(exc, services.MatchRequestError):
        return error_response(str(exc), "invalid", status.HTTP_400_BAD_REQUEST, fields=exc.fields)
    if isinstance(exc, UnknownAgentError):
        return match_input_error(exc, "agents")
    if isinstance(exc, OptionsError):
        return match_input_error(exc, "options")
    return match_input_error(exc, "setup")


def created(request, match) -> Response:
    return Response(MatchSerializer(match, context={"request": request}).data, status=status.HTTP_201_CREATED)


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
        try:
            match, _ = services.play_realms_match(inputs=inputs, agents=agents, seed=given.get("seed"),
                                                  user=request.user)
        except REFUSALS as exc:
            return refusal_response(exc)
        return created(request, match)


class LegendsMatchCreateView(APIView):
    """Play an Akin Legends match now and store it (201 with its result and a link to its log)."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(request=LegendsMatchInputSerializer, responses={201: MatchSerializer})
    def post(self, request):
        data = LegendsMatchInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        given = data.validated_data
        inputs = {key: request.data[key] for key in ("mode", "setup", "options") if key in request.data}
        try:
            mode, teams = services.legends_setup_from_request(
                mode=given.get("mode"), setup=given["setup"], user=request.user
            )
            match, _ = services.play_legends_match(
                inputs=inputs, mode=mode, teams=teams, agents=given.get("agents", "greedy"),
                seed=given.get("seed"), user=request.user,
            )
        except REFUSALS as exc:
            return refusal_response(exc)
        return created(request, match)


def queue_batch(request, game: str, serializer_class) -> Response:
    """Check a batch request like a single match, store it, and queue its task (202)."""
    data = serializer_class(data=request.data)
    data.is_valid(raise_exception=True)
    given = data.validated_data
    keys = ("armies", "formation", "options", "agents") if game == "realms" else ("mode", "setup", "options", "agents")
    batch = Batch(
        game=game,
        owner=request.user if request.user.is_authenticated else None,
        inputs={key: request.data[key] for key in keys if key in request.data},
        count=given["count"],
        seed=services.new_seed() if given.get("seed") is None else given["seed"],
        swap_sides=given["swap_sides"],
    )

    try:
        services.check_batch(batch)
    except REFUSALS as exc:
        return refusal_response(exc)
    batch.save()
    # After commit, so that a worker on another connection finds the row.
    transaction.on_commit(lambda: run_batch.delay(str(batch.id)))
    if transaction.get_autocommit():
        batch.refresh_from_db()
    body = BatchSerializer(batch, context={"request": request}).data
    return Response(body, status=status.HTTP_202_ACCEPTED)


class RealmsBatchCreateView(APIView):
    """Queue a batch of Echo Realms matches (same request as a match, plus `count`, `swap_sides`)."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(request=RealmsBatchInputSerializer, responses={202: BatchSerializer})
    def post(self, request):
        return queue_batch(request, "realms", RealmsBatchInputSerializer)


class LegendsBatchCreateView(APIView):
    """Queue a batch of Akin Legends matches (same request as a match, plus `count`, `swap_sides`)."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(request=LegendsBatchInputSerializer, responses={202: BatchSerializer})
    def post(self, request):
        return queue_batch(request, "legends", LegendsBatchInputSerializer)


class BatchViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Batches: your own, and any batch queued anonymously (by its id). Poll one for its progress."""

    serializer_class = BatchSerializer
    permission_classes = [permissions.AllowAny]
    filterset_fields = ["game", "status"]
    ordering_fields = ["created_at"]

    def get_queryset(self):
        if self.action == "list":
            return selectors.batch_list(user=self.request.user)
        return selectors.batch_visible(user=self.request.user)


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
