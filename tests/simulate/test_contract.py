"""The simulate endpoints answer exactly what their OpenAPI schema says: every answer validates against
its documented schema with every object closed (a field the schema does not name fails), and bodies are
refused as the schema refuses them (unknown keys, JSON types, bounds), with fields by dotted path."""

from typing import Any

import pytest
from django.core.cache import cache
from jsonschema import Draft7Validator
from rest_framework.test import APIClient

from simulate import batches, studies
from simulate.models import Batch, Match
from tests.conftest import assert_error_shape
from tests.factories import faction_army
from tests.simulate.test_legends_matches_api import DUEL, teams_setup

pytestmark = pytest.mark.django_db

DROPPED = {"discriminator", "readOnly", "writeOnly", "example", "examples", "deprecated"}


def closed(node):
    """An OpenAPI 3.0 schema as JSON Schema, every object with properties closed to other keys."""
    if isinstance(node, list):
        return [closed(item) for item in node]
    if not isinstance(node, dict):
        return node
    schema: dict[str, Any] = {}
    for key, value in node.items():
        if key in DROPPED:
            continue
        if key == "properties":
            schema[key] = {name: closed(item) for name, item in value.items()}
        else:
            schema[key] = closed(value)
    if "properties" in schema and "additionalProperties" not in schema:
        schema["additionalProperties"] = False
    if schema.pop("nullable", False):
        schema = {"anyOf": [schema, {"type": "null"}]}
    return schema


@pytest.fixture(scope="module")
def openapi(django_db_blocker):
    with django_db_blocker.unblock():
        response = APIClient().get("/api/schema/?format=json")
    assert response.status_code == 200
    return response.json()


@pytest.fixture
def contract(openapi):
    """check(response, path, method): the answer validates against the schema of its path, method and status."""
    components = closed(openapi["components"])

    def schema_for(path, method, status):
        answer = openapi["paths"][path][method]["responses"][str(status)]
        return {**closed(answer["content"]["application/json"]["schema"]), "components": components}

    def problems(body, path, method, status) -> list[str]:
        errors = sorted(Draft7Validator(schema_for(path, method, status)).iter_errors(body), key=str)
        return [f"{list(e.absolute_path)}: {e.message[:300]}" for e in errors[:5]]

    def check(response, path, method="post"):
        assert str(response.status_code) in openapi["paths"][path][method]["responses"], response.content
        found = problems(response.json(), path, method, response.status_code)
        assert not found, "\n".join(found)
        return response.json()

    check.problems = problems  # type: ignore[attr-defined]  # the fixture's function carries its checker  # type: ignore[attr-defined]  # the fixture's function carries its checker
    return check


def request_schema(openapi, path):
    schema = openapi["paths"][path]["post"]["requestBody"]["content"]["application/json"]["schema"]
    return Draft7Validator({**closed(schema), "components": closed(openapi["components"])})


@pytest.fixture
def armies(catalogue):
    return {"a": {"slots": faction_army("arcane")}, "b": {"slots": faction_army("iron-kingdom")}}


REALMS_MATCH = "/api/simulate/realms/matches/"
LEGENDS_MATCH = "/api/simulate/legends/matches/"
REALMS_BATCH = "/api/simulate/realms/batches/"
LEGENDS_BATCH = "/api/simulate/legends/batches/"


# ----------------------------------------------------------------------------------------- answers


def test_realms_matches_answer_their_schema(anon_client, armies, contract):
    for body in ({"armies": armies, "agents": {"a": "greedy", "b": "random"}, "seed": 3,
                  "options": {"tie_break": "alternate"}},
                 {"formation": {"first": "b"}, "seed": 4},
                 {"armies": {"a": armies["a"], "b": {"code": "AQ"}}}):
        response = anon_client.post(REALMS_MATCH, body, format="json")
        if response.status_code == 201:
            match = contract(response, REALMS_MATCH)
            assert match["winner"] in ("a", "b", None)
            contract(anon_client.get(match["url"]), "/api/simulate/matches/{id}/", "get")
            contract(anon_client.get(match["log"], {"page_size": 200}), "/api/simulate/matches/{id}/log/", "get")
        else:
            contract(response, REALMS_MATCH)


def test_the_check_itself_fails_on_an_undocumented_field_or_a_wrong_type(anon_client, catalogue, contract):
    match = contract(anon_client.post(LEGENDS_MATCH, {"setup": DUEL, "seed": 2}, format="json"), LEGENDS_MATCH)
    assert contract.problems({**match, "colour": "red"}, LEGENDS_MATCH, "post", 201)
    assert contract.problems({**match, "winner": "0"}, LEGENDS_MATCH, "post", 201)
    assert contract.problems({**match, "survivors": {}}, LEGENDS_MATCH, "post", 201)


def test_legends_matches_answer_their_schema_winner_a_team_index(anon_client, catalogue, contract):
    winners = set()
    for seed in range(4):
        for setup in (DUEL, teams_setup(protector="spy")):
            match = contract(anon_client.post(LEGENDS_MATCH, {"setup": setup, "seed": seed, "agents": "greedy"},
                                              format="json"), LEGENDS_MATCH)
            winners.add(match["winner"])
            assert len(match["remaining_defenses"]) == 2
            if match["winner"] is not None:
                assert match["remaining_defenses"][match["winner"]]
    assert winners <= {0, 1, None} and winners & {0, 1}
    contract(anon_client.get(match["url"]), "/api/simulate/matches/{id}/", "get")
    contract(anon_client.get(match["log"], {"page_size": 200}), "/api/simulate/matches/{id}/log/", "get")


def test_lists_of_matches_of_both_games_answer_their_schema(user_client, armies, contract):
    user_client.post(REALMS_MATCH, {"armies": armies, "seed": 1}, format="json")
    user_client.post(LEGENDS_MATCH, {"setup": DUEL, "seed": 1}, format="json")
    page = contract(user_client.get("/api/simulate/matches/"), "/api/simulate/matches/", "get")
    assert {match["game"] for match in page["results"]} == {"realms", "legends"}
    contract(user_client.get("/api/simulate/matches/", {"game": "legends", "winner": "0", "ordering": "rounds"}),
             "/api/simulate/matches/", "get")


def test_batches_answer_202_then_their_schema_as_they_play(user_client, armies, contract, local_runner,
                                                           django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        queued = [contract(user_client.post(REALMS_BATCH, {"armies": armies, "count": 3, "seed": 1}, format="json"),
                           REALMS_BATCH),
                  contract(user_client.post(LEGENDS_BATCH, {"setup": DUEL, "count": 3, "swap_sides": True},
                                            format="json"), LEGENDS_BATCH)]
    assert {batch["status"] for batch in queued} == {"queued"}
    assert queued[0]["summary"]["rounds"] == {"total": 0, "min": None, "max": None, "mean": None}
    assert queued[1]["summary"]["wins"] == [0, 0]
    local_runner.run_all()
    for batch in queued:
        done = contract(user_client.get(batch["url"]), "/api/simulate/batches/{id}/", "get")
        assert done["status"] == "done" and done["summary"]["rounds"]["mean"] is not None
    legends = user_client.get(queued[1]["url"]).json()
    assert sum(legends["summary"]["wins"]) + legends["summary"]["draws"] == 3
    contract(user_client.get("/api/simulate/batches/"), "/api/simulate/batches/", "get")


def test_a_batch_under_way_shows_its_figures_so_far(user_client, armies, contract, monkeypatch):
    monkeypatch.setattr(studies, "CHUNK_MATCHES", 2)
    batch = batches.create_batch(game="realms", inputs={"armies": armies}, count=10, seed=1, swap_sides=True)
    assert batches.run_chunk(batch.pk, 0)
    body = contract(APIClient().get(f"/api/simulate/batches/{batch.pk}/"), "/api/simulate/batches/{id}/", "get")
    assert (body["status"], body["played"], body["count"], body["chunks"]) == ("running", 2, 10, 5)
    results = body["results"]
    assert results["played"] == 2 == results["wins"] + results["draws"] + results["losses"]
    assert results["by_first"]["a"]["wins"] + results["by_first"]["b"]["wins"] == results["wins"]
    assert sum(results["rounds"]["histogram"].values()) == 2
    assert body["summary"]["rounds"]["mean"] == results["rounds"]["mean"]


def test_refusals_answer_the_error_schema(anon_client, armies, contract, monkeypatch):
    short = {"a": armies["a"], "b": {"slots": armies["b"]["slots"][:6]}}
    contract(anon_client.post(REALMS_MATCH, {"armies": short}, format="json"), REALMS_MATCH)
    contract(anon_client.post(REALMS_MATCH, {"armies": armies, "seed": -1}, format="json"), REALMS_MATCH)
    contract(anon_client.get("/api/simulate/matches/00000000-0000-0000-0000-000000000000/"),
             "/api/simulate/matches/{id}/", "get")
    contract(anon_client.get("/api/simulate/matches/", {"ordering": "seed"}), "/api/simulate/matches/", "get")
    from rest_framework.throttling import ScopedRateThrottle

    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"simulate": "1/minute", "batches": "1/minute"})
    cache.clear()
    anon_client.post(LEGENDS_MATCH, {"setup": DUEL}, format="json")
    contract(anon_client.post(LEGENDS_MATCH, {"setup": DUEL}, format="json"), LEGENDS_MATCH)


# ---------------------------------------------------------------------------------------- requests


@pytest.mark.parametrize("url, body, field", [
    (REALMS_MATCH, {"speed": "fast"}, "speed"),
    (REALMS_MATCH, {"options": {"speed": "fast"}}, "options.speed"),
    (REALMS_MATCH, {"agents": {"a": "greedy", "b": "greedy", "c": "greedy"}}, "agents.c"),
    (REALMS_BATCH, {"count": 2, "colour": "red"}, "colour"),
    (LEGENDS_MATCH, {"setup": {**DUEL, "colour": "red"}}, "setup.colour"),
    (LEGENDS_MATCH, {"setup": {"mode": "duel", "teams": [
        {"spirit": "akin", "players": [{"name": "Ann", "counter": 1}]},
        {"spirit": "yulin", "players": [{"name": "Cat", "counter": 2, "age": 9}]}]}}, "setup.teams.1.players.0.age"),
    (LEGENDS_BATCH, {"setup": DUEL, "count": 2, "options": {"tie_break": "random"}}, "options.tie_break"),
])
def test_unknown_keys_are_refused_by_name(anon_client, armies, openapi, url, body, field):
    if "realms" in url:
        body = {"armies": {"a": armies["a"], "b": {**armies["b"], "colour": "red"} if field == "armies.b.colour"
                           else armies["b"]}, **body}
    fields = assert_error_shape(anon_client.post(url, body, format="json"), 400, "invalid")["fields"]
    assert fields[field] == ["Unknown field."], fields
    assert not request_schema(openapi, url).is_valid(body)
    assert Match.objects.count() == Batch.objects.count() == 0


def test_an_unknown_key_of_an_army_is_refused_by_name(anon_client, armies):
    body = {"armies": {"a": armies["a"], "b": {**armies["b"], "colour": "red"}}}
    fields = assert_error_shape(anon_client.post(REALMS_MATCH, body, format="json"), 400, "invalid")["fields"]
    assert fields == {"armies.b.colour": ["Unknown field."]}


def test_bad_fields_are_named_by_dotted_paths(anon_client, armies, catalogue):
    slots = [dict(slot) for slot in armies["a"]["slots"]]
    slots[3]["line"] = "middle"
    response = anon_client.post(REALMS_MATCH, {"armies": {"a": {"slots": slots}, "b": armies["b"]}}, format="json")
    assert list(assert_error_shape(response, 400, "invalid")["fields"]) == ["armies.a.slots.3.line"]
    teams = [{"spirit": "akin", "players": [{"name": "Ann", "counter": 1}, {"name": "Ben", "counter": "three"}]},
             {"spirit": "yulin", "players": [{"name": "Cat", "counter": 2}, {"name": "Dan", "counter": 4}]}]
    response = anon_client.post(LEGENDS_MATCH, {"setup": {"mode": "teams", "teams": teams}}, format="json")
    assert list(assert_error_shape(response, 400, "invalid")["fields"]) == ["setup.teams.0.players.1.counter"]
    response = anon_client.post(LEGENDS_MATCH, {"setup": DUEL, "agents": ["greedy", "genius"]}, format="json")
    assert list(assert_error_shape(response, 400, "invalid")["fields"]) == ["agents.1"]


@pytest.mark.parametrize("url, body, field", [
    (REALMS_MATCH, {"seed": "5"}, "seed"),
    (REALMS_MATCH, {"seed": 1.5}, "seed"),
    (REALMS_MATCH, {"seed": True}, "seed"),
    (REALMS_MATCH, {"options": {"max_rounds": "20"}}, "options.max_rounds"),
    (REALMS_BATCH, {"count": "10"}, "count"),
    (REALMS_BATCH, {"count": 2, "swap_sides": "true"}, "swap_sides"),
    (REALMS_BATCH, {"count": 2, "swap_sides": 1}, "swap_sides"),
    (REALMS_BATCH, {"count": 500_001}, "count"),
    (LEGENDS_MATCH, {"setup": {"mode": "duel", "teams": [{"spirit": 5, "players": []}, {"players": []}]}},
     "setup.teams.0.spirit"),
    (LEGENDS_MATCH, {"setup": DUEL, "agents": 3}, "agents"),
    (LEGENDS_MATCH, {"setup": {"setup": "4"}}, "setup.setup"),
])
def test_json_types_and_bounds_are_those_of_the_schema(anon_client, armies, openapi, url, body, field):
    if "realms" in url:
        body = {"armies": armies, **body}
    fields = assert_error_shape(anon_client.post(url, body, format="json"), 400, "invalid")["fields"]
    assert field in fields, fields
    assert not request_schema(openapi, url).is_valid(body)


@pytest.mark.parametrize("url, body", [
    (REALMS_MATCH, {"armies": "ARMIES", "agents": {"a": "search", "b": "random"}, "seed": 2**63 - 1,
                    "options": {"tie_break": "alternate", "max_rounds": 200, "max_actions": 100_000,
                                "first_player": "b"}}),
    (REALMS_MATCH, {"formation": {"collections": {"a": None}, "first": "a"}}),
    (REALMS_BATCH, {"armies": "ARMIES", "count": 5, "swap_sides": True, "seed": 2**63 - 5}),
    (LEGENDS_MATCH, {"mode": "duel", "setup": DUEL, "agents": ["greedy", "search"], "options": {"max_rounds": 3}}),
    (LEGENDS_BATCH, {"setup": teams_setup(defenses=None, protector="spy"), "agents": "random", "count": 2}),
])
def test_what_the_schema_admits_is_played(anon_client, armies, openapi, url, body):
    if body.get("armies") == "ARMIES":
        body = {**body, "armies": {"a": armies["a"], "b": {"code": "x"}}}
        code = anon_client.post("/api/realms/armies/validate/", armies["b"], format="json").json()["code"]
        body["armies"]["b"]["code"] = code
    assert request_schema(openapi, url).is_valid(body), list(request_schema(openapi, url).iter_errors(body))[:2]
    assert anon_client.post(url, body, format="json").status_code in (201, 202)


def test_the_schema_states_the_contract(openapi):
    components = openapi["components"]["schemas"]
    paths = openapi["paths"]
    assert set(paths[REALMS_BATCH]["post"]["responses"]) >= {"202", "400", "429"}
    assert "201" not in paths[REALMS_BATCH]["post"]["responses"]
    assert "remaining_defenses" in components["LegendsMatch"]["required"]
    winner = components["LegendsMatch"]["properties"]["winner"]
    assert winner["anyOf"] == [{"type": "integer", "enum": [0, 1]}] and winner["nullable"] is True
    assert components["LegendsSummary"]["properties"]["wins"]["items"]["type"] == "integer"
    assert components["RealmsMatch"]["properties"]["winner"]["nullable"] is True
    assert components["RealmsBatch"]["properties"]["finished_at"]["nullable"] is True
    seed = components["RealmsArmiesMatchRequest"]["properties"]["seed"]
    assert (seed["minimum"], seed["maximum"]) == (0, 2**63 - 1)
    count = components["LegendsBatchInputRequest"]["properties"]["count"]
    assert (count["minimum"], count["maximum"]) == (1, 500_000)  # an army search's games; other kinds held lower
    assert components["LegendsMatchInputRequest"]["additionalProperties"] is False


def test_a_study_whose_cards_were_replaced_renamed_or_edited_answers_its_schema(
        staff_client, catalogue, contract, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        batch = contract(staff_client.post(LEGENDS_BATCH, {"setup": DUEL, "count": 1}, format="json"), LEGENDS_BATCH)
    replaced, renamed = batch["catalogue"]["cards"]["legends.defensecard"][:2]
    card = staff_client.get(f"/api/legends/defenses/{replaced}/").json()
    assert staff_client.delete(f"/api/legends/defenses/{replaced}/").status_code == 204
    assert staff_client.post("/api/legends/defenses/", card, format="json").status_code == 201
    assert staff_client.patch(f"/api/legends/defenses/{renamed}/", {"slug": "renamed-wall"},
                              format="json").status_code == 200
    for url, path in ((batch["url"], "/api/simulate/batches/{id}/"), ("/api/simulate/batches/", "/api/simulate/batches/")):
        contract(staff_client.get(url), path, "get")
    since = staff_client.get(batch["url"]).json()["catalogue"]["edited_since"]
    assert sorted((card["slug"], card["status"]) for card in since) == [
        (replaced, "added"), (replaced, "deleted"), ("renamed-wall", "changed")]
    changes = next(card["changes"] for card in since if card["slug"] == "renamed-wall")
    assert {"field": "slug", "before": renamed, "after": "renamed-wall"} in changes
