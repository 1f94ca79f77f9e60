"""The printable Army Sheet: the rulebook's pencil sheet for one army, as a PDF (WeasyPrint, fonts embedded).

Every character of the army in army order with its card's stats, both abilities in words, boxes for its HP and
its cooldown, rows for buffs and debuffs with their durations; the round's 20 attack-order slots (14 characters
and summons); rows for summons; notes; and two QR codes (segno): the army's share link and the rules page.

The PDF is cached under its HTML's digest: a card edited by staff prints anew, and a sheet printed twice is
drawn once.
"""

from __future__ import annotations

import base64
import hashlib
import io
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import segno
from django.core.cache import cache
from django.template.loader import render_to_string

from cardsdb.errors import DomainError
from realms import services
from realms.choices import Position
from realms.engine.army import Slot
from realms.models import Character

PAGE_SIZES: Final = {"a4": "A4", "letter": "Letter"}
ATTACK_ORDER_SLOTS: Final = 20  # the rulebook's sheet: 14 starting characters and the summons that enter
EFFECT_ROWS: Final = 2  # pencil rows for buffs and debuffs under each character
SUMMON_ROWS: Final = 4
NOTE_LINES: Final = 2
HP_BOXES_PER_ROW: Final = 25
TEMPLATE: Final = "realms/sheet/army_sheet.html"


class SheetUnavailable(DomainError):
    """The machine lacks the libraries WeasyPrint draws with (Pango): the service says so instead of failing."""

    status = 503
    code = "sheet_unavailable"


class UnknownSheetCards(DomainError):
    """A slot names a card the catalogue does not hold (a saved draft may, or a card deleted since): the army is
    not printable as the catalogue stands, whatever the request said (409, like any conflict with stored state)."""

    status = 409
    code = "unknown_cards"

    def __init__(self, message: str, fields: dict[str, list[str]]) -> None:
        super().__init__(message)
        self.fields = fields

    def details(self) -> dict[str, Any]:
        return {"fields": self.fields}


@dataclass(frozen=True)
class SheetLinks:
    """Where the sheet's QR codes lead: the army's share page and the rules."""

    share: str
    rules: str


def qr_data_uri(url: str) -> str:
    """A QR code of `url` as a PNG data URI, big enough (10 px a module) to print sharp at 3 cm and scan."""
    png = _qr_png(url)
    return "data:image/png;base64," + base64.b64encode(png).decode()


def _qr_png(url: str) -> bytes:
    out = io.BytesIO()
    segno.make(url, error="m", micro=False).save(out, kind="png", scale=10, border=2)
    return out.getvalue()


def sheet_characters(slots: list[Slot]) -> list[dict[str, Any]]:
    """What the sheet prints of each character, in army order (UnknownSheetCards when a slot names no card)."""
    try:
        characters = services.army_export_characters(slots)
    except services.UnknownCards as exc:
        raise UnknownSheetCards(str(exc), fields={f"slots.{i}.card": [f"No character card '{card}'."]
                                                  for i, card in exc.unknown.items()}) from exc
    return [_character(c, slot) for c, slot in zip(characters, slots, strict=True)]


def _character(c: Character, slot: Slot) -> dict[str, Any]:
    hp_boxes = list(range(1, c.health + 1))
    return {
        "name": c.name,
        "rarity": c.rarity.name if c.rarity else "",
        "class": c.get_character_class_display(),
        "race": c.race.name,
        "faction": c.faction.name,
        "line": slot.line.title(),
        "flex": c.position == Position.FLEX,
        "atk": c.attack, "def": c.defense, "spd": c.speed, "hp": c.health,
        "cooldown": c.cooldown,
        "cooldown_boxes": list(range(1, c.cooldown + 1)),
        "hp_rows": [hp_boxes[i:i + HP_BOXES_PER_ROW] for i in range(0, len(hp_boxes), HP_BOXES_PER_ROW)],
        "main": {"name": c.main_ability.get("name", ""), "text": c.main_ability.get("text", "")},
        "faction_ability": {"name": c.faction_ability.get("name", ""), "text": c.faction_ability.get("text", "")},
    }


def army_sheet_pdf(*, slots: list[Slot], name: str | None, size: str,
                   links: Callable[[str | None], SheetLinks]) -> bytes:
    """The Army Sheet of `slots` as PDF bytes, on `size` paper (a key of PAGE_SIZES); `links(code)` says where its
    QR codes lead."""
    characters = sheet_characters(slots)
    report = services.army_validate(slots=slots)
    html = render_to_string(TEMPLATE, _context(slots, characters, report, name, links(report["code"]), size))
    # Drawing the PDF costs a thousand times what the HTML does: the same HTML is drawn once.
    key = "army-sheet:" + hashlib.sha256(html.encode()).hexdigest()
    pdf = cache.get(key)
    if pdf is None:
        pdf = _render(html)
        cache.set(key, pdf, timeout=24 * 3600)
    return pdf


def _context(slots: list[Slot], characters: list[dict[str, Any]], report: dict[str, Any], name: str | None,
             links: SheetLinks, size: str) -> dict[str, Any]:
    names = {slot.card: c["name"] for slot, c in zip(slots, characters, strict=True)}
    order = [{"spd": g["spd"], "names": [names[u["card"]] for u in g["units"]]}
             for g in report["stats"]["attack_order"]]
    return {
        "page_size": PAGE_SIZES[size],
        "name": name or "Army",
        "code": report["code"],
        "valid": report["valid"],
        "violations": [v["message"] for v in report["violations"]],
        "characters": characters,
        "starting_order": order,
        "attack_halves": [list(range(1, ATTACK_ORDER_SLOTS // 2 + 1)),
                          list(range(ATTACK_ORDER_SLOTS // 2 + 1, ATTACK_ORDER_SLOTS + 1))],
        "effect_rows": list(range(EFFECT_ROWS)),
        "summon_rows": list(range(SUMMON_ROWS)),
        "note_lines": list(range(NOTE_LINES)),
        "share_url": links.share,
        "rules_url": links.rules,
        "share_qr": qr_data_uri(links.share),
        "rules_qr": qr_data_uri(links.rules),
    }


def _render(html: str) -> bytes:
    try:
        import weasyprint
    except OSError as exc:  # WeasyPrint loads Pango when imported
        raise SheetUnavailable("The Army Sheet cannot be drawn here: this machine lacks Pango "
                               "(apt-get install libpango-1.0-0 libpangoft2-1.0-0).") from exc
    # The sheet holds everything it shows (its QR codes are data URIs): no file or network is read while drawing,
    # whatever a card's name or text says.
    fetcher = weasyprint.URLFetcher(allowed_protocols={"data"}, fail_on_errors=True)
    return weasyprint.HTML(string=html, url_fetcher=fetcher).write_pdf()
