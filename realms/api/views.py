"""Echo Realms API views: thin wrappers over selectors and services."""

from django.http import HttpResponse
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import filters, permissions, status, viewsets
from rest_framework.decorators import action
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from cardsdb.api.errors import error_response
from cardsdb.api.faces import card_face_response, card_face_schema
from cardsdb.api.filters import CheckedFiltersMixin, checked_filter_backends
from cardsdb.api.history import RELEASE_PARAMETER, CardHistoryMixin, ReleaseViewSet, release_in_query
from cardsdb.api.renderers import PDFRenderer, PNGRenderer
from cardsdb.api.writes import AtomicWritesMixin, CardDeleteMixin
from cardsdb.choices import Game
from realms import selectors, services, sheet
from realms.api.serializers import (
    ArmyCodeQuerySerializer,
    ArmyDecodeSerializer,
    ArmyExportInputSerializer,
    ArmyExportSerializer,
    ArmyImportInputSerializer,
    ArmyImportSerializer,
    ArmyInputSerializer,
    ArmySerializer,
    ArmyValidationSerializer,
    CharacterSerializer,
    FormationInputSerializer,
    RaceSerializer,
    SheetCodeQuerySerializer,
    SheetQuerySerializer,
    army_builder_url,
    army_code_error,
    army_share_url,
    army_sheet_url,
)
from realms.engine.army import ArmyCodeError, Deployment
from realms.filtersets import ArmyFilter, CharacterFilter, RaceFilter
from realms.models import Race
from realms.rendering import render_character_card


class RaceViewSet(AtomicWritesMixin, CheckedFiltersMixin, viewsets.ModelViewSet):
    queryset = Race.objects.all()
    serializer_class = RaceSerializer
    filterset_class = RaceFilter
    lookup_field = "slug"
    search_fields = ["name", "description"]
    ordering_fields = ["name"]


class CharacterViewSet(CardHistoryMixin, CardDeleteMixin, AtomicWritesMixin, CheckedFiltersMixin, viewsets.ModelViewSet):
    """Echo Realms characters: read for all, write for staff. `q` takes the query language."""

    queryset = selectors.character_list()
    serializer_class = CharacterSerializer
    filterset_class = CharacterFilter
    # Ordering is part of CharacterFilter, so that clients sort by API names (atk, def, ...).
    filter_backends = [backend for backend in checked_filter_backends() if backend is not filters.OrderingFilter]
    lookup_field = "slug"
    search_fields = ["name", "rules_text"]

    @card_face_schema
    def card_face(self, request, slug=None):
        """The card face as a PNG in `size`, drawn from the card's data; cached until the card changes."""
        return card_face_response(request, self.get_object, lambda _card: render_character_card)


def _slots_or_error(given):
    """The slots of an army given as `slots` or as a `code`, or an error response for a code that names no
    army."""
    if "code" not in given:
        return services.slots_from_data(given["slots"]), None
    try:
        return services.army_from_code(given["code"]), None
    except ArmyCodeError as exc:
        return None, Response(army_code_error(exc), status=status.HTTP_400_BAD_REQUEST)


def _collection_or_error(request, collection_id):
    """The requester's own collection, or an error response (None id means no collection)."""
    if collection_id is None:
        return None, None
    collection = selectors.collection_for(user=request.user, collection_id=collection_id)
    if collection is None:
        message = f"You have no collection {collection_id}."
        return None, error_response(message, "invalid", status.HTTP_400_BAD_REQUEST,
                                    fields={"collection": [message]})
    return collection, None


class ArmyViewSet(AtomicWritesMixin, CheckedFiltersMixin, viewsets.ModelViewSet):
    """Your saved armies (drafts allowed), each shown with its current validity."""

    serializer_class = ArmySerializer
    permission_classes = [permissions.IsAuthenticated]
    filterset_class = ArmyFilter
    search_fields = ["name"]
    ordering_fields = ["name", "created_at", "updated_at"]

    def get_queryset(self):
        return selectors.army_list(user=self.request.user)

    @extend_schema(request=ArmyInputSerializer, responses=ArmyValidationSerializer, parameters=[RELEASE_PARAMETER])
    @action(detail=False, methods=["post"], permission_classes=[permissions.AllowAny])
    def validate(self, request):
        """Check an army (slots or code, optionally against your collection): every violation at once; with
        `release`, each card as that release froze it."""
        release = release_in_query(request, Game.REALMS)
        data = ArmyInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        slots, error = _slots_or_error(data.validated_data)
        if error:
            return error
        collection, error = _collection_or_error(request, data.validated_data.get("collection"))
        if error:
            return error
        report = services.army_validate(slots=slots, collection=collection, release=release)
        return Response({**report, "share_url": army_share_url(request, report["code"])})

    @extend_schema(request=ArmyImportInputSerializer, responses=ArmyImportSerializer)
    @action(detail=False, methods=["post"], url_path="import", url_name="import",
            permission_classes=[permissions.AllowAny])
    def import_decklist(self, request):
        """Read a plain-text decklist: its slots, a problem for every line not read, the code and the report."""
        data = ArmyImportInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        answer = services.army_import(data.validated_data["text"])
        answer["report"]["share_url"] = army_share_url(request, answer["report"]["code"])
        return Response(answer)

    @extend_schema(request=ArmyExportInputSerializer, responses=ArmyExportSerializer)
    @action(detail=False, methods=["post"], permission_classes=[permissions.AllowAny])
    def export(self, request):
        """An army (slots or code) as a decklist (`text`) or with every card's full data (`json`)."""
        data = ArmyExportInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        slots, error = _slots_or_error(data.validated_data)
        if error:
            return error
        answer = {"format": data.validated_data["format"], "slots": [{"card": s.card, "line": s.line} for s in slots]}
        try:
            if answer["format"] == "text":
                answer["text"] = services.army_export_text(slots)
            else:
                characters = services.army_export_characters(slots)
                answer["characters"] = CharacterSerializer(characters, many=True, context={"request": request}).data
        except services.UnknownCards as exc:
            fields: dict[str, list[str]] = {}
            for i, card in exc.unknown.items():
                key = "code" if "code" in data.validated_data else f"slots.{i}.card"
                fields.setdefault(key, []).append(f"No character card '{card}'.")
            return error_response(str(exc), "invalid", status.HTTP_400_BAD_REQUEST, fields=fields)
        answer["code"] = services.army_code(slots)
        answer["share_url"] = army_share_url(request, answer["code"])
        return Response(answer)

    @extend_schema(
        parameters=[ArmyCodeQuerySerializer],
        responses=ArmyDecodeSerializer,
    )
    @action(detail=False, methods=["get"], permission_classes=[permissions.AllowAny])
    def decode(self, request):
        """The slots an army code (version 1, 2 or 3) stands for, in the code's order, with its version-3 code."""
        query = ArmyCodeQuerySerializer(data=request.query_params)
        if not query.is_valid():
            reason = query.errors["code"][0] if "code" in query.errors else "Give `code`."
            return Response(army_code_error(ArmyCodeError(str(reason))), status=status.HTTP_400_BAD_REQUEST)
        try:
            version, slots = services.army_decode(query.validated_data["code"])
        except ArmyCodeError as exc:
            return Response(army_code_error(exc), status=status.HTTP_400_BAD_REQUEST)
        code = services.army_code(slots)
        return Response({"version": version, "slots": [{"card": s.card, "line": s.line} for s in slots],
                         "code": code, "share_url": army_share_url(request, code),
                         "sheet_url": army_sheet_url(request, code)})


SHEET_ERROR = {"$ref": "#/components/schemas/Error"}
SHEET_SCHEMA = extend_schema(
    responses={
        (200, "application/pdf"): OpenApiTypes.BINARY,
        (409, "application/json"): OpenApiResponse(response=SHEET_ERROR, description="The army names a card the catalogue does not hold "
                                                               "(`unknown_cards`, each slot in `fields`)."),
        (503, "application/json"): OpenApiResponse(response=SHEET_ERROR, description="This server cannot draw PDFs: Pango is not "
                                                               "installed (`sheet_unavailable`)."),
    },
    description="The Army Sheet as a PDF to print (A4 or Letter, fonts embedded): every character with its card's "
                "stats, both abilities in words, HP and cooldown boxes, rows for buffs and debuffs; the round's 20 "
                "attack-order slots, summons, notes; QR codes of the army's share link and of the rules.",
)


class ArmyCodeSheetView(APIView):
    """The Army Sheet of an army code, for anyone."""

    permission_classes = [permissions.AllowAny]
    throttle_scope = "sheets"
    renderer_classes = [PDFRenderer, JSONRenderer]

    @extend_schema(parameters=[SheetCodeQuerySerializer], operation_id="realms_armies_sheet_of_code")
    @SHEET_SCHEMA
    def get(self, request):
        query = SheetCodeQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        slots, error = _slots_or_error(query.validated_data)
        return error or sheet_response(request, slots, None, query.validated_data["size"], "army-sheet.pdf")


class SavedArmySheetView(APIView):
    """The Army Sheet of one of your saved armies, with its name."""

    permission_classes = [permissions.IsAuthenticated]
    throttle_scope = "sheets"
    renderer_classes = [PDFRenderer, JSONRenderer]

    @extend_schema(parameters=[SheetQuerySerializer], operation_id="realms_armies_sheet_of_saved_army")
    @SHEET_SCHEMA
    def get(self, request, pk: int):
        query = SheetQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        army = selectors.army_list(user=request.user).filter(pk=pk).first()
        if army is None:
            return error_response("No such army.", "not_found", status.HTTP_404_NOT_FOUND)
        return sheet_response(request, services.slots_from_data(army.slots), army.name,
                              query.validated_data["size"], f"army-sheet-{army.pk}.pdf")


def sheet_response(request, slots, name: str | None, size: str, filename: str) -> HttpResponse:
    """The PDF of an army's sheet, to show in the browser (or save under `filename`): the file as it is, whatever
    renderer the request's Accept chose (that one answers its errors)."""
    pdf = sheet.army_sheet_pdf(slots=slots, name=name, size=size, links=lambda code: sheet_links(request, code))
    return HttpResponse(pdf, content_type="application/pdf",
                        headers={"Content-Disposition": f'inline; filename="{filename}"'})


def sheet_links(request, code: str | None) -> sheet.SheetLinks:
    """Where the sheet's QR codes lead: the army builder holding the army's code, and the rules page."""
    share = army_builder_url(request, code) or request.build_absolute_uri(reverse("army-builder"))
    return sheet.SheetLinks(share=share, rules=request.build_absolute_uri(reverse("realms-rules")))


class FormationValidateView(APIView):
    """Replay a Formation Round (R6) and report the legality of every deployment."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(request=FormationInputSerializer, responses=OpenApiTypes.OBJECT)
    def post(self, request):
        data = FormationInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        collections = {}
        for player, collection_id in data.validated_data.get("collections", {}).items():
            collection, error = _collection_or_error(request, collection_id)
            if error:
                return error
            collections[player] = collection
        deployments = [Deployment(**d) for d in data.validated_data["deployments"]]
        return Response(services.formation_validate(
            first=data.validated_data["first"], deployments=deployments, collections=collections
        ))


class RealmsReleaseViewSet(ReleaseViewSet):
    """Echo Realms releases: named, frozen states of the catalogue (docs/api.md, "Card history and releases")."""

    game = Game.REALMS


CARD_FACE = CharacterViewSet.as_view(
    {"get": "card_face"}, renderer_classes=[JSONRenderer, PNGRenderer]
)
