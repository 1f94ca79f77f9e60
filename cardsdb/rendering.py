"""Drawing primitives shared by the card-face renderers of both games (Pillow)."""

from __future__ import annotations

import hashlib
from functools import lru_cache
from io import BytesIO

from django.core.cache import cache
from django.http import HttpResponse
from PIL import Image, ImageDraw, ImageFont

CARD_SIZE = (500, 700)


@lru_cache(maxsize=32)
def font(size: int) -> ImageFont.FreeTypeFont:
    """Pillow's bundled scalable font: present on every machine, no system fonts needed."""
    return ImageFont.load_default(size=size)


def hex_to_rgb(color: str) -> tuple[int, int, int]:
    color = color.lstrip("#")
    return tuple(int(color[i : i + 2], 16) for i in (0, 2, 4))  # type: ignore[return-value]


def wrap_text(draw: ImageDraw.ImageDraw, text: str, text_font, width: int) -> list[str]:
    """Split text into lines that fit `width` pixels."""
    lines: list[str] = []
    for paragraph in text.splitlines() or [""]:
        words = paragraph.split()
        line = ""
        for word in words:
            candidate = f"{line} {word}".strip()
            if draw.textlength(candidate, font=text_font) <= width or not line:
                line = candidate
            else:
                lines.append(line)
                line = word
        lines.append(line)
    return lines


def draw_wrapped(
    draw: ImageDraw.ImageDraw, xy: tuple[int, int], text: str, text_font, width: int,
    fill=(20, 20, 20), max_bottom: int | None = None, spacing: int = 4,
) -> int:
    """Draw wrapped text from `xy`; returns the y below the last line drawn."""
    x, y = xy
    line_height = text_font.size + spacing
    for line in wrap_text(draw, text, text_font, width):
        if max_bottom is not None and y + line_height > max_bottom:
            break
        draw.text((x, y), line, font=text_font, fill=fill)
        y += line_height
    return y


def paste_art(card_image: Image.Image, image_field, box: tuple[int, int, int, int]) -> bool:
    """Paste uploaded art, cropped to fill `box`; False when the card has no usable art."""
    if not image_field:
        return False
    try:
        image_field.open("rb")
        with Image.open(image_field) as art:
            art = art.convert("RGB")
            width, height = box[2] - box[0], box[3] - box[1]
            scale = max(width / art.width, height / art.height)
            art = art.resize((max(width, round(art.width * scale)), max(height, round(art.height * scale))))
            left, top = (art.width - width) // 2, (art.height - height) // 2
            card_image.paste(art.crop((left, top, left + width, top + height)), box[:2])
        return True
    except (OSError, ValueError):
        return False
    finally:
        image_field.close()


def to_png(image: Image.Image) -> bytes:
    buffer = BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()


def cached_card_png(request, card, render) -> HttpResponse:
    """Serve a card face, rendered once per version of the card (its updated_at and art)."""
    version = f"{card.pk}:{card.updated_at.isoformat()}:{card.image.name}"
    etag = '"' + hashlib.sha256(version.encode()).hexdigest()[:32] + '"'
    if request.headers.get("If-None-Match") == etag:
        response = HttpResponse(status=304)
    else:
        key = f"card-face:{etag}"
        png = cache.get(key)
        if png is None:
            png = render(card)
            cache.set(key, png, timeout=None)
        response = HttpResponse(png, content_type="image/png")
    response["ETag"] = etag
    response["Cache-Control"] = "public, max-age=300"
    return response
