"""Validation and thumbnails for uploaded card art (Pillow)."""

from io import BytesIO
from pathlib import PurePath

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from PIL import Image, UnidentifiedImageError

ALLOWED_FORMATS = {"PNG", "JPEG", "WEBP", "GIF"}


def validate_card_image(upload) -> None:
    """Refuse anything that is not a real, reasonably sized PNG/JPEG/WebP/GIF image."""
    max_bytes = settings.CARD_IMAGE_MAX_BYTES
    max_pixels = settings.CARD_IMAGE_MAX_PIXELS
    if upload.size is not None and upload.size > max_bytes:
        raise ValidationError(
            f"Image file is too large ({upload.size} bytes); the limit is {max_bytes} bytes.",
            code="image_too_large",
        )
    position = upload.tell() if hasattr(upload, "tell") else 0
    try:
        upload.seek(0)
        # Image.open reads only the header, so the pixel count is known before decoding.
        with Image.open(upload) as image:
            width, height = image.size
            image_format = image.format
            if width * height > max_pixels:
                raise ValidationError(
                    f"Image is {width}x{height} pixels; at most {max_pixels} pixels are allowed.",
                    code="image_too_many_pixels",
                )
            if image_format not in ALLOWED_FORMATS:
                raise ValidationError(
                    f"Unsupported image format {image_format}; use PNG, JPEG, WebP or GIF.",
                    code="image_format",
                )
            image.verify()
    except (UnidentifiedImageError, OSError, SyntaxError, Image.DecompressionBombError) as exc:
        raise ValidationError("Upload a valid image.", code="invalid_image") from exc
    finally:
        upload.seek(position)


def make_thumbnail(upload, name: str) -> ContentFile:
    """Return a PNG thumbnail of the upload, bounded by CARD_THUMBNAIL_SIZE."""
    upload.seek(0)
    with Image.open(upload) as image:
        image.thumbnail(settings.CARD_THUMBNAIL_SIZE)
        buffer = BytesIO()
        image.convert("RGBA").save(buffer, format="PNG")
    upload.seek(0)
    return ContentFile(buffer.getvalue(), name=f"{PurePath(name).stem}-thumb.png")
