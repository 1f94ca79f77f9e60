"""Card face endpoints of both games: the `size` query parameter, its schema, the PNG answer."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.fields import empty

from cardsdb.rendering import DEFAULT_FACE_SIZE, FACE_SIZES, cached_card_png


class StrictChoiceField(serializers.ChoiceField):
    """A query choice whose empty value is refused like any other unknown one (not taken as the default)."""

    def get_value(self, dictionary):
        return dictionary.get(self.field_name, empty)


class CardFaceQuerySerializer(serializers.Serializer):
    size = StrictChoiceField(
        choices=FACE_SIZES, default=DEFAULT_FACE_SIZE,
        help_text="small (250x350), normal (500x700), large (1000x1400) or art_crop (the art area alone).",
    )


card_face_schema = extend_schema(
    parameters=[CardFaceQuerySerializer],
    responses={
        (200, "image/png"): OpenApiResponse(
            OpenApiTypes.BINARY,
            description="The card face as a PNG, with an ETag and `Cache-Control: public, max-age=300`.",
        ),
        304: OpenApiResponse(description="Not modified: If-None-Match named the face's ETag (weak or strong)."),
    },
)


def card_face_response(request, card_of, render_of):
    """The face in the requested size: `card_of()` finds the card, `render_of(card)` its renderer."""
    query = CardFaceQuerySerializer(data=request.query_params)
    query.is_valid(raise_exception=True)
    card = card_of()
    return cached_card_png(request, card, render_of(card), query.validated_data["size"])
