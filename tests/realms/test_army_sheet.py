"""The printable Army Sheet: a PDF read back as its reader would read it (text, QR codes, fonts, paper)."""

import io
import re

import pypdf
import pytest
import zxingcpp

from realms import services
from realms.engine.army import Slot
from realms.models import Army, Character
from realms.pages.views import rules_html
from realms.sheet import ATTACK_ORDER_SLOTS
from tests.conftest import assert_error_shape

pytestmark = pytest.mark.django_db

BY_CODE = "/api/realms/armies/sheet.pdf"
QUOTA = {"common": 3, "uncommon": 2, "rare": 1, "legendary": 1}


def official_army() -> list[Slot]:
    """A legal army of official cards: the first by name of each rarity, each in its printed line."""
    need, slots = dict(QUOTA), []
    lines = {"vanguard": 0, "rearguard": 0}
    for card in Character.objects.select_related("rarity").order_by("name"):
        line = "rearguard" if card.position == "rearguard" else "vanguard"
        if need.get(card.rarity.slug, 0) and lines[line] < 5:
            need[card.rarity.slug] -= 1
            lines[line] += 1
            slots.append(Slot(card=card.slug, line=line))
    assert not any(need.values())
    return slots


def words(text: str) -> str:
    """Text with every run of white space as one space: a PDF's lines break where the paper ends."""
    return re.sub(r"\s+", " ", text).strip()


def read(pdf: bytes) -> pypdf.PdfReader:
    assert pdf.startswith(b"%PDF-")
    return pypdf.PdfReader(io.BytesIO(pdf))


def qr_codes(page: pypdf.PageObject) -> list[str]:
    """What every QR code drawn on the page says, decoded from its image."""
    return [barcode.text for image in page.images for barcode in zxingcpp.read_barcodes(image.image)]


def assert_printed(text: str, number: int, card: Character) -> None:
    """The card's entry on the sheet: its name, its stats under their headings, both abilities in its own words
    and one numbered box per hit point."""
    assert f"{number}. {card.name}" in text
    assert f"ATK DEF SPD HP CD {card.attack} {card.defense} {card.speed} {card.health} {card.cooldown}" in text
    assert words(f"Main Ability: {card.main_ability['name']} (cooldown {card.cooldown}). "
                 f"{card.main_ability['text']}") in text
    assert words(f"Faction Ability: {card.faction_ability['name']}. {card.faction_ability['text']}") in text
    assert " ".join(str(n) for n in range(1, card.health + 1)) in text


def test_the_sheet_of_an_official_army_prints_every_card_and_links_to_the_army(anon_client, catalogue):
    slots = official_army()
    code = services.army_code(slots)
    response = anon_client.get(BY_CODE, {"code": code})
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    pdf = read(response.content)
    text = words(" ".join(page.extract_text() for page in pdf.pages))

    cards = {c.slug: c for c in Character.objects.filter(slug__in=[s.card for s in slots])}
    for number, slot in enumerate(slots, start=1):
        assert_printed(text, number, cards[slot.card])
    assert "A legal army" in text and code in text
    assert f"{ATTACK_ORDER_SLOTS}." in text and "Summoned units" in text and "Notes" in text

    share, rules = qr_codes(pdf.pages[0])
    assert share == f"http://testserver/realms/armies/build/?code={code}"
    assert rules == "http://testserver/realms/rules/"
    # The share link opens the builder holding this very army, and the rules link the rules.
    builder = anon_client.get(share.removeprefix("http://testserver"))
    assert builder.status_code == 200
    for card in cards.values():
        assert card.name in builder.content.decode()
    assert anon_client.get(rules.removeprefix("http://testserver")).status_code == 200


def test_every_font_is_embedded_and_the_paper_is_a4_or_letter(anon_client, catalogue):
    code = services.army_code(official_army())
    sizes = {}
    for paper in ("a4", "letter"):
        pdf = read(anon_client.get(BY_CODE, {"code": code, "size": paper}).content)
        box = pdf.pages[0].mediabox
        sizes[paper] = (round(float(box.width)), round(float(box.height)))
        fonts = [font.get_object() for page in pdf.pages
                 for font in page["/Resources"].get_object()["/Font"].get_object().values()]  # type: ignore[index]
        assert fonts
        for font in fonts:
            descendant = font["/DescendantFonts"][0].get_object() if "/DescendantFonts" in font else font
            descriptor = descendant["/FontDescriptor"].get_object()
            assert any(key in descriptor for key in ("/FontFile", "/FontFile2", "/FontFile3")), font["/BaseFont"]
    assert sizes == {"a4": (595, 842), "letter": (612, 792)}


def test_a_saved_army_prints_with_its_name_for_its_owner_only(user_client, other_client, anon_client, user,
                                                              catalogue):
    slots = official_army()
    army = Army.objects.create(owner=user, name="Dawn Vigil", slots=[{"card": s.card, "line": s.line}
                                                                     for s in slots])
    url = f"/api/realms/armies/{army.pk}/sheet.pdf"
    response = user_client.get(url, {"size": "letter"})
    assert response.status_code == 200
    pdf = read(response.content)
    assert "Dawn Vigil" in pdf.pages[0].extract_text().splitlines()  # the heading, a line of its own
    assert qr_codes(pdf.pages[0])[0].endswith(f"?code={services.army_code(slots)}")
    assert_error_shape(other_client.get(url), 404)
    assert anon_client.get(url).status_code in (401, 403)
    assert_error_shape(user_client.get("/api/realms/armies/999999/sheet.pdf"), 404)


def test_an_army_naming_a_card_the_catalogue_lacks_answers_409_naming_the_slot(user_client, user, catalogue):
    slots = [{"card": s.card, "line": s.line} for s in official_army()[:2]] + [{"card": "gone", "line": "vanguard"}]
    army = Army.objects.create(owner=user, name="Draft", slots=slots)
    body = assert_error_shape(user_client.get(f"/api/realms/armies/{army.pk}/sheet.pdf"), 409, "unknown_cards")
    assert body["fields"] == {"slots.2.card": ["No character card 'gone'."]}


def test_the_army_api_links_each_army_to_its_sheet(user_client, catalogue):
    slots = [{"card": s.card, "line": s.line} for s in official_army()]
    saved = user_client.post("/api/realms/armies/", {"name": "Dawn Vigil", "slots": slots}, format="json").json()
    assert saved["sheet_url"] == f"http://testserver/api/realms/armies/{saved['id']}/sheet.pdf"
    listed = user_client.get("/api/realms/armies/").json()["results"]
    assert [army["sheet_url"] for army in listed] == [saved["sheet_url"]]
    printed = user_client.get(saved["sheet_url"].removeprefix("http://testserver"))
    assert "Dawn Vigil" in read(printed.content).pages[0].extract_text().splitlines()
    decoded = user_client.get("/api/realms/armies/decode/", {"code": saved["code"]}).json()
    by_code = user_client.get(decoded["sheet_url"].removeprefix("http://testserver"))
    assert by_code.status_code == 200 and by_code["Content-Type"] == "application/pdf"
    assert qr_codes(read(by_code.content).pages[0])[0].endswith(f"?code={saved['code']}")


def test_a_draft_prints_what_it_holds_and_says_it_is_not_legal(anon_client, catalogue):
    slots = official_army()[:4]
    pdf = read(anon_client.get(BY_CODE, {"code": services.army_code(slots)}).content)
    text = words(pdf.pages[0].extract_text())
    assert "Not a legal army yet" in text
    assert "4 characters" in text


@pytest.mark.parametrize(("query", "field"), [
    ({}, "code"),
    ({"code": "not a code!"}, "code"),
    ({"code": "AAAA"}, "code"),
    ({"code": "x" * 201}, "code"),
    ({"code": "AwEHRVItQ09SRQdDHUgTcDtV", "size": "a3"}, "size"),
])
def test_bad_requests_answer_400_in_the_error_shape(anon_client, catalogue, query, field):
    body = assert_error_shape(anon_client.get(BY_CODE, query), 400)
    assert field in body.get("fields", {}), body


def test_the_same_sheet_twice_is_the_same_file_whatever_the_client_accepts(anon_client, catalogue):
    code = services.army_code(official_army())
    first = anon_client.get(BY_CODE, {"code": code}).content
    assert anon_client.get(BY_CODE, {"code": code}).content == first
    asked_json = anon_client.get(BY_CODE, {"code": code}, HTTP_ACCEPT="application/json")
    assert asked_json["Content-Type"] == "application/pdf" and asked_json.content == first
    # Errors answer in the error shape whether the client asked for a PDF or for JSON.
    for accept in ("application/pdf", "application/json"):
        error = anon_client.get(BY_CODE, {"code": "AAAA"}, HTTP_ACCEPT=accept)
        assert error["Content-Type"] == "application/json"
        assert_error_shape(error, 400)


def test_the_builder_links_its_army_sheet(anon_client, catalogue):
    code = services.army_code(official_army())
    page = anon_client.get("/realms/armies/build/", {"code": code}).content.decode()
    assert f'href="{BY_CODE}?code={code}&amp;size=a4" id="sheet-a4"' in page
    assert f'href="{BY_CODE}?code={code}&amp;size=letter" id="sheet-letter"' in page


def test_the_rules_page_states_the_rulings(anon_client):
    page = anon_client.get("/realms/rules/").content.decode()
    for ruling in ("R1", "R9", "R13", "R14", "R15", "R17"):
        assert ruling in page
    assert "<script" not in rules_html()


def test_drawing_sheets_has_its_own_rate_per_address(anon_client, monkeypatch):
    from rest_framework.throttling import ScopedRateThrottle

    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"sheets": "2/minute"})
    for _ in range(2):  # refused as input, after the throttle counted it
        assert anon_client.get(BY_CODE, {"code": "AAAA"}).status_code == 400
    assert_error_shape(anon_client.get(BY_CODE, {"code": "AAAA"}), 429, "throttled")
    # Other requests of that client are not counted against it.
    assert anon_client.get("/api/realms/armies/decode/", {"code": "AAAA"}).status_code == 400
