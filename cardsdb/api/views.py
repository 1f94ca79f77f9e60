"""Views of the shared catalogue: thin wrappers over selectors and services."""

from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.permissions import IsAdminUser, IsAuthenticated
from rest_framework.response import Response

from cardsdb import autocomplete, selectors, services
from cardsdb.api.errors import error_response
from cardsdb.api.filters import CheckedFiltersMixin
from cardsdb.api.parsers import MultiPartParser
from cardsdb.api.serializers import (
    AutocompleteQuerySerializer,
    AutocompleteSerializer,
    CardImageSerializer,
    CardSerializer,
    CardSetSerializer,
    CollectionEntrySerializer,
    CollectionSerializer,
    EntryChangeSerializer,
    EntryDeltaSerializer,
    FactionSerializer,
    RaritySerializer,
)
from cardsdb.api.writes import AtomicWritesMixin
from cardsdb.filtersets import CardFilter, CardSetFilter, CollectionFilter
from cardsdb.models import Faction, Rarity


class RarityViewSet(AtomicWritesMixin, CheckedFiltersMixin, viewsets.ModelViewSet):
    queryset = Rarity.objects.all()
    serializer_class = RaritySerializer
    lookup_field = "slug"
    search_fields = ["name", "slug"]
    ordering_fields = ["order", "name"]


class FactionViewSet(AtomicWritesMixin, CheckedFiltersMixin, viewsets.ModelViewSet):
    queryset = Faction.objects.all()
    serializer_class = FactionSerializer
    lookup_field = "slug"
    search_fields = ["name", "identity", "description"]
    ordering_fields = ["name"]


class CardSetViewSet(AtomicWritesMixin, CheckedFiltersMixin, viewsets.ModelViewSet):
    queryset = selectors.card_set_list()
    serializer_class = CardSetSerializer
    filterset_class = CardSetFilter
    lookup_field = "code"
    search_fields = ["name", "code", "description"]
    ordering_fields = ["release_date", "code", "name"]


class CardViewSet(CheckedFiltersMixin, viewsets.ReadOnlyModelViewSet):
    """Every card of both games; game-specific details live under /api/realms/ and /api/legends/."""

    queryset = selectors.card_list()
    serializer_class = CardSerializer
    filterset_class = CardFilter
    lookup_field = "slug"
    search_fields = ["name", "rules_text", "flavor_text"]
    ordering_fields = ["name", "game", "rarity__order", "card_set__release_date", "created_at", "updated_at"]

    @extend_schema(parameters=[AutocompleteQuerySerializer], responses=AutocompleteSerializer)
    @action(detail=False, methods=["get"], filter_backends=[], pagination_class=None)
    def autocomplete(self, request):
        """Up to 20 card names of both games (or `game`'s) for `q`: prefix matches by name first, then names
        with a word starting with `q`, containing it, or spelled close to it. At most two queries."""
        # A plain dict, not the QueryDict: a form-style read would skip `game=` given empty instead of refusing it.
        query = AutocompleteQuerySerializer(data=request.query_params.dict())
        query.is_valid(raise_exception=True)
        found = autocomplete.suggest(query.validated_data["q"], game=query.validated_data.get("game"))
        results = [
            {"slug": s.slug, "name": s.name, "game": s.game, "url": request.build_absolute_uri(s.path)}
            for s in found
        ]
        return Response({"results": results})

    @extend_schema(methods=["PUT"], request={"multipart/form-data": CardImageSerializer}, responses=CardSerializer)
    @extend_schema(methods=["DELETE"], responses={200: CardSerializer})
    @action(
        detail=True,
        methods=["put", "delete"],
        permission_classes=[IsAdminUser],
        parser_classes=[MultiPartParser],
    )
    def image(self, request, slug=None):
        """Upload (PUT, multipart field `image`) or remove (DELETE) a card's art. Staff only."""
        card = self.get_object()
        if request.method == "DELETE":
            card.image = ""
            card.save()
            return Response(CardSerializer(card, context={"request": request}).data)
        serializer = CardImageSerializer(card, data=request.data)
        serializer.is_valid(raise_exception=True)
        serializer.save()
        return Response(CardSerializer(card, context={"request": request}).data)


class CollectionViewSet(AtomicWritesMixin, CheckedFiltersMixin, viewsets.ModelViewSet):
    """Your own collections. Another user's collection answers 404."""

    serializer_class = CollectionSerializer
    permission_classes = [IsAuthenticated]
    filterset_class = CollectionFilter
    search_fields = ["name"]
    ordering_fields = ["name", "created_at", "updated_at"]

    def get_queryset(self):
        return selectors.collection_list(user=self.request.user)

    def perform_create(self, serializer):
        serializer.save(owner=self.request.user)

    def _change_entry(self, request, input_serializer, service):
        collection = self.get_object()
        change = input_serializer(data=request.data)
        change.is_valid(raise_exception=True)
        try:
            entry = service(collection=collection, **change.validated_data)
        except services.CollectionGone as exc:
            # Deleted by another request while this one waited for it.
            raise exceptions.NotFound(str(exc)) from exc
        except services.CardGone as exc:
            raise serializers.ValidationError({"card": [str(exc)]}) from exc
        except services.TooManyCopies as exc:
            raise serializers.ValidationError({"quantity": [str(exc)]}) from exc
        except services.InsufficientQuantity as exc:
            return error_response(
                str(exc), "insufficient_quantity", status.HTTP_400_BAD_REQUEST, fields={"quantity": [str(exc)]},
            )
        return Response(CollectionEntrySerializer(entry).data)

    @extend_schema(request=EntryDeltaSerializer, responses=CollectionEntrySerializer)
    @action(detail=True, methods=["post"])
    def add(self, request, pk=None):
        """Add `quantity` (default 1) copies of `card` (a slug); a collection holds at most 1,000,000 of a card."""
        return self._change_entry(request, EntryDeltaSerializer, services.collection_add_card)

    @extend_schema(request=EntryDeltaSerializer, responses=CollectionEntrySerializer)
    @action(detail=True, methods=["post"])
    def remove(self, request, pk=None):
        """Remove `quantity` (default 1) copies of `card`; 400 if fewer are held."""
        return self._change_entry(request, EntryDeltaSerializer, services.collection_remove_card)

    @extend_schema(request=EntryChangeSerializer, responses=CollectionEntrySerializer)
    @action(detail=True, methods=["post"], url_path="set-quantity")
    def set_quantity(self, request, pk=None):
        """Set the number of copies of `card` held (0 or more)."""
        return self._change_entry(request, EntryChangeSerializer, services.collection_set_quantity)

    def perform_destroy(self, instance):
        try:
            services.collection_delete(collection=instance)
        except services.CollectionGone as exc:
            raise exceptions.NotFound(str(exc)) from exc
