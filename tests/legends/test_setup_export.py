"""Setup export: a setup (mode and teams, or its code) with every card's full data, as the card APIs show it,
its code and share_url; round trips back through validate; unknown cards and bad codes are 400 naming the field."""

import copy

import pytest

from tests.conftest import assert_error_shape
from tests.legends.test_setups_api import DUEL, TEAMS
from tests.simulate.test_contract import contract, openapi  # noqa: F401  (fixtures)

pytestmark = pytest.mark.django_db
EXPORT, VALIDATE = "/api/legends/setups/export/", "/api/legends/setups/validate/"


def post(client, body):
    return client.post(EXPORT, body, format="json")


def back_to_input(team: dict) -> dict:
    """The slugs of an exported team, as validate takes them."""
    return {"spirit": team["spirit"]["slug"] if team["spirit"] else None, "players": team["players"],
            "protector": team["protector"]["slug"] if team["protector"] else None,
            "defenses": None if team["defenses"] is None else [d["slug"] for d in team["defenses"]]}


@pytest.mark.parametrize("mode, teams", [("teams", TEAMS), ("duel", DUEL)])
def test_round_trip(catalogue, anon_client, contract, mode, teams):  # noqa: F811
    validated = anon_client.post(VALIDATE, {"mode": mode, "teams": teams}, format="json").json()
    body = contract(post(anon_client, {"mode": mode, "teams": teams}), EXPORT)
    assert body["mode"] == mode and body["code"] == validated["code"] and body["share_url"] == validated["share_url"]
    assert {k: body[k] for k in ("valid", "violations", "to_draw")} == {
        k: validated[k] for k in ("valid", "violations", "to_draw")}
    for got, given in zip(body["teams"], teams, strict=True):
        assert got["spirit"] == anon_client.get(f"/api/legends/spirits/{given['spirit']}/").json()
        assert got["protector"] == anon_client.get(f"/api/legends/protectors/{given['protector']}/").json()
        assert [d["slug"] for d in got["defenses"]] == given["defenses"]
        assert all(d["code"].startswith("AL-") for d in got["defenses"])
    again = anon_client.post(VALIDATE, {"mode": mode, "teams": [back_to_input(t) for t in body["teams"]]},
                             format="json").json()
    assert again["code"] == body["code"]
    by_code = contract(post(anon_client, {"code": body["code"]}), EXPORT)
    assert by_code["code"] == body["code"] and by_code["mode"] == mode
    for got, given in zip(by_code["teams"], body["teams"], strict=True):
        assert got["spirit"] == given["spirit"] and got["protector"] == given["protector"]
        assert sorted(d["code"] for d in got["defenses"]) == sorted(d["code"] for d in given["defenses"])


def test_cards_left_to_draw_are_null(catalogue, anon_client, contract):  # noqa: F811
    teams = copy.deepcopy(DUEL)
    del teams[0]["protector"], teams[0]["defenses"]
    body = contract(post(anon_client, {"mode": "duel", "teams": teams}), EXPORT)
    assert body["teams"][0]["protector"] is None and body["teams"][0]["defenses"] is None
    assert body["to_draw"] and body["code"]


@pytest.mark.parametrize("where, field", [
    (lambda t: t[0].update(spirit="nobody"), "teams.0.spirit"),
    (lambda t: t[1].update(protector="steam-wall"), "teams.1.protector"),
    (lambda t: t[1]["defenses"].__setitem__(1, "nobody"), "teams.1.defenses.1"),
])
def test_unknown_cards_are_400_naming_the_field(catalogue, anon_client, contract, where, field):  # noqa: F811
    teams = copy.deepcopy(DUEL)
    where(teams)
    response = post(anon_client, {"mode": "duel", "teams": teams})
    assert_error_shape(response, 400, "invalid")
    assert list(response.json()["fields"]) == [field]
    contract(response, EXPORT)


@pytest.mark.parametrize("body, field", [
    ({"code": "!!!"}, "code"), ({"code": ""}, "code"), ({"code": "A" * 5000}, "code"), ({"code": 7}, "code"),
    ({"code": "AQ", "mode": "duel"}, "non_field_errors"), ({}, "mode"), ({"mode": "duel"}, "teams"),
    ({"mode": "solo", "teams": []}, "mode"), ({"mode": "duel", "teams": "x"}, "teams"),
    ({"mode": "duel", "teams": [], "colour": "red"}, "colour"),
    ({"mode": "duel", "teams": [{"players": [{"name": "A", "counter": "one"}]}]}, "teams.0.players.0.counter"),
])
def test_hostile_bodies_are_400_naming_the_field(catalogue, anon_client, contract, body, field):  # noqa: F811
    response = post(anon_client, body)
    fields = assert_error_shape(response, 400, "invalid")["fields"]
    assert field in fields, fields
    contract(response, EXPORT)


def test_a_code_naming_an_unknown_card_is_400(catalogue, anon_client):
    import base64
    import json
    raw = json.dumps([1, "duel", [["AL-EOTP-999", [["Ann", 1]], None, None]]]).encode()
    code = base64.urlsafe_b64encode(raw).decode().rstrip("=")
    fields = assert_error_shape(post(anon_client, {"code": code}), 400, "invalid")["fields"]
    assert "AL-EOTP-999" in fields["code"][0]
