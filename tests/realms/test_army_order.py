"""Army order is part of the army (R9, amended): a player's own cards tied on SPD act in the order the army
lists them, so army codes (version 3), share links, decklists and saved armies keep that order, and an army
played after a round trip through any of them plays exactly as the one that was built."""

import base64
import re

import pytest

from realms.engine.army import ArmyCodeError, _write_varint, decode_army_code, encode_army_v3
from realms.models import Army, Character
from simulate.models import Match
from tests.conftest import assert_error_shape
from tests.factories import faction_army

pytestmark = pytest.mark.django_db

VALIDATE, DECODE = "/api/realms/armies/validate/", "/api/realms/armies/decode/"
IMPORT, EXPORT = "/api/realms/armies/import/", "/api/realms/armies/export/"
ARMIES, FORMATION = "/api/realms/armies/", "/api/realms/formations/validate/"
PLAY, BUILDER = "/api/simulate/realms/matches/", "/realms/armies/build/"

# The army a player built: Acolyte, Warlock and Runecaster (and Urgoth) all have SPD 6, listed in this order.
# By card code (the order version-2 codes held) the Runecaster comes first and the Acolyte last.
BUILT = [
    {"card": "aasimar-acolyte", "line": "rearguard"},            # ER-CORE-033, common, SPD 6
    {"card": "blood-warlock", "line": "rearguard"},              # ER-CORE-029, uncommon, SPD 6
    {"card": "apprentice-runecaster", "line": "rearguard"},      # ER-CORE-009, common, SPD 6
    {"card": "iron-guardian", "line": "vanguard"},               # ER-CORE-001, common, SPD 3
    {"card": "aegis-paladin", "line": "vanguard"},               # ER-CORE-036, uncommon, SPD 3
    {"card": "captain-aldric-vane", "line": "vanguard"},         # ER-CORE-006, rare, SPD 5
    {"card": "urgoth-bloodtusk-warchief-of-the-clans", "line": "vanguard"},  # ER-CORE-024, legendary, SPD 6
]
TIED = ["aasimar-acolyte", "blood-warlock", "apprentice-runecaster", "urgoth-bloodtusk-warchief-of-the-clans"]


def post(client, url, body, status=200):
    response = client.post(url, body, format="json")
    assert response.status_code == status, response.content
    return response.json()


def names(slots) -> list[str]:
    return [s["card"] for s in slots]


@pytest.fixture
def built(catalogue, anon_client):
    """The army as built, checked to be legal and to hold a real tie in another order than the canonical one."""
    speeds = dict(Character.objects.filter(slug__in=names(BUILT)).values_list("slug", "speed"))
    assert len({speeds[slug] for slug in TIED}) == 1, speeds
    codes = dict(Character.objects.filter(slug__in=TIED).values_list("slug", "code"))
    assert sorted(TIED, key=codes.get) != TIED
    assert post(anon_client, VALIDATE, {"slots": BUILT})["valid"]
    return BUILT


# --- army codes of version 3 --------------------------------------------------------------------------------

def test_a_version_3_code_keeps_army_order_and_another_order_is_another_code():
    army = [("ER-CORE-033", "rearguard"), ("ER-CORE-029", "rearguard"), ("ER-CORE-009", "rearguard")]
    code = encode_army_v3(army)
    assert decode_army_code(code) == (3, army)
    other = encode_army_v3(list(reversed(army)))
    assert other != code and decode_army_code(other) == (3, list(reversed(army)))
    # Cards of several sets, in any order, come back in that order.
    mixed = [("ER-PROMO-002", "vanguard"), ("ER-CORE-064", "rearguard"), ("ER-PROMO-001", "rearguard"),
             ("AL-X-300", "vanguard")]
    assert decode_army_code(encode_army_v3(mixed)) == (3, mixed)
    # Still compact: seven cards of one set take no more characters than version 2 did.
    assert len(encode_army_v3([(f"ER-CORE-{n:03d}", "rearguard") for n in range(64, 57, -1)])) <= 30
    assert all(ch.isalnum() or ch in "-_" for ch in code)


def raw(*values: int, names: tuple[bytes, ...] = (), tail: tuple[int, ...] = ()) -> str:
    """A version byte, then varints, then set names (each its length and bytes), then more varints."""
    out = bytearray(values[:1])
    for value in values[1:]:
        _write_varint(value, out)
    for name in names:
        _write_varint(len(name), out)
        out += name
    for value in tail:
        _write_varint(value, out)
    return base64.urlsafe_b64encode(bytes(out)).decode().rstrip("=")


@pytest.mark.parametrize("code, reason", [
    (raw(3), "middle of a number"),
    (raw(3, 1, names=(b"ER-CORE",)), "middle of a number"),
    (raw(3, 1, 7), "middle of a set name"),
    (raw(3, 1, names=(b"ER-CORE",), tail=(2, 3)), "middle of a number"),
    (raw(3, 1, names=(b"ER-CORE",), tail=(1, 0)), "collector number 0"),
    (raw(3, 1, names=(b"ER-CORE",), tail=(1, 3, 3)), "trailing"),
    (raw(3, 2, names=(b"ER-CORE", b"ER-CORE"), tail=(0,)), "twice"),
    (raw(3, 0, 1, 3), "no set"),
    (raw(3, 10**6), "too many sets"),
    (raw(3, 1, names=(b"ER-CORE",), tail=(10**6,)), "too many cards"),
    (raw(3, 1, names=(b"\xff",), tail=(0,)), "characters"),
])
def test_hostile_version_3_codes(code, reason):
    with pytest.raises(ArmyCodeError, match=reason):
        decode_army_code(code)


@pytest.mark.parametrize("code, reason", [
    (raw(3), "The code ends in the middle of a number."),
    (raw(3, 2, names=(b"ER-CORE", b"ER-CORE"), tail=(0,)), "The code names the set ER-CORE twice."),
    (raw(3, 0, 1, 3), "The code names cards but no set."),
    (raw(3, 1, names=(b"ER-CORE",), tail=(1, 999 * 2)), "The code names cards this catalogue does not have: "
                                                         "ER-CORE-999."),
])
def test_bad_version_3_codes_answer_400_bad_army_code(catalogue, anon_client, code, reason):
    body = assert_error_shape(anon_client.get(DECODE, {"code": code}), 400, "bad_army_code")
    assert body["message"] == f"Bad army code: {reason}" and body["fields"] == {"code": [reason]}
    for url in (VALIDATE, EXPORT):
        assert_error_shape(anon_client.post(url, {"code": code}, format="json"), 400, "bad_army_code")
    # Version 3 is read; a version past it is not, as before.
    newer = assert_error_shape(anon_client.get(DECODE, {"code": raw(4, 0)}), 400, "bad_army_code")
    assert "newer than this server reads (up to 3)" in newer["message"]


# --- the API: codes, share links, decklists, saved armies, formations -----------------------------------

def test_the_same_cards_in_another_order_are_another_army_with_another_code(anon_client, built):
    canonical = sorted(built, key=lambda s: Character.objects.get(slug=s["card"]).code)
    first, second = post(anon_client, VALIDATE, {"slots": built}), post(anon_client, VALIDATE, {"slots": canonical})
    assert first["valid"] and second["valid"]
    assert first["code"] != second["code"] and first["share_url"] != second["share_url"]
    # The attack-order preview lists the tied cards in army order.
    six = next(group for group in first["stats"]["attack_order"] if group["spd"] == 6)
    assert six["tie"] and [unit["card"] for unit in six["units"]] == TIED


def test_code_share_link_and_export_give_the_army_back_in_its_order(anon_client, built):
    report = post(anon_client, VALIDATE, {"slots": built})
    decoded = anon_client.get(report["share_url"]).json()
    assert decoded["version"] == 3 and decoded["slots"] == built and decoded["code"] == report["code"]
    assert post(anon_client, VALIDATE, {"code": report["code"]})["stats"] == report["stats"]
    for fmt in ("text", "json"):
        exported = post(anon_client, EXPORT, {"code": report["code"], "format": fmt})
        assert exported["slots"] == built and exported["code"] == report["code"]
    characters = post(anon_client, EXPORT, {"code": report["code"], "format": "json"})["characters"]
    assert [c["slug"] for c in characters] == names(built)
    text = post(anon_client, EXPORT, {"code": report["code"]})["text"]
    back = post(anon_client, IMPORT, {"text": text})
    assert back["slots"] == built and back["code"] == report["code"] and back["problems"] == []


def test_a_saved_army_keeps_its_order_in_the_database_and_in_every_answer(user_client, user, built):
    created = post(user_client, ARMIES, {"name": "Tied", "slots": built}, status=201)
    assert created["slots"] == built
    army = Army.objects.get(pk=created["id"])
    army.refresh_from_db()
    assert army.slots == built  # the database hands the JSON list back in the order saved
    shown = user_client.get(f"{ARMIES}{army.pk}/").json()
    assert shown["slots"] == built and shown["code"] == post(user_client, VALIDATE, {"slots": built})["code"]
    listed = user_client.get(ARMIES).json()["results"]
    assert [a["slots"] for a in listed] == [built]
    reordered = [built[2], built[1], built[0], *built[3:]]
    patched = user_client.patch(f"{ARMIES}{army.pk}/", {"slots": reordered}, format="json").json()
    assert patched["slots"] == reordered and patched["code"] != shown["code"]
    army.refresh_from_db()
    assert army.slots == reordered


def test_a_formation_round_army_code_keeps_the_order_of_deployment(anon_client, built):
    other = faction_army("iron-kingdom")
    deployments = []
    for mine, theirs in zip(built, other, strict=True):
        deployments += [{"player": "a", **mine}, {"player": "b", **theirs}]
    body = post(anon_client, FORMATION, {"first": "a", "deployments": deployments})
    assert body["valid"] and body["complete"]
    code = body["armies"]["a"]["code"]
    assert code == post(anon_client, VALIDATE, {"slots": built})["code"]
    assert anon_client.get(DECODE, {"code": code}).json()["slots"] == built


# --- a match plays what was built ---------------------------------------------------------------------

def _builder_slots(client, url: str) -> list[dict]:
    """The army a builder page holds, in its order (its hidden inputs)."""
    html = client.get(url).content.decode()
    pairs = re.findall(r'<input type="hidden" name="card" value="([^"]+)"><input type="hidden" name="line" '
                       r'value="([^"]+)">', html)
    return [{"card": card, "line": line} for card, line in pairs]


def _log(client, army: dict) -> list[dict]:
    """The event log of a seeded match of `army` (as player a) against a fixed opponent."""
    body = post(client, PLAY, {"armies": {"a": army, "b": {"slots": faction_army("iron-kingdom")}},
                               "agents": {"a": "greedy", "b": "greedy"}, "seed": 2024,
                               "options": {"tie_break": "alternate"}}, status=201)
    return Match.objects.get(pk=body["id"]).events


def test_a_match_plays_the_army_as_built_after_every_round_trip(client, user_client, user, built):
    as_built = _log(user_client, {"slots": built})
    report = post(user_client, VALIDATE, {"slots": built})
    # The order matters: the same cards listed by card code play another match.
    canonical = sorted(built, key=lambda s: Character.objects.get(slug=s["card"]).code)
    assert _log(user_client, {"slots": canonical}) != as_built

    # Its code, as the API and the builder give it.
    assert _log(user_client, {"code": report["code"]}) == as_built
    builder_code = re.search(r'id="army-code" type="text" readonly value="([^"]+)"',
                             client.get(BUILDER, {"code": report["code"]}).content.decode()).group(1)
    assert builder_code == report["code"]
    # Its share links: the API's decode answer and the builder page opened from the link.
    decoded = user_client.get(report["share_url"]).json()["slots"]
    assert _log(user_client, {"slots": decoded}) == as_built
    share = re.search(r'id="army-share" type="text" readonly value="([^"]+)"',
                      client.get(BUILDER, {"code": report["code"]}).content.decode()).group(1)
    assert _log(user_client, {"slots": _builder_slots(client, share.replace("&amp;", "&"))}) == as_built
    # Its decklist, exported then imported.
    text = post(user_client, EXPORT, {"slots": built})["text"]
    assert _log(user_client, {"slots": post(user_client, IMPORT, {"text": text})["slots"]}) == as_built
    # A saved army, played by its id and opened in the builder.
    saved = post(user_client, ARMIES, {"name": "As built", "slots": built}, status=201)
    assert _log(user_client, {"army": saved["id"]}) == as_built
    assert _log(user_client, {"code": saved["code"]}) == as_built
    client.force_login(user)
    assert _log(user_client, {"slots": _builder_slots(client, f"{BUILDER}?army={saved['id']}")}) == as_built
