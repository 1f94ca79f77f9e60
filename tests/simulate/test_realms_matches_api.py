"""The simulate API for Echo Realms: play, reproduce, read back, page the log, refuse bad input."""

import pytest

from cardsdb.models import Collection, CollectionEntry
from realms.models import Army, Character
from simulate.models import Match
from tests.conftest import assert_error_shape
from tests.factories import faction_army
from tests.simulate.logs import documented, served_log

pytestmark = pytest.mark.django_db

PLAY = "/api/simulate/realms/matches/"


@pytest.fixture
def armies(catalogue):
    return {"a": {"slots": faction_army("arcane")}, "b": {"slots": faction_army("iron-kingdom")}}


def play(client, payload, status=201):
    response = client.post(PLAY, payload, format="json")
    assert response.status_code == status, response.content
    return response.json()


def test_a_match_is_played_and_stored(anon_client, armies):
    body = play(anon_client, {"armies": armies, "agents": {"a": "greedy", "b": "random"}, "seed": 123,
                              "options": {"tie_break": "alternate", "max_rounds": 50}})
    assert body["seed"] == 123
    assert body["winner"] in ("a", "b", None)
    assert body["reason"] and body["rounds"] >= 1
    assert set(body["survivors"]) == {"a", "b"}
    winner = body["winner"]
    if winner:
        loser = "b" if winner == "a" else "a"
        assert body["survivors"][winner] and not [u for u in body["survivors"][loser] if not u["summon"]]
    assert body["options"]["tie_break"] == "alternate"
    match = Match.objects.get(pk=body["id"])
    assert match.events[0]["type"] == "match_start" and match.events[-1]["type"] == "match_end"
    assert len(match.log) < 20_000  # stored compressed
    assert anon_client.get(body["url"]).json()["id"] == body["id"]


def test_same_request_and_seed_reproduce_the_identical_log(anon_client, armies):
    payload = {"armies": armies, "agents": {"a": "greedy", "b": "random"}, "options": {"max_rounds": 30}}
    first = play(anon_client, payload)
    second = play(anon_client, dict(payload, seed=first["seed"]))
    logs = [Match.objects.get(pk=m["id"]).events for m in (first, second)]
    assert logs[0] == logs[1]
    other = play(anon_client, dict(payload, seed=first["seed"] + 1))
    assert Match.objects.get(pk=other["id"]).events != logs[0] or other["seed"] != first["seed"]


def test_a_seed_is_generated_when_not_given(anon_client, armies):
    body = play(anon_client, {"armies": armies})
    assert isinstance(body["seed"], int) and body["agents"] == {"a": "greedy", "b": "greedy"}


def test_log_is_paginated(anon_client, armies):
    body = play(anon_client, {"armies": armies, "seed": 7})
    total = len(Match.objects.get(pk=body["id"]).events)
    page = anon_client.get(body["log"], {"page_size": 10}).json()
    assert page["count"] == total and len(page["results"]) == min(10, total)
    assert page["results"][0]["type"] == "match_start"
    last = anon_client.get(body["log"], {"page_size": 200, "page": (total - 1) // 200 + 1}).json()
    assert last["results"][-1]["type"] == "match_end" and last["next"] is None


def test_armies_by_code_and_by_saved_army(user, user_client, armies):
    code = user_client.post("/api/realms/armies/validate/", armies["a"], format="json").json()["code"]
    saved = Army.objects.create(owner=user, name="Wall", slots=armies["b"]["slots"])
    body = play(user_client, {"armies": {"a": {"code": code}, "b": {"army": saved.pk}}, "seed": 1})
    # A code holds its slots in army order (version 3), as a saved army does.
    assert body["setup"]["armies"]["a"] == armies["a"]["slots"]
    assert body["setup"]["armies"]["b"] == armies["b"]["slots"]
    assert user_client.get("/api/simulate/matches/").json()["count"] == 1


def test_someone_elses_saved_army_is_refused(other_user, user_client, armies):
    theirs = Army.objects.create(owner=other_user, name="Theirs", slots=armies["b"]["slots"])
    response = user_client.post(PLAY, {"armies": {"a": armies["a"], "b": {"army": theirs.pk}}}, format="json")
    assert "armies.b.army" in assert_error_shape(response, 400, "invalid")["fields"]


def test_an_illegal_army_answers_its_violations(anon_client, armies):
    bad = {"slots": armies["a"]["slots"][:6]}
    response = anon_client.post(PLAY, {"armies": {"a": armies["a"], "b": bad}}, format="json")
    body = assert_error_shape(response, 400, "rule_violations")
    assert [(v["side"], v["code"]) for v in body["violations"]][:1] == [("b", "army_size")]
    assert Match.objects.count() == 0


def test_saved_army_with_its_collection_is_checked_for_ownership(user, user_client, armies):
    collection = Collection.objects.create(owner=user, name="Empty")
    saved = Army.objects.create(owner=user, name="Unowned", slots=armies["a"]["slots"], collection=collection)
    response = user_client.post(PLAY, {"armies": {"a": {"army": saved.pk}, "b": armies["b"]}}, format="json")
    body = assert_error_shape(response, 400, "rule_violations")
    assert {v["code"] for v in body["violations"]} == {"not_owned"}


@pytest.mark.parametrize("payload, field", [
    ({"agents": {"a": "genius", "b": "greedy"}}, "agents"),
    ({"options": {"max_rounds": 0}}, "options.max_rounds"),
    ({"options": {"max_rounds": 10_000}}, "options.max_rounds"),
    ({"options": {"tie_break": "dice"}}, "options.tie_break"),
    ({"options": {"speed": "fast"}}, "options.speed"),
    ({"options": "fast"}, "options"),
    ({"seed": -1}, "seed"),
    ({"seed": "abc"}, "seed"),
    ({"agents": {"a": "greedy"}}, "agents"),
])
def test_bad_agents_options_and_seeds_are_400(anon_client, armies, payload, field):
    response = anon_client.post(PLAY, {"armies": armies, **payload}, format="json")
    body = assert_error_shape(response, 400, "invalid")
    assert any(key.startswith(field) for key in body["fields"]), body
    assert Match.objects.count() == 0


@pytest.mark.parametrize("payload", [
    [],
    {},
    {"armies": {"a": {"slots": []}}},
    {"armies": {"a": {"slots": [], "code": "x"}, "b": {"slots": []}}},
    {"armies": {"a": {"code": "!!"}, "b": {"code": "!!"}}},
    {"armies": {"a": {"slots": "x"}, "b": {"slots": []}}},
    {"armies": {"a": {"slots": []}, "b": {"slots": []}}, "formation": {}},
    {"formation": {"first": "c"}},
    {"formation": {"collections": {"a": "mine"}}},
])
def test_structural_problems_are_400(anon_client, catalogue, payload):
    assert_error_shape(anon_client.post(PLAY, payload, format="json"), 400, "invalid")


def test_formation_from_two_collections(user, user_client, catalogue):
    collections = {}
    for side, factions in (("a", ("arcane", "shadow")), ("b", ("tribal", "undead"))):
        collection = Collection.objects.create(owner=user, name=f"Pool {side}")
        for card in Character.objects.filter(faction__slug__in=factions):
            CollectionEntry.objects.create(collection=collection, card=card, quantity=1)
        collections[side] = collection
    body = play(user_client, {"formation": {"collections": {"a": collections["a"].pk, "b": collections["b"].pk},
                                            "first": "b"}, "seed": 9})
    log = Match.objects.get(pk=body["id"]).events
    deploys = [e for e in log if e["type"] == "deploy"]
    assert len(deploys) == 14 and deploys[0]["player"] == "b"
    owned = {side: set(c.entries.values_list("card__slug", flat=True)) for side, c in collections.items()}
    assert all(e["card"] in owned[e["player"]] for e in deploys)


def test_formation_with_someone_elses_collection_is_refused(other_user, user_client, catalogue):
    theirs = Collection.objects.create(owner=other_user, name="Theirs")
    response = user_client.post(PLAY, {"formation": {"collections": {"a": theirs.pk}}}, format="json")
    assert "formation.collections.a" in assert_error_shape(response, 400, "invalid")["fields"]


def test_private_matches_answer_404_to_others(user_client, other_client, anon_client, armies):
    body = play(user_client, {"armies": armies, "seed": 3})
    assert_error_shape(other_client.get(body["url"]), 404, "not_found")
    assert_error_shape(anon_client.get(body["log"]), 404, "not_found")
    assert other_client.get("/api/simulate/matches/").json()["count"] == 0


def test_anonymous_matches_are_readable_by_id(anon_client, other_client, armies):
    body = play(anon_client, {"armies": armies, "seed": 3})
    assert other_client.get(body["url"]).status_code == 200
    assert_error_shape(anon_client.get("/api/simulate/matches/00000000-0000-0000-0000-000000000000/"), 404)
    assert_error_shape(anon_client.get("/api/simulate/matches/not-a-uuid/"), 404)


def as_schema_2(events: list[dict]) -> list[dict]:
    """An Echo Realms log written the way schema 2 wrote it (the seeds in match_start, the cooldown in
    ability_used, no summon tie, no visibility on decisions)."""
    seeds = next(e for e in events if e["type"] == "seeds")
    ready = {e["use"]: e["ready_after"] for e in events if e["type"] == "cooldown_started"}
    old = []
    for e in events:
        e = dict(e)
        if e["type"] in ("seeds", "cooldown_started"):
            continue
        if e["type"] == "match_start":
            e["schema"] = 2
            e["seed"] = seeds["seed"]
            e["agents"] = {p: {"agent": name, "seed": seeds["agent_seeds"][p]} for p, name in e["agents"].items()}
        elif e["type"] == "ability_used":
            e["ready"] = ready.get(e["use"], e["round"] + 1)
        elif e["type"] == "decision":
            del e["visible_to"]
        elif e["type"] == "summon":
            del e["tie"]
        old.append(e)
    return old


def test_a_log_stored_with_an_earlier_schema_is_served_as_stored_and_fits_the_documented_log(anon_client, armies):
    """Matches played before the event schema changed keep their log; the API documents those events too."""
    body = play(anon_client, {"armies": armies, "seed": 3})
    match = Match.objects.get(pk=body["id"])
    match.events = as_schema_2(match.events)
    match.schema_version = 2
    match.save()
    answer = anon_client.get(body["url"]).json()
    assert answer["schema_version"] == 2
    served = served_log(anon_client, body["log"])
    assert served == match.events and any(e["type"] == "ability_used" and "ready" in e for e in served)
    assert all(documented(event) for event in served)
    assert not documented({**served[0], "extra": 1})  # a shape no schema version has is not documented
