"""Card art uploads: real images only, bounded in bytes and pixels, with thumbnails."""

import io
import os

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings
from PIL import Image

from cardsdb.models import Card
from tests.conftest import assert_error_shape
from tests.factories import make_card

pytestmark = pytest.mark.django_db


def png_bytes(width: int, height: int, mode: str = "RGB", noise: bool = False) -> bytes:
    if noise:
        image = Image.frombytes(mode, (width, height), os.urandom(width * height * len(mode)))
    else:
        image = Image.new(mode, (width, height), "#3366aa" if mode == "RGB" else 128)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def upload(client, card, data: bytes, name: str = "art.png", content_type: str = "image/png"):
    return client.put(
        f"/api/cards/{card.slug}/image/",
        {"image": SimpleUploadedFile(name, data, content_type=content_type)},
        format="multipart",
    )


@pytest.fixture(autouse=True)
def media_root(tmp_path, settings):
    settings.MEDIA_ROOT = tmp_path


def test_staff_uploads_art_and_gets_a_thumbnail(staff_client, anon_client):
    card = make_card("Merlin")
    response = upload(staff_client, card, png_bytes(600, 800))
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["image"].endswith(".png") and body["thumbnail"]
    card.refresh_from_db()
    with Image.open(card.thumbnail) as thumb:
        assert max(thumb.size) == 256 and thumb.size == (192, 256)
    public = anon_client.get(f"/api/cards/{card.slug}/").json()
    assert public["thumbnail"] == body["thumbnail"]


def test_art_can_be_removed(staff_client):
    card = make_card()
    upload(staff_client, card, png_bytes(50, 50))
    response = staff_client.delete(f"/api/cards/{card.slug}/image/")
    assert response.status_code == 200
    assert response.json()["image"] is None and response.json()["thumbnail"] is None


def test_a_non_image_is_refused(staff_client):
    card = make_card()
    body = assert_error_shape(upload(staff_client, card, b"%PDF-1.4 not an image", "art.png"), 400, "invalid")
    assert "image" in body["fields"]
    card.refresh_from_db()
    assert not card.image


def test_a_truncated_image_is_refused(staff_client):
    card = make_card()
    data = png_bytes(64, 64, noise=True)
    assert_error_shape(upload(staff_client, card, data[: len(data) // 2]), 400, "invalid")


def test_an_image_with_too_many_pixels_is_refused(staff_client):
    card = make_card()
    # 5000 x 5000 = 25 megapixels of one colour: tiny on disk, over the 16.7 megapixel bound.
    data = png_bytes(5000, 5000, mode="L")
    assert len(data) < 1024 * 1024
    body = assert_error_shape(upload(staff_client, card, data), 400, "invalid")
    assert "pixels" in body["fields"]["image"][0]


@override_settings(CARD_IMAGE_MAX_BYTES=50_000)
def test_an_image_over_the_byte_limit_is_refused(staff_client):
    card = make_card()
    data = png_bytes(200, 200, noise=True)
    assert len(data) > 50_000
    body = assert_error_shape(upload(staff_client, card, data), 400, "invalid")
    assert "too large" in body["fields"]["image"][0]


def test_upload_without_a_file_is_refused(staff_client):
    card = make_card()
    response = staff_client.put(f"/api/cards/{card.slug}/image/", {}, format="multipart")
    body = assert_error_shape(response, 400, "invalid")
    assert "image" in body["fields"]


def test_only_staff_may_upload(user_client, anon_client):
    card = make_card()
    assert_error_shape(upload(user_client, card, png_bytes(10, 10)), 403, "permission_denied")
    assert_error_shape(upload(anon_client, card, png_bytes(10, 10)), 401, "not_authenticated")


def test_the_model_validator_guards_the_admin_too():
    card = make_card()
    card.image = SimpleUploadedFile("x.png", b"not an image", content_type="image/png")
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError) as caught:
        card.full_clean()
    assert "image" in caught.value.message_dict
    assert Card.objects.get(pk=card.pk).image.name == ""
