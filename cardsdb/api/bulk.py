"""Bulk data views: the list of bulk files and one game's file (cardsdb/bulk.py builds them)."""

from django.http import FileResponse, HttpResponse
from django.http.response import HttpResponseBase
from django.urls import reverse
from django.utils.cache import get_conditional_response, patch_cache_control
from django.utils.http import http_date
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import permissions, serializers
from rest_framework.exceptions import NotFound
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from cardsdb import bulk
from cardsdb.api.history import release_in_query
from cardsdb.card_history import UnknownRelease
from cardsdb.choices import Game
from cardsdb.models import Release

# Clients may keep a file five minutes, then revalidate (a 304 costs a few aggregate queries).
CACHE_SECONDS = 300


class GzipRenderer(BaseRenderer):
    """So that `Accept: application/gzip` is acceptable; errors still answer in the JSON error shape."""

    media_type = bulk.MEDIA_TYPE
    format = "gz"
    charset = None
    render_style = "binary"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        response = (renderer_context or {}).get("response")
        if response is not None:
            response["Content-Type"] = "application/json"
        return JSONRenderer().render(data)


class BulkFileSerializer(serializers.Serializer):
    game = serializers.ChoiceField(choices=Game.choices)
    url = serializers.URLField(help_text="Where to download the file (GET, conditional requests welcome).")
    filename = serializers.CharField()
    content_type = serializers.CharField(help_text="application/gzip: gzipped JSON.")
    size = serializers.IntegerField(help_text="Bytes of the gzipped file.")
    sha256 = serializers.CharField(help_text="SHA-256 of the gzipped file, in hex.")
    etag = serializers.CharField(help_text="The file's ETag: changes with every version of the catalogue.")
    card_count = serializers.IntegerField(help_text="Cards in the file.")
    updated_at = serializers.DateTimeField(help_text="When this version was built (its Last-Modified).")


def _describe(request, found: bulk.BulkFile) -> dict:
    path = reverse("bulk-file", kwargs={"game": found.game})
    return {
        "game": found.game, "url": request.build_absolute_uri(path), "filename": found.filename,
        "content_type": bulk.MEDIA_TYPE, "size": found.size, "sha256": found.sha256, "etag": found.etag,
        "card_count": found.card_count, "updated_at": found.updated_at,
    }


class BulkFileListView(APIView):
    """Every game's bulk file: where it is, its size, checksum, ETag and number of cards."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(operation_id="bulk_file_list", responses=BulkFileSerializer(many=True))
    def get(self, request):
        files = [bulk.bulk_file(game) for game in bulk.CATALOGUES]
        return Response(BulkFileSerializer([_describe(request, found) for found in files], many=True).data)


class BulkFileView(APIView):
    """One game's whole catalogue as gzipped JSON (docs/api.md, "Bulk data")."""

    permission_classes = [permissions.AllowAny]
    renderer_classes = [JSONRenderer, GzipRenderer]

    @extend_schema(
        operation_id="bulk_file_retrieve",
        parameters=[
            OpenApiParameter("game", str, OpenApiParameter.PATH, enum=list(bulk.CATALOGUES)),
            OpenApiParameter("release", str, description=(
                "The slug of a release of this game: its file as the release froze it. Left out: the catalogue "
                "as it is now. An unknown release answers 404.")),
        ],
        responses={
            (200, bulk.MEDIA_TYPE): OpenApiTypes.BINARY,
            304: OpenApiResponse(description="Not modified: the If-None-Match or If-Modified-Since matched."),
        },
    )
    def get(self, request, game):
        if game not in bulk.CATALOGUES:
            raise NotFound(f"No bulk file for {game!r}: choose one of {', '.join(bulk.CATALOGUES)}.")
        try:
            release = release_in_query(request, game)
        except UnknownRelease as exc:  # a file that does not exist, as a game with none
            raise NotFound(str(exc)) from exc
        if release is not None:
            return _release_file(request, release)
        found, handle = bulk.open_bulk_file(game)
        last_modified = int(found.updated_at.timestamp())
        # Django's own evaluation of If-None-Match (lists, weak tags, *) and If-Modified-Since.
        response: HttpResponseBase | None = get_conditional_response(
            request, etag=found.etag, last_modified=last_modified)
        if response is None:
            # The response closes the file once sent.
            response = FileResponse(handle, as_attachment=True, filename=found.filename, content_type=bulk.MEDIA_TYPE)
        else:
            handle.close()
        response["ETag"] = found.etag
        response["Last-Modified"] = http_date(last_modified)
        patch_cache_control(response, public=True, max_age=CACHE_SECONDS)
        return response


def _release_file(request, release: Release) -> HttpResponseBase:
    """A release's bulk file, as frozen when it was made: it never changes, so it may be kept for good."""
    etag = f'"{release.bulk_sha256}"'
    last_modified = int(release.created_at.timestamp())
    response = get_conditional_response(request, etag=etag, last_modified=last_modified)
    if response is None:
        response = HttpResponse(bytes(release.bulk_file), content_type=bulk.MEDIA_TYPE)
        response["Content-Disposition"] = f'attachment; filename="{release.game}-{release.slug}.json.gz"'
    response["ETag"] = etag
    response["Last-Modified"] = http_date(last_modified)
    patch_cache_control(response, public=True, max_age=CACHE_SECONDS)
    return response
