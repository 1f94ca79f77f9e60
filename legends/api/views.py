"""Akin Legends API views: thin wrappers over selectors, services and the card renderer."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import permissions, status, viewsets
from rest_framework.decorators import action
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response

from cardsdb.api.errors import error_response
from cardsdb.api.faces import card_face_response, card_face_schema
from cardsdb.api.filters import CheckedFiltersMixin
from cardsdb.api.history import RELEASE_PARAMETER, CardHistoryMixin, ReleaseViewSet, release_in_query
from cardsdb.api.renderers import PNGRenderer
from cardsdb.api.writes import AtomicWritesMixin, CardDeleteMixin
from cardsdb.choices import Game
from legends import selectors, services
from legends.api.serializers import (
    DefenseCardSerializer,
    ElementSerializer,
    ProtectorSerializer,
    SetupCodeQuerySerializer,
    SetupDecodeSerializer,
    SetupExportInputSerializer,
    SetupExportSerializer,
    SetupInputSerializer,
    SetupValidationSerializer,
    SpiritSerializer,
    SummoningCardSerializer,
    TeamSetupSerializer,
    setup_share_url,
)
from legends.filtersets import (
    DefenseCardFilter,
    ElementFilter,
    LegendsCardFilter,
    ProtectorFilter,
    SpiritFilter,
    SummoningCardFilter,
    TeamSetupFilter,
)
from legends.rendering import card_face_renderer
from legends.setup_codes import SetupCodeError, decode_setup

CARD_SEARCH = ["name", "slug", "rules_text", "flavor_text"]
CARD_ORDERING = ["name", "created_at", "updated_at"]


class ElementViewSet(AtomicWritesMixin, CheckedFiltersMixin, viewsets.ModelViewSet):
    queryset = selectors.element_list()
    serializer_class = ElementSerializer
    filterset_class = ElementFilter
    lookup_field = "slug"
    search_fields = ["name", "slug"]
    ordering_fields = ["order", "name"]


class LegendsCardViewSet(CardHistoryMixin, CardDeleteMixin, AtomicWritesMixin, CheckedFiltersMixin, viewsets.ModelViewSet):
    """Read for all, write for staff; each card also has its face at `{slug}/card.png` and its versions at
    `{slug}/history/`."""

    lookup_field = "slug"
    search_fields = CARD_SEARCH
    ordering_fields = CARD_ORDERING
    filterset_class: type[LegendsCardFilter]  # each kind's own

    @card_face_schema
    def card_face(self, request, slug=None):
        """The card face as a PNG in `size`, drawn from the card's data; cached until the card changes."""
        return card_face_response(request, self.get_object, card_face_renderer)

    def handle_exception(self, exc):
        response = super().handle_exception(exc)
        if getattr(self, "action", None) == "card_face":
            # Errors of the PNG endpoint still answer as JSON, in the common error shape.
            self.request.accepted_renderer = JSONRenderer()
            self.request.accepted_media_type = JSONRenderer.media_type
        return response


class SpiritViewSet(LegendsCardViewSet):
    queryset = selectors.spirit_list()
    serializer_class = SpiritSerializer
    filterset_class = SpiritFilter


class ProtectorViewSet(LegendsCardViewSet):
    queryset = selectors.protector_list()
    serializer_class = ProtectorSerializer
    filterset_class = ProtectorFilter
    ordering_fields = [*CARD_ORDERING, "duel_legal"]


class DefenseCardViewSet(LegendsCardViewSet):
    queryset = selectors.defense_list()
    serializer_class = DefenseCardSerializer
    filterset_class = DefenseCardFilter
    ordering_fields = [*CARD_ORDERING, "element_1__order", "element_2__order"]


class SummoningCardViewSet(LegendsCardViewSet):
    queryset = selectors.summoning_card_list()
    serializer_class = SummoningCardSerializer
    filterset_class = SummoningCardFilter
    ordering_fields = [
        *CARD_ORDERING, "copies", "effect_kind", "effect_element__order", "attack_1__order", "attack_2__order",
    ]


class TeamSetupViewSet(AtomicWritesMixin, CheckedFiltersMixin, viewsets.ModelViewSet):
    """Your saved team setups, each shown with its current legality; another user's answer 404."""

    serializer_class = TeamSetupSerializer
    permission_classes = [permissions.IsAuthenticated]
    filterset_class = TeamSetupFilter
    lookup_value_regex = r"\d+"
    search_fields = ["name"]
    ordering_fields = ["name", "mode", "created_at", "updated_at"]

    def get_queryset(self):
        return selectors.team_setup_list(user=self.request.user)

    @extend_schema(request=SetupInputSerializer, responses=SetupValidationSerializer, parameters=[RELEASE_PARAMETER])
    @action(detail=False, methods=["post"], permission_classes=[permissions.AllowAny])
    def validate(self, request):
        """Check a team setup (rulings L4-L6, L13): every violation at once, and what is left to draw; with
        `release`, against the cards as that release froze them."""
        release = release_in_query(request, Game.LEGENDS)
        data = SetupInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        report = services.setup_validate(**data.validated_data, release=release)
        return Response({**report, "share_url": setup_share_url(request, report["code"])})

    @extend_schema(request=SetupExportInputSerializer, responses=SetupExportSerializer)
    @action(detail=False, methods=["post"], permission_classes=[permissions.AllowAny])
    def export(self, request):
        """A setup (mode and teams, or its code) with every card's full data, its code, share URL and validation."""
        data = SetupExportInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        if "code" in data.validated_data:
            try:
                mode, teams = decode_setup(data.validated_data["code"])
            except SetupCodeError as exc:
                return bad_setup_code(str(exc))
        else:
            mode, teams = data.validated_data["mode"], data.validated_data["teams"]
        try:
            exported = services.setup_export_teams(teams)
        except services.UnknownCards as exc:
            fields = {path: [f"No such card '{slug}'."] for path, slug in exc.unknown.items()}
            return error_response(str(exc), "invalid", status.HTTP_400_BAD_REQUEST, fields=fields)
        report = services.setup_validate(mode=mode, teams=teams)
        answer = SetupExportSerializer({
            "mode": mode, "teams": exported, "code": report["code"],
            "share_url": setup_share_url(request, report["code"]), **report,
        }, context={"request": request}).data
        return Response(answer)

    @extend_schema(parameters=[SetupCodeQuerySerializer], responses=SetupDecodeSerializer)
    @action(detail=False, methods=["get"], permission_classes=[permissions.AllowAny])
    def decode(self, request):
        """The setup a setup code stands for, with its canonical code."""
        query = SetupCodeQuerySerializer(data=request.query_params)
        if not query.is_valid():
            reason = str(query.errors["code"][0]) if "code" in query.errors else "Give `code`."
            return bad_setup_code(reason)
        try:
            answer = services.setup_from_code(query.validated_data["code"])
        except SetupCodeError as exc:
            return bad_setup_code(str(exc))
        return Response({**answer, "share_url": setup_share_url(request, answer["code"])})


class LegendsReleaseViewSet(ReleaseViewSet):
    """Akin Legends releases: named, frozen states of the catalogue (docs/api.md, "Card history and releases")."""

    game = Game.LEGENDS


def bad_setup_code(reason: str):
    """The answer to a setup code that names no setup."""
    return error_response(f"Bad setup code: {reason}", "invalid", status.HTTP_400_BAD_REQUEST,
                          fields={"code": [reason]})


def card_face_view(viewset: type[LegendsCardViewSet]):
    """`GET {slug}/card.png` of a card viewset (routed by hand: the router would add a trailing slash)."""
    return viewset.as_view({"get": "card_face"}, renderer_classes=[JSONRenderer, PNGRenderer])
