"""Echo Realms card faces: a character's data drawn as a PNG trading card (Pillow)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from django.core.exceptions import ObjectDoesNotExist
from PIL import Image, ImageDraw

from cardsdb.rendering import (
    BLACK,
    CARD_SIZE,
    DEFAULT_FACE_SIZE,
    RGB,
    WHITE,
    Box,
    Canvas,
    cap_height,
    hex_to_rgb,
    inset,
    layout_version,
    luminance,
    mix,
    printable,
    rotated,
    scaled,
    scaled_box,
    sized_face,
    star,
    text_color_on,
    to_png,
    vertical_gradient,
)

PARCHMENT: RGB = (244, 237, 221)
INK: RGB = (36, 30, 24)
SOFT_INK: RGB = (104, 94, 80)
BODY: RGB = (26, 28, 35)
EDGE: RGB = (14, 15, 19)
LIGHT_TEXT: RGB = (232, 228, 218)
DEFAULT_RARITY: RGB = (158, 158, 158)
DEFAULT_FACTION: RGB = (96, 125, 139)

W, H = CARD_SIZE
FRAME = 12  # the rarity-coloured border
HEADER = (24, 24, W - 24, 88)
ART = (24, 96, W - 24, 380)
TYPE_BAR = (24, 388, W - 24, 420)
TEXT_BOX = (24, 428, W - 24, 598)
STATS = (24, 606, W - 24, 660)
FOOTER_Y = 675

STATS_SHOWN = (
    ("ATK", "attack", (190, 54, 42), "sword"),
    ("DEF", "defense", (48, 98, 146), "shield"),
    ("SPD", "speed", (204, 140, 0), "bolt"),
    ("HP", "health", (40, 132, 80), "heart"),
)
POSITION_ICONS = {"vanguard": "shield", "rearguard": "arrow", "flex": "swap"}


# Bumped whenever the layout changes, so cached_card_png serves no stale faces (2: DejaVu Sans, sizes).
@layout_version("realms-card-2")
def render_character_card(character, size: str = DEFAULT_FACE_SIZE) -> bytes:
    """The character's card face as PNG bytes in `size` (FACE_SIZES; normal is CARD_SIZE pixels)."""
    return to_png(sized_face(draw_character_card(character), size, ART))


@dataclass(frozen=True)
class Palette:
    """The two colours a card is keyed to."""

    rarity: RGB
    faction: RGB


def draw_character_card(character) -> Image.Image:
    """The character's card face as an RGB image of CARD_SIZE."""
    rarity, faction = _related(character, "rarity"), _related(character, "faction")
    colors = Palette(
        rarity=hex_to_rgb(rarity.color, DEFAULT_RARITY) if rarity else DEFAULT_RARITY,
        faction=hex_to_rgb(faction.color, DEFAULT_FACTION) if faction else DEFAULT_FACTION,
    )
    canvas = Canvas.new(colors.rarity)
    _draw_body(canvas, colors)
    _draw_header(canvas, character, colors)
    _draw_art(canvas, character, colors)
    _draw_type_bar(canvas, character, colors)
    _draw_abilities(canvas, character, colors)
    _draw_stats(canvas, character)
    _draw_footer(canvas, character)
    return canvas.finish()


# --- frame and body ---------------------------------------------------------------------------------


def _draw_body(canvas: Canvas, colors: Palette) -> None:
    # The canvas background is the rarity colour; the body sits inside a thin dark edge.
    canvas.rect((FRAME, FRAME, W - FRAME, H - FRAME), fill=EDGE, radius=12)
    inner = (FRAME + 2, FRAME + 2, W - FRAME - 2, H - FRAME - 2)
    canvas.gradient(inner, mix(BODY, colors.faction, 0.38), mix(BODY, BLACK, 0.25))
    # A light bevel on the rarity band makes it read as a printed frame.
    canvas.rect((1, 1, W - 1, H - 1), outline=mix(colors.rarity, WHITE, 0.35), width=1.5, radius=6)
    canvas.rect((FRAME - 3, FRAME - 3, W - FRAME + 3, H - FRAME + 3), outline=mix(colors.rarity, BLACK, 0.3),
                width=1.5, radius=13)


# --- header: faction badge, name, cooldown ------------------------------------------------------------


def faction_initials(name: str) -> str:
    """Two-letter badge text: initials of a multi-word name, else its first two letters."""
    words = re.findall(r"[A-Za-z0-9]+", printable(name))
    if len(words) >= 2:
        return (words[0][0] + words[1][0]).upper()
    return words[0][:2].capitalize() if words else "?"


def _draw_header(canvas: Canvas, character, colors: Palette) -> None:
    x0, y0, x1, y1 = HEADER
    cy = (y0 + y1) / 2
    canvas.rect(HEADER, fill=PARCHMENT, outline=mix(colors.rarity, BLACK, 0.45), width=2, radius=14)
    canvas.rect((x0 + 4, y0 + 4, x1 - 4, y1 - 4), outline=mix(PARCHMENT, colors.rarity, 0.45), width=1,
                radius=11)

    badge = (x0 + 34, cy)
    canvas.circle(badge, 27, fill=EDGE)
    canvas.circle(badge, 25, fill=colors.faction)
    canvas.circle(badge, 21.5, outline=mix(colors.faction, WHITE, 0.45), width=1.2)
    initials = faction_initials(_related_name(character, "faction"))
    canvas.caps(badge, initials, 19 if len(initials) < 2 else 17, text_color_on(colors.faction), bold=0.7)

    gem = (x1 - 34, cy)
    canvas.circle(gem, 27, fill=EDGE)
    canvas.circle(gem, 24.5, fill=(44, 48, 60))
    canvas.arc(gem, 25.5, 0, 360, fill=(78, 82, 96), width=3)
    # The lit arc is the card's rotation on cooldown: a quarter turn per round (rulebook).
    cooldown = int(character.cooldown or 0)
    if cooldown:
        canvas.arc(gem, 25.5, -90, -90 + 90 * min(cooldown, 4), fill=mix(colors.rarity, WHITE, 0.2), width=3)
    canvas.caps((gem[0], cy - 10), "CD", 9.5, (176, 180, 194), bold=0.3)
    canvas.caps((gem[0], cy + 6), str(cooldown), 22, WHITE, bold=0.8)

    _draw_name(canvas, character.name, (x0 + 72, y0 + 6, x1 - 72, y1 - 6))


def _draw_name(canvas: Canvas, name: str, box: Box) -> None:
    """The name on one line if it fits; else an epithet line ("Merlin, Archmage of Runes"), else two lines."""
    x0, y0, x1, y1 = box
    width, cy = x1 - x0, (y0 + y1) / 2
    name = " ".join(printable(name).split()) or "Unnamed"
    cap = cap_height()  # the font's, as a share of its size
    bold = 0.8
    size: float  # whole sizes are tried first, then what fit() chooses
    for size in range(30, 21, -1):
        if canvas.length(name, size) + 2 * bold <= width:
            canvas.caps((x0, cy), name, size, INK, bold=bold, align="l")
            return
    title, _, epithet = name.partition(", ")
    if title and epithet:
        size, lines = canvas.fit(title, width - 2, 28, range(26, 15, -1), 0, max_lines=1)
        small, sub = canvas.fit(epithet, width, 16, range(15, 10, -1), 0, max_lines=1)
        top = cy - (size * cap + 8 + small * cap) / 2
        canvas.text((x0, top + size * cap), lines[0], size, INK, anchor="ls", bold=bold)
        canvas.text((x0, top + size * cap + 8 + small * cap), sub[0], small, SOFT_INK, anchor="ls", bold=0.3)
        return
    size, lines = canvas.fit(name, width - 2, 50, range(21, 12, -1), 0, max_lines=2)
    gap = size * 0.42
    top = cy - (len(lines) * size * cap + (len(lines) - 1) * gap) / 2
    for index, line in enumerate(lines):
        canvas.text((x0, top + (index + 1) * size * cap + index * gap), line, size, INK, anchor="ls", bold=0.6)


# --- art --------------------------------------------------------------------------------------------------


@lru_cache(maxsize=4)
def _glow_mask(size: tuple[int, int], strength: int) -> Image.Image:
    """Bright in the middle, fading to nothing at the edges of an ellipse filling `size`."""
    fade = Image.radial_gradient("L").resize(size)
    return fade.point(lambda value: max(0, 255 - value) * strength // 255)


@lru_cache(maxsize=4)
def _vignette_mask(size: tuple[int, int], strength: int) -> Image.Image:
    fade = Image.radial_gradient("L").resize((size[0] * 5 // 4, size[1] * 3 // 2))
    left, top = (fade.width - size[0]) // 2, (fade.height - size[1]) // 2
    fade = fade.crop((left, top, left + size[0], top + size[1]))
    return fade.point(lambda value: max(0, value - 150) * strength // 105)


def _draw_art(canvas: Canvas, character, colors: Palette) -> None:
    x0, y0, x1, y1 = ART
    canvas.rect((x0 - 2, y0 - 2, x1 + 2, y1 + 2), fill=EDGE, radius=3)
    if not canvas.art(character.image, ART):
        _draw_placeholder(canvas, character, colors)
    canvas.rect(ART, outline=mix(colors.rarity, BLACK, 0.2), width=1.5)

    # Position ribbon (bottom left) and rarity gem (bottom right) over the art, translucent.
    position = character.position or ""
    label = (character.get_position_display() if position else "No position").upper()
    pill_w = 34 + canvas.length(label, 12) + 12
    pill = (x0 + 8, y1 - 32, x0 + 8 + pill_w, y1 - 8)
    canvas.rect(pill, fill=(*EDGE, 200), radius=12)
    _icon(canvas, POSITION_ICONS.get(position, "swap"), (pill[0] + 10, pill[1] + 5, pill[0] + 24, pill[1] + 19),
          LIGHT_TEXT)
    canvas.caps((pill[0] + 31, (pill[1] + pill[3]) / 2), label, 12, LIGHT_TEXT, bold=0.5, align="l")

    rarity_name = (_related_name(character, "rarity") or "No rarity").upper()
    gem_w = 32 + canvas.length(rarity_name, 12) + 12
    gem = (x1 - 8 - gem_w, y1 - 32, x1 - 8, y1 - 8)
    canvas.rect(gem, fill=(*EDGE, 200), radius=12)
    cx, cy = gem[0] + 17, (gem[1] + gem[3]) / 2
    canvas.polygon([(cx, cy - 8), (cx + 7, cy), (cx, cy + 8), (cx - 7, cy)], fill=mix(colors.rarity, WHITE, 0.5))
    canvas.polygon([(cx, cy - 6), (cx + 5, cy), (cx, cy + 6), (cx - 5, cy)], fill=colors.rarity)
    canvas.caps((gem[0] + 29, cy), rarity_name, 12, LIGHT_TEXT, bold=0.5, align="l")


def _draw_placeholder(canvas: Canvas, character, colors: Palette) -> None:
    """No art uploaded: a faction-coloured backdrop with the class emblem and name."""
    x0, y0, x1, y1 = ART
    region = canvas.box(ART)
    origin, size = region[:2], (region[2] - region[0], region[3] - region[1])
    backdrop = vertical_gradient(size, mix(colors.faction, WHITE, 0.12), mix(colors.faction, BLACK, 0.62))
    backdrop.paste(mix(colors.faction, WHITE, 0.55), (0, 0, *size), _glow_mask(size, 120))
    # Faint diagonal hatching gives the backdrop some texture.
    hatch = ImageDraw.Draw(backdrop, "RGBA")
    for offset in range(-size[1], size[0], canvas.px(14)):
        hatch.line([(offset, size[1]), (offset + size[1], 0)], fill=(255, 255, 255, 16), width=canvas.px(1.5))
    canvas.image.paste(backdrop, origin)
    canvas.image.paste(BLACK, (*origin, origin[0] + size[0], origin[1] + size[1]), _vignette_mask(size, 150))

    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2 - 16
    emblem = (cx - 75, cy - 75, cx + 75, cy + 75)
    # A pale emblem on dark and mid colours; on pale ones (Celestial yellow) a dark one reads better.
    if luminance(colors.faction) > 0.6:
        ink, alpha, shade = mix(colors.faction, BLACK, 0.62), 215, WHITE
    else:
        ink, alpha, shade = mix(colors.faction, WHITE, 0.88), 205, BLACK
    shadow = (emblem[0] + 4, emblem[1] + 5, emblem[2] + 4, emblem[3] + 5)
    around = (emblem[0] - 8, emblem[1] - 8, emblem[2] + 12, emblem[3] + 12)
    canvas.shapes(around, shade, 70, lambda layer: _emblem(layer, character.character_class, shadow))
    canvas.shapes(around, ink, alpha, lambda layer: _emblem(layer, character.character_class, emblem))
    label = (character.get_character_class_display() if character.character_class else "Unknown").upper()
    canvas.tracked((cx, y1 - 58), label, 22, ink, tracking=7, bold=0.6)


# --- drawn icons (the bundled font has no symbols) -------------------------------------------------------


SHIELD = [(0.5, 0.0), (0.95, 0.14), (0.92, 0.52), (0.8, 0.76), (0.5, 1.0), (0.2, 0.76), (0.08, 0.52), (0.05, 0.14)]
BOLT = [(0.62, 0.0), (0.12, 0.56), (0.46, 0.56), (0.34, 1.0), (0.88, 0.4), (0.54, 0.4), (0.7, 0.0)]
BLADE = [(0.5, 0.0), (0.56, 0.08), (0.56, 0.66), (0.44, 0.66), (0.44, 0.08)]
DAGGER = [(0.5, 0.0), (0.59, 0.24), (0.56, 0.62), (0.44, 0.62), (0.41, 0.24)]


def _icon(canvas: Canvas, kind: str, box: Box, fill) -> None:
    """A small symbol drawn with shapes."""
    x0, y0, x1, y1 = box
    if kind == "shield":
        canvas.polygon(scaled(box, SHIELD), fill)
    elif kind == "bolt":
        canvas.polygon(scaled(box, BOLT), fill)
    elif kind == "heart":
        radius = (x1 - x0) * 0.26
        canvas.circle((x0 + (x1 - x0) * 0.28, y0 + (y1 - y0) * 0.32), radius, fill=fill)
        canvas.circle((x0 + (x1 - x0) * 0.72, y0 + (y1 - y0) * 0.32), radius, fill=fill)
        canvas.polygon(scaled(box, [(0.04, 0.42), (0.96, 0.42), (0.5, 0.95)]), fill)
    elif kind == "sword":
        canvas.line(scaled(box, [(0.12, 0.88), (0.9, 0.1)]), fill, (x1 - x0) * 0.16)
        canvas.line(scaled(box, [(0.1, 0.5), (0.5, 0.9)]), fill, (x1 - x0) * 0.14)
        canvas.polygon(scaled(box, [(0.78, 0.04), (1.0, 0.0), (0.96, 0.22)]), fill)
    elif kind == "arrow":
        canvas.line(scaled(box, [(0.1, 0.9), (0.72, 0.28)]), fill, (x1 - x0) * 0.13)
        canvas.polygon(scaled(box, [(0.98, 0.02), (0.86, 0.52), (0.48, 0.14)]), fill)
        canvas.polygon(scaled(box, [(0.04, 0.62), (0.2, 0.62), (0.2, 0.8), (0.38, 0.8), (0.38, 0.96),
                                     (0.04, 0.96)]), fill)
    else:  # "swap": either line, for Flex
        canvas.line(scaled(box, [(0.5, 0.22), (0.5, 0.78)]), fill, (x1 - x0) * 0.14)
        canvas.polygon(scaled(box, [(0.5, 0.0), (0.88, 0.34), (0.12, 0.34)]), fill)
        canvas.polygon(scaled(box, [(0.5, 1.0), (0.88, 0.66), (0.12, 0.66)]), fill)


def _emblem(layer: Canvas, character_class: str, box: Box) -> None:
    """A large class symbol, drawn in white on a mask."""
    x0, y0, x1, y1 = box
    size = x1 - x0
    fill = 255
    if character_class == "tank":
        # A rimmed heraldic shield, its right half left open ("per pale").
        layer.polygon(scaled(box, SHIELD), fill)
        layer.polygon(scaled(inset(box, 0.09), SHIELD), 0)
        layer.polygon(scaled(inset(box, 0.16), SHIELD)[:5], fill)
    elif character_class == "warrior":
        layer.polygon(scaled(box, BLADE), fill)
        layer.rect(scaled_box(box, (0.26, 0.66, 0.74, 0.72)), fill=fill, radius=size * 0.02)
        layer.rect(scaled_box(box, (0.465, 0.72, 0.535, 0.9)), fill=fill)
        layer.circle((x0 + size * 0.5, y0 + size * 0.93), size * 0.05, fill=fill)
    elif character_class == "mage":
        layer.polygon(star((x0 + size * 0.46, y0 + size * 0.54), size * 0.44, size * 0.1), fill)
        layer.polygon(star((x0 + size * 0.84, y0 + size * 0.16), size * 0.14, size * 0.035), fill)
        layer.polygon(star((x0 + size * 0.14, y0 + size * 0.14), size * 0.08, size * 0.02), fill)
    elif character_class == "archer":
        layer.arc((x0 + size * 0.1, y0 + size * 0.5), size * 0.46, -72, 72, fill=fill, width=size * 0.07)
        layer.line([(x0 + size * 0.24, y0 + size * 0.07), (x0 + size * 0.24, y0 + size * 0.93)], fill, size * 0.015)
        layer.line([(x0 + size * 0.12, y0 + size * 0.5), (x0 + size * 0.86, y0 + size * 0.5)], fill, size * 0.035)
        layer.polygon(scaled(box, [(1.0, 0.5), (0.82, 0.41), (0.85, 0.5), (0.82, 0.59)]), fill)
        layer.polygon(scaled(box, [(0.2, 0.5), (0.08, 0.42), (0.04, 0.42), (0.14, 0.5), (0.04, 0.58), (0.08, 0.58)]),
                      fill)
    elif character_class == "assassin":
        center = (x0 + size * 0.5, y0 + size * 0.5)
        for degrees in (-38, 38):
            parts = [scaled(box, DAGGER), scaled(box, [(0.32, 0.62), (0.68, 0.62), (0.68, 0.68), (0.32, 0.68)]),
                     scaled(box, [(0.465, 0.68), (0.535, 0.68), (0.535, 0.9), (0.465, 0.9)])]
            for part in parts:
                layer.polygon(rotated(part, center, degrees), fill)
            pommel = rotated([(x0 + size * 0.5, y0 + size * 0.93)], center, degrees)[0]
            layer.circle(pommel, size * 0.04, fill=fill)
    elif character_class == "support":
        center = (x0 + size * 0.5, y0 + size * 0.5)
        layer.circle(center, size * 0.46, outline=fill, width=size * 0.05)
        layer.rect(scaled_box(box, (0.41, 0.2, 0.59, 0.8)), fill=fill, radius=size * 0.03)
        layer.rect(scaled_box(box, (0.2, 0.41, 0.8, 0.59)), fill=fill, radius=size * 0.03)
    else:
        layer.polygon(scaled(box, [(0.5, 0.05), (0.95, 0.5), (0.5, 0.95), (0.05, 0.5)]), fill)


# --- type line ------------------------------------------------------------------------------------------


def _draw_type_bar(canvas: Canvas, character, colors: Palette) -> None:
    x0, y0, x1, y1 = TYPE_BAR
    cy = (y0 + y1) / 2
    canvas.rect(TYPE_BAR, fill=PARCHMENT, outline=mix(colors.rarity, BLACK, 0.45), width=1.5, radius=9)

    faction = printable(_related_name(character, "faction") or "No faction").upper()
    pill_w = min(canvas.length(faction, 12) + 24, (x1 - x0) * 0.5)
    pill = (x1 - 5 - pill_w, y0 + 5, x1 - 5, y1 - 5)
    canvas.rect(pill, fill=colors.faction, radius=11)
    faction = canvas.ellipsize(faction, 12, pill_w - 16)
    canvas.caps(((pill[0] + pill[2]) / 2, cy), faction, 12, text_color_on(colors.faction), bold=0.5)

    race = _related_name(character, "race")
    klass = character.get_character_class_display() if character.character_class else ""
    kind = "  ·  ".join(part for part in (printable(race), printable(klass)) if part)
    room = pill[0] - x0 - 24
    size = next((size for size in (16, 15, 14, 13) if canvas.length(kind, size) + 1 <= room), 13)
    canvas.caps((x0 + 12, cy), canvas.ellipsize(kind, size, room), size, INK, bold=0.55, align="l")


def _related(instance, field: str):
    """The related object, or None when it is missing (an unsaved or half-built character)."""
    try:
        return getattr(instance, field)
    except ObjectDoesNotExist:
        return None


def _related_name(instance, field: str) -> str:
    related = _related(instance, field)
    return related.name if related is not None else ""


# --- abilities -----------------------------------------------------------------------------------------


@dataclass
class Section:
    """One ability as printed: a coloured tag, its name and its text."""

    tag: str
    tag_fill: RGB
    name: str
    text: str
    side: str = ""  # right-aligned note on the heading (the main ability's cooldown)


def _spec(spec, key: str) -> str:
    return str(spec.get(key) or "").strip() if isinstance(spec, dict) else ""


def _sections(character, colors: Palette) -> list[Section]:
    return [
        Section("FACTION", colors.faction, _spec(character.faction_ability, "name") or "Faction ability",
                _spec(character.faction_ability, "text")),
        Section("MAIN", INK, _spec(character.main_ability, "name") or "Main ability",
                _spec(character.main_ability, "text"), side=f"CD {character.cooldown}"),
    ]


def _flavor(character) -> str:
    return " ".join(printable(character.flavor_text or "").split())


ABILITIES_BOX = (TEXT_BOX[0] + 14, TEXT_BOX[1] + 10, TEXT_BOX[2] - 14, TEXT_BOX[3] - 10)


def _draw_abilities(canvas: Canvas, character, colors: Palette) -> None:
    x0, y0, x1, y1 = TEXT_BOX
    canvas.rect(TEXT_BOX, fill=PARCHMENT, outline=mix(colors.rarity, BLACK, 0.45), width=2, radius=12)
    canvas.rect((x0 + 4, y0 + 4, x1 - 4, y1 - 4), outline=mix(PARCHMENT, colors.rarity, 0.35), width=1, radius=9)
    _layout_abilities(canvas, ABILITIES_BOX, _sections(character, colors), _flavor(character), colors)


def _heading_height(size: float) -> float:
    return size + 9


def _line_height(size: float) -> float:
    return size + max(3.0, size * 0.3)


SECTION_GAP = 13
MIN_TEXT_SIZE = 11
FLAVOR_MIN_SIZE = 13


def _abilities_height(wrapped: list[list[str]], size: int) -> float:
    lines = sum(len(section) for section in wrapped)
    return len(wrapped) * _heading_height(size) + lines * _line_height(size) + SECTION_GAP * (len(wrapped) - 1)


@dataclass
class AbilitiesLayout:
    """How the abilities (and the flavor) are set in the text box."""

    size: int
    lines: list[list[str]]  # each ability's text in lines
    height: float
    flavor: list[str]  # the flavor's lines; none when it did not fit
    whole: bool  # every ability's text is printed in full, none cut short


def abilities_layout(character) -> AbilitiesLayout:
    """How the character's abilities are set on its face (see `_fit_abilities`)."""
    canvas = Canvas(Image.new("RGB", (1, 1)))  # measures only
    sections = _sections(character, Palette(DEFAULT_RARITY, DEFAULT_FACTION))
    return _fit_abilities(canvas, ABILITIES_BOX, sections, _flavor(character))


def _fit_abilities(canvas: Canvas, box: Box, sections: list[Section], flavor: str) -> AbilitiesLayout:
    """Largest text size at which both abilities fit, with the flavor when it still reads well; else cut short."""
    x0, y0, x1, y1 = box
    width, height = x1 - x0, y1 - y0
    without_flavor: tuple[int, list[list[str]], float, list[str]] | None = None
    chosen = None
    for size in range(16, MIN_TEXT_SIZE - 1, -1):
        wrapped = [canvas.wrap(section.text, size, width) if section.text else [] for section in sections]
        used = _abilities_height(wrapped, size)
        if used > height:
            continue
        without_flavor = without_flavor or (size, wrapped, used, [])
        if not flavor or size < FLAVOR_MIN_SIZE:
            break
        # The flavor is optional: worth shrinking the abilities for, but not below FLAVOR_MIN_SIZE.
        flavor_lines = canvas.wrap(f"“{flavor}”", size - 1, width - 30)
        extra = SECTION_GAP + len(flavor_lines) * _line_height(size - 1)
        if used + extra <= height:
            chosen = size, wrapped, used + extra, flavor_lines
            break
    if chosen is None:
        chosen = without_flavor
    if chosen is None:
        wrapped = _truncate(canvas, sections, MIN_TEXT_SIZE, width, height)
        return AbilitiesLayout(MIN_TEXT_SIZE, wrapped, _abilities_height(wrapped, MIN_TEXT_SIZE), [], False)
    size, wrapped, used, flavor_lines = chosen
    return AbilitiesLayout(size, wrapped, used, flavor_lines, True)


def _layout_abilities(canvas: Canvas, box: Box, sections: list[Section], flavor: str, colors: Palette) -> None:
    """The abilities and the flavor drawn as `_fit_abilities` sets them, centred in the box."""
    x0, y0, x1, y1 = box
    height = y1 - y0
    layout = _fit_abilities(canvas, box, sections, flavor)
    size, wrapped, used, flavor_lines = layout.size, layout.lines, layout.height, layout.flavor
    flavor_size = size - 1

    y = y0 + (height - used) / 2  # centre the text block in its box
    for index, (section, lines) in enumerate(zip(sections, wrapped, strict=True)):
        if index:
            _divider(canvas, (x0, y + SECTION_GAP / 2, x1), colors)
            y += SECTION_GAP
        y = _draw_section(canvas, section, lines, size, (x0, y, x1))
    if flavor_lines:
        _divider(canvas, (x0 + 60, y + SECTION_GAP / 2, x1 - 60), colors)
        y += SECTION_GAP
        for line in flavor_lines:
            canvas.text(((x0 + x1) / 2, y), line, flavor_size, SOFT_INK, anchor="ma")
            y += _line_height(flavor_size)


def _truncate(canvas: Canvas, sections: list[Section], size: int, width: float, height: float) -> list[list[str]]:
    """Share the lines that fit between the abilities, ending a cut text with an ellipsis."""
    wrapped = [canvas.wrap(section.text, size, width) if section.text else [] for section in sections]
    room = height - len(sections) * _heading_height(size) - SECTION_GAP * (len(sections) - 1)
    need = [len(lines) for lines in wrapped]
    # Each ability keeps at least one line, then the remaining lines are dealt out in turn.
    share = [min(1, count) for count in need]
    remaining = int(room // _line_height(size)) - sum(share)
    while remaining > 0 and any(kept < count for kept, count in zip(share, need, strict=True)):
        for index, count in enumerate(need):
            if remaining > 0 and share[index] < count:
                share[index] += 1
                remaining -= 1
    result = []
    for lines, keep in zip(wrapped, share, strict=True):
        if len(lines) > keep:
            lines = lines[:keep]
            lines[-1] = canvas.ellipsize(lines[-1], size, width, force=True)
        result.append(lines)
    return result


def _divider(canvas: Canvas, span: tuple[float, float, float], colors: Palette) -> None:
    x0, y, x1 = span
    accent = colors.faction if luminance(colors.faction) <= 0.6 else mix(colors.faction, BLACK, 0.35)
    shade = mix(PARCHMENT, accent, 0.45)
    canvas.line([(x0, y), (x1, y)], shade, 1)
    cx = (x0 + x1) / 2
    canvas.polygon([(cx, y - 4), (cx + 5, y), (cx, y + 4), (cx - 5, y)], shade)


def _draw_section(canvas: Canvas, section: Section, lines: list[str], size: int,
                  span: tuple[float, float, float]) -> float:
    """Heading (tag pill, name, cooldown) then the ability text; returns the y below it."""
    x0, y, x1 = span
    head = _heading_height(size)
    cy = y + head / 2
    tag_size = max(9.0, size * 0.62)
    tag_w = canvas.length(section.tag, tag_size) + 14
    tag = (x0, cy - tag_size * 0.85, x0 + tag_w, cy + tag_size * 0.85)
    canvas.rect(tag, fill=section.tag_fill, radius=tag_size * 0.85)
    canvas.caps(((tag[0] + tag[2]) / 2, cy), section.tag, tag_size, text_color_on(section.tag_fill), bold=0.4)

    right = x1
    if section.side:
        side_w = canvas.length(section.side, tag_size) + 14
        side = (x1 - side_w, tag[1], x1, tag[3])
        canvas.rect(side, outline=INK, width=1.2, radius=tag_size * 0.85)
        canvas.caps(((side[0] + side[2]) / 2, cy), section.side, tag_size, INK, bold=0.4)
        right = side[0] - 8
    name_size = size + 1
    name = canvas.ellipsize(section.name, name_size, right - tag[2] - 8 - 2)
    canvas.caps((tag[2] + 7, cy), name, name_size, INK, bold=0.65, align="l")
    y += head
    for line in lines:
        canvas.text((x0, y), line, size, INK, anchor="la")
        y += _line_height(size)
    return y


# --- stats and footer ---------------------------------------------------------------------------------


def _draw_stats(canvas: Canvas, character) -> None:
    x0, y0, x1, y1 = STATS
    gap = 10
    box_w = (x1 - x0 - gap * (len(STATS_SHOWN) - 1)) / len(STATS_SHOWN)
    band = 19
    for index, (label, field, color, icon) in enumerate(STATS_SHOWN):
        left = x0 + index * (box_w + gap)
        box = (left, y0, left + box_w, y1)
        canvas.rect(box, fill=EDGE, radius=10)
        canvas.rect((left + 1.5, y0 + 1.5, left + box_w - 1.5, y1 - 1.5), fill=color, radius=9)
        canvas.rect((left + 3.5, y0 + band, left + box_w - 3.5, y1 - 3.5), fill=(252, 249, 242), radius=7)
        label_w = 15 + canvas.length(label, 12)
        lx = left + (box_w - label_w) / 2
        _icon(canvas, icon, (lx, y0 + 4.5, lx + 11, y0 + 15.5), WHITE)
        canvas.caps((lx + 15, y0 + 10.5), label, 12, WHITE, bold=0.5, align="l")
        value = getattr(character, field)
        canvas.caps((left + box_w / 2, (y0 + band + y1 - 3.5) / 2), str(value if value is not None else "-"), 24,
                    INK, bold=0.9)


def _draw_footer(canvas: Canvas, character) -> None:
    card_set = _related(character, "card_set")
    code = printable(card_set.code).upper() if card_set else ""
    canvas.caps((30, FOOTER_Y), code, 10, (170, 172, 182), bold=0.3, align="l")
    canvas.caps((W - 30, FOOTER_Y), "ECHO REALMS", 10, (170, 172, 182), bold=0.3, align="r")
