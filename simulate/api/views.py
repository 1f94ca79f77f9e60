"""Simulate API: play a match synchronously or queue a batch, read them back, page through a match's log.

One view class serves every game: its route gives the game (`urls.py`), and the game's registered
`GameMatches` its request and its answer. Refused requests raise, and `cardsdb.api.errors` answers them.
"""

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING

from django.db import transaction
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions, filters, mixins, permissions, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.metadata import SimpleMetadata
from rest_framework.response import Response
from rest_framework.views import APIView

from cardsdb.api.filters import CheckedFiltersMixin, is_blank, query_parameter_errors
from cardsdb.api.throttling import ScopedThrottle
from cardsdb.filtersets import FilterSet
from simulate import applying, background, batches, comparison, publishing, replays, selectors, services
from simulate.api.comparison import ComparisonSerializer, comparison_data
from simulate.api.schema import EveryGameSchema, GameRequestSchema
from simulate.api.serializers import (
    AppliedPatchSerializer,
    BatchSerializer,
    MatchSerializer,
    ReplayRequestSerializer,
    SampleSerializer,
    study_inputs,
)
from simulate.filtersets import BatchFilter

logger = logging.getLogger(__name__)

# Request fields a match does not keep as its `inputs` (it keeps its seed, and the agents that played).
NOT_MATCH_INPUTS = {"seed", "agents"}


def given_inputs(body: Mapping, data: serializers.Serializer, left_out: set[str]) -> dict:
    """The request body's fields as given (not as validated), but those `left_out`."""
    return {key: body[key] for key in data.fields if key in body and key not in left_out}


def play_requested_match(*, game: str, body: Mapping, data: serializers.Serializer, user):
    """Play and store the match of a checked request (the API's, or the match page's form)."""
    match, _ = services.play_match(
        game=game, inputs=given_inputs(body, data, NOT_MATCH_INPUTS), agents=data.validated_data.get("agents"),
        seed=data.validated_data.get("seed"), user=user,
    )
    return match


def client_ident(request) -> str:
    """Who a batch counts against (MAX_UNFINISHED, per account and per address): the account and the address
    as the throttles see it, or anonymously the address alone."""
    address = ScopedThrottle().get_ident(request)
    if request.user.is_authenticated:
        return f"user:{request.user.pk}@{address}"
    return f"address:{address}"


def start_batch(*, game: str, body: Mapping, data: serializers.Serializer, request):
    """Store the study of a checked request (the API's, or the studies page's form) and hand it to the
    background once committed, so that a runner on another connection finds the row."""
    given = data.validated_data
    batch = batches.create_batch(
        game=game, kind=given["kind"], inputs=study_inputs(given, body), count=given["count"],
        seed=given.get("seed"), swap_sides=given["swap_sides"], until_ci_width=given.get("until_ci_width"),
        user=request.user, client=client_ident(request),
    )
    transaction.on_commit(lambda: hand_over(batch.id))
    return batch


if TYPE_CHECKING:  # what ResumesBatches is mixed into, for the type checker
    _APIView = APIView
else:
    _APIView = object


class ResumesBatches(_APIView):
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
    rates, then the rate of its own scope (`throttle_scope`), per address and, signed in, per account."""

    permission_classes = [permissions.AllowAny]
    schema = GameRequestSchema()
    game = ""
    request_schema = answer = ""  # the GameMatches attributes of its request's schema and of its answer
    answer_status: int = status.HTTP_200_OK

    def game_matches(self) -> services.GameMatches:
        return services.game_matches(self.game)

    def validated(self, serializer_class) -> serializers.Serializer:
        data = serializer_class(data=self.request.data)
        data.is_valid(raise_exception=True)
        return data

    def answer_with(self, row, status_code: int) -> Response:
        result = getattr(self.game_matches(), self.answer)
        return Response(result(row, context={"request": self.request}).data, status=status_code)


class MatchCreateView(GameRequestView):
    """Play a match now and store it: 201 with its result and a link to its log."""

    throttle_scope = "simulate"
    request_schema, answer, answer_status = "match_request_schema", "match_result", status.HTTP_201_CREATED

    def get_serializer_class(self):
        return self.game_matches().match_request

    def post(self, request):
        data = self.validated(self.get_serializer_class())
        match = play_requested_match(game=self.game, body=request.data, data=data, user=request.user)
        return self.answer_with(match, status.HTTP_201_CREATED)


class BatchCreateView(GameRequestView):
    """Queue a study (`kind`, default matchup: the request of a match, plus `count` and `swap_sides`): 202
    with the batch, stored and queued; it plays in the background, in chunks. Poll its `url`."""

    throttle_scope = "batches"
    request_schema, answer, answer_status = "batch_request_schema", "batch_result", status.HTTP_202_ACCEPTED

    def get_serializer_class(self):
        return self.game_matches().batch_request

    def post(self, request):
        data = self.validated(self.get_serializer_class())
        batch = start_batch(game=self.game, body=request.data, data=data, request=request)
        return self.answer_with(batch, status.HTTP_202_ACCEPTED)


class CheckedOrderingFilter(filters.OrderingFilter):
    """`ordering=<field>` or `-<field>`, one of the view's `ordering_fields`; anything else answers 400 (given
    empty, the default order, and the list's `warnings` say so)."""

    def allowed(self, view) -> list[str]:
        return [term for name in view.ordering_fields for term in (name, f"-{name}")]

    def get_ordering(self, request, queryset, view):
        given = request.query_params.get(self.ordering_param)
        if given is not None and not is_blank(given) and given not in self.allowed(view):
            raise exceptions.ValidationError(
                {self.ordering_param: [f"Give one of {', '.join(self.allowed(view))}."]}
            )
        return super().get_ordering(request, queryset, view)

    def get_schema_operation_parameters(self, view):
        return [{
            "name": self.ordering_param, "required": False, "in": "query",
            "description": "The order of the results (default newest first).",
            "schema": {"type": "string", "enum": self.allowed(view)},
        }]


class CheckedFilterBackend(DjangoFilterBackend):
    """The filters of `filterset_fields`, on the project's FilterSet base (a value given empty is no filter)."""

    filterset_base = FilterSet


class ReadOnlyMetadata(SimpleMetadata):
    """OPTIONS of rows of every game: their name and what they render; no form, as nothing there takes one
    (a cancel takes no body)."""

    def determine_actions(self, request, view):
        return {}


class EveryGameViewSet(ResumesBatches, CheckedFiltersMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin,
                       viewsets.GenericViewSet):
    """Rows of every game, each answered as its game answers it."""

    permission_classes = [permissions.AllowAny]
    filter_backends = [CheckedFilterBackend, CheckedOrderingFilter]
    schema = EveryGameSchema()
    metadata_class = ReadOnlyMetadata
    answer = ""


class BatchViewSet(EveryGameViewSet):
    """Batches: your own, and any batch queued anonymously (by its id). Poll one for its progress."""

    serializer_class = BatchSerializer
    throttle_scope: str | None = None  # a rerun queues a study: the scope of queuing one (`batches`)
    filterset_class = BatchFilter
    ordering_fields = ["created_at", "finished_at"]
    answer = "batch_result"

    def get_queryset(self):
        if self.action == "list":
            return selectors.batch_list(user=self.request.user)
        return selectors.batch_visible(user=self.request.user)

    @action(detail=True, methods=["post"], filter_backends=[], throttle_scope="batches")
    def rerun(self, request, pk=None):
        """Queue the study again, as it was frozen when it was created (the same cards, seeds and chunks): its
        figures come out identical to the original's, whatever was edited since. 202 with the new study."""
        batch = batches.rerun_batch(self.get_object(), user=request.user, client=client_ident(request))
        transaction.on_commit(lambda: hand_over(batch.id))
        return Response(BatchSerializer(batch, context=self.get_serializer_context()).data,
                        status=status.HTTP_202_ACCEPTED)

    @action(detail=True, methods=["post", "delete"], filter_backends=[],
            permission_classes=[permissions.IsAdminUser])
    def publish(self, request, pk=None):
        """Staff: publish a finished study (POST) — readable by everyone, and a field study of the official
        sets becomes the cards' `simulated` figures, if it measured every card within ±5 points — or
        withdraw it (DELETE)."""
        batch = self.get_object()
        if request.method == "DELETE":
            batch = publishing.unpublish(batch)
        else:
            batch = publishing.publish(batch, user=request.user)
        return Response(BatchSerializer(batch, context=self.get_serializer_context()).data)

    @action(detail=True, methods=["post"], filter_backends=[], permission_classes=[permissions.IsAdminUser])
    def apply(self, request, pk=None):
        """Staff: apply a finished what-if's patch to the catalogue, each patched card a new version in its
        history, all or none. 409 `not_applicable` for another kind, an unfinished study, or a card edited since
        the what-if measured it (its patch would overwrite that edit); 400 if a card's rules refuse a change."""
        applied = applying.apply_patch(self.get_object(), user=request.user)
        return Response(AppliedPatchSerializer({"applied": applied}).data)

    @action(detail=True, methods=["post"], filter_backends=[], permission_classes=[permissions.IsAdminUser])
    def undo(self, request, pk=None):
        """Staff: undo a what-if's applied patch, each patched card put back as it was just before, a new version
        in its history, all or none. 409 `not_applicable` when a card is not as the patch left it (never applied,
        undone already, or edited since: undoing would overwrite that edit)."""
        undone = applying.undo_patch(self.get_object(), user=request.user)
        return Response(AppliedPatchSerializer({"applied": undone}).data)

    @action(detail=True, methods=["get"], filter_backends=[], pagination_class=None)
    def samples(self, request, pk=None):
        """The sample matches the study kept: per pairing, its first three matches of each outcome of side a
        (team 0), each with its seed."""
        return Response(SampleSerializer(replays.samples_of(self.get_object()), many=True).data)

    @action(detail=True, methods=["post"], filter_backends=[], throttle_scope="simulate")
    def replay(self, request, pk=None):
        """Play one of the study's matches again with its log, from what the study froze (`pairing`, `match`: the
        one played with seed + match): 201 with the match, an ordinary anonymous match (the same one again when
        asked again). 409 `not_replayable` for a study stored before studies kept what they played."""
        batch = self.get_object()
        data = ReplayRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        match = replays.replay(batch, **data.validated_data)
        return Response(MatchSerializer(match, context=self.get_serializer_context()).data,
                        status=status.HTTP_201_CREATED)

    @action(detail=True, methods=["post"], filter_backends=[])
    def cancel(self, request, pk=None):
        """Stop a queued or running batch: its pending chunks are not played; what was stored stays. Yours,
        or an anonymous one (by its id). A batch already over is answered as it is."""
        batch = batches.cancel_batch(self.get_object())
        return Response(BatchSerializer(batch, context=self.get_serializer_context()).data)


class MatchViewSet(EveryGameViewSet):
    """Matches: your own, and any match played anonymously (by its id)."""

    serializer_class = MatchSerializer
    filterset_fields = ["game", "winner"]
    ordering_fields = ["created_at", "rounds"]
    answer = "match_result"

    def get_queryset(self):
        if self.action == "list":
            return selectors.match_list(user=self.request.user)
        return selectors.match_visible(user=self.request.user)

    @action(detail=True, methods=["get"], filter_backends=[])
    def log(self, request, pk=None):
        """The match's events in order, paginated (`page`, `page_size` up to 200)."""
        match = self.get_object()
        page = self.paginate_queryset(match.events)
        return self.get_paginated_response(page)


class BatchCompareView(ResumesBatches, APIView):
    """Two finished studies of one kind and one game side by side."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(
        operation_id="simulate_batches_compare",
        parameters=[OpenApiParameter(name, OpenApiTypes.UUID, OpenApiParameter.QUERY, required=True,
                                     description=f"Study {name}: yours, or an anonymous one.") for name in ("a", "b")],
        responses={200: ComparisonSerializer, 404: OpenApiResponse(
            response={"$ref": "#/components/schemas/Error"}, description="A study you may not read, or none."),
            409: OpenApiResponse(response={"$ref": "#/components/schemas/Error"},
                                 description="Studies of different kinds or games, the same study twice, or an "
                                             "unfinished one (`not_comparable`).")},
    )
    def get(self, request):
        """Studies a and b side by side: their headlines, and for field studies every member's delta in each
        with the difference (a less b) and its interval; for what-ifs of a field, each patched card's rows.
        409 `not_comparable` for studies of different kinds or games, the same study twice or an unfinished
        one; 404 for one you may not read."""
        errors = query_parameter_errors(request.query_params)
        if errors:
            raise exceptions.ValidationError(errors)
        first, second = comparison.comparable(user=request.user, a=request.query_params.get("a"),
                                              b=request.query_params.get("b"))
        answer = comparison_data(comparison.compare(first, second))
        return Response(ComparisonSerializer(answer, context={"request": request}).data)
