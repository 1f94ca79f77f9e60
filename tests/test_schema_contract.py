"""The OpenAPI schema is an exact contract: it validates, documents every error answer in the one shape,
says who may call what, and a client generated from it (openapi-python-client) calls the service."""

import importlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from drf_spectacular.generators import SchemaGenerator
from rest_framework.authtoken.models import Token

from tests.conftest import official_fixture_files

ERROR_REF = {"$ref": "#/components/schemas/Error"}
ALWAYS = {"401", "406", "429"}


@pytest.fixture(scope="module")
def schema():
    return SchemaGenerator().get_schema(request=None, public=True)


def operations(schema):
    for path, methods in schema["paths"].items():
        for method, operation in methods.items():
            yield path, method, operation


def test_the_schema_validates_without_warnings(tmp_path):
    call_command("spectacular", validate=True, fail_on_warn=True, file=str(tmp_path / "schema.yaml"))


def test_every_operation_documents_its_error_answers_in_the_error_shape(schema):
    error = schema["components"]["schemas"]["Error"]
    assert error["required"] == ["message", "code"] and error["additionalProperties"] is False
    for path, method, operation in operations(schema):
        responses = operation["responses"]
        parameters = operation.get("parameters", [])
        expected = set(ALWAYS)
        if "requestBody" in operation:
            expected |= {"400", "413", "415"}
        if any(p["in"] == "query" for p in parameters):
            expected.add("400")
        if any(p["in"] == "path" for p in parameters) or any(p["name"] == "page" for p in parameters):
            expected.add("404")
        if method not in ("get", "head", "options"):
            expected.add("403")
        assert expected <= set(responses), (method, path, sorted(responses))
        for status, response in responses.items():
            if status.startswith("4"):
                assert response["content"] == {"application/json": {"schema": ERROR_REF}}, (method, path, status)


def test_deletes_others_protect_document_409(schema):
    assert "409" in schema["paths"]["/api/rarities/{slug}/"]["delete"]["responses"]
    assert "409" in schema["paths"]["/api/legends/elements/{slug}/"]["delete"]["responses"]
    assert "409" not in schema["paths"]["/api/collections/{id}/"]["delete"]["responses"]


@pytest.mark.parametrize("method, path, anonymous", [
    ("get", "/api/cards/", True),
    ("get", "/api/realms/characters/{slug}/", True),
    ("post", "/api/realms/armies/validate/", True),
    ("get", "/api/realms/armies/decode/", True),
    ("post", "/api/legends/setups/validate/", True),
    ("post", "/api/rarities/", False),
    ("get", "/api/collections/", False),
    ("get", "/api/realms/armies/", False),
    ("delete", "/api/cards/{slug}/image/", False),
])
def test_security_lets_anonymous_clients_in_where_the_service_does(schema, method, path, anonymous):
    security = schema["paths"][path][method]["security"]
    assert ({} in security) is anonymous
    assert {"tokenAuth": []} in security


def test_request_bodies_are_json_but_where_forms_make_sense(schema):
    for path, method, operation in operations(schema):
        if "requestBody" not in operation:
            continue
        types = set(operation["requestBody"]["content"])
        if path == "/api/cards/{slug}/image/":
            assert types == {"multipart/form-data"}
        elif path == "/api/auth/token/":
            assert "application/json" in types
        else:
            assert types == {"application/json"}, (method, path, types)


def test_strict_request_bodies_are_closed_and_text_has_no_nul(schema):
    components = schema["components"]["schemas"]
    for name in ("CollectionRequest", "ArmyInputRequest", "SlotRequest", "SetupInputRequest", "EntryDeltaRequest",
                 "FormationInputRequest", "RarityRequest", "PatchedCharacterRequest"):
        assert components[name]["additionalProperties"] is False, name
    assert components["CollectionRequest"]["properties"]["name"]["pattern"] == "^[^\\x00]*$"
    teams = components["SetupInputRequest"]["properties"]["teams"]
    assert teams["type"] == "array"
    assert teams["items"]["properties"]["players"]["items"]["required"] == ["name", "counter"]


def test_decode_documents_its_real_answer(schema):
    operation = schema["paths"]["/api/realms/armies/decode/"]["get"]
    ref = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    component = schema["components"]["schemas"][ref.rsplit("/", 1)[1]]
    assert component["required"] == ["code", "share_url", "sheet_url", "slots", "version"]
    assert component["properties"]["slots"]["type"] == "array"
    (code,) = operation["parameters"]
    assert code["required"] is True and code["schema"]["maxLength"] == 200


def test_nullable_fields_and_bounds(schema):
    components = schema["components"]["schemas"]
    assert components["Card"]["properties"]["rarity"]["nullable"] is True
    parameters = {p["name"]: p for p in schema["paths"]["/api/cards/"]["get"]["parameters"]}
    assert parameters["page_size"]["schema"] == {"type": "integer", "minimum": 1, "maximum": 200}
    assert parameters["page"]["schema"] == {"type": "integer", "minimum": 1}
    assert parameters["rarity_id"]["schema"] == {"type": "integer", "minimum": 0, "maximum": 2**63 - 1}
    assert parameters["search"]["schema"]["maxLength"] == 200
    assert components["PaginatedCardList"]["properties"]["count"]["minimum"] == 0
    delta = components["EntryDeltaRequest"]["properties"]["quantity"]
    assert (delta["minimum"], delta["maximum"]) == (1, 1_000_000)
    assert components["CollectionEntry"]["properties"]["quantity"]["maximum"] == 1_000_000
    assert components["ArmyInputRequest"]["properties"]["collection"]["maximum"] == 2**63 - 1
    assert "format" not in {p["name"] for _, _, op in operations(schema) for p in op.get("parameters", [])}


# --- a generated client -------------------------------------------------------------------------------

def generator() -> str | None:
    found = shutil.which("openapi-python-client") or str(Path(sys.executable).with_name("openapi-python-client"))
    return found if Path(found).exists() else None


@pytest.fixture(scope="module")
def client_package(tmp_path_factory, django_db_blocker):
    """A client generated from the schema into a temporary folder, importable as `cardsdb_client`."""
    command = generator()
    if command is None:
        pytest.skip("openapi-python-client is not installed")
    folder = tmp_path_factory.mktemp("client")
    schema_file = folder / "schema.json"
    with django_db_blocker.unblock():
        schema_file.write_text(json.dumps(SchemaGenerator().get_schema(request=None, public=True)))
    output = folder / "cardsdb_client"
    run = subprocess.run(
        [command, "generate", "--path", str(schema_file), "--meta", "none", "--output-path", str(output)],
        capture_output=True, text=True, timeout=300,
    )
    assert output.is_dir(), run.stdout + run.stderr
    sys.path.insert(0, str(folder))
    try:
        yield importlib.import_module("cardsdb_client")
    finally:
        sys.path.remove(str(folder))
        for name in [name for name in sys.modules if name.split(".")[0] == "cardsdb_client"]:
            del sys.modules[name]


def test_a_generated_client_calls_the_service(client_package, live_server, transactional_db, django_user_model):
    call_command("loaddata", *official_fixture_files(), verbosity=0)
    api = lambda name: importlib.import_module(f"cardsdb_client.api.{name}")  # noqa: E731
    models = importlib.import_module("cardsdb_client.models")
    anonymous = client_package.Client(base_url=live_server.url, raise_on_unexpected_status=True)

    cards = api("cards.cards_list").sync(client=anonymous, game=models.CardsListGame.REALMS, page_size=5)
    assert cards.count == 64 and len(cards.results) == 5 and cards.results[0].rarity is not None
    legends = api("cards.cards_list").sync(client=anonymous, game=models.CardsListGame.LEGENDS, page_size=1)
    assert legends.results[0].rarity is None

    slots = [models.SlotRequest(card=card.slug, line=models.LineEnum.VANGUARD) for card in cards.results[:2]]
    report = api("realms.realms_armies_validate_create").sync(client=anonymous, body=models.ArmyInputRequest(slots=slots))
    assert isinstance(report, models.ArmyValidation) and report.valid is False

    bad = [models.SlotRequest(card="x", line=models.LineEnum.VANGUARD)]
    error = api("realms.realms_armies_validate_create").sync(
        client=anonymous, body=models.ArmyInputRequest(slots=bad, code="AQA")
    )
    assert isinstance(error, models.Error) and error.code == "invalid"

    Player = models.SetupInputRequestTeamsItemPlayersItem  # noqa: N806
    Team = models.SetupInputRequestTeamsItem  # noqa: N806
    teams = [
        Team(spirit="akin", players=[Player(name="Ann", counter=1), Player(name="Ben", counter=3)]),
        Team(spirit="yulin", players=[Player(name="Cat", counter=2), Player(name="Dan", counter=4)]),
    ]
    setup = api("legends.legends_setups_validate_create").sync(
        client=anonymous, body=models.SetupInputRequest(mode=models.ModeEnum.TEAMS, teams=teams)
    )
    assert isinstance(setup, models.SetupValidation), setup

    user = django_user_model.objects.create_user("client-user", password="client-password-1")
    signed_in = client_package.AuthenticatedClient(
        base_url=live_server.url, token=Token.objects.create(user=user).key, prefix="Token",
    )
    collection = api("collections.collections_create").sync(client=signed_in, body=models.CollectionRequest(name="Binder"))
    assert isinstance(collection, models.Collection), collection
    entry = api("collections.collections_add_create").sync(
        id=collection.id, client=signed_in, body=models.EntryDeltaRequest(card=cards.results[0].slug, quantity=3),
    )
    assert entry.quantity == 3
    missing = api("collections.collections_add_create").sync(
        id=collection.id, client=signed_in, body=models.EntryDeltaRequest(card="no-such-card"),
    )
    assert isinstance(missing, models.Error) and "card" in missing.fields.additional_properties
    assert api("collections.collections_list").sync(client=anonymous).code == "not_authenticated"


def test_every_list_and_the_match_log_describe_their_warnings(schema):
    pages = [(path, operation["responses"]["200"]["content"]["application/json"]["schema"])
             for path, method, operation in operations(schema)
             if method == "get" and any(p["name"] == "page" for p in operation.get("parameters", []))]
    assert len(pages) > 15 and "/api/simulate/matches/{id}/log/" in dict(pages)
    for path, answer in pages:
        if "$ref" in answer:
            answer = schema["components"]["schemas"][answer["$ref"].rsplit("/", 1)[1]]
        assert answer["required"] == ["count", "next", "previous", "warnings", "results"], path
        warning = answer["properties"]["warnings"]["items"]
        assert warning["required"] == ["message", "parameter"], path
        assert set(warning["properties"]) == {"message", "parameter", "position"}, path


def test_every_list_takes_its_query_parameters_empty_as_it_answers_them(schema, anon_client):
    lists = paged_lists(schema)
    assert len(lists) > 15
    check_query_parameters_allow_empty(lists)
    game = next(p for p in dict(lists)["/api/simulate/matches/"]["parameters"] if p["name"] == "game")
    assert game["schema"]["enum"] == ["legends", "realms"]  # the values it reads are still named as they are
    answer = anon_client.get("/api/simulate/matches/?game=")
    assert answer.status_code == 200
    assert answer.json()["warnings"] == [{"message": "`game` is empty: ignored.", "parameter": "game"}]


def paged_lists(schema: dict) -> list[tuple[str, dict]]:
    """Every list of the API (a paged GET on a path without an id), with its operation."""
    return [(path, operation) for path, method, operation in operations(schema)
            if method == "get" and "{" not in path and any(p["name"] == "page" for p in operation.get("parameters", []))]


def check_query_parameters_allow_empty(lists: list[tuple[str, dict]]) -> None:
    """Each list declares every query parameter it takes as allowing an empty value."""
    for path, operation in lists:
        query = [p for p in operation["parameters"] if p["in"] == "query"]
        assert all(p.get("allowEmptyValue") is True for p in query), path
