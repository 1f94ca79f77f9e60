"""Every change to a card is a version: from the admin, the API, the official loads and `apply_edit`; the API lists
them (errata) and staff restore one; the card pages show the errata in words."""

import json
from types import SimpleNamespace

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.db import connection

from cardsdb import card_history
from legends.models import SummoningCard
from realms.models import Character
from tests.conftest import FIXTURES_DIR, assert_error_shape

pytestmark = pytest.mark.django_db

MERLIN = "merlin-archmage-of-runes"
HISTORY = f"/api/realms/characters/{MERLIN}/history/"


@pytest.fixture
def admin_client(client, django_user_model):
    user = django_user_model.objects.create_superuser("root", "root@example.com", "root-password-1")
    client.force_login(user)
    return client


def merlin() -> Character:
    return Character.objects.get(slug=MERLIN)


def admin_form(card: Character, **changes) -> dict:
    data = {
        "name": card.name, "slug": card.slug, "card_set": card.card_set_id, "code": card.code,
        "rarity": card.rarity_id, "race": card.race_id, "character_class": card.character_class,
        "faction": card.faction_id, "position": card.position, "attack": card.attack, "defense": card.defense,
        "speed": card.speed, "health": card.health, "cooldown": card.cooldown,
        "faction_ability": json.dumps(card.faction_ability), "main_ability": json.dumps(card.main_ability),
        "flavor_text": card.flavor_text,
    }
    return {**data, **changes}


def test_the_official_load_gives_every_card_its_first_version(catalogue, anon_client):
    answer = anon_client.get(HISTORY)
    assert answer.status_code == 200
    body = answer.json()
    assert body["count"] == 1
    [first] = body["results"]
    assert first["type"] == "created" and first["user"] is None and first["changes"] == []
    assert first["reason"] == "Loaded from realms_starter.json"


def test_an_admin_edit_is_a_version_with_its_user_and_what_changed(catalogue, admin_client, anon_client):
    card = merlin()
    response = admin_client.post(f"/admin/realms/character/{card.pk}/change/", admin_form(card, attack=9))
    assert response.status_code == 302, response.content.decode()[:2000]

    body = anon_client.get(HISTORY).json()
    assert body["count"] == 2
    newest = body["results"][0]
    assert newest["type"] == "changed" and newest["user"] == "root"
    assert newest["changes"] == [{"field": "attack", "before": 11, "after": 9}]
    # The admin lists the versions too.
    history_page = admin_client.get(f"/admin/realms/character/{card.pk}/history/")
    assert history_page.status_code == 200 and b"root" in history_page.content


def test_an_api_edit_is_a_version_naming_related_rows_by_slug(catalogue, staff_client, anon_client):
    response = staff_client.patch(f"/api/realms/characters/{MERLIN}/", {"rarity": "rare"}, format="json")
    assert response.status_code == 200, response.json()
    newest = anon_client.get(HISTORY).json()["results"][0]
    assert newest["user"] == "stella"
    assert {"field": "rarity", "before": "legendary", "after": "rare"} in newest["changes"]


def test_apply_edit_checks_like_the_admin_and_returns_the_new_version(catalogue, staff):
    version = card_history.apply_edit(merlin(), {"attack": 9, "speed": 8}, reason="Study patch", user=staff)
    assert version.history_type == "~" and version.history_change_reason == "Study patch"
    assert version.history_user == staff and (version.attack, version.speed) == (9, 8)
    assert (merlin().attack, merlin().speed) == (9, 8)

    card = merlin()
    with pytest.raises(ValidationError) as refused:
        card_history.apply_edit(card, {"attack": 31}, reason="Too strong")
    assert "attack" in refused.value.message_dict
    assert card.attack == 9  # the instance reads as stored again
    with pytest.raises(ValidationError):
        card_history.apply_edit(merlin(), {"colour": "red"}, reason="No such field")
    with pytest.raises(ValidationError) as refused:
        card_history.apply_edit(merlin(), {"rarity": "mythic"}, reason="No such rarity")
    assert "rarity" in refused.value.message_dict
    assert merlin().attack == 9
    assert merlin().history.count() == 2

    # Related rows by slug, as the versions name them: a version's changes read back as an edit.
    version = card_history.apply_edit(merlin(), {"rarity": "rare"}, reason="Reprint")
    assert merlin().rarity.slug == "rare"
    [change] = card_history.version_changes(version, version.prev_record)
    assert change == {"field": "rarity", "before": "legendary", "after": "rare"}


def test_history_is_paginated_newest_first(catalogue, anon_client):
    for attack in (10, 9, 8):
        card_history.apply_edit(merlin(), {"attack": attack}, reason=f"ATK to {attack}")
    body = anon_client.get(HISTORY, {"page_size": 2}).json()
    assert body["count"] == 4 and body["next"]
    assert [v["reason"] for v in body["results"]] == ["ATK to 8", "ATK to 9"]
    assert body["results"][1]["changes"] == [{"field": "attack", "before": 10, "after": 9}]
    assert anon_client.get(body["next"]).json()["results"][1]["type"] == "created"


def test_staff_restore_makes_a_new_version_as_the_old_one_was(catalogue, staff_client, anon_client):
    first = merlin().history.earliest()
    card_history.apply_edit(merlin(), {"attack": 9, "flavor_text": "Changed."}, reason="Nerf")

    answer = staff_client.post(f"{HISTORY}{first.history_id}/restore/")
    assert answer.status_code == 200, answer.json()
    restored = answer.json()
    assert restored["reason"] == f"Restored version {first.history_id}" and restored["user"] == "stella"
    assert {"field": "attack", "before": 9, "after": 11} in restored["changes"]
    card = merlin()
    assert (card.attack, card.flavor_text) == (first.attack, first.flavor_text)
    assert anon_client.get(HISTORY).json()["count"] == 3


def test_restore_is_for_staff_and_for_this_cards_versions_only(catalogue, user_client, staff_client, anon_client):
    first = merlin().history.earliest()
    assert_error_shape(user_client.post(f"{HISTORY}{first.history_id}/restore/"), 403)
    assert anon_client.post(f"{HISTORY}{first.history_id}/restore/").status_code == 401
    other = Character.objects.exclude(slug=MERLIN).first().history.earliest()
    assert_error_shape(staff_client.post(f"{HISTORY}{other.history_id}/restore/"), 404, "not_found")
    assert_error_shape(staff_client.post(f"{HISTORY}999999/restore/"), 404, "not_found")
    assert merlin().history.count() == 1


def test_a_restore_that_breaks_a_rule_answers_400_and_changes_nothing(catalogue, staff_client):
    first = merlin().history.earliest()
    card_history.apply_edit(merlin(), {"slug": "merlin-renamed"}, reason="New slug")
    other = Character.objects.exclude(slug="merlin-renamed").first()
    card_history.apply_edit(other, {"slug": MERLIN}, reason="Takes the old slug")

    answer = staff_client.post(f"/api/realms/characters/merlin-renamed/history/{first.history_id}/restore/")
    body = assert_error_shape(answer, 400, "invalid")
    assert "slug" in body["fields"]
    assert Character.objects.get(pk=first.id).slug == "merlin-renamed"
    assert Character.objects.get(pk=first.id).history.count() == 2


def test_legends_cards_have_history_too(catalogue, staff_client, anon_client):
    card = SummoningCard.objects.order_by("pk").first()
    response = staff_client.patch(f"/api/legends/summoning-cards/{card.slug}/", {"copies": card.copies + 1},
                                  format="json")
    assert response.status_code == 200, response.json()
    body = anon_client.get(f"/api/legends/summoning-cards/{card.slug}/history/").json()
    assert body["results"][0]["changes"] == [{"field": "copies", "before": card.copies, "after": card.copies + 1}]


def test_a_save_of_the_shared_card_row_is_a_version(catalogue, admin_client, anon_client):
    card = merlin()
    response = admin_client.post(f"/admin/cardsdb/card/{card.pk}/change/", {
        "name": card.name, "slug": card.slug, "code": card.code, "card_set": card.card_set_id,
        "rarity": card.rarity_id, "rules_text": card.rules_text, "flavor_text": "A new flavour.",
    })
    assert response.status_code == 302, response.content.decode()[:2000]
    newest = anon_client.get(HISTORY).json()["results"][0]
    assert newest["user"] == "root"
    assert newest["changes"] == [{"field": "flavor_text", "before": card.flavor_text, "after": "A new flavour."}]


def _release_with(tmp_path, change) -> list[str]:
    """The official fixture files, with the Echo Realms starter set changed by `change` (its rows, in place)."""
    rows = json.loads((FIXTURES_DIR / "realms_starter.json").read_text())
    change(rows)
    (tmp_path / "realms_starter.json").write_text(json.dumps(rows))
    return [str(FIXTURES_DIR / "catalogue.json"), str(tmp_path / "realms_starter.json"),
            str(FIXTURES_DIR / "legends_official.json")]


def test_update_official_records_versions_and_keeps_an_edited_card(catalogue, staff_client, tmp_path):
    staff_client.patch(f"/api/realms/characters/{MERLIN}/", {"atk": 9}, format="json")
    edited = merlin()
    assert edited.attack == 9
    untouched = Character.objects.exclude(pk=edited.pk).order_by("pk").first()

    def new_stats(rows):
        for row in rows:
            if row["model"] == "realms.character" and row["pk"] in (edited.pk, untouched.pk):
                row["fields"]["speed"] += 1

    call_command("update_official", *_release_with(tmp_path, new_stats), apply=True, stdout=None, verbosity=0)

    latest = untouched.history.latest()
    assert latest.history_type == "~" and latest.history_change_reason == "Updated from realms_starter.json"
    assert latest.speed == untouched.speed + 1
    assert merlin().speed == edited.speed and merlin().attack == 9  # the edit is kept, no version added
    assert merlin().history.latest().history_user.username == "stella"


def test_the_migration_gives_cards_without_a_version_their_first_one(catalogue):
    from django.apps import apps

    Character.history.all().delete()
    forward, _ = card_history.initial_versions("realms", ["Character"])
    forward(apps, SimpleNamespace(connection=connection))
    assert Character.history.count() == Character.objects.count()
    first = merlin().history.get()
    assert (first.history_type, first.history_change_reason, first.attack) == ("+", "Initial version", 11)
    forward(apps, SimpleNamespace(connection=connection))  # cards that have a version get no other
    assert Character.history.count() == Character.objects.count()


def test_the_card_pages_show_the_errata_in_words(catalogue, client):
    page = client.get(f"/realms/cards/{MERLIN}/").content.decode()
    assert "Errata" in page and "No changes since it was first printed." in page
    card_history.apply_edit(merlin(), {"attack": 9}, reason="Balance patch")
    page = client.get(f"/realms/cards/{MERLIN}/").content.decode()
    assert "ATK 11 → 9" in page and "Balance patch" in page
    assert HISTORY in page

    card = SummoningCard.objects.order_by("pk").first()
    copies = card.copies
    card_history.apply_edit(card, {"copies": copies + 1}, reason="More copies")
    page = client.get(f"/legends/cards/{card.slug}/").content.decode()
    assert f"Copies {copies} → {copies + 1}" in page
    assert f"/api/legends/summoning-cards/{card.slug}/history/" in page


def test_the_admin_reverts_a_card_to_a_version(catalogue, admin_client, anon_client):
    first = merlin().history.earliest()
    card_history.apply_edit(merlin(), {"attack": 9}, reason="Nerf")
    card = merlin()
    form = admin_client.get(f"/admin/realms/character/{card.pk}/history/{first.history_id}/")
    assert form.status_code == 200 and b'value="11"' in form.content  # the form holds the old version
    response = admin_client.post(f"/admin/realms/character/{card.pk}/history/{first.history_id}/",
                                 admin_form(card, attack=11))
    assert response.status_code == 302, response.content.decode()[:2000]
    assert merlin().attack == 11
    newest = anon_client.get(HISTORY).json()["results"][0]
    assert newest["user"] == "root" and newest["changes"] == [{"field": "attack", "before": 9, "after": 11}]
