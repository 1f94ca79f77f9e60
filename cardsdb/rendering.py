"""The drawing toolkit of both games' card faces (Pillow): colours, text, shapes, art, PNG, cache.

A game's renderer keeps only its layouts and its data: it draws on a `Canvas` in card coordinates,
encodes the result with `to_png` and serves it through `cached_card_png`.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import unicodedata
from collections.abc import Callable, Sequence
from functools import lru_cache
from io import BytesIO
from pathlib import Path
from typing import cast

import PIL
from django.core.cache import cache
from django.http import HttpResponse
from django.utils.cache import patch_cache_control
from django.views.decorators.http import etag as etag_condition
from PIL import Image, ImageDraw, ImageFont, ImageOps

CARD_SIZE = (500, 700)
# Faces are drawn at twice their size, then halved: Pillow does not anti-alias shapes, this smooths edges.
SCALE = 2
ELLIPSIS = "…"

# The sizes a face is served in: a scale of the card, or `art_crop` (the art area alone, at card size).
FACE_SCALES = {"small": 0.5, "normal": 1.0, "large": 2.0}
FACE_SIZES = (*FACE_SCALES, "art_crop")
DEFAULT_FACE_SIZE = "normal"

# DejaVu Sans (Debian's fonts-dejavu-core; .ci/run installs it) covers Latin, Greek, Cyrillic and many
# symbols. Where it is missing, Pillow's own font (little beyond ASCII) draws, with stand-ins (printable).
FONT_FILES: tuple[Path, ...] = (
    Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"),
    Path("/usr/share/fonts/TTF/DejaVuSans.ttf"),
)

RGB = tuple[int, int, int]
Box = tuple[float, float, float, float]
Point = tuple[float, float]

WHITE: RGB = (255, 255, 255)
BLACK: RGB = (0, 0, 0)


# --- colours --------------------------------------------------------------------------------------


def hex_to_rgb(color: str, default: RGB = (158, 158, 158)) -> RGB:
    """Parse "#rrggbb"; a malformed value falls back to `default` rather than breaking a render."""
    value = (color or "").lstrip("#")
    try:
        if len(value) != 6:
            raise ValueError(color)
        return tuple(int(value[i : i + 2], 16) for i in (0, 2, 4))  # type: ignore[return-value]
    except ValueError:
        return default


def mix(color: Sequence[int], other: Sequence[int], amount: float) -> RGB:
    """Blend `amount` (0..1) of `other` into `color`."""
    return tuple(round(a + (b - a) * amount) for a, b in zip(color, other, strict=True))  # type: ignore[return-value]


def luminance(color: Sequence[int]) -> float:
    """Perceived brightness, 0 (black) to 1 (white)."""
    red, green, blue = color[:3]
    return (0.299 * red + 0.587 * green + 0.114 * blue) / 255


def text_color_on(background: Sequence[int], dark: RGB = (24, 22, 20), light: RGB = (255, 255, 255)) -> RGB:
    """Black or white, whichever reads better on `background`."""
    return dark if luminance(background) > 0.6 else light


# --- text -----------------------------------------------------------------------------------------


# For characters the font lacks (Pillow's own font covers little beyond ASCII): stand-ins that keep
# common typography legible.
_SUBSTITUTES = {
    "—": "-", "–": "-", "‐": "-", "‑": "-", "−": "-", "•": "·", "×": "x", "÷": "/",
    "′": "'", "″": '"', "\u00a0": " ", "\u2009": " ", "\u202f": " ", "\t": " ",
    "→": "->", "←": "<-", "½": "1/2", "¼": "1/4", "¾": "3/4", "ß": "ss", "æ": "ae", "Æ": "AE",
    "ø": "o", "Ø": "O", "œ": "oe", "Œ": "OE", "ł": "l", "Ł": "L", "đ": "d", "Đ": "D", "þ": "th",
}


@lru_cache(maxsize=1)
def font_file() -> Path | None:
    """The first of FONT_FILES on this machine; None: Pillow's own font draws the faces."""
    return next((path for path in FONT_FILES if path.is_file()), None)


@lru_cache(maxsize=64)
def font(size: int) -> ImageFont.FreeTypeFont:
    """DejaVu Sans at `size` pixels, or Pillow's bundled font where DejaVu is not installed."""
    # Basic layout whether or not libraqm is installed, so text renders the same everywhere.
    path = font_file()
    if path is not None:
        with contextlib.suppress(OSError):
            return ImageFont.truetype(str(path), size, layout_engine=ImageFont.Layout.BASIC)
    # With a size, Pillow's bundled font is a FreeType font.
    return cast(ImageFont.FreeTypeFont, ImageFont.load_default(size=size)).font_variant(layout_engine=ImageFont.Layout.BASIC)


@lru_cache(maxsize=1)
def font_version() -> str:
    """Which font draws the faces, part of every face's cache key and ETag (faces differ by font)."""
    family, style = font(24).getname()
    path = font_file()
    return f"{family} {style}:{path.stat().st_size}" if path else f"{family} {style}:Pillow {PIL.__version__}"


@lru_cache(maxsize=1)
def cap_height() -> float:
    """The font's cap height, as a share of its size."""
    top, bottom = font(1000).getbbox("H")[1::2]
    return round((bottom - top) / 1000, 3)


def reset_fonts() -> None:
    """Forget the font looked up (after FONT_FILES changes, or a font is installed)."""
    for cached in (font_file, font, font_version, cap_height, has_glyph):
        cached.cache_clear()


@lru_cache(maxsize=4096)
def has_glyph(char: str) -> bool:
    """Whether the font draws `char` (unknown characters render as its .notdef box: compare against it)."""
    face_font = font(24)
    return char == " " or bytes(face_font.getmask(char)) != bytes(face_font.getmask("\uffff"))


def printable(text: str) -> str:
    """Map characters the font lacks to close stand-ins (accents stripped, dashes to "-"); never a box."""
    out = []
    for char in str(text or ""):
        if has_glyph(char):
            out.append(char)
            continue
        char = _SUBSTITUTES.get(char, char)
        if len(char) == 1 and not has_glyph(char):
            base = "".join(c for c in unicodedata.normalize("NFKD", char) if not unicodedata.combining(c))
            if base and all(has_glyph(c) for c in base):
                char = base
            else:
                # Marks, symbols and emoji are dropped; an unknown letter still shows a gap.
                char = "" if unicodedata.category(char)[0] in "CMS" else "?"
        out.append(char)
    return "".join(out)


def _split_long_word(draw: ImageDraw.ImageDraw, word: str, text_font, width: int) -> list[str]:
    """Break a word wider than `width` into pieces that fit (no sensible hyphenation exists for it)."""
    advance = {char: draw.textlength(char, font=text_font) for char in set(word)}
    pieces: list[str] = []
    piece, piece_width = "", 0.0
    for char in word:
        if piece and piece_width + advance[char] > width:
            pieces.append(piece)
            piece, piece_width = "", 0.0
        piece, piece_width = piece + char, piece_width + advance[char]
    pieces.append(piece)
    if all(draw.textlength(piece, font=text_font) <= width for piece in pieces):
        return pieces
    # Summed advances ignore kerning; measure prefixes instead (binary search, one character at least).
    pieces = []
    while word:
        low, high = 1, len(word)
        while low < high:
            middle = (low + high + 1) // 2
            if draw.textlength(word[:middle], font=text_font) <= width:
                low = middle
            else:
                high = middle - 1
        pieces.append(word[:low])
        word = word[low:]
    return pieces


def _wrap_paragraph(draw: ImageDraw.ImageDraw, paragraph: str, text_font, width: int, fast: bool) -> list[str]:
    """Greedy word wrap; `fast` adds up cached word widths instead of measuring every candidate line."""
    widths: dict[str, float] = {}

    def measure(text: str) -> float:
        if text not in widths:
            widths[text] = draw.textlength(text, font=text_font)
        return widths[text]

    space = measure(" ")
    lines: list[str] = []
    line, line_width = "", 0.0
    for word in paragraph.split():
        if measure(word) > width:
            *whole, word = _split_long_word(draw, word, text_font, width)
            if line:
                lines.append(line)
            lines.extend(whole)
            line, line_width = "", 0.0
        if fast:
            candidate_width = line_width + space + measure(word) if line else measure(word)
        else:
            candidate_width = draw.textlength(f"{line} {word}".strip(), font=text_font)
        if candidate_width <= width or not line:
            line, line_width = f"{line} {word}".strip(), candidate_width
        else:
            lines.append(line)
            line, line_width = word, measure(word)
    lines.append(line)
    return lines


def wrap_text(draw: ImageDraw.ImageDraw, text: str, text_font, width: int) -> list[str]:
    """Split text into lines that fit `width` pixels (words too long for a line are broken)."""
    lines: list[str] = []
    for paragraph in printable(text).splitlines() or [""]:
        wrapped = _wrap_paragraph(draw, paragraph, text_font, width, fast=True)
        # Summed word widths ignore kerning; should a line come out too wide, measure every candidate.
        if any(" " in line and draw.textlength(line, font=text_font) > width for line in wrapped):
            wrapped = _wrap_paragraph(draw, paragraph, text_font, width, fast=False)
        lines.extend(wrapped)
    return lines


def ellipsize(draw: ImageDraw.ImageDraw, text: str, text_font, width: int, force: bool = False) -> str:
    """Shorten text to fit `width`, ending in an ellipsis; `force` adds one even when it fits."""
    text = printable(text).strip()
    if not force and draw.textlength(text, font=text_font) <= width:
        return text
    while text and draw.textlength(text.rstrip(" ,.;:") + ELLIPSIS, font=text_font) > width:
        text = text[:-1]
    return text.rstrip(" ,.;:") + ELLIPSIS


def fit_text(
    draw: ImageDraw.ImageDraw, text: str, width: int, height: int, sizes: Sequence[int],
    spacing: int = 4, max_lines: int | None = None,
) -> tuple[ImageFont.FreeTypeFont, list[str]]:
    """Largest size in `sizes` (descending) whose wrapped text fits the box; else the smallest, cut short."""
    flat = " ".join(printable(text).split())
    for size in sizes:
        text_font = font(size)
        room = (height + spacing) // (size + spacing)
        if max_lines is not None:
            room = min(room, max_lines)
        # Skip sizes that cannot fit even with perfectly filled lines (wrapping is the costly part).
        if room < 1 or draw.textlength(flat, font=text_font) > room * (width + draw.textlength(" ", font=text_font)):
            continue
        lines = wrap_text(draw, text, text_font, width)
        fits_lines = max_lines is None or len(lines) <= max_lines
        if fits_lines and len(lines) * (size + spacing) - spacing <= height:
            return text_font, lines
    text_font = font(sizes[-1])
    room = max(1, (height + spacing) // (sizes[-1] + spacing))
    if max_lines is not None:
        room = min(room, max_lines)
    lines = wrap_text(draw, text, text_font, width)
    if len(lines) > room:
        lines = lines[:room]
        lines[-1] = ellipsize(draw, lines[-1], text_font, width, force=True)
    return text_font, lines


# --- shapes ---------------------------------------------------------------------------------------


def scaled(box: Box, points: Sequence[Point]) -> list[Point]:
    """Points given as shares (0..1) of `box`, in the box's coordinates."""
    x0, y0, x1, y1 = box
    return [(x0 + (x1 - x0) * x, y0 + (y1 - y0) * y) for x, y in points]


def scaled_box(box: Box, part: Box) -> Box:
    """The part of `box` given as shares (0..1) of it."""
    (left, top), (right, bottom) = scaled(box, [part[:2], part[2:]])
    return left, top, right, bottom


def inset(box: Box, share: float) -> Box:
    """`box` shrunk on every side by `share` of its width and height."""
    x0, y0, x1, y1 = box
    dx, dy = (x1 - x0) * share, (y1 - y0) * share
    return x0 + dx, y0 + dy, x1 - dx, y1 - dy


def rotated(points: Sequence[Point], center: Point, degrees: float) -> list[Point]:
    """Points turned about `center` (clockwise on the card, whose y axis points down)."""
    angle = math.radians(degrees)
    cos, sin = math.cos(angle), math.sin(angle)
    cx, cy = center
    return [(cx + (x - cx) * cos - (y - cy) * sin, cy + (x - cx) * sin + (y - cy) * cos) for x, y in points]


def star(center: Point, outer: float, inner: float, points: int = 4) -> list[Point]:
    """The corners of a star with `points` tips, the first pointing up."""
    cx, cy = center
    corners = []
    for index in range(points * 2):
        radius = outer if index % 2 == 0 else inner
        angle = math.pi * index / points - math.pi / 2
        corners.append((cx + radius * math.cos(angle), cy + radius * math.sin(angle)))
    return corners


def triangle(center: Point, radius: float, up: bool = True) -> list[Point]:
    """The corners of a triangle around `center`, pointing up or down."""
    x, y = center
    r = radius
    if up:
        return [(x, y - r), (x + r * 0.92, y + r * 0.62), (x - r * 0.92, y + r * 0.62)]
    return [(x, y + r), (x + r * 0.92, y - r * 0.62), (x - r * 0.92, y - r * 0.62)]


# --- images ---------------------------------------------------------------------------------------


def vertical_gradient(size: tuple[int, int], top: Sequence[int], bottom: Sequence[int]) -> Image.Image:
    """An RGB image fading from `top` to `bottom`."""
    # One column is computed, then stretched sideways: far cheaper than blending full images.
    ramp = Image.linear_gradient("L").resize((1, size[1]), Image.Resampling.BILINEAR)
    channels = [ramp.point([round(a + (b - a) * v / 255) for v in range(256)]) for a, b in zip(top, bottom, strict=True)]
    return Image.merge("RGB", channels).resize(size, Image.Resampling.NEAREST)


def paste_art(card_image: Image.Image, image_field, box: tuple[int, int, int, int]) -> bool:
    """Paste uploaded art, cropped to fill `box`; False when the card has no usable art."""
    if not image_field:
        return False
    width, height = box[2] - box[0], box[3] - box[1]
    # Leave the file as found: closing an upload not yet saved would throw its content away.
    was_closed = getattr(image_field, "closed", True)
    art: Image.Image
    try:
        image_field.open("rb")
        with Image.open(image_field) as art:
            art.draft("RGB", (width, height))  # JPEG: decode at a reduced scale, much faster
            art = ImageOps.exif_transpose(art)
            has_alpha = art.mode in ("RGBA", "LA", "PA") or (art.mode == "P" and "transparency" in art.info)
            art = art.convert("RGBA" if has_alpha else "RGB")
            art = ImageOps.fit(art, (width, height), method=Image.Resampling.LANCZOS)
            # Transparent art lies over whatever is already drawn in the box.
            card_image.paste(art, box[:2], art if has_alpha else None)
        return True
    except (OSError, ValueError, Image.DecompressionBombError):
        return False
    finally:
        if was_closed:
            with contextlib.suppress(OSError, ValueError):
                image_field.close()


def to_png(image: Image.Image) -> bytes:
    """Encode as PNG: deterministic, and level 4 is twice as fast as 6 for ~6% more bytes."""
    buffer = BytesIO()
    image.save(buffer, format="PNG", compress_level=4)
    return buffer.getvalue()


# --- the canvas -----------------------------------------------------------------------------------


class Canvas:
    """Draws in card coordinates onto an image SCALE times larger (optionally a sub-region of the card)."""

    def __init__(self, image: Image.Image, origin: Point = (0, 0)):
        self.image = image
        self.origin = origin
        self.draw = ImageDraw.Draw(image)
        # Single translucent shapes blend straight onto the RGB image.
        self.blend = ImageDraw.Draw(image, "RGBA") if image.mode == "RGB" else self.draw

    @classmethod
    def new(cls, background: RGB, size: tuple[int, int] = CARD_SIZE) -> Canvas:
        """A blank card face (or a `size` of card) filled with `background`."""
        return cls(Image.new("RGB", (size[0] * SCALE, size[1] * SCALE), background))

    def finish(self) -> Image.Image:
        """The face at its real size."""
        return self.image.reduce(SCALE)

    # coordinates

    @staticmethod
    def px(value: float) -> int:
        return round(value * SCALE)

    def pt(self, x: float, y: float) -> tuple[int, int]:
        return self.px(x - self.origin[0]), self.px(y - self.origin[1])

    def box(self, box: Box) -> tuple[int, int, int, int]:
        return (*self.pt(box[0], box[1]), *self.pt(box[2], box[3]))

    # shapes

    def rect(self, box: Box, fill=None, outline=None, width: float = 0, radius: float = 0) -> None:
        draw = self.blend if isinstance(fill, tuple) and len(fill) == 4 else self.draw
        draw.rounded_rectangle(self.box(box), radius=self.px(radius), fill=fill, outline=outline, width=self.px(width))

    def circle(self, center: Point, radius: float, fill=None, outline=None, width: float = 0) -> None:
        x, y = center
        self.draw.ellipse(self.box((x - radius, y - radius, x + radius, y + radius)), fill=fill, outline=outline,
                          width=self.px(width))

    def arc(self, center: Point, radius: float, start: float, end: float, fill, width: float) -> None:
        x, y = center
        self.draw.arc(self.box((x - radius, y - radius, x + radius, y + radius)), start, end, fill=fill,
                      width=self.px(width))

    def polygon(self, points: Sequence[Point], fill=None, outline=None, width: float = 0) -> None:
        corners = [self.pt(x, y) for x, y in points]
        if fill is not None:
            self.draw.polygon(corners, fill=fill)
        if outline is not None:
            # Drawn as a closed line with rounded joints: Pillow's own outline has ragged corners.
            self.draw.line([*corners, corners[0], corners[1]], fill=outline, width=self.px(width), joint="curve")

    def line(self, points: Sequence[Point], fill, width: float) -> None:
        self.draw.line([self.pt(x, y) for x, y in points], fill=fill, width=self.px(width), joint="curve")

    def gradient(self, box: Box, top: RGB, bottom: RGB, radius: float = 0) -> None:
        """A vertical gradient filling `box`, its corners rounded by `radius`."""
        x0, y0, x1, y1 = self.box(box)
        band = vertical_gradient((x1 - x0, y1 - y0), top, bottom)
        if not radius:
            self.image.paste(band, (x0, y0))
            return
        mask = Image.new("L", band.size, 0)
        ImageDraw.Draw(mask).rounded_rectangle((0, 0, band.width - 1, band.height - 1), radius=self.px(radius),
                                               fill=255)
        self.image.paste(band, (x0, y0), mask)

    def shapes(self, box: Box, color: RGB, alpha: int, paint: Callable[[Canvas], None]) -> None:
        """Lay `color` at `alpha` through shapes that `paint` draws (in card coordinates, fill 255)."""
        x0, y0, x1, y1 = self.box(box)
        mask = Image.new("L", (x1 - x0, y1 - y0), 0)
        paint(Canvas(mask, origin=(self.origin[0] + box[0], self.origin[1] + box[1])))
        self.image.paste(color, (x0, y0, x1, y1), mask.point(lambda value: value * alpha // 255))

    def art(self, image_field, box: Box, radius: float = 0, backdrop: RGB | None = None) -> bool:
        """Paste uploaded art to fill `box`; False when there is none.

        Transparent art lies over what is drawn there, or over `backdrop`; `radius` rounds its corners.
        """
        region = self.box(box)
        if not radius and backdrop is None:
            return paste_art(self.image, image_field, region)
        x0, y0, x1, y1 = region
        tile = self.image.crop(region) if backdrop is None else Image.new("RGB", (x1 - x0, y1 - y0), backdrop)
        if not paste_art(tile, image_field, (0, 0, tile.width, tile.height)):
            return False
        mask = Image.new("L", tile.size, 0)
        ImageDraw.Draw(mask).rounded_rectangle((0, 0, tile.width - 1, tile.height - 1), radius=self.px(radius),
                                               fill=255)
        self.image.paste(tile, (x0, y0), mask)
        return True

    # text (sizes in card units; `bold` thickens the strokes)

    def text(self, xy: Point, text: str, size: float, fill, anchor: str = "la", bold: float = 0) -> None:
        self.draw.text(self.pt(*xy), printable(text), font=font(self.px(size)), fill=fill, anchor=anchor,
                       stroke_width=bold * SCALE, stroke_fill=fill)

    def caps(self, center: Point, text: str, size: float, fill, bold: float = 0, align: str = "m") -> None:
        """Text whose capitals are vertically centred on `center` (align: l, m or r horizontally)."""
        self.text((center[0], center[1] + size * cap_height() / 2), text, size, fill, anchor=f"{align}s", bold=bold)

    def tracked(self, center: Point, text: str, size: float, fill, tracking: float, bold: float = 0) -> None:
        """Letter-spaced capitals centred on `center`."""
        text = printable(text)
        widths = [self.length(char, size) for char in text]
        x = center[0] - (sum(widths) + tracking * (len(text) - 1)) / 2
        for char, width in zip(text, widths, strict=True):
            self.caps((x, center[1]), char, size, fill, bold=bold, align="l")
            x += width + tracking

    def length(self, text: str, size: float) -> float:
        return self.draw.textlength(printable(text), font=font(self.px(size))) / SCALE

    def wrap(self, text: str, size: float, width: float) -> list[str]:
        return wrap_text(self.draw, text, font(self.px(size)), self.px(width))

    def ellipsize(self, text: str, size: float, width: float, force: bool = False) -> str:
        return ellipsize(self.draw, text, font(self.px(size)), self.px(width), force=force)

    def fit(self, text: str, width: float, height: float, sizes: Sequence[int], spacing: float,
            max_lines: int | None = None) -> tuple[float, list[str]]:
        """The size (from `sizes`, descending) and lines of `text` wrapped to fit the box; see fit_text."""
        text_font, lines = fit_text(self.draw, text, self.px(width), self.px(height),
                                    [self.px(size) for size in sizes], self.px(spacing), max_lines)
        return text_font.size / SCALE, lines

    def fitted_line(self, xy: Point, text: str, width: float, sizes: Sequence[int], fill, anchor: str = "lm",
                    bold: float = 0) -> None:
        """One line of text at the largest of `sizes` that fits `width`, cut short with an ellipsis if none does."""
        text = printable(text)
        for size in sizes:
            if self.draw.textlength(text, font=font(self.px(size))) <= self.px(width):
                break
        else:
            text = ellipsize(self.draw, text, font(self.px(size)), self.px(width))
        self.text(xy, text, size, fill, anchor=anchor, bold=bold)

    def paragraph(self, box: Box, text: str, sizes: Sequence[int], fill, spacing: float = 5,
                  align: str = "left") -> None:
        """Wrapped text, as large as fits the box, vertically centred (align: left or center)."""
        width, height = box[2] - box[0], box[3] - box[1]
        text_font, lines = fit_text(self.draw, text, self.px(width), self.px(height),
                                    [self.px(s) for s in sizes], self.px(spacing))
        line_height = text_font.size + self.px(spacing)
        left, top = self.pt(box[0], box[1])
        middle = self.pt((box[0] + box[2]) / 2, box[1])[0]
        y = top + (self.px(height) - (len(lines) * line_height - self.px(spacing))) // 2
        for line in lines:
            if align == "center":
                self.draw.text((middle, y), line, font=text_font, fill=fill, anchor="ma")
            else:
                self.draw.text((left, y), line, font=text_font, fill=fill)
            y += line_height


# --- serving --------------------------------------------------------------------------------------


def layout_version(version: str) -> Callable[[Callable[..., bytes]], Callable[..., bytes]]:
    """Tag a renderer with the layout `version` that cached_card_png puts in its cache keys and ETags."""

    def tag(render: Callable[..., bytes]) -> Callable[..., bytes]:
        render.cache_version = version  # type: ignore[attr-defined]
        return render

    return tag


def sized_face(face: Image.Image, size: str, art_box: Box) -> Image.Image:
    """The face (CARD_SIZE) in one of FACE_SIZES: scaled with Lanczos, or cut to `art_box` (art_crop)."""
    if size == "art_crop":
        return face.crop(cast(Box, tuple(round(value) for value in art_box)))
    scale = FACE_SCALES[size]
    if scale == 1:
        return face
    return face.resize((round(face.width * scale), round(face.height * scale)), Image.Resampling.LANCZOS)


def card_face_etag(card, render, size: str = DEFAULT_FACE_SIZE) -> str:
    """The ETag of a card's face: the card's version (updated_at, art), the renderer's and the font's, the size."""
    # A renderer may carry a `cache_version` (layout_version) so a new layout is not hidden behind old caches.
    layout = getattr(render, "cache_version", "")
    version = f"{card.pk}:{card.updated_at.isoformat()}:{card.image.name}:{layout}:{font_version()}:{size}"
    return '"' + hashlib.sha256(version.encode()).hexdigest()[:32] + '"'


def cached_card_png(request, card, render, size: str = DEFAULT_FACE_SIZE) -> HttpResponse:
    """Serve a card face in `size` (FACE_SIZES), rendered once per version of its ETag (card_face_etag).

    `render(card, size)` gives the PNG. Django's conditional machinery answers If-None-Match (lists, weak
    tags) with 304.
    """
    if size not in FACE_SIZES:
        raise ValueError(f"unknown card face size {size!r}")
    tag = card_face_etag(card, render, size)

    @etag_condition(lambda _request: tag)
    def face(_request) -> HttpResponse:
        key = f"card-face:{tag}"
        png = cache.get(key)
        if png is None:
            png = render(card, size)
            cache.set(key, png, timeout=None)
        return HttpResponse(png, content_type="image/png")

    response = face(getattr(request, "_request", request))  # a DRF request wraps Django's
    patch_cache_control(response, public=True, max_age=300)
    return response
