"""Army codes built from card codes (the same on every server); the codes of versions 1 and 2 already shared
still decode, each in the order it holds; a newer version, garbage or an unknown card is a clear 400."""

import base64
import json

import pytest
from django.core.management import call_command

from cardsdb.models import Card
from realms.engine.army import (
    ArmyCodeError,
    _write_varint,
    decode_army_code,
    encode_army,
    encode_army_v2,
)
from realms.models import Character
from tests.conftest import FIXTURES_DIR, assert_error_shape

pytestmark = pytest.mark.django_db
DECODE, VALIDATE = "/api/realms/armies/decode/", "/api/realms/armies/validate/"
EXPORT = "/api/realms/armies/export/"
QUOTA = {"common": 3, "uncommon": 2, "rare": 1, "legendary": 1}


def legal_slots():
    """A legal army of the official set: the first cards of each rarity, each in a line its position allows."""
    slots, lines = [], {"vanguard": 0, "rearguard": 0}
    for rarity, count in QUOTA.items():
        for card in Character.objects.filter(rarity__slug=rarity).order_by("pk")[:count]:
            line = card.position if card.position != "flex" else min(lines, key=lines.get)
            lines[line] += 1
            slots.append({"card": card.slug, "line": line})
    return slots


def test_engine_round_trip_and_canonical_order():
    entries = [("ER-CORE-017", "rearguard"), ("ER-CORE-001", "vanguard"), ("AL-X-002", "vanguard")]
    code = encode_army_v2(entries)
    assert code == encode_army_v2(list(reversed(entries)))
    assert decode_army_code(code) == (2, [("AL-X-002", "vanguard"), ("ER-CORE-001", "vanguard"),
                                          ("ER-CORE-017", "rearguard")])
    assert len(encode_army_v2([(f"ER-CORE-{n:03d}", "vanguard") for n in range(1, 8)])) < 30
    assert decode_army_code(encode_army([(5, "vanguard")])) == (1, [(5, "vanguard")])


def raw(*values: int, prefix: bytes = b"") -> str:
    out = bytearray(values[:1])
    for value in values[1:]:
        _write_varint(value, out)
    return base64.urlsafe_b64encode(bytes(out) + prefix).decode().rstrip("=")


@pytest.mark.parametrize("code, reason", [
    (raw(4, 0), "newer"), (raw(200), "newer"), (raw(0), "version"), ("!!!", "base64"), ("A" * 201, "200"),
    (raw(2, 10**6), "too many"), (raw(2, 1, 5), "set name"), (raw(2, 1), "middle"),
    (encode_army_v2([("ER-CORE-001", "vanguard")]) + "AA", "trailing"),
])
def test_hostile_codes(code, reason):
    with pytest.raises(ArmyCodeError, match=reason):
        decode_army_code(code)


def test_codes_of_versions_1_and_2_still_decode_each_in_its_own_order(catalogue, anon_client):
    slots = legal_slots()
    report = anon_client.post(VALIDATE, {"slots": slots}, format="json").json()
    assert report["valid"], report
    assert decode_army_code(report["code"])[0] == 3  # what the service writes now
    assert report["share_url"].startswith("http://testserver/api/realms/armies/decode/?code=")
    decoded = anon_client.get(report["share_url"]).json()
    assert decoded == {"version": 3, "slots": slots, "code": report["code"], "share_url": report["share_url"],
                       "sheet_url": f"http://testserver/api/realms/armies/sheet.pdf?code={report['code']}"}
    assert anon_client.post(VALIDATE, {"code": report["code"]}, format="json").json()["valid"]

    built = list(reversed(slots))
    check_a_version_2_code_decodes_in_canonical_order(anon_client, slots, built)
    check_a_version_1_code_decodes_in_army_order(anon_client, built)


def check_a_version_2_code_decodes_in_canonical_order(anon_client, slots: list[dict], built: list[dict]) -> None:
    """A version-2 code holds only the canonical order (by card code, then line): it decodes in that order and
    answers the version-3 code of the army in that order."""
    codes = {c.slug: c.code for c in Character.objects.all()}
    v2 = encode_army_v2([(codes[s["card"]], s["line"]) for s in built])
    canonical = sorted(slots, key=lambda s: codes[s["card"]])
    assert canonical != built
    again = anon_client.get(DECODE, {"code": v2}).json()
    assert again["version"] == 2 and again["slots"] == canonical
    assert again["code"] == anon_client.post(VALIDATE, {"slots": canonical}, format="json").json()["code"]


def check_a_version_1_code_decodes_in_army_order(anon_client, built: list[dict]) -> None:
    """A version-1 code (database keys) was written in army order, and decodes in it."""
    ids = {c.slug: c.pk for c in Character.objects.all()}
    v1 = encode_army([(ids[s["card"]], s["line"]) for s in built])
    old = anon_client.get(DECODE, {"code": v1}).json()
    assert old["version"] == 1 and old["slots"] == built
    assert old["code"] == anon_client.post(VALIDATE, {"slots": built}, format="json").json()["code"]
    assert anon_client.post(EXPORT, {"code": v1}, format="json").json()["slots"] == built


@pytest.mark.parametrize("code", ["", "!!!", raw(4, 0), "A" * 5000, encode_army([(987654, "vanguard")]),
                                  encode_army_v2([("ER-CORE-999", "vanguard")])])
def test_bad_codes_answer_400_in_the_error_shape(catalogue, anon_client, code):
    body = assert_error_shape(anon_client.get(DECODE, {"code": code}), 400, "bad_army_code")
    assert body["fields"]["code"]
    assert_error_shape(anon_client.post(VALIDATE, {"code": code}, format="json"), 400)


def test_unknown_card_is_named(catalogue, anon_client):
    body = anon_client.get(DECODE, {"code": encode_army_v2([("ER-CORE-999", "vanguard")])}).json()
    assert "ER-CORE-999" in body["message"]


def test_a_code_made_on_one_database_decodes_on_another_whose_keys_differ(catalogue, anon_client, tmp_path):
    slots = legal_slots()
    code = anon_client.post(VALIDATE, {"slots": slots}, format="json").json()["code"]
    before = {c.slug: c.pk for c in Character.objects.all()}
    # Another server: the same official sets loaded under other primary keys.
    Card.objects.filter(game="realms").delete()
    rows = json.loads((FIXTURES_DIR / "realms_starter.json").read_text())
    for row in rows:
        if row["model"] in ("cardsdb.card", "realms.character"):
            row["pk"] += 50_000
    moved = tmp_path / "realms_starter.json"
    moved.write_text(json.dumps(rows))
    from cardsdb.models import IssuedCardCode, OfficialRecord  # noqa: PLC0415
    IssuedCardCode.objects.all().delete()
    OfficialRecord.objects.filter(source="realms_starter.json").delete()
    call_command("load_official", str(moved), verbosity=0)
    after = {c.slug: c.pk for c in Character.objects.all()}
    assert set(after) == set(before) and all(after[s] != before[s] for s in after)
    decoded = anon_client.get(DECODE, {"code": code}).json()
    assert decoded["slots"] == slots and decoded["code"] == code
