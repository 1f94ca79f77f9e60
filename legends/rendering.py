"""Akin Legends card faces drawn with Pillow: elements as coloured bands with their symbol.

A summoning card reads top to bottom as it is played: the first attack along the top edge,
the special effect across the middle (the card turned sideways), the second attack along
the bottom edge. Element colours come from the catalogue; the four official elements get
their alchemical triangle, any other element a disc with its initial.
"""

from __future__ import annotations

from collections.abc import Callable

from PIL import Image

from cardsdb.rendering import (
    BLACK,
    CARD_SIZE,
    DEFAULT_FACE_SIZE,
    RGB,
    WHITE,
    Box,
    Canvas,
    Point,
    hex_to_rgb,
    layout_version,
    luminance,
    mix,
    sized_face,
    text_color_on,
    to_png,
    triangle,
)
from legends.engine.protectors import KINDS, SpecError, parse_protector_effect
from legends.models import DefenseCard, Element, Protector, Spirit, SummoningCard

W, H = CARD_SIZE
M = 16  # outer margin

BODY: RGB = (27, 29, 36)
FRAME: RGB = (201, 167, 74)
LIGHT: RGB = (240, 236, 226)
INK: RGB = (34, 30, 26)
DANGER: RGB = (198, 40, 40)
DEFAULT_ELEMENT: RGB = (120, 120, 120)

# Where each kind of card shows its art (or what stands in for it): the `art_crop` size.
SUMMONING_EFFECT = (M, 252, W - M, 448)
SUMMONING_ART = (W - M - 150, 264, W - M - 12, 436)
DEFENSE_ART = (M, 74, W - M, 300)
PROTECTOR_ART = (M, 74, W - M, 330)
SPIRIT_ART = (M, 74, W - M, 520)


def element_rgb(element: Element) -> RGB:
    return hex_to_rgb(element.color, DEFAULT_ELEMENT)


# --- symbols --------------------------------------------------------------------------------------


def draw_element_symbol(canvas: Canvas, element: Element, center: Point, radius: float, color: RGB) -> None:
    """The element's symbol: alchemical triangles for the four classical elements, else a lettered disc."""
    x, y = center
    stroke = max(3.0, radius * 0.16)
    shapes = {"fire": (True, False), "water": (False, False), "air": (True, True), "earth": (False, True)}
    if element.slug in shapes:
        up, barred = shapes[element.slug]
        canvas.polygon(triangle(center, radius, up), outline=color, width=stroke)
        if barred:
            bar_y = y + radius * (0.12 if up else -0.12)
            canvas.line([(x - radius * 0.62, bar_y), (x + radius * 0.62, bar_y)], fill=color, width=stroke)
        return
    canvas.circle(center, radius * 0.85, outline=color, width=stroke)
    canvas.text(center, (element.name[:1] or "?").upper(), radius, color, anchor="mm", bold=1)


def _shield(canvas: Canvas, center: Point, r: float, color: RGB) -> None:
    x, y = center
    canvas.polygon([(x - r * 0.8, y - r * 0.75), (x, y - r), (x + r * 0.8, y - r * 0.75),
                    (x + r * 0.75, y + r * 0.1), (x, y + r), (x - r * 0.75, y + r * 0.1)], fill=color)


def _cross(canvas: Canvas, center: Point, r: float, color: RGB) -> None:
    x, y = center
    t = r * 0.32
    canvas.rect((x - t, y - r * 0.9, x + t, y + r * 0.9), fill=color, radius=t * 0.4)
    canvas.rect((x - r * 0.9, y - t, x + r * 0.9, y + t), fill=color, radius=t * 0.4)


def _chevrons(canvas: Canvas, center: Point, r: float, color: RGB) -> None:
    x, y = center
    for dy in (-0.45, 0.35):
        cy = y + r * dy
        canvas.line([(x - r * 0.8, cy + r * 0.45), (x, cy - r * 0.35), (x + r * 0.8, cy + r * 0.45)], fill=color,
                    width=r * 0.28)


EFFECT_GLYPHS: dict[str, Callable[[Canvas, Point, float, RGB], None]] = {
    "defense": _shield,
    "healing": _cross,
    "boost": _chevrons,
}
EFFECT_LINES = {
    "defense": "stops 1 {element} attack point",
    "healing": "removes 1 {element} marker",
    "boost": "+1 to every {element} attack",
}


# --- shared parts ---------------------------------------------------------------------------------


def _frame(canvas: Canvas, accent: RGB) -> None:
    canvas.rect((0, 0, W, H), fill=accent)
    canvas.rect((6, 6, W - 6, H - 6), fill=BODY, radius=14)


def _header(canvas: Canvas, name: str) -> None:
    canvas.rect((M, M, W - M, 66), fill=mix(BODY, WHITE, 0.08), radius=10)
    canvas.fitted_line((W / 2, 41), name, W - 2 * M - 24, (34, 30, 26, 22, 18), LIGHT, anchor="mm", bold=0.5)


def _footer(canvas: Canvas, card, label: str, extra: str = "") -> None:
    y = H - 34
    canvas.text((M + 8, y), f"{card.card_set.code}  ·  {extra}" if extra else card.card_set.code, 16,
                mix(LIGHT, BODY, 0.35), anchor="lm")
    canvas.text((W - M - 8, y), label, 18, FRAME, anchor="rm", bold=0.5)


def _element_band(canvas: Canvas, box: Box, element: Element, caption: str, pointer: str) -> None:
    """A band in the element's colour: symbol, caption and name; `pointer` (up/down) marks the attacking edge."""
    color = element_rgb(element)
    canvas.gradient(box, mix(color, WHITE, 0.12), mix(color, BLACK, 0.22), radius=12)
    ink = text_color_on(color)
    x0, y0, x1, y1 = box
    cy = (y0 + y1) / 2
    radius = min(62.0, (y1 - y0) * 0.36)
    badge = (x0 + 24 + radius, cy)
    canvas.circle(badge, radius * 1.25, fill=mix(color, BLACK, 0.3))
    draw_element_symbol(canvas, element, badge, radius, WHITE)
    text_x = badge[0] + radius * 1.25 + 22
    canvas.text((text_x, cy - 26), caption, 20, mix(ink, color, 0.25), anchor="ls", bold=0.5)
    canvas.fitted_line((text_x, cy + 14), element.name.upper(), x1 - text_x - 44, (60, 52, 44, 36, 28), ink,
                       anchor="lm", bold=1)
    # A notch on the attacking edge: the card is laid with this edge toward the opponents.
    tip_x, size = x1 - 36, 14
    if pointer == "up":
        canvas.polygon([(tip_x, y0 + 14), (tip_x + size, y0 + 14 + size), (tip_x - size, y0 + 14 + size)], fill=ink)
    else:
        canvas.polygon([(tip_x, y1 - 14), (tip_x + size, y1 - 14 - size), (tip_x - size, y1 - 14 - size)], fill=ink)


# --- the four kinds of cards ----------------------------------------------------------------------


def draw_summoning_card(card: SummoningCard) -> Image.Image:
    """Attack 1 on top, the effect across the middle, attack 2 at the bottom."""
    canvas = Canvas.new(BODY)
    _frame(canvas, FRAME)
    _header(canvas, card.name)
    _element_band(canvas, (M, 74, W - M, 244), card.attack_1, "ATTACK", "up")
    _element_band(canvas, (M, 456, W - M, 626), card.attack_2, "ATTACK", "down")

    effect_box = SUMMONING_EFFECT
    color = element_rgb(card.effect_element)
    canvas.rect(effect_box, fill=LIGHT, radius=12)
    canvas.rect((M, 252, M + 10, 448), fill=color, radius=4)
    x0, y0, x1, y1 = effect_box
    if canvas.art(card.image, SUMMONING_ART, radius=8, backdrop=BODY):
        x1 -= 150
    tile = (x0 + 28, y0 + 34, x0 + 156, y0 + 162)
    canvas.rect(tile, fill=color, radius=18)
    glyph = EFFECT_GLYPHS.get(card.effect_kind, _shield)
    glyph(canvas, ((tile[0] + tile[2]) / 2, (tile[1] + tile[3]) / 2), 44, text_color_on(color))
    text_x = tile[2] + 22
    width = x1 - text_x - 14
    kind_ink = mix(color, BLACK, 0.45) if text_color_on(color) == WHITE else INK
    canvas.fitted_line((text_x, y0 + 62), card.get_effect_kind_display().upper(), width, (50, 44, 38, 32), kind_ink,
                       bold=1)
    symbol_ink = mix(color, BLACK, 0.35) if luminance(color) > 0.6 else color
    draw_element_symbol(canvas, card.effect_element, (text_x + 13, y0 + 106), 14, symbol_ink)
    canvas.fitted_line((text_x + 36, y0 + 108), card.effect_element.name, width - 36, (34, 30, 26), INK, bold=0.5)
    line = EFFECT_LINES.get(card.effect_kind, "").format(element=card.effect_element.name)
    canvas.paragraph((text_x, y0 + 128, x1 - 14, y1 - 16), line, (20, 18, 16), mix(INK, LIGHT, 0.25))
    _footer(canvas, card, "SUMMONING", f"x{card.copies} in the deck")
    return canvas.finish()


def draw_defense_card(card: DefenseCard) -> Image.Image:
    """The two required elements side by side, joined by a plus."""
    canvas = Canvas.new(BODY)
    _frame(canvas, FRAME)
    _header(canvas, card.name)
    art_box = DEFENSE_ART
    if not canvas.art(card.image, art_box, radius=12, backdrop=BODY):
        canvas.gradient(art_box, mix(element_rgb(card.element_1), BODY, 0.35),
                        mix(element_rgb(card.element_2), BODY, 0.35), radius=12)
        _wall(canvas, art_box)
    top, bottom = 310, 530
    half = (W - 2 * M - 10) / 2
    for index, element in enumerate(card.elements):
        x0 = M + index * (half + 10)
        color = element_rgb(element)
        box = (x0, top, x0 + half, bottom)
        canvas.gradient(box, mix(color, WHITE, 0.12), mix(color, BLACK, 0.22), radius=12)
        center = ((box[0] + box[2]) / 2, top + 82)
        canvas.circle(center, 62, fill=mix(color, BLACK, 0.3))
        draw_element_symbol(canvas, element, center, 48, WHITE)
        canvas.fitted_line(((box[0] + box[2]) / 2, bottom - 42), element.name.upper(), half - 24, (40, 34, 28, 22),
                           text_color_on(color), anchor="mm", bold=1)
    canvas.circle((W / 2, (top + bottom) / 2), 30, fill=LIGHT, outline=BODY, width=5)
    canvas.text((W / 2, (top + bottom) / 2 - 2), "+", 48, INK, anchor="mm", bold=1)
    canvas.paragraph((M + 12, 540, W - M - 12, 640), card.rules_text or "", (22, 20, 18), LIGHT, align="center")
    _footer(canvas, card, "DEFENSE")
    return canvas.finish()


def _wall(canvas: Canvas, box: Box) -> None:
    """A brick pattern standing in for missing art."""
    x0, y0, x1, y1 = box
    ink = (255, 255, 255)
    rows = 5
    height = (y1 - y0 - 40) / rows
    for row in range(rows):
        y = y0 + 20 + row * height
        offset = 0 if row % 2 == 0 else 36
        x = x0 + 20 - offset
        while x < x1 - 20:
            left, right = max(x, x0 + 20), min(x + 66, x1 - 20)
            if right - left > 8:
                canvas.rect((left, y + 3, right, y + height - 3), outline=ink, width=2, radius=3)
            x += 72


def draw_protector_card(card: Protector) -> Image.Image:
    """Art (or an emblem), when the effect runs, the effect in plain words, and a duel warning for Spy."""
    canvas = Canvas.new(BODY)
    _frame(canvas, FRAME)
    _header(canvas, card.name)
    art_box = PROTECTOR_ART
    if not canvas.art(card.image, art_box, radius=12, backdrop=BODY):
        canvas.gradient(art_box, mix(FRAME, BODY, 0.45), mix(FRAME, BODY, 0.85), radius=12)
        _shield(canvas, (W / 2, 202), 92, mix(FRAME, WHITE, 0.25))
        _shield(canvas, (W / 2, 202), 70, mix(FRAME, BODY, 0.6))
    try:
        effect = parse_protector_effect(card.effect)
        hook = effect.when.replace("_", " ")
    except SpecError:
        effect, hook = None, "-"
    canvas.rect((M, 340, W - M, 384), fill=mix(BODY, WHITE, 0.1), radius=10)
    canvas.text((M + 14, 362), f"WHEN: {hook.upper()}", 18, FRAME, anchor="lm", bold=0.5)
    if not card.duel_legal:
        badge = (W - M - 150, 346, W - M - 8, 378)
        canvas.rect(badge, fill=DANGER, radius=8)
        canvas.text(((badge[0] + badge[2]) / 2, 362), "TEAMS ONLY", 17, WHITE, anchor="mm", bold=0.5)
    canvas.rect((M, 392, W - M, 640), fill=LIGHT, radius=12)
    canvas.paragraph((M + 18, 404, W - M - 18, 628), card.rules_text or "", (28, 26, 24, 22, 20, 18), INK)
    kind = effect.kind.replace("_", " ") if effect and effect.kind in KINDS else ""
    _footer(canvas, card, "PROTECTOR", kind)
    return canvas.finish()


def draw_spirit_card(card: Spirit) -> Image.Image:
    """The team's spirit: its colour, name and art."""
    color = hex_to_rgb(card.color, (126, 87, 194))
    canvas = Canvas.new(BODY)
    _frame(canvas, color)
    _header(canvas, card.name)
    art_box = SPIRIT_ART
    if not canvas.art(card.image, art_box, radius=12, backdrop=BODY):
        canvas.gradient(art_box, mix(color, WHITE, 0.2), mix(color, BODY, 0.6), radius=12)
        center = (W / 2, 290)
        for radius, amount in ((150, 0.15), (110, 0.3), (70, 0.5)):
            canvas.circle(center, radius, outline=mix(color, WHITE, amount), width=6)
        canvas.text(center, card.name[:1].upper(), 96, WHITE, anchor="mm", bold=2)
    canvas.fitted_line((W / 2, 548), card.rules_text or "The spirit this team protects.", W - 2 * M - 24,
                       (22, 20, 18, 16), FRAME, anchor="mm", bold=0.5)
    if card.flavor_text:
        canvas.paragraph((M + 12, 568, W - M - 12, 644), card.flavor_text, (20, 18, 16), LIGHT, align="center")
    _footer(canvas, card, "SPIRIT")
    return canvas.finish()


DRAWERS: dict[type, Callable] = {
    SummoningCard: draw_summoning_card,
    DefenseCard: draw_defense_card,
    Protector: draw_protector_card,
    Spirit: draw_spirit_card,
}


def draw_legends_card(card) -> Image.Image:
    """The face of any Akin Legends card as an RGB image of CARD_SIZE."""
    return DRAWERS[type(card)](card)


ART_BOXES: dict[type, Box] = {
    SummoningCard: SUMMONING_ART,
    DefenseCard: DEFENSE_ART,
    Protector: PROTECTOR_ART,
    Spirit: SPIRIT_ART,
}


def render_legends_card(card, size: str = DEFAULT_FACE_SIZE) -> bytes:
    """The face of any Akin Legends card as PNG bytes in `size` (FACE_SIZES; normal is CARD_SIZE pixels)."""
    return to_png(sized_face(draw_legends_card(card), size, ART_BOXES[type(card)]))


# Bumped whenever the layout changes, so cached_card_png serves no stale faces (2: DejaVu Sans, sizes).
LAYOUT_VERSION = "legends-card-2"


def _printed_elements(card) -> list[Element]:
    if isinstance(card, SummoningCard):
        return [card.attack_1, card.attack_2, card.effect_element]
    if isinstance(card, DefenseCard):
        return list(card.elements)
    return []


def card_face_renderer(card) -> Callable[[object], bytes]:
    """render_legends_card, versioned by the layout and the printed elements' names and colours.

    A card's face changes when an element is renamed or recoloured, though the card row does not.
    """

    printed = "|".join(f"{e.slug}:{e.name}:{e.color}" for e in _printed_elements(card))

    @layout_version(f"{LAYOUT_VERSION}:{printed}")
    def render(face_card, size: str = DEFAULT_FACE_SIZE) -> bytes:
        return render_legends_card(face_card, size)

    return render
