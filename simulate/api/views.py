"""Simulate API: play a match synchronously or queue a batch, read them back, page through a match's log.

One view class serves every game: its route gives the game (`urls.py`), and the game's registered
`GameMatches` its request. Refused requests raise, and `cardsdb.api.errors` answers them.
"""

import logging

from django.db import transaction
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, permissions, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

from simulate import background, selectors, services
from simulate.api.serializers import BatchSerializer, MatchSerializer

logger = logging.getLogger(__name__)

# Request fields a match does not keep as its `inputs` (it keeps its seed, and the agents that played).
NOT_MATCH_INPUTS = {"seed", "agents"}
# Request fields a batch does not keep as its `inputs` (they are fields of the batch).
NOT_BATCH_INPUTS = {"seed", "count", "swap_sides"}


def request_inputs(request, data: serializers.Serializer, left_out: set[str]) -> dict:
    """The request's fields as given (not as validated), but those `left_out`."""
    return {key: request.data[key] for key in data.fields if key in request.data and key not in left_out}


class ResumesBatches:
    """Every simulate request lets the background look for batches left without a runner (at most once a
    minute per process, never inside the request)."""

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        background.resume_soon()


def hand_over(batch_id) -> None:
    """Hand a stored batch to the background; if that fails (a broker that does not answer), it stays queued
    and is resumed later."""
    try:
        background.queue_batch(batch_id)
    except Exception:
        logger.exception("Batch %s could not be handed to the background; it is resumed later", batch_id)


class GameRequestView(ResumesBatches, APIView):
    """A request to play one game: `game` is set by each game's route. Throttled twice: the service's
    rates, then the rate of its own scope (`throttle_scope`), per user or, anonymously, per address."""

    permission_classes = [permissions.AllowAny]
    throttle_classes = [*api_settings.DEFAULT_THROTTLE_CLASSES, ScopedRateThrottle]
    game = ""

    def game_matches(self) -> services.GameMatches:
        return services.game_matches(self.game)


class MatchCreateView(GameRequestView):
    """Play a match now and store it (201 with its result and a link to its log)."""

    throttle_scope = "simulate"

    def get_serializer_class(self):
        return self.game_matches().match_request

    @extend_schema(responses={201: MatchSerializer})
    def post(self, request):
        data = self.get_serializer_class()(data=request.data)
        data.is_valid(raise_exception=True)
        given = data.validated_data
        match, _ = services.play_match(
            game=self.game, inputs=request_inputs(request, data, NOT_MATCH_INPUTS), agents=given.get("agents"),
            seed=given.get("seed"), user=request.user,
        )
        return Response(MatchSerializer(match, context={"request": request}).data, status=status.HTTP_201_CREATED)


class BatchCreateView(GameRequestView):
    """Queue a batch of matches (the request of a match, plus `count` and `swap_sides`): 202 with the batch,
    which plays in the background."""

    throttle_scope = "batches"

    def get_serializer_class(self):
        return self.game_matches().batch_request

    @extend_schema(responses={202: BatchSerializer})
    def post(self, request):
        data = self.get_serializer_class()(data=request.data)
        data.is_valid(raise_exception=True)
        given = data.validated_data
        batch = services.create_batch(
            game=self.game, inputs=request_inputs(request, data, NOT_BATCH_INPUTS), count=given["count"],
            seed=given.get("seed"), swap_sides=given["swap_sides"], user=request.user,
        )
        # After commit, so that a runner on another connection finds the row.
        transaction.on_commit(lambda: hand_over(batch.id))
        body = BatchSerializer(batch, context={"request": request}).data
        return Response(body, status=status.HTTP_202_ACCEPTED)


class BatchViewSet(ResumesBatches, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Batches: your own, and any batch queued anonymously (by its id). Poll one for its progress."""

    serializer_class = BatchSerializer
    permission_classes = [permissions.AllowAny]
    filterset_fields = ["game", "status"]
    ordering_fields = ["created_at"]

    def get_queryset(self):
        if self.action == "list":
            return selectors.batch_list(user=self.request.user)
        return selectors.batch_visible(user=self.request.user)


class MatchViewSet(ResumesBatches, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
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
