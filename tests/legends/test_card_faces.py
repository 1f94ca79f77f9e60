"""Card faces: PNGs drawn from the card data, attack elements and effect readable at a glance."""

import io
from typing import cast

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image

from cardsdb.rendering import CARD_SIZE, hex_to_rgb
from legends.models import DefenseCard, Element, Protector, Spirit, SummoningCard
from legends.rendering import LAYOUT_VERSION, card_face_renderer, draw_legends_card, render_legends_card
from tests.conftest import assert_error_shape
from tests.legends.factories import (
    element,
    elements,
    make_defense,
    make_protector,
    make_spirit,
    make_summoning,
)
from tests.realms.test_rendering import reference_renderer, same_faces

pytestmark = pytest.mark.django_db

API = "/api/legends"

# Points of the summoning layout (card coordinates) that only the band or tile colour covers.
TOP_BAND = (474, 160)
BOTTOM_BAND = (474, 540)
EFFECT_TILE = (60, 300)


@pytest.fixture(autouse=True)
def media_root(tmp_path, settings):
    settings.MEDIA_ROOT = tmp_path


def face(client, resource: str, slug: str, **headers) -> Image.Image:
    response = client.get(f"{API}/{resource}/{slug}/card.png", **headers)
    assert response.status_code == 200, response.content[:300]
    assert response["Content-Type"] == "image/png"
    image = Image.open(io.BytesIO(response.content))
    assert image.format == "PNG" and image.size == CARD_SIZE
    return image.convert("RGB")


def nearest_element(pixel) -> str:
    """The element whose catalogue colour is closest to `pixel`."""
    def distance(slug):
        return sum((a - b) ** 2 for a, b in zip(pixel, hex_to_rgb(Element.objects.get(slug=slug).color), strict=True))
    return min(Element.objects.values_list("slug", flat=True), key=distance)


@pytest.mark.parametrize(
    "resource, slug",
    [("spirits", "akin"), ("protectors", "spy"), ("defenses", "steam-wall"), ("summoning-cards", "ember-ward-of-steam")],
)
def test_every_kind_of_card_has_a_face(catalogue, anon_client, resource, slug):
    face(anon_client, resource, slug)


def test_attack_elements_and_effect_read_at_a_glance(catalogue, anon_client):
    # Steam: Fire on top, Water at the bottom, a Fire defense across the middle.
    image = face(anon_client, "summoning-cards", "ember-ward-of-steam")
    assert nearest_element(image.getpixel(TOP_BAND)) == "fire"
    assert nearest_element(image.getpixel(BOTTOM_BAND)) == "water"
    assert nearest_element(image.getpixel(EFFECT_TILE)) == "fire"
    other = face(anon_client, "summoning-cards", "wind-surge-of-mist")
    assert nearest_element(other.getpixel(TOP_BAND)) == "water"
    assert nearest_element(other.getpixel(BOTTOM_BAND)) == "air"
    assert nearest_element(other.getpixel(EFFECT_TILE)) == "air"


def test_a_double_attack_shows_one_element_at_both_ends(catalogue, anon_client):
    image = face(anon_client, "summoning-cards", "stone-mending-of-blaze")
    assert nearest_element(image.getpixel(TOP_BAND)) == nearest_element(image.getpixel(BOTTOM_BAND)) == "fire"
    assert nearest_element(image.getpixel(EFFECT_TILE)) == "earth"


def test_the_effect_kind_changes_the_face(db):
    elements()
    defense = draw_legends_card(make_summoning("A", attacks=("fire", "water"), effect=("defense", "earth")))
    boost = draw_legends_card(make_summoning("B", attacks=("fire", "water"), effect=("boost", "earth")))
    tile = (44, 286, 172, 414)
    assert defense.crop(tile).tobytes() != boost.crop(tile).tobytes()
    # The names differ too, so compare the bands only: same attacks, same bands.
    assert defense.crop((16, 74, 484, 244)).tobytes() == boost.crop((16, 74, 484, 244)).tobytes()


def test_defense_face_shows_both_elements(catalogue, anon_client):
    image = face(anon_client, "defenses", "dust-tower")
    assert nearest_element(image.getpixel((40, 330))) == "earth"
    assert nearest_element(image.getpixel((460, 330))) == "air"


def official_cards() -> list:
    return [card for model in (Spirit, Protector, DefenseCard, SummoningCard) for card in model.objects.all()]


def test_every_official_card_renders(catalogue):
    for card in official_cards():
        assert draw_legends_card(card).size == CARD_SIZE


@pytest.fixture
def reference(tmp_path, monkeypatch):
    """The renderer as it was before it moved onto the shared drawing toolkit (see tests/realms/test_rendering)."""
    old = reference_renderer("legends/rendering.py", tmp_path / "reference", monkeypatch)
    if old.LAYOUT_VERSION != LAYOUT_VERSION:
        pytest.skip("the layout version changed: the reference commit no longer draws the same faces")
    return old


def test_official_faces_are_those_of_the_reference_renderer(catalogue, reference):
    cards = official_cards()
    assert len(cards) >= 50
    assert same_faces(render_legends_card, reference.render_legends_card, cards) == []
    for card in cards:
        # (cache_version: set on the function by its decorator, cardsdb.rendering.layout_version)
        assert card_face_renderer(card).cache_version == reference.card_face_renderer(card).cache_version  # type: ignore[attr-defined]


def test_faces_with_art_and_odd_data_are_those_of_the_reference_renderer(db, reference):
    elements()
    element("metal", name="Metal", color="#fdd835")
    art, translucent = io.BytesIO(), io.BytesIO()
    Image.new("RGB", (300, 200), (10, 200, 30)).save(art, format="PNG")
    Image.new("RGBA", (300, 200), (200, 30, 90, 120)).save(translucent, format="PNG")

    def upload(card, data: io.BytesIO):
        card.image = SimpleUploadedFile("art.png", data.getvalue(), content_type="image/png")
        card.save()
        return card

    broken = make_protector("Broken")
    Protector.objects.filter(pk=broken.pk).update(effect={"kind": "nonsense"})
    broken.refresh_from_db()
    cards = [
        upload(make_summoning("Painted", attacks=("fire", "water"), effect=("boost", "air")), art),
        upload(make_summoning("Glass", attacks=("metal", "earth"), effect=("healing", "metal")), translucent),
        upload(make_defense("Painted Wall", "fire", "water"), translucent),
        upload(make_protector("Painted Guard"), art),
        upload(make_spirit("Painted Spirit", color="#26a69a"), translucent),
        make_spirit("Plain Spirit", color="#fff59d", flavor_text="Quiet. " * 40),
        make_summoning("An Exceedingly Long Summoning Card Name That Will Not Fit On One Line At All",
                       attacks=("metal", "metal"), effect=("defense", "metal")),
        make_defense("Séraphine — Dawn’s Wall 🌞", "metal", "air", slug="seraphine-wall"),
        broken,
    ]
    assert same_faces(render_legends_card, reference.render_legends_card, cards) == []


def test_unusual_data_still_renders(db):
    element("metal", name="Metal", color="#9e9e9e")
    long_name = "An Exceedingly Long Summoning Card Name That Will Not Fit On One Line At All"
    card = make_summoning(long_name, attacks=("metal", "fire"), effect=("healing", "metal"))
    image = draw_legends_card(card)
    assert image.size == CARD_SIZE
    # The name is cut short inside the header, not drawn over the frame.
    margin = image.crop((0, 28, 16, 54)).convert("L")
    assert cast(tuple[int, int], margin.getextrema())[1] < 200  # one band: (min, max)
    assert nearest_element(image.getpixel(BOTTOM_BAND)) == "fire"
    protector = make_protector("Broken")
    Protector.objects.filter(pk=protector.pk).update(effect={"kind": "nonsense"})
    protector.refresh_from_db()
    assert draw_legends_card(protector).size == CARD_SIZE


def test_uploaded_art_is_drawn(db, anon_client):
    elements()
    card = make_defense("Painted Wall", "fire", "water")
    art = io.BytesIO()
    Image.new("RGB", (300, 200), (10, 200, 30)).save(art, format="PNG")
    card.image = SimpleUploadedFile("art.png", art.getvalue(), content_type="image/png")
    card.save()
    image = face(anon_client, "defenses", card.slug)
    assert image.getpixel((250, 190)) == (10, 200, 30)


def test_faces_are_cached_until_the_card_or_an_element_changes(catalogue, anon_client, staff_client):
    url = f"{API}/summoning-cards/ember-ward-of-steam/card.png"
    first = anon_client.get(url)
    etag = first["ETag"]
    assert anon_client.get(url, HTTP_IF_NONE_MATCH=etag).status_code == 304
    response = staff_client.patch(f"{API}/elements/water/", {"color": "#00acc1"})
    assert response.status_code == 200
    recoloured = anon_client.get(url, HTTP_IF_NONE_MATCH=etag)
    assert recoloured.status_code == 200 and recoloured["ETag"] != etag
    image = Image.open(io.BytesIO(recoloured.content)).convert("RGB")
    assert sum(abs(a - b) for a, b in zip(cast(tuple[int, ...], image.getpixel(BOTTOM_BAND)), (0, 172, 193), strict=True)) < 90


def test_png_accept_header_is_honoured(catalogue, anon_client):
    face(anon_client, "protectors", "spy", HTTP_ACCEPT="image/png")


def test_unknown_card_face_is_a_json_404(catalogue, anon_client):
    for accept in ("*/*", "image/png"):
        response = anon_client.get(f"{API}/defenses/no-such-wall/card.png", HTTP_ACCEPT=accept)
        assert_error_shape(response, 404, "not_found")
        assert response["Content-Type"] == "application/json"


def test_card_face_is_read_only(catalogue, staff_client):
    response = staff_client.post(f"{API}/spirits/akin/card.png")
    assert_error_shape(response, 405, "method_not_allowed")


@pytest.mark.parametrize("resource, slug, art", [
    ("spirits", "akin", "SPIRIT_ART"), ("protectors", "spy", "PROTECTOR_ART"), ("defenses", "steam-wall", "DEFENSE_ART"),
    ("summoning-cards", "ember-ward-of-steam", "SUMMONING_ART"),
])
def test_every_kind_of_face_comes_in_every_size(catalogue, anon_client, resource, slug, art):
    from legends import rendering

    box = getattr(rendering, art)
    url = f"{API}/{resource}/{slug}/card.png"
    images = {}
    for size, dimensions in (("small", (250, 350)), ("normal", CARD_SIZE), ("large", (1000, 1400)),
                             ("art_crop", (box[2] - box[0], box[3] - box[1]))):
        response = anon_client.get(url, {"size": size})
        assert response.status_code == 200 and response["Content-Type"] == "image/png"
        images[size] = Image.open(io.BytesIO(response.content)).convert("RGB")
        assert images[size].size == dimensions, size
    # The art crop is the art area of the normal face, and nothing else.
    assert images["art_crop"].tobytes() == images["normal"].crop(box).tobytes()
    tags = {size: anon_client.get(url, {"size": size})["ETag"] for size in images}
    assert len(set(tags.values())) == 4
    crop_tag = tags["art_crop"]
    assert anon_client.get(url, {"size": "art_crop"}, HTTP_IF_NONE_MATCH=f'"x", W/{crop_tag}').status_code == 304
    assert anon_client.get(url, {"size": "small"}, HTTP_IF_NONE_MATCH=f'"x", W/{crop_tag}').status_code == 200


def test_unknown_face_size_is_a_json_400(catalogue, anon_client):
    for accept in ("*/*", "image/png"):
        response = anon_client.get(f"{API}/spirits/akin/card.png", {"size": "poster"}, HTTP_ACCEPT=accept)
        assert assert_error_shape(response, 400, "invalid")["fields"].keys() == {"size"}
        assert response["Content-Type"] == "application/json"
