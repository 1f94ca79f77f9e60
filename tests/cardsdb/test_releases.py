"""A release freezes a game's catalogue: every card's version and its bulk file. Edits made after it leave the
release's bulk file and the validation "as of" it as they were; the functions the studies use read the same."""

import gzip
import json

import pytest

from cardsdb import card_history
from cardsdb.models import Release
from legends.models import DefenseCard
from realms.models import Character
from tests.conftest import assert_error_shape
from tests.factories import legal_slots, make_character, make_rarity, make_roster

pytestmark = pytest.mark.django_db

RELEASES = "/api/realms/releases/"
VALIDATE = "/api/realms/armies/validate/"
MERLIN = "merlin-archmage-of-runes"


def make_release(client, name: str, url: str = RELEASES) -> dict:
    answer = client.post(url, {"name": name, "notes": "Tournament legal."}, format="json")
    assert answer.status_code == 201, answer.json()
    return answer.json()


def bulk_cards(client, game: str, release: str | None = None) -> dict:
    query = {"release": release} if release else {}
    answer = client.get(f"/api/bulk/{game}.json.gz", query)
    assert answer.status_code == 200
    return json.loads(gzip.decompress(b"".join(answer.streaming_content) if answer.streaming else answer.content))


def test_staff_name_a_release_everyone_reads_it(catalogue, staff_client, anon_client):
    made = make_release(staff_client, "Core 1.1")
    assert made["slug"] == "core-11" and made["created_by"] == "stella" and made["notes"] == "Tournament legal."
    assert made["versions"]["realms.character"][MERLIN] == Character.objects.get(slug=MERLIN).history.latest().pk
    assert made["card_count"] == Character.objects.count()
    listed = anon_client.get(RELEASES).json()
    assert [r["name"] for r in listed["results"]] == ["Core 1.1"]
    assert anon_client.get(f"{RELEASES}core-11/").json()["name"] == "Core 1.1"
    assert_error_shape(anon_client.get(f"{RELEASES}core-9/"), 404)
    # Each game has its own releases.
    assert anon_client.get("/api/legends/releases/").json()["count"] == 0


def test_only_staff_make_releases_and_names_are_unique_and_never_working(catalogue, staff_client, user_client):
    assert_error_shape(user_client.post(RELEASES, {"name": "Mine"}, format="json"), 403)
    make_release(staff_client, "Core 1.1")
    duplicate = assert_error_shape(staff_client.post(RELEASES, {"name": "Core 1.1"}, format="json"), 400, "invalid")
    assert "name" in duplicate["fields"]
    working = assert_error_shape(staff_client.post(RELEASES, {"name": "Working"}, format="json"), 400, "invalid")
    assert "working" in working["message"]
    assert Release.objects.count() == 1


def test_a_release_keeps_its_bulk_file_when_a_card_changes(catalogue, staff_client, anon_client):
    make_release(staff_client, "Core 1.1")
    merlin = Character.objects.get(slug=MERLIN)
    card_history.apply_edit(merlin, {"attack": 9}, reason="Nerf")

    def attack(document):
        return next(card["atk"] for card in document["cards"]["characters"] if card["slug"] == MERLIN)

    assert attack(bulk_cards(anon_client, "realms", "core-11")) == 11
    assert attack(bulk_cards(anon_client, "realms")) == 9
    unknown = assert_error_shape(anon_client.get("/api/bulk/realms.json.gz", {"release": "core-9"}), 404, "not_found")
    assert "core-9" in unknown["message"]


def test_an_army_validates_as_of_a_release(db, staff_client, anon_client):
    roster = make_roster()
    slots = legal_slots(roster)
    make_release(staff_client, "Core 1.1")
    # After the release, a common of the army becomes rare: two rares break the quota now, not as of the release.
    card_history.apply_edit(roster["c1"], {"rarity": make_rarity("rare")}, reason="Reprinted rare")

    working = anon_client.post(VALIDATE, {"slots": slots}, format="json").json()
    frozen = anon_client.post(f"{VALIDATE}?release=core-11", {"slots": slots}, format="json").json()
    assert working["valid"] is False
    assert frozen["valid"] is True and frozen["violations"] == []

    # A card added after the release is unknown as of it.
    newcomer = make_character("Late Legend", rarity="legendary", position="rearguard")
    with_newcomer = [*slots[:-1], {"card": newcomer.slug, "line": "rearguard"}]
    answer = anon_client.post(f"{VALIDATE}?release=core-11", {"slots": with_newcomer}, format="json").json()
    assert answer["valid"] is False and any(newcomer.slug in str(v) for v in answer["violations"])
    unknown = anon_client.post(f"{VALIDATE}?release=core-9", {"slots": slots}, format="json")
    assert "release" in assert_error_shape(unknown, 400, "invalid")["fields"]


TEAMS = [
    {"spirit": "akin", "protector": "spy", "defenses": ["steam-wall", "magma-rampart", "dust-tower"],
     "players": [{"name": "Ann", "counter": 1}, {"name": "Ben", "counter": 3}]},
    {"spirit": "yulin", "protector": "archivist", "defenses": ["mist-curtain", "reef-barrier", "ember-veil"],
     "players": [{"name": "Cat", "counter": 2}, {"name": "Dan", "counter": 4}]},
]


def test_a_setup_validates_as_of_a_release(catalogue, staff_client, anon_client):
    make_release(staff_client, "Core 1.0", url="/api/legends/releases/")
    card_history.apply_edit(DefenseCard.objects.get(slug="steam-wall"), {"slug": "steam-wall-v2"}, reason="Renamed")
    body = {"mode": "teams", "teams": TEAMS}
    working = anon_client.post("/api/legends/setups/validate/", body, format="json").json()
    frozen = anon_client.post("/api/legends/setups/validate/?release=core-10", body, format="json").json()
    assert working["valid"] is False and "steam-wall" in json.dumps(working["violations"])
    assert frozen["valid"] is True, frozen


def test_the_functions_the_studies_use(catalogue, staff):
    versions = card_history.card_versions("realms")
    merlin = Character.objects.get(slug=MERLIN)
    assert versions["realms.character"][MERLIN] == merlin.history.latest().pk
    assert len(versions["realms.character"]) == Character.objects.count()
    assert card_history.edited_since("realms", versions) == []

    release = card_history.create_release(game="realms", name="Core 1.1", user=staff)
    assert card_history.release_matching("realms", {"realms.character": {MERLIN: versions["realms.character"][MERLIN]}}) \
        == release
    assert card_history.release_matching("realms", versions) == release

    new_version = card_history.apply_edit(merlin, {"attack": 9}, reason="Nerf")
    [edited] = card_history.edited_since("realms", versions)
    assert edited["model"] == "realms.character" and edited["slug"] == MERLIN and edited["name"] == merlin.name
    assert edited["version"] == new_version.pk and edited["status"] == "changed"
    assert edited["changes"] == [{"field": "attack", "before": 11, "after": 9}]
    assert edited["changed_at"] == new_version.history_date

    now = card_history.card_versions("realms")
    assert card_history.release_matching("realms", now) is None
    assert card_history.release_matching("realms", {"realms.character": {MERLIN: 1}}) is None
    # Another release made now matches the current versions, the older one still the old ones.
    newer = card_history.create_release(game="realms", name="Core 1.2", user=staff)
    assert card_history.release_matching("realms", now) == newer
    assert card_history.release_matching("realms", versions) == release
