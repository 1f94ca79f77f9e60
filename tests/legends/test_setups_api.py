"""Team setups: the validate action (anyone) and saved setups (owner only), over the official catalogue."""

import copy

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from legends.models import TeamSetup
from tests.conftest import assert_error_shape

pytestmark = pytest.mark.django_db

VALIDATE = "/api/legends/setups/validate/"
SETUPS = "/api/legends/setups/"

TEAMS = [
    {"spirit": "akin", "protector": "spy", "defenses": ["steam-wall", "magma-rampart", "dust-tower"],
     "players": [{"name": "Ann", "counter": 1}, {"name": "Ben", "counter": 3}]},
    {"spirit": "yulin", "protector": "archivist", "defenses": ["mist-curtain", "reef-barrier", "ember-veil"],
     "players": [{"name": "Cat", "counter": 2}, {"name": "Dan", "counter": 4}]},
]
DUEL = [
    {"spirit": "yulin", "protector": "tide-keeper", "defenses": ["steam-wall", "dust-tower"],
     "players": [{"name": "Ann", "counter": 1}]},
    {"spirit": "akin", "protector": "wanderer", "defenses": ["mist-curtain", "obsidian-gate"],
     "players": [{"name": "Cat", "counter": 2}]},
]


def teams() -> list[dict]:
    return copy.deepcopy(TEAMS)


def validate(client, mode: str, body_teams) -> dict:
    response = client.post(VALIDATE, {"mode": mode, "teams": body_teams}, format="json")
    assert response.status_code == 200, response.content
    return response.json()


# --- validate -------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode, setup", [("teams", TEAMS), ("duel", DUEL)])
def test_a_legal_setup(catalogue, anon_client, mode, setup):
    body = validate(anon_client, mode, setup)
    assert {k: body[k] for k in ("valid", "violations", "to_draw")} == {"valid": True, "violations": [], "to_draw": []}
    assert body["code"] and body["share_url"].endswith(body["code"])


def test_validate_is_open_to_everyone(catalogue, anon_client, user_client, staff_client):
    for client in (anon_client, user_client, staff_client):
        assert validate(client, "teams", TEAMS)["valid"] is True


def test_omitted_cards_are_reported_to_draw(catalogue, anon_client):
    setup = teams()
    del setup[0]["protector"]
    del setup[0]["defenses"]
    setup[1]["protector"] = None
    body = validate(anon_client, "teams", setup)
    assert body["valid"] is True
    assert body["to_draw"] == [
        {"team": 0, "kind": "protector", "count": 1},
        {"team": 0, "kind": "defense", "count": 3},
        {"team": 1, "kind": "protector", "count": 1},
    ]


def test_spy_in_a_duel_is_not_allowed(catalogue, anon_client):
    setup = copy.deepcopy(DUEL)
    setup[0]["protector"] = "spy"
    body = validate(anon_client, "duel", setup)
    assert body["valid"] is False
    assert body["violations"] == [{
        "code": "protector_not_allowed",
        "message": "The protector 'spy' is removed from the two-player variant.",
        "team": 0, "player": None, "card": "spy",
    }]


def test_cards_of_the_wrong_kind_are_unknown(catalogue, anon_client):
    setup = teams()
    setup[0]["defenses"][2] = "ember-ward-of-steam"  # a summoning card
    setup[1]["protector"] = "akin"  # a spirit
    body = validate(anon_client, "teams", setup)
    assert [(v["code"], v["team"], v["card"]) for v in body["violations"]] == [
        ("unknown_card", 1, "akin"), ("unknown_card", 0, "ember-ward-of-steam"),
    ]


def test_several_violations_at_once(catalogue, anon_client):
    setup = teams()
    setup[1]["spirit"] = "akin"
    setup[1]["protector"] = "spy"
    setup[1]["defenses"] = ["steam-wall", "reef-barrier"]
    setup[0]["players"][1]["counter"] = 2
    setup[1]["players"][0]["counter"] = 3
    body = validate(anon_client, "teams", setup)
    assert body["valid"] is False
    assert [v["code"] for v in body["violations"]] == [
        "spirit_duplicate", "protector_duplicate", "defense_count", "defense_duplicate",
        "counter_adjacent", "counter_adjacent",
    ]
    for violation in body["violations"]:
        assert set(violation) == {"code", "message", "team", "player", "card"} and violation["message"]


def test_catalogue_changes_are_seen(catalogue, anon_client, staff_client):
    assert staff_client.delete("/api/legends/protectors/archivist/").status_code == 204
    body = validate(anon_client, "teams", TEAMS)
    assert [(v["code"], v["card"]) for v in body["violations"]] == [("unknown_card", "archivist")]


def test_validate_runs_a_fixed_number_of_queries(catalogue, anon_client):
    with CaptureQueriesContext(connection) as ctx:
        validate(anon_client, "teams", TEAMS)
    assert len(ctx.captured_queries) == 4  # the catalogue's three slug lists, and the cards' codes


@pytest.mark.parametrize(
    "body, field, fragment",
    [
        ({"teams": TEAMS}, "mode", "required"),
        ({"mode": "solo", "teams": TEAMS}, "mode", "not a valid choice"),
        ({"mode": "teams"}, "teams", "required"),
        ({"mode": "teams", "teams": "akin vs yulin"}, "teams", "This field must be a list of teams."),
        ({"mode": "teams", "teams": [TEAMS[0], 7]}, "teams.1", "This field must be an object."),
        ({"mode": "teams", "teams": [{**TEAMS[0], "players": [{"name": "Ann", "counter": "one"}]}]},
         "teams.0.players.0.counter", "This field must be an integer."),
        ({"mode": "teams", "teams": [{**TEAMS[0], "defences": []}]}, "teams.0.defences", "is not a known field"),
        ({"mode": "teams", "teams": [{**TEAMS[0], "defenses": "steam-wall"}]}, "teams.0.defenses",
         "This field must be a list of card slugs"),
        ({"mode": "teams", "teams": [TEAMS[0]] * 9}, "teams", "This field must hold at most 8 teams."),
        ({"mode": "teams", "teams": TEAMS, "seed": 1}, "seed", "Unknown field."),
    ],
)
def test_structural_problems_are_400(catalogue, anon_client, body, field, fragment):
    response = anon_client.post(VALIDATE, body, format="json")
    error = assert_error_shape(response, 400, "invalid")
    assert field in error["fields"], error
    assert any(fragment in message for message in error["fields"][field]), error


def test_non_object_bodies_are_400(catalogue, anon_client):
    assert_error_shape(anon_client.post(VALIDATE, [1, 2], format="json"), 400, "invalid")
    response = anon_client.generic("POST", VALIDATE, '{"mode": "teams", ', content_type="application/json")
    assert_error_shape(response, 400, "parse_error")
    response = anon_client.generic("POST", VALIDATE, "mode=teams", content_type="text/plain")
    assert_error_shape(response, 415, "unsupported_media_type")


def test_validate_only_accepts_post(catalogue, anon_client):
    assert_error_shape(anon_client.get(VALIDATE), 405, "method_not_allowed")


# --- saved setups ---------------------------------------------------------------------------------


@pytest.fixture
def saved(catalogue, user):
    return TeamSetup.objects.create(owner=user, name="Friday night", mode="teams", teams=teams())


def test_owner_creates_reads_updates_and_deletes(catalogue, user_client):
    created = user_client.post(SETUPS, {"name": "Friday", "mode": "teams", "teams": TEAMS}, format="json")
    assert created.status_code == 201, created.content
    body = created.json()
    assert body["owner"] == "alice" and body["valid"] is True and body["violations"] == [] and body["to_draw"] == []
    url = f"{SETUPS}{body['id']}/"
    broken = teams()
    broken[1]["protector"] = "spy"
    updated = user_client.patch(url, {"teams": broken}, format="json")
    assert updated.status_code == 200, updated.content
    assert updated.json()["valid"] is False
    assert [v["code"] for v in updated.json()["violations"]] == ["protector_duplicate"]
    shown = user_client.get(url).json()
    assert shown["teams"] == broken and shown["valid"] is False
    assert user_client.delete(url).status_code == 204
    assert not TeamSetup.objects.exists()


def test_a_draft_may_be_saved_and_shows_what_is_wrong(catalogue, user_client):
    draft = [{"spirit": "akin", "players": [{"name": "Ann", "counter": 1}]}]
    body = user_client.post(SETUPS, {"name": "Draft", "mode": "duel", "teams": draft}, format="json").json()
    assert body["valid"] is False
    assert [v["code"] for v in body["violations"]] == ["team_count"]
    assert body["to_draw"] == [{"team": 0, "kind": "protector", "count": 1}, {"team": 0, "kind": "defense", "count": 2}]


def test_validity_follows_the_catalogue(saved, user_client, staff_client):
    assert user_client.get(f"{SETUPS}{saved.pk}/").json()["valid"] is True
    # A card a saved setup names cannot be deleted (409), but staff may still edit it.
    assert_error_shape(staff_client.delete("/api/legends/defenses/dust-tower/"), 409, "protected")
    response = staff_client.patch("/api/legends/defenses/dust-tower/", {"slug": "dust-tower-2"}, format="json")
    assert response.status_code == 200, response.content
    body = user_client.get(f"{SETUPS}{saved.pk}/").json()
    assert body["valid"] is False and body["violations"][0]["card"] == "dust-tower"


def test_saved_setups_need_a_well_formed_body(catalogue, user_client):
    response = user_client.post(SETUPS, {"name": "Bad", "mode": "teams", "teams": [{"spirit": 1}]}, format="json")
    body = assert_error_shape(response, 400, "invalid")
    assert body["fields"] == {
        "teams.0.spirit": ["This field must be a card slug (a non-empty string)."],
        "teams.0.players": ["This field is required."],
    }
    assert body["message"] == "teams.0.spirit: This field must be a card slug (a non-empty string)."
    response = user_client.post(SETUPS, {"name": "Bad", "mode": "trio", "teams": []}, format="json")
    assert "mode" in assert_error_shape(response, 400, "invalid")["fields"]
    response = user_client.post(SETUPS, {"mode": "teams", "teams": []}, format="json")
    assert "name" in assert_error_shape(response, 400, "invalid")["fields"]
    assert not TeamSetup.objects.exists()


def test_anonymous_gets_401(saved, anon_client):
    assert_error_shape(anon_client.get(SETUPS), 401, "not_authenticated")
    assert_error_shape(anon_client.get(f"{SETUPS}{saved.pk}/"), 401)
    assert_error_shape(anon_client.post(SETUPS, {"name": "x", "mode": "teams", "teams": []}, format="json"), 401)


def test_another_user_sees_404_and_cannot_change_it(saved, other_client):
    assert other_client.get(SETUPS).json()["count"] == 0
    url = f"{SETUPS}{saved.pk}/"
    assert_error_shape(other_client.get(url), 404, "not_found")
    assert_error_shape(other_client.patch(url, {"name": "Mine"}, format="json"), 404)
    assert_error_shape(other_client.delete(url), 404)
    saved.refresh_from_db()
    assert saved.name == "Friday night"


def test_staff_cannot_read_someone_elses_setup(saved, staff_client):
    assert_error_shape(staff_client.get(f"{SETUPS}{saved.pk}/"), 404)


def test_the_owner_is_taken_from_the_request(catalogue, user_client, other_user):
    response = user_client.post(SETUPS, {"name": "Mine", "mode": "duel", "teams": DUEL, "owner": other_user.pk},
                                format="json")
    assert response.status_code == 201
    assert TeamSetup.objects.get().owner.username == "alice"


def test_non_numeric_id_is_404(saved, user_client):
    assert_error_shape(user_client.get(f"{SETUPS}friday/"), 404, "not_found")


def test_filters_search_and_ordering(catalogue, user, user_client):
    TeamSetup.objects.create(owner=user, name="Friday night", mode="teams", teams=teams())
    TeamSetup.objects.create(owner=user, name="Quick duel", mode="duel", teams=copy.deepcopy(DUEL))
    TeamSetup.objects.create(owner=user, name="Friday duel", mode="duel", teams=[])

    def names(query: str) -> list[str]:
        response = user_client.get(f"{SETUPS}?{query}")
        assert response.status_code == 200, response.content
        return [s["name"] for s in response.json()["results"]]

    assert names("mode=duel&ordering=name") == ["Friday duel", "Quick duel"]
    assert names("name=friday&ordering=-name") == ["Friday night", "Friday duel"]
    assert names("search=quick") == ["Quick duel"]
    assert_error_shape(user_client.get(f"{SETUPS}?mode=solo"), 400, "invalid")


def test_setup_list_runs_a_constant_number_of_queries(catalogue, user, user_client):
    for i in range(25):
        TeamSetup.objects.create(owner=user, name=f"Setup {i:02}", mode="teams", teams=teams())

    def count_queries(page_size: int) -> int:
        with CaptureQueriesContext(connection) as ctx:
            body = user_client.get(f"{SETUPS}?page_size={page_size}").json()
        assert len(body["results"]) == page_size and all(s["valid"] for s in body["results"])
        return len(ctx.captured_queries)

    assert count_queries(2) == count_queries(25)
