"""Plain-text decklists both ways (import, export as text or json), army statistics, and hostile input to them."""

import json

import pytest

from realms.decklists import MAX_LINES, MAX_TEXT_CHARS
from tests.conftest import assert_error_shape
from tests.simulate.test_contract import contract, openapi  # noqa: F401  (fixtures)

pytestmark = pytest.mark.django_db

IMPORT = "/api/realms/armies/import/"
EXPORT = "/api/realms/armies/export/"
VALIDATE = "/api/realms/armies/validate/"

# A legal army of the official Arcane cards (3 Common, 2 Uncommon, 1 Rare, 1 Legendary), in army order.
ARCANE = [
    {"card": "elven-spellblade", "line": "vanguard"},        # warrior  ATK 7  DEF 5  SPD 6  HP 22
    {"card": "runeforged-warden", "line": "vanguard"},       # tank     ATK 5  DEF 9  SPD 3  HP 34
    {"card": "apprentice-runecaster", "line": "rearguard"},  # mage     ATK 9  DEF 2  SPD 6  HP 13
    {"card": "goblin-hexscribe", "line": "rearguard"},       # support  ATK 3  DEF 4  SPD 6  HP 18
    {"card": "runekeeper-sage", "line": "rearguard"},        # support  ATK 4  DEF 5  SPD 5  HP 20
    {"card": "runic-archer", "line": "rearguard"},           # archer   ATK 8  DEF 2  SPD 8  HP 14
    {"card": "merlin-archmage-of-runes", "line": "rearguard"},  # mage  ATK 11 DEF 3  SPD 7  HP 18
]

FORUM_POST = """My Arcane army (tournament list)
# Vanguard
1x Elven Spellblade
x1 runeforged warden

== REARGUARD (5) ==
Apprentice Runecaster
goblin hexscribe x1
// the support
Runekeeper Sage: rearguard
[Runic Archer] (rearguard)
Merlin — Rearguard
"""


def post(client, url, body):
    return client.post(url, body, format="json")


def imported(client, text):
    response = post(client, IMPORT, {"text": text})
    assert response.status_code == 200, response.content
    return response.json()


@pytest.fixture
def official(catalogue):
    return ARCANE


# --- import -------------------------------------------------------------------------------------------

def test_a_forum_post_reads_as_the_army(anon_client, official):
    body = imported(anon_client, FORUM_POST)
    assert body["slots"] == ARCANE
    # The title line is not a card: reported, with its 1-based number; the rest is read.
    assert [p["line"] for p in body["problems"]] == [1]
    assert body["report"]["valid"] is True
    validated = post(anon_client, VALIDATE, {"slots": ARCANE}).json()
    assert body["code"] == validated["code"]
    assert body["code"] is not None
    assert body["report"]["share_url"] == validated["share_url"]  # the report is a validation answer, whole


def test_lines_come_from_the_card_then_the_header_then_the_printed_position(anon_client, official):
    text = "# Rearguard\nIron Guardian — vanguard\nRoyal Battlemage\nKingdom Pikeman\nGoblin Skulker"
    body = imported(anon_client, text)
    assert body["slots"] == [
        {"card": "iron-guardian", "line": "vanguard"},
        {"card": "royal-battlemage", "line": "rearguard"},
        {"card": "kingdom-pikeman", "line": "rearguard"},  # the header wins: a wrong line, for the report
        {"card": "goblin-skulker", "line": "rearguard"},
    ]
    assert body["code"] is None  # four cards: no complete army
    wrong = [v for v in body["report"]["violations"] if v["code"] == "wrong_line"]
    assert [v["slot"] for v in wrong] == [2]


def test_headers_in_comment_marks_set_the_line_and_other_comments_are_skipped(anon_client, official):
    body = imported(anon_client, "-- Rearguard --\nKingdom Pikeman\n// Vanguard\nRoyal Battlemage\n; note\n# list")
    assert body["slots"] == [{"card": "kingdom-pikeman", "line": "rearguard"},
                             {"card": "royal-battlemage", "line": "vanguard"}]
    assert body["problems"] == []


def test_a_flex_card_without_a_line_is_a_problem(anon_client, official):
    body = imported(anon_client, "Goblin Skulker\nIron Guardian")
    assert body["slots"] == [{"card": "iron-guardian", "line": "vanguard"}]
    assert body["problems"] == [{"line": 1, "message": body["problems"][0]["message"], "suggestion": None}]
    assert "flex" in body["problems"][0]["message"]


def test_misspellings_suggest_the_nearest_card_and_are_not_added(anon_client, official):
    body = imported(anon_client, "\n\nMerln, Archmage of Runs — rearguard\nIron Gaurdian\nxyzzy plugh")
    assert body["slots"] == []
    assert [(p["line"], p["suggestion"]) for p in body["problems"]] == [
        (3, "Merlin, Archmage of Runes"), (4, "Iron Guardian"), (5, None)]
    assert "did you mean 'Iron Guardian'" in body["problems"][1]["message"]


def test_a_word_that_is_no_line_is_a_problem(anon_client, official):
    body = imported(anon_client, "Iron Guardian — midguard")
    assert body["slots"] == []
    assert body["problems"][0]["line"] == 1 and "midguard" in body["problems"][0]["message"]
    assert body["problems"][0]["suggestion"] == "vanguard"


def test_quantities_repeat_a_card_for_the_report_to_name(anon_client, official):
    body = imported(anon_client, "2x Iron Guardian\n0x Troll Tank\n9 Orc Warrior")
    assert body["slots"] == [{"card": "iron-guardian", "line": "vanguard"}] * 2
    assert [p["line"] for p in body["problems"]] == [2, 3]
    assert [v["code"] for v in body["report"]["violations"]].count("duplicate_card") == 1


def test_windows_line_ends_and_blank_text(anon_client, official):
    body = imported(anon_client, "# Vanguard\r\nIron Guardian\r\n")
    assert body["slots"] == [{"card": "iron-guardian", "line": "vanguard"}] and body["problems"] == []
    empty = imported(anon_client, "")
    assert empty["slots"] == [] and empty["code"] is None and empty["problems"] == []


# --- export and round trips ---------------------------------------------------------------------------

def test_text_export_is_grouped_by_line_with_printed_names(anon_client, official):
    body = post(anon_client, EXPORT, {"slots": ARCANE, "format": "text"}).json()
    assert body["text"] == (
        "# Vanguard\nElven Spellblade\nRuneforged Warden\n\n"
        "# Rearguard\nApprentice Runecaster\nGoblin Hexscribe\nRunekeeper Sage\nRunic Archer\n"
        "Merlin, Archmage of Runes\n"
    )
    assert body["format"] == "text" and body["slots"] == ARCANE and "characters" not in body


@pytest.mark.parametrize("slots", [
    ARCANE,
    # Lines interleaved: army order (which settles R9 ties) survives, a header per run of one line.
    [ARCANE[2], ARCANE[0], ARCANE[3], ARCANE[1], *ARCANE[4:]],
])
def test_text_round_trips(anon_client, official, slots):
    exported = post(anon_client, EXPORT, {"slots": slots}).json()  # text is the default format
    back = imported(anon_client, exported["text"])
    assert back["slots"] == slots and back["problems"] == []
    assert back["code"] == exported["code"]
    assert exported["share_url"] == post(anon_client, VALIDATE, {"slots": slots}).json()["share_url"]
    assert exported["share_url"].startswith("http://testserver/api/realms/armies/decode/?code=")
    # A code keeps army order too: its decklist is the same text.
    again = post(anon_client, EXPORT, {"code": back["code"], "format": "text"}).json()
    assert again["text"] == exported["text"] and again["slots"] == slots


def test_json_export_has_every_field_of_the_character_api_and_round_trips(anon_client, official):
    validated = post(anon_client, VALIDATE, {"slots": ARCANE}).json()
    code = validated["code"]
    body = post(anon_client, EXPORT, {"code": code, "format": "json"}).json()
    assert body["share_url"] == validated["share_url"]
    assert anon_client.get(body["share_url"]).json()["code"] == code
    # A code keeps army order: the same slots in the same order.
    assert body["slots"] == ARCANE and body["code"] == code and "text" not in body
    for slot, character in zip(body["slots"], body["characters"], strict=True):
        assert character == anon_client.get(f"/api/realms/characters/{slot['card']}/").json()
    # The export's slots are an army again, as they stand.
    assert post(anon_client, VALIDATE, {"slots": body["slots"]}).json()["code"] == code
    assert post(anon_client, EXPORT, {"slots": body["slots"], "format": "json"}).json() == body


def test_export_of_unknown_cards_is_400_naming_the_slot(anon_client, official):
    slots = [ARCANE[0], {"card": "no-such-card", "line": "vanguard"}]
    for fmt in ("text", "json"):
        body = assert_error_shape(post(anon_client, EXPORT, {"slots": slots, "format": fmt}), 400, "invalid")
        assert body["fields"] == {"slots.1.card": ["No character card 'no-such-card'."]}


def test_export_refuses_bad_input(anon_client, official):
    assert "format" in assert_error_shape(
        post(anon_client, EXPORT, {"slots": ARCANE, "format": "yaml"}), 400, "invalid")["fields"]
    assert_error_shape(post(anon_client, EXPORT, {"slots": ARCANE, "code": "AQA"}), 400, "invalid")
    assert_error_shape(post(anon_client, EXPORT, {"format": "text"}), 400, "invalid")
    assert_error_shape(post(anon_client, EXPORT, {"code": "!!!"}), 400, "bad_army_code")


# --- statistics ---------------------------------------------------------------------------------------

ARCANE_STATS = {
    "cards": 7,
    "counts": {
        "faction": {"arcane": 7},
        "class": {"tank": 1, "warrior": 1, "mage": 2, "archer": 1, "assassin": 0, "support": 2},
        "line": {"vanguard": 2, "rearguard": 5},
    },
    # 7+5+9+3+4+8+11, 5+9+2+4+5+2+3, 6+3+6+6+5+8+7, 22+34+13+18+20+14+18
    "sums": {"atk": 47, "def": 30, "spd": 41, "hp": 139},
    # 47/7, 30/7, 41/7, 139/7 to 2 decimals
    "means": {"atk": 6.71, "def": 4.29, "spd": 5.86, "hp": 19.86},
    "attack_order": [
        {"spd": 8, "tie": False, "units": [{"slot": 5, "card": "runic-archer", "line": "rearguard"}]},
        {"spd": 7, "tie": False, "units": [{"slot": 6, "card": "merlin-archmage-of-runes", "line": "rearguard"}]},
        # Three at SPD 6 act in army order (R9).
        {"spd": 6, "tie": True, "units": [
            {"slot": 0, "card": "elven-spellblade", "line": "vanguard"},
            {"slot": 2, "card": "apprentice-runecaster", "line": "rearguard"},
            {"slot": 3, "card": "goblin-hexscribe", "line": "rearguard"}]},
        {"spd": 5, "tie": False, "units": [{"slot": 4, "card": "runekeeper-sage", "line": "rearguard"}]},
        {"spd": 3, "tie": False, "units": [{"slot": 1, "card": "runeforged-warden", "line": "vanguard"}]},
    ],
}


def test_validation_gives_the_statistics_of_an_official_army(anon_client, official):
    assert post(anon_client, VALIDATE, {"slots": ARCANE}).json()["stats"] == ARCANE_STATS


def test_saved_armies_and_imports_give_the_same_statistics(user_client, official):
    created = post(user_client, "/api/realms/armies/", {"name": "Arcane", "slots": ARCANE}).json()
    assert created["stats"] == ARCANE_STATS
    listed = user_client.get("/api/realms/armies/").json()["results"]
    assert listed[0]["stats"] == ARCANE_STATS
    assert imported(user_client, FORUM_POST)["report"]["stats"] == ARCANE_STATS


def test_statistics_of_a_draft_leave_unknown_cards_out(anon_client, official):
    stats = post(anon_client, VALIDATE, {"slots": [ARCANE[6], {"card": "ghost", "line": "vanguard"}]}).json()["stats"]
    assert stats["cards"] == 1 and stats["sums"] == {"atk": 11, "def": 3, "spd": 7, "hp": 18}
    assert stats["counts"]["line"] == {"vanguard": 1, "rearguard": 1}
    empty = post(anon_client, VALIDATE, {"slots": []}).json()["stats"]
    assert empty["means"] == {"atk": None, "def": None, "spd": None, "hp": None} and empty["attack_order"] == []


# --- hostile input ------------------------------------------------------------------------------------

def test_text_past_its_bounds_is_400(anon_client, official):
    body = assert_error_shape(post(anon_client, IMPORT, {"text": "x" * (MAX_TEXT_CHARS + 1)}), 400, "invalid")
    assert list(body["fields"]) == ["text"]
    body = assert_error_shape(post(anon_client, IMPORT, {"text": "\n" * MAX_LINES}), 400, "invalid")
    assert f"at most {MAX_LINES} lines" in body["fields"]["text"][0]
    assert imported(anon_client, "\n" * (MAX_LINES - 1))["slots"] == []


@pytest.mark.parametrize("line", ["a" + " " * 19_990 + "x!", "a" + "- " * 9_990 + "x!", "—" * 19_999])
def test_long_runs_of_spaces_and_separators_are_read_at_once(anon_client, official, line):
    # Patterns that backtrack over a run took seconds here; every line is read in one pass now.
    body = imported(anon_client, line)
    assert body["slots"] == [] and [p["line"] for p in body["problems"]] == [1]


@pytest.mark.parametrize("body", [{}, {"text": None}, {"text": 7}, {"text": ["Iron Guardian"]}, [],
                                  {"text": "Iron Guardian", "format": "text"}])
def test_garbage_bodies_are_400(anon_client, body):
    assert_error_shape(post(anon_client, IMPORT, body), 400, "invalid")


@pytest.mark.parametrize("bad", ["a\x00b", "\ud800"])
def test_unstorable_text_is_400(anon_client, bad):
    response = anon_client.generic("POST", IMPORT, json.dumps({"text": bad}), content_type="application/json")
    assert_error_shape(response, 400, "invalid")


def test_binary_garbage_is_read_as_problems(anon_client, official):
    noise = "".join(chr(c) for c in range(1, 0x300) if c not in (0x0A,) and not 0xD800 <= c <= 0xDFFF)
    body = imported(anon_client, (noise + "\n") * 20 + "—\n(())\n[]:,\n1x\nx1\n#\n")
    assert body["slots"] == []
    assert all(p["line"] <= 26 for p in body["problems"])


@pytest.mark.parametrize("url", [IMPORT, EXPORT])
def test_deep_and_huge_bodies(anon_client, url):
    deep = "[" * 100_000 + "]" * 100_000
    response = anon_client.generic("POST", url, deep, content_type="application/json")
    assert_error_shape(response, 400, "parse_error")
    huge = json.dumps({"text": "x" * (1024 * 1024)})
    assert_error_shape(anon_client.generic("POST", url, huge, content_type="application/json"), 413, "too_large")


def test_the_schema_describes_the_new_endpoints_for_anonymous_clients():
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    components = schema["components"]["schemas"]
    for path, request, answer in [("/api/realms/armies/import/", "ArmyImportInputRequest", "ArmyImport"),
                                  ("/api/realms/armies/export/", "ArmyExportInputRequest", "ArmyExport")]:
        operation = schema["paths"][path]["post"]
        assert {} in operation["security"]
        assert operation["requestBody"]["content"]["application/json"]["schema"]["$ref"].endswith(request)
        assert operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].endswith(answer)
        assert components[request]["additionalProperties"] is False
    assert components["ArmyImportInputRequest"]["properties"]["text"]["maxLength"] == MAX_TEXT_CHARS
    assert set(components["ArmyValidation"]["required"]) >= {"stats"}
    assert "stats" in components["Army"]["properties"]
    assert set(components["ArmyStats"]["properties"]) == {"cards", "counts", "sums", "means", "attack_order"}
    assert components["StatValues"]["required"] == ["atk", "def", "hp", "spd"]


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_export_answers_its_schema_with_share_url(anon_client, official, contract, fmt):  # noqa: F811
    body = contract(post(anon_client, EXPORT, {"slots": ARCANE, "format": fmt}), EXPORT)
    assert body["share_url"].endswith(body["code"])
