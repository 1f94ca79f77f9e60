"""Card history and releases in the API: each card's versions and their restore, each game's releases, and
the `release` query parameter that reads the catalogue as a release froze it (cardsdb/card_history.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins, permissions, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from cardsdb import card_history
from cardsdb.api.fields import TextField
from cardsdb.api.filters import CheckedFiltersMixin
from cardsdb.api.pagination import MAX_PAGE_SIZE
from cardsdb.api.serializers import StrictFieldsMixin
from cardsdb.models import Release

if TYPE_CHECKING:  # what CardHistoryMixin is mixed into, for the type checker
    _ModelViewSet = viewsets.ModelViewSet
else:
    _ModelViewSet = object


class FieldChangeSerializer(serializers.Serializer):
    field = serializers.CharField(help_text="The model field, e.g. `attack`.")
    before = serializers.JSONField(allow_null=True, help_text="Its value in the version before (related rows by slug).")
    after = serializers.JSONField(allow_null=True, help_text="Its value in this version.")


class CardVersionSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="The version's id (restore takes it).")
    date = serializers.DateTimeField()
    user = serializers.CharField(allow_null=True, help_text="Who saved it; null for loads and migrations.")
    type = serializers.ChoiceField(choices=list(card_history.VERSION_TYPES.values()))
    reason = serializers.CharField(allow_blank=True, help_text="Why, when the change said (e.g. `Restored version 12`).")
    changes = FieldChangeSerializer(many=True, help_text="What changed from the version before (none when created).")


PAGE_PARAMETERS = [
    OpenApiParameter("page", {"type": "integer", "minimum": 1}, OpenApiParameter.QUERY,
                     description="A page number from 1; past the last page answers 404."),
    OpenApiParameter("page_size", {"type": "integer", "minimum": 1, "maximum": MAX_PAGE_SIZE}, OpenApiParameter.QUERY,
                     description=f"Results per page, 1 to {MAX_PAGE_SIZE} (default 50)."),
]
VERSION_PARAMETER = OpenApiParameter("version_id", OpenApiTypes.INT, OpenApiParameter.PATH,
                                     description="The id of one of the card's versions.")
RELEASE_PARAMETER = OpenApiParameter(
    "release", OpenApiTypes.STR,
    description="The slug of a release of this game: the cards as that release froze them (a card it did not "
                "hold is unknown). Left out: the catalogue as it is now. An unknown release answers 400.",
)


class CardHistoryMixin(_ModelViewSet):
    """`{slug}/history/` (everyone: it is the card's errata) and `{slug}/history/{version_id}/restore/` (staff)."""

    may_conflict = ("restore",)  # a unique value (slug, code) another write took meanwhile answers 409

    @extend_schema(parameters=PAGE_PARAMETERS, responses=CardVersionSerializer(many=True), filters=False)
    @action(detail=True, methods=["get"], permission_classes=[permissions.AllowAny])
    def history(self, request, slug=None):
        """Every version of the card, newest first: who, when, why and what changed (before and after)."""
        card = self.get_object()
        page = self.paginate_queryset(card_history.card_history(card)) or []
        return self.get_paginated_response(CardVersionSerializer(card_history.describe_versions(page), many=True).data)

    @extend_schema(parameters=[VERSION_PARAMETER], request=None, responses={200: CardVersionSerializer})
    @action(detail=True, methods=["post"], url_path=r"history/(?P<version_id>[0-9]+)/restore",
            url_name="history-restore", permission_classes=[permissions.IsAdminUser])
    def restore(self, request, slug=None, version_id=None):
        """Put the card back as one of its versions was, as a new version ("Restored version N"); staff only.
        A restore that would break a rule (a slug another card took since) answers 400 and changes nothing."""
        card = self.get_object()
        version = card_history.restore_version(card, int(version_id or 0), user=request.user)
        return Response(CardVersionSerializer(card_history.describe_versions([version])[0]).data)


# --- Releases ----------------------------------------------------------------------------------------------------


class ReleaseSerializer(serializers.ModelSerializer):
    created_by: serializers.Field = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)
    bulk_url = serializers.SerializerMethodField(help_text="The release's bulk file, as it was frozen.")
    versions = serializers.JSONField(
        read_only=True, help_text='Each card\'s version in the release: {"<model label>": {"<slug>": <version id>}}.')

    class Meta:
        model = Release
        fields = ["game", "name", "slug", "notes", "created_at", "created_by", "card_count", "bulk_sha256",
                  "bulk_url", "versions"]
        read_only_fields = fields

    def get_bulk_url(self, release: Release) -> str:
        path = f"{reverse('bulk-file', kwargs={'game': release.game})}?release={release.slug}"
        request = self.context.get("request")
        return request.build_absolute_uri(path) if request is not None else path


class ReleaseInputSerializer(StrictFieldsMixin, serializers.Serializer):
    name = TextField(max_length=60, help_text='E.g. "Core 1.1"; unique in its game, never "working".')
    notes = TextField(required=False, allow_blank=True, default="", max_length=5000)


class ReleaseViewSet(CheckedFiltersMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.CreateModelMixin,
                     viewsets.GenericViewSet):
    """A game's releases: read for all; staff name a new one, which freezes the catalogue as it is now."""

    game: ClassVar[str]  # each game's subclass names its game
    serializer_class = ReleaseSerializer
    lookup_field = "slug"
    search_fields = ["name", "notes"]
    ordering_fields = ["created_at", "name"]

    def get_queryset(self):
        return Release.objects.filter(game=self.game).select_related("created_by").defer("bulk_file")

    @extend_schema(request=ReleaseInputSerializer, responses={201: ReleaseSerializer})
    def create(self, request, *args, **kwargs):
        """Freeze the game's catalogue under a new name (staff): every card's current version and its bulk file."""
        given = ReleaseInputSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        release = card_history.create_release(game=self.game, user=request.user, **given.validated_data)
        return Response(ReleaseSerializer(release, context={"request": request}).data, status=status.HTTP_201_CREATED)


def release_in_query(request: Request, game: str) -> Release | None:
    """The release `?release=` names (UnknownRelease for one the game does not have), or None without it."""
    slug = request.query_params.get("release", "").strip()
    return card_history.release_named(game, slug) if slug else None
