"""The API offers the choices the pages and the command line offer: a study's random armies (of the catalogue or
of one faction, drawn from its seed) and an Akin Legends match or matchup on a random setup."""

import random

import pytest

from realms import services
from realms.models import Character
from realms.studies import command_army
from simulate.models import Batch
from tests.conftest import assert_error_shape

pytestmark = pytest.mark.django_db

REALMS_BATCHES = "/api/simulate/realms/batches/"
LEGENDS_MATCHES = "/api/simulate/legends/matches/"
LEGENDS_BATCHES = "/api/simulate/legends/batches/"


def drawn(seed: int, *specs: str) -> list[list[dict]]:
    """The armies `manage.py simulate_batch` draws for these specs from `seed`, in order."""
    rng = random.Random(seed)
    return [command_army(spec, rng) for spec in specs]


def post_batch(client, url, body, status=202) -> dict:
    response = client.post(url, body, format="json")
    assert response.status_code == status, response.content
    return response.json()


# Echo Realms studies draw armies ----------------------------------------------------------------------------------


def test_a_matchup_of_a_random_army_and_a_factions_army_records_the_armies_drawn_from_its_seed(anon_client, catalogue):
    answer = post_batch(anon_client, REALMS_BATCHES, {
        "armies": {"a": {"random": True}, "b": {"faction": "shadow"}}, "count": 4, "seed": 77})
    batch = Batch.objects.get(pk=answer["id"])
    a, b = drawn(77, "random", "faction:shadow")
    assert batch.seed == 77
    assert batch.inputs["armies"] == {"a": {"slots": a}, "b": {"slots": b}}
    assert answer["inputs"]["armies"]["b"]["slots"] == b
    shadow = set(Character.objects.filter(faction__slug="shadow").values_list("slug", flat=True))
    assert {slot["card"] for slot in b} <= shadow


def test_without_a_seed_one_is_chosen_and_the_armies_are_drawn_from_it(anon_client, catalogue):
    answer = post_batch(anon_client, REALMS_BATCHES, {"armies": {"a": {"random": True}, "b": {"random": True}},
                                                      "count": 2})
    batch = Batch.objects.get(pk=answer["id"])
    a, b = drawn(batch.seed, "random", "random")
    assert batch.inputs["armies"] == {"a": {"slots": a}, "b": {"slots": b}}


def test_a_gauntlet_and_a_matrix_draw_their_armies_in_order(anon_client, catalogue):
    code_army = drawn(1, "faction:arcane")[0]
    code = services.army_validate(slots=services.slots_from_data(code_army))["code"]
    gauntlet = post_batch(anon_client, REALMS_BATCHES, {
        "kind": "gauntlet", "subject": {"faction": "arcane"},
        "opponents": [{"random": True}, {"code": code}, {"faction": "shadow"}], "count": 2, "seed": 5})
    subject, first, third = drawn(5, "faction:arcane", "random", "faction:shadow")
    inputs = Batch.objects.get(pk=gauntlet["id"]).inputs
    assert inputs["subject"] == {"slots": subject}
    assert inputs["opponents"] == [{"slots": first}, {"code": code}, {"slots": third}]

    matrix = post_batch(anon_client, REALMS_BATCHES, {
        "kind": "matrix", "entrants": [{"random": True}, {"faction": "celestial"}], "count": 2, "seed": 9})
    first, second = drawn(9, "random", "faction:celestial")
    assert Batch.objects.get(pk=matrix["id"]).inputs["entrants"] == [{"slots": first}, {"slots": second}]


@pytest.mark.parametrize("army, field", [
    ({"faction": "no-such-faction"}, "armies.b.faction"),
    ({"random": False}, "armies.b.random"),
    ({"random": "yes"}, "armies.b.random"),
    ({"random": True, "faction": "shadow"}, "armies.b"),
    ({"faction": ""}, "armies.b.faction"),
])
def test_an_army_that_cannot_be_drawn_is_refused_at_its_field(anon_client, catalogue, army, field):
    body = assert_error_shape(anon_client.post(REALMS_BATCHES, {
        "armies": {"a": {"random": True}, "b": army}, "count": 2, "seed": 1}, format="json"), 400, "invalid")
    assert any(key == field or key.startswith(field + ".") for key in body["fields"]), body
    assert Batch.objects.count() == 0


def test_a_random_study_army_plays_to_the_end(anon_client, catalogue, local_runner, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        answer = post_batch(anon_client, REALMS_BATCHES, {
            "armies": {"a": {"faction": "arcane"}, "b": {"random": True}}, "count": 3, "seed": 12})
    local_runner.run_all()
    played = anon_client.get(answer["url"]).json()
    assert (played["status"], played["played"]) == ("done", 3)


# Akin Legends: a random setup -----------------------------------------------------------------------------------


def test_a_legends_match_without_a_setup_plays_a_random_setup_of_its_mode(anon_client, catalogue):
    response = anon_client.post(LEGENDS_MATCHES, {"mode": "duel", "seed": 21}, format="json")
    assert response.status_code == 201, response.content
    match = response.json()
    teams = match["setup"]["teams"]
    assert match["setup"]["mode"] == "duel"
    assert [team["spirit"] for team in teams] == ["akin", "yulin"]
    assert [[player["counter"] for player in team["players"]] for team in teams] == [[1], [2]]
    # The same as giving those teams, protectors and defenses drawn from the seed.
    given = anon_client.post(LEGENDS_MATCHES, {"setup": {"mode": "duel", "teams": teams}, "seed": 21},
                             format="json").json()
    assert (given["winner"], given["reason"], given["rounds"], given["remaining_defenses"]) == \
        (match["winner"], match["reason"], match["rounds"], match["remaining_defenses"])
    again = anon_client.get(match["url"]).json()
    assert again["inputs"] == {"mode": "duel"}


def test_a_legends_match_of_nothing_is_a_random_teams_match(anon_client, catalogue):
    response = anon_client.post(LEGENDS_MATCHES, {}, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["setup"]["mode"] == "teams"
    assert [len(team["players"]) for team in response.json()["setup"]["teams"]] == [2, 2]


def test_a_legends_match_may_come_without_a_body_and_its_schema_says_so(anon_client, catalogue):
    response = anon_client.generic("POST", LEGENDS_MATCHES, b"", content_type="application/json")
    assert response.status_code == 201, response.content
    schema = anon_client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    body_required = {path: schema["paths"][path]["post"]["requestBody"].get("required", False)
                     for path in (LEGENDS_MATCHES, "/api/simulate/realms/matches/", LEGENDS_BATCHES, REALMS_BATCHES)}
    assert body_required == {LEGENDS_MATCHES: False, "/api/simulate/realms/matches/": True, LEGENDS_BATCHES: True,
                             REALMS_BATCHES: True}


def test_a_legends_match_of_an_unknown_mode_is_refused(anon_client, catalogue):
    body = assert_error_shape(anon_client.post(LEGENDS_MATCHES, {"mode": "trio"}, format="json"), 400, "invalid")
    assert "mode" in body["fields"]


def test_a_legends_matchup_without_a_setup_is_a_random_setup_study(anon_client, catalogue, local_runner,
                                                                    django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        answer = post_batch(anon_client, LEGENDS_BATCHES, {"mode": "duel", "count": 4, "seed": 2})
    local_runner.run_all()
    played = anon_client.get(answer["url"]).json()
    assert (played["status"], played["played"]) == ("done", 4)
    assert played["inputs"]["mode"] == "duel" and "setup" not in played["inputs"]
