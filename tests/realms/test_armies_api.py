"""Army validation, army codes, saved armies and the Formation Round's step checks."""

import pytest

from cardsdb.models import Collection, CollectionEntry
from realms.engine.army import decode_army, encode_army
from tests.conftest import assert_error_shape
from tests.factories import legal_slots, make_roster

pytestmark = pytest.mark.django_db

VALIDATE = "/api/realms/armies/validate/"


@pytest.fixture
def roster(db):
    return make_roster()


def validate(client, payload):
    response = client.post(VALIDATE, payload, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def codes(body) -> list[str]:
    return [v["code"] for v in body["violations"]]


def test_a_legal_army_is_valid_and_gets_a_code(anon_client, roster):
    body = validate(anon_client, {"slots": legal_slots(roster)})
    assert body["valid"] is True and body["violations"] == []
    assert body["counts"] == {
        "rarity": {"common": 3, "uncommon": 2, "rare": 1, "legendary": 1},
        "line": {"vanguard": 4, "rearguard": 3},
    }
    decoded = anon_client.get("/api/realms/armies/decode/", {"code": body["code"]}).json()
    assert decoded["slots"] == legal_slots(roster)


def test_army_size(anon_client, roster):
    body = validate(anon_client, {"slots": legal_slots(roster)[:6]})
    size = [v for v in body["violations"] if v["code"] == "army_size"]
    assert size == [{"code": "army_size", "message": size[0]["message"], "expected": 7, "actual": 6}]


def test_rarity_count_reports_expected_and_actual(anon_client, roster):
    slots = legal_slots(roster)
    slots[6] = {"card": roster["c4"].slug, "line": "rearguard"}  # a 4th common instead of the legendary
    body = validate(anon_client, {"slots": slots})
    assert codes(body) == ["rarity_count", "rarity_count"]
    by_rarity = {v["rarity"]: (v["expected"], v["actual"]) for v in body["violations"]}
    assert by_rarity == {"common": (3, 4), "legendary": (1, 0)}


def test_duplicate_card_names_the_slot(anon_client, roster):
    slots = legal_slots(roster)
    slots[1] = dict(slots[0])
    body = validate(anon_client, {"slots": slots})
    duplicate = [v for v in body["violations"] if v["code"] == "duplicate_card"]
    assert len(duplicate) == 1 and duplicate[0]["slot"] == 1 and duplicate[0]["card"] == roster["c1"].slug


def test_line_full(anon_client, roster):
    # Six in the rearguard: the flex uncommon and five rearguard cards.
    rear = [roster[k] for k in ("c3", "c4", "u2", "l1")]
    slots = [{"card": c.slug, "line": "rearguard"} for c in rear] + [
        {"card": roster["u1"].slug, "line": "rearguard"},
        {"card": roster["r1"].slug, "line": "vanguard"},
        {"card": roster["c1"].slug, "line": "vanguard"},
    ]
    body = validate(anon_client, {"slots": slots})
    assert "line_full" not in codes(body)  # five is the limit, not a violation
    six = slots + [{"card": roster["l2"].slug, "line": "rearguard"}]
    body = validate(anon_client, {"slots": six})
    full = [v for v in body["violations"] if v["code"] == "line_full"]
    assert full == [{"code": "line_full", "message": full[0]["message"], "expected": 5, "actual": 6,
                     "line": "rearguard"}]


def test_wrong_line(anon_client, roster):
    slots = legal_slots(roster)
    slots[0] = {"card": roster["c1"].slug, "line": "rearguard"}  # a vanguard card
    body = validate(anon_client, {"slots": slots})
    assert codes(body) == ["wrong_line"]
    assert body["violations"][0]["slot"] == 0 and body["violations"][0]["card"] == roster["c1"].slug


def test_flex_cards_fit_either_line(anon_client, roster):
    for line in ("vanguard", "rearguard"):
        slots = legal_slots(roster)
        slots[3] = {"card": roster["u1"].slug, "line": line}
        assert validate(anon_client, {"slots": slots})["valid"] is True


def test_unknown_card_and_no_code(anon_client, roster):
    slots = legal_slots(roster)
    slots[2] = {"card": "no-such-card", "line": "rearguard"}
    body = validate(anon_client, {"slots": slots})
    assert "unknown_card" in codes(body)
    unknown = next(v for v in body["violations"] if v["code"] == "unknown_card")
    assert unknown["slot"] == 2 and unknown["card"] == "no-such-card"
    assert body["code"] is None


def test_not_owned_against_my_collection(user, user_client, roster):
    collection = Collection.objects.create(owner=user, name="Mine")
    for key in ("c1", "c2", "c3", "u1", "u2", "r1"):
        CollectionEntry.objects.create(collection=collection, card=roster[key], quantity=1)
    CollectionEntry.objects.create(collection=collection, card=roster["l1"], quantity=0)
    body = validate(user_client, {"slots": legal_slots(roster), "collection": collection.pk})
    assert codes(body) == ["not_owned"] and body["violations"][0]["card"] == roster["l1"].slug
    CollectionEntry.objects.filter(card=roster["l1"]).update(quantity=2)
    assert validate(user_client, {"slots": legal_slots(roster), "collection": collection.pk})["valid"]


def test_someone_elses_collection_is_refused(other_client, user, roster):
    collection = Collection.objects.create(owner=user, name="Not yours")
    response = other_client.post(VALIDATE, {"slots": legal_slots(roster), "collection": collection.pk}, format="json")
    assert "collection" in assert_error_shape(response, 400, "invalid")["fields"]


def test_every_violation_at_once(anon_client, roster):
    slots = [
        {"card": roster["c1"].slug, "line": "rearguard"},  # wrong_line
        {"card": roster["c1"].slug, "line": "vanguard"},  # duplicate_card
        {"card": "ghost", "line": "vanguard"},  # unknown_card
        {"card": roster["l1"].slug, "line": "rearguard"},
        {"card": roster["l2"].slug, "line": "vanguard"},
    ]
    body = validate(anon_client, {"slots": slots})
    assert body["valid"] is False
    assert set(codes(body)) == {"army_size", "wrong_line", "duplicate_card", "unknown_card", "rarity_count"}
    rarity = {v["rarity"]: v["actual"] for v in body["violations"] if v["code"] == "rarity_count"}
    assert rarity == {"common": 2, "uncommon": 0, "rare": 0, "legendary": 2}


def test_validation_by_code(anon_client, roster):
    code = validate(anon_client, {"slots": legal_slots(roster)})["code"]
    body = validate(anon_client, {"code": code})
    assert body["valid"] is True and body["code"] == code


@pytest.mark.parametrize(
    "payload, field",
    [
        ([1, 2, 3], "non_field_errors"),
        ({"slots": "not a list"}, "slots"),
        ({"slots": [{"card": "x"}]}, "slots"),
        ({"slots": [{"line": "vanguard"}]}, "slots"),
        ({"slots": [{"card": "x", "line": "middle"}]}, "slots"),
        ({"slots": [{"card": "x", "line": "vanguard"}] * 51}, "slots"),
        ({}, "non_field_errors"),
        ({"slots": [], "code": "AQA"}, "non_field_errors"),
        ({"slots": [], "collection": "mine"}, "collection"),
    ],
)
def test_structural_problems_are_400(anon_client, payload, field):
    body = assert_error_shape(anon_client.post(VALIDATE, payload, format="json"), 400, "invalid")
    assert any(key == field or key.startswith(f"{field}.") for key in body["fields"]), body


@pytest.mark.parametrize(
    "payload, fields",
    [
        ({"slots": [{"card": "x"}]}, {"slots.0.line": ["This field is required."]}),
        ({"slots": [{"card": "x", "line": "vanguard"}, {"card": "y", "line": "middle"}]},
         {"slots.1.line": ['"middle" is not a valid choice.']}),
        ({"slots": [], "extra": 1}, {"extra": ["Unknown field."]}),
        ({"slots": [{"card": "x", "line": "vanguard", "count": 2}]}, {"slots.0.count": ["Unknown field."]}),
    ],
)
def test_bad_fields_are_named_by_dotted_paths(anon_client, payload, fields):
    body = assert_error_shape(anon_client.post(VALIDATE, payload, format="json"), 400, "invalid")
    assert body["fields"] == fields
    key, (message,) = next(iter(fields.items()))
    assert body["message"] == f"{key}: {message}"


@pytest.mark.parametrize("code", ["!!!", "AA", "AQ", "Ag", "AQFk" + "A" * 10, "x" * 201])
def test_undecodable_codes_are_400(anon_client, code):
    assert_error_shape(anon_client.post(VALIDATE, {"code": code}, format="json"), 400, "bad_army_code")
    response = anon_client.get("/api/realms/armies/decode/", {"code": code})
    assert_error_shape(response, 400, "bad_army_code")


def test_decode_without_code_is_400(anon_client):
    assert_error_shape(anon_client.get("/api/realms/armies/decode/"), 400, "bad_army_code")


def test_codes_round_trip():
    for entries in ([], [(1, "vanguard")], [(1001, "rearguard"), (1064, "vanguard"), (5, "rearguard")],
                    [(2**40, "vanguard")] * 7):
        code = encode_army(entries)
        assert decode_army(code) == entries
        assert all(ch.isalnum() or ch in "-_" for ch in code)


def test_malformed_json_is_400(anon_client):
    response = anon_client.generic("POST", VALIDATE, "{", content_type="application/json")
    assert_error_shape(response, 400, "parse_error")


class TestSavedArmies:
    url = "/api/realms/armies/"

    def test_draft_is_saved_with_its_violations(self, user_client, roster):
        response = user_client.post(self.url, {"name": "Draft", "slots": legal_slots(roster)[:3]}, format="json")
        assert response.status_code == 201, response.content
        body = response.json()
        assert body["valid"] is False and "army_size" in codes(body)
        army_id = body["id"]
        full = user_client.patch(f"{self.url}{army_id}/", {"slots": legal_slots(roster)}, format="json").json()
        assert full["valid"] is True and full["code"]
        listed = user_client.get(self.url).json()["results"]
        assert [(a["name"], a["valid"]) for a in listed] == [("Draft", True)]

    def test_validity_follows_the_catalogue(self, user_client, roster):
        army = user_client.post(self.url, {"name": "A", "slots": legal_slots(roster)}, format="json").json()
        roster["c1"].slug = "renamed-by-staff"  # a card the army names is protected from deletion, not from edits
        roster["c1"].save()
        body = user_client.get(f"{self.url}{army['id']}/").json()
        assert body["valid"] is False and "unknown_card" in codes(body)

    def test_owner_only(self, user_client, other_client, anon_client, roster):
        army = user_client.post(self.url, {"name": "A", "slots": []}, format="json").json()
        assert_error_shape(other_client.get(f"{self.url}{army['id']}/"), 404, "not_found")
        assert_error_shape(other_client.delete(f"{self.url}{army['id']}/"), 404)
        assert_error_shape(anon_client.get(self.url), 401)
        assert other_client.get(self.url).json()["count"] == 0

    def test_collection_must_be_mine(self, user, user_client, other_user, roster):
        theirs = Collection.objects.create(owner=other_user, name="Theirs")
        response = user_client.post(self.url, {"name": "A", "slots": [], "collection": theirs.pk}, format="json")
        assert "collection" in assert_error_shape(response, 400, "invalid")["fields"]
        mine = Collection.objects.create(owner=user, name="Mine")
        response = user_client.post(self.url, {"name": "A", "slots": legal_slots(roster), "collection": mine.pk},
                                    format="json")
        assert response.status_code == 201
        assert set(codes(response.json())) == {"not_owned"}

    def test_bad_slots_are_refused(self, user_client):
        response = user_client.post(self.url, {"name": "A", "slots": [{"card": "x", "line": "up"}]}, format="json")
        assert set(assert_error_shape(response, 400, "invalid")["fields"]) == {"slots.0.line"}

    def test_list_runs_a_constant_number_of_queries(self, user, user_client, roster):
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        from realms.models import Army

        collection = Collection.objects.create(owner=user, name="Mine")
        Army.objects.create(owner=user, name="A0", slots=legal_slots(roster), collection=collection)
        with CaptureQueriesContext(connection) as one:
            user_client.get(self.url)
        for i in range(8):
            Army.objects.create(owner=user, name=f"A{i + 1}", slots=legal_slots(roster), collection=collection)
        with CaptureQueriesContext(connection) as nine:
            assert user_client.get(self.url).json()["count"] == 9
        assert len(one.captured_queries) == len(nine.captured_queries)


class TestFormation:
    url = "/api/realms/formations/validate/"

    def run(self, client, deployments, first="a", **extra):
        response = client.post(self.url, {"first": first, "deployments": deployments, **extra}, format="json")
        assert response.status_code == 200, response.content
        return response.json()

    def test_alternating_deployments_complete_two_armies(self, anon_client, roster):
        slots = legal_slots(roster)
        deployments = []
        for slot in slots:
            deployments.append({"player": "a", **slot})
            deployments.append({"player": "b", **slot})  # both players may deploy the same card
        body = self.run(anon_client, deployments)
        assert body["valid"] is True and body["complete"] is True
        assert all(step["legal"] for step in body["steps"])
        assert body["armies"]["a"]["slots"] == slots and body["armies"]["a"]["code"]

    def test_out_of_turn(self, anon_client, roster):
        deployments = [{"player": "b", "card": roster["c1"].slug, "line": "vanguard"}]
        body = self.run(anon_client, deployments, first="a")
        assert body["steps"][0]["legal"] is False
        assert [v["code"] for v in body["steps"][0]["violations"]] == ["out_of_turn"]

    def test_fourth_common_is_illegal_at_its_step(self, anon_client, roster):
        def deploy(player, key, line):
            return {"player": player, "card": roster[key].slug, "line": line}

        deployments = [
            deploy("a", "c1", "vanguard"), deploy("b", "u1", "vanguard"),
            deploy("a", "c2", "vanguard"), deploy("b", "c2", "vanguard"),
            deploy("a", "c3", "rearguard"), deploy("b", "c3", "rearguard"),
            deploy("a", "c4", "rearguard"),
        ]
        body = self.run(anon_client, deployments)
        assert [s["legal"] for s in body["steps"]] == [True] * 6 + [False]
        step = body["steps"][6]
        assert [v["code"] for v in step["violations"]] == ["rarity_count"]
        assert (step["violations"][0]["expected"], step["violations"][0]["actual"]) == (3, 4)
        assert body["complete"] is False and len(body["armies"]["a"]["slots"]) == 3

    def test_sixth_card_in_a_line_is_illegal(self, anon_client, roster):
        rear = ["c3", "c4", "u2", "l1", "u1"]
        deployments = []
        for key in rear:
            deployments += [{"player": "a", "card": roster[key].slug, "line": "rearguard"},
                            {"player": "b", "card": roster[key].slug, "line": "rearguard"}]
        deployments.append({"player": "a", "card": roster["l2"].slug, "line": "rearguard"})
        body = self.run(anon_client, deployments)
        assert all(s["legal"] for s in body["steps"][:10])
        codes_at_11 = {v["code"] for v in body["steps"][10]["violations"]}
        assert codes_at_11 == {"line_full", "rarity_count", "wrong_line"}

    def test_collections_apply_per_player(self, user, user_client, roster):
        collection = Collection.objects.create(owner=user, name="Mine")
        deployments = [{"player": "b", "card": roster["c1"].slug, "line": "vanguard"},
                       {"player": "a", "card": roster["c1"].slug, "line": "vanguard"}]
        body = self.run(user_client, deployments, first="b", collections={"a": collection.pk})
        assert body["steps"][0]["legal"] is True
        assert [v["code"] for v in body["steps"][1]["violations"]] == ["not_owned"]

    def test_a_deployment_that_leaves_no_way_to_complete_the_army(self, user, user_client, roster):
        from tests.factories import make_character

        # Five cards of this collection can only stand in the vanguard; the flex uncommon must not.
        vanguard_commons = [make_character(f"Pikeman {i}", rarity="common", position="vanguard") for i in range(3)]
        pool = [*vanguard_commons, roster["u1"], roster["u2"], roster["r1"], roster["l2"]]
        collection = Collection.objects.create(owner=user, name="Crowded")
        for card in pool:
            CollectionEntry.objects.create(collection=collection, card=card, quantity=1)
        deployments = [{"player": "a", "card": roster["u1"].slug, "line": "vanguard"}]
        body = self.run(user_client, deployments, collections={"a": collection.pk})
        assert [v["code"] for v in body["steps"][0]["violations"]] == ["cannot_complete"]
        deployments[0]["line"] = "rearguard"
        assert self.run(user_client, deployments, collections={"a": collection.pk})["valid"] is True

    @pytest.mark.parametrize("payload", [
        {"first": "c", "deployments": []},
        {"first": "a", "deployments": "x"},
        {"first": "a", "deployments": [{"player": "z", "card": "x", "line": "vanguard"}]},
        {"first": "a"},
        {"first": "a", "deployments": [], "collections": {"a": "x"}},
    ])
    def test_bad_input(self, anon_client, payload):
        assert_error_shape(anon_client.post(self.url, payload, format="json"), 400, "invalid")
