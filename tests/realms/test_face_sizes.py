"""Card faces in sizes, Unicode names in DejaVu Sans (or Pillow's own font without it), conditional GETs."""

import io
from typing import cast

import pytest
from PIL import Image, ImageFont

from cardsdb import rendering
from cardsdb.rendering import CARD_SIZE, FACE_SIZES, cached_card_png, font, font_version, has_glyph, printable
from realms.models import Character
from realms.rendering import ART, HEADER, render_character_card
from tests.conftest import assert_error_shape
from tests.realms import test_rendering
from tests.realms.test_rendering import decode, region, solid_png

# The card fixtures of the rendering tests.
refs, make_character = test_rendering.refs, test_rendering.make_character

pytestmark = pytest.mark.django_db

URL = "/api/realms/characters"
DEJAVU = rendering.font_file() is not None
needs_dejavu = pytest.mark.skipif(not DEJAVU, reason="DejaVu Sans is not installed (apt-get install fonts-dejavu-core)")


@pytest.fixture
def pillow_font(monkeypatch):
    """The faces drawn as on a machine without DejaVu: Pillow's own font."""
    monkeypatch.setattr(rendering, "FONT_FILES", (rendering.Path("/nonexistent/DejaVuSans.ttf"),))
    rendering.reset_fonts()
    yield
    monkeypatch.undo()
    rendering.reset_fonts()


def get_face(client, slug: str, size: str | None = None, **headers):
    query = f"?size={size}" if size else ""
    return client.get(f"{URL}/{slug}/card.png{query}", **headers)


@pytest.mark.parametrize("size, dimensions", [
    (None, (500, 700)), ("normal", (500, 700)), ("small", (250, 350)), ("large", (1000, 1400)),
    ("art_crop", (ART[2] - ART[0], ART[3] - ART[1])),
])
def test_each_size_has_its_dimensions(make_character, anon_client, size, dimensions):
    response = get_face(anon_client, make_character().slug, size)
    assert response.status_code == 200 and response["Content-Type"] == "image/png"
    image = Image.open(io.BytesIO(response.content))
    assert image.format == "PNG" and image.size == dimensions


def test_sizes_are_the_normal_face_resized_or_cut(make_character, settings, tmp_path):
    from django.core.files.uploadedfile import SimpleUploadedFile

    settings.MEDIA_ROOT = tmp_path
    art = (12, 200, 180)
    character = make_character(image=SimpleUploadedFile("art.png", solid_png(art), content_type="image/png"))
    normal = decode(render_character_card(character))
    crop = decode(render_character_card(character, "art_crop"))
    # The art crop is the art area of the normal face, pixel for pixel: the art alone, no header or text.
    assert crop.tobytes() == region(normal, ART)
    assert crop.getcolors(maxcolors=4096)[0][1] == art or art in {color for _, color in crop.getcolors(4096)}
    assert crop.getpixel((crop.width // 2, crop.height // 2)) == art
    small = decode(render_character_card(character, "small"))
    large = decode(render_character_card(character, "large"))
    assert small.tobytes() == normal.resize((250, 350), Image.Resampling.LANCZOS).tobytes()
    assert large.getpixel((500, 476)) == art  # the middle of the art, twice as far in
    assert small.getpixel((125, 119)) == art


def test_unknown_size_is_a_400_in_the_error_shape(make_character, anon_client):
    slug = make_character().slug
    for size, accept in (("huge", "*/*"), ("NORMAL", "image/png"), ("", "*/*"), ("art crop", "image/png"),
                         ("\x00", "*/*")):
        response = anon_client.get(f"{URL}/{slug}/card.png", {"size": size}, HTTP_ACCEPT=accept)
        body = assert_error_shape(response, 400, "invalid")
        assert list(body["fields"]) == ["size"]
        assert response["Content-Type"] == "application/json"
    with pytest.raises(ValueError):
        cached_card_png(None, Character.objects.get(slug=slug), render_character_card, "huge")


def test_if_none_match_with_a_list_and_weak_tags_is_304(make_character, anon_client):
    slug = make_character().slug
    first = get_face(anon_client, slug, "small")
    etag = first["ETag"]
    assert etag.startswith('"') and "max-age=300" in first["Cache-Control"] and "public" in first["Cache-Control"]
    for header in (etag, f'"nope", W/{etag}', f"W/{etag}", f'"a", {etag}, "b"', "*"):
        response = get_face(anon_client, slug, "small", HTTP_IF_NONE_MATCH=header)
        assert response.status_code == 304, header
        assert response.content == b"" and response["ETag"] == etag
        assert "max-age=300" in response["Cache-Control"]
    assert get_face(anon_client, slug, "small", HTTP_IF_NONE_MATCH='"nope", W/"other"').status_code == 200


def test_the_etag_changes_with_the_size_the_card_and_the_renderer(make_character, anon_client, monkeypatch):
    character = make_character()
    tags = {size: get_face(anon_client, character.slug, size)["ETag"] for size in FACE_SIZES}
    assert len(set(tags.values())) == len(FACE_SIZES)
    assert get_face(anon_client, character.slug)["ETag"] == tags["normal"]
    character.attack = 30
    character.save()
    assert get_face(anon_client, character.slug)["ETag"] != tags["normal"]
    changed = get_face(anon_client, character.slug)["ETag"]
    monkeypatch.setattr(render_character_card, "cache_version", "realms-card-test")
    assert get_face(anon_client, character.slug)["ETag"] != changed


# --- Unicode names ----------------------------------------------------------------------------------


@needs_dejavu
@pytest.mark.parametrize("name", ["Éowyn", "Ægir", "Þórr", "Ωmega Σtrike", "Жар-птица", "Señor ☀ ★"])
def test_unicode_names_are_drawn_with_their_own_glyphs(name):
    face_font = font(48)
    assert face_font.getname()[0] == "DejaVu Sans"
    notdef = bytes(face_font.getmask("\uffff"))
    for char in name.replace(" ", ""):
        mask = face_font.getmask(char)
        assert mask.getbbox() is not None, char  # ink is drawn...
        assert bytes(mask) != notdef, char  # ...and it is not the missing-glyph box
        assert has_glyph(char), char
    assert printable(name) == name


@needs_dejavu
def test_a_unicode_name_is_drawn_on_the_face(make_character):
    plate = (HEADER[0] + 72, HEADER[1] + 6, HEADER[2] - 72, HEADER[3] - 6)
    faces = {name: region(decode(render_character_card(make_character(name=name))), plate)
             for name in ("Eowyn", "Éowyn", "Aegir", "Ægir", "Thorr", "Þórr")}
    # Each letter has its own glyph: the accented or runic name is not the plain one, nor a box.
    assert faces["Éowyn"] != faces["Eowyn"] and faces["Ægir"] != faces["Aegir"] and faces["Þórr"] != faces["Thorr"]


@needs_dejavu
def test_what_the_font_lacks_is_never_a_box(make_character):
    # DejaVu has no CJK and no colour emoji: such letters become "?", symbols are dropped.
    assert printable("龍 Ryū 🌞") == "? Ryū "
    assert all(has_glyph(char) for char in printable("龍 Ryū 🌞"))
    assert decode(render_character_card(make_character(name="龍王 🐉 Ryūō"))).size == CARD_SIZE


def test_without_dejavu_pillows_own_font_draws_with_stand_ins(make_character, pillow_font):
    assert rendering.font_file() is None
    assert font(20).getname() == cast(ImageFont.FreeTypeFont, ImageFont.load_default(size=20)).getname()
    assert "Pillow" in font_version()
    assert printable("Séraphine — Ægir") == "Seraphine - AEgir"
    assert all(has_glyph(char) for char in printable("Þórr Éowyn 龍 🌞"))
    image = decode(render_character_card(make_character(name="Þórr, Ægir's Éowyn")))
    assert image.size == CARD_SIZE
    assert decode(render_character_card(make_character(), "large")).size == (1000, 1400)


def test_the_font_is_part_of_the_etag(make_character, anon_client, pillow_font):
    character = make_character()
    without = get_face(anon_client, character.slug)["ETag"]
    rendering.reset_fonts()
    pillow_font_version = font_version()
    assert pillow_font_version.startswith("Aileron")
    # The same card drawn with DejaVu (where installed) has another tag: a cache never mixes fonts.
    rendering.FONT_FILES = (rendering.Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"),)
    rendering.reset_fonts()
    if DEJAVU:
        assert get_face(anon_client, character.slug)["ETag"] != without
