"""Setup codes: built from card codes, so they decode on any server; hostile codes are a clear 400."""

import base64
import json

import pytest

from cardsdb.models import Card
from tests.conftest import assert_error_shape
from tests.legends.test_setups_api import DUEL, TEAMS

pytestmark = pytest.mark.django_db
VALIDATE, DECODE, SETUPS = "/api/legends/setups/validate/", "/api/legends/setups/decode/", "/api/legends/setups/"


def b64(value) -> str:
    raw = value if isinstance(value, bytes) else json.dumps(value).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


@pytest.mark.parametrize("mode, teams", [("teams", TEAMS), ("duel", DUEL)])
def test_round_trip(catalogue, anon_client, mode, teams):
    body = anon_client.post(VALIDATE, {"mode": mode, "teams": teams}, format="json").json()
    decoded = anon_client.get(body["share_url"]).json()
    assert decoded["mode"] == mode and decoded["code"] == body["code"] and decoded["version"] == 1
    for got, given in zip(decoded["teams"], teams, strict=True):
        assert got["spirit"] == given["spirit"] and got["protector"] == given["protector"]
        assert sorted(got["defenses"]) == sorted(given["defenses"]) and got["players"] == given["players"]
    shuffled = [{**t, "defenses": list(reversed(t["defenses"]))} for t in teams]
    assert anon_client.post(VALIDATE, {"mode": mode, "teams": shuffled}, format="json").json()["code"] == body["code"]


def test_the_code_names_card_codes_and_survives_other_keys(catalogue, anon_client):
    code = anon_client.post(VALIDATE, {"mode": "duel", "teams": DUEL}, format="json").json()["code"]
    text = base64.urlsafe_b64decode(code + "=" * (-len(code) % 4)).decode()
    assert "AL-EOTP-" in text and "tide-keeper" not in text


def test_a_saved_setup_shows_its_code(catalogue, user_client):
    body = user_client.post(SETUPS, {"name": "Duel", "mode": "duel", "teams": DUEL}, format="json").json()
    assert body["code"] and body["share_url"].startswith("http://testserver/api/legends/setups/decode/?code=")


def test_an_unknown_card_gives_no_code(catalogue, anon_client):
    teams = json.loads(json.dumps(DUEL))
    teams[0]["protector"] = "nobody"
    assert anon_client.post(VALIDATE, {"mode": "duel", "teams": teams}, format="json").json()["code"] is None


@pytest.mark.parametrize("code, fragment", [
    ("", "code"), ("!!!", "base64"), ("A" * 5000, "4000"), (b64([2, "duel", []]), "newer"),
    (b64([1, "solo", []]), "mode"), (b64({"a": 1}), "not a setup code"), (b64([1, "duel", [[1, [], None, None]]]),
                                                                         "other than its code"),
    (b64([1, "duel", [["AL-EOTP-999", [["Ann", 1]], None, None]]]), "AL-EOTP-999"),
    (b64([1, "duel", [["AL-EOTP-001", "x", None, None]]]), "unknown shape"),
    (b64([1, "duel", [["AL-EOTP-001", [["Ann", "one"]], None, None]]]), "malformed"),
    (b64(b"[" * 3000), "not a setup code"), (b64(b"\xff\xfe"), "not a setup code"),
])
def test_hostile_codes_are_400(catalogue, anon_client, code, fragment):
    body = assert_error_shape(anon_client.get(DECODE, {"code": code}), 400, "invalid")
    assert fragment in body["message"] or fragment in str(body["fields"]), body
    assert Card.objects.filter(code="AL-EOTP-001").exists()


@pytest.mark.parametrize("defenses", ["AL-EOTP-001", 5, {"a": 1}])
def test_a_code_whose_defenses_are_not_a_list_is_400(catalogue, anon_client, defenses):
    code = b64([1, "duel", [[None, [["Ann", 1]], None, defenses]]])
    body = assert_error_shape(anon_client.get(DECODE, {"code": code}), 400, "invalid")
    assert "unknown shape" in body["message"], body
