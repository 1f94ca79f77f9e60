"""Stable public card codes (ER-CORE-017): the official ones come from the fixtures, staff cards get the next
free number of their set, a code is unique and never reused, and the loaders keep working with them."""

import io

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from cardsdb import card_codes, services
from cardsdb.models import Card, IssuedCardCode, OfficialRecord
from realms.models import Character
from tests.conftest import assert_error_shape
from tests.realms.test_characters_api import new_character_payload

pytestmark = pytest.mark.django_db
CHARACTERS = "/api/realms/characters/"


def test_the_official_cards_carry_the_codes_of_their_fixtures(catalogue, anon_client):
    assert Card.objects.get(slug="iron-guardian").code == "ER-CORE-001"
    assert Card.objects.get(slug="akin").code == "AL-EOTP-001"
    assert Card.objects.filter(code__startswith="ER-CORE-").count() == 64
    assert Card.objects.filter(code__startswith="AL-EOTP-").count() == 83
    assert IssuedCardCode.objects.count() == Card.objects.count()
    assert all(issued.card.code == issued.code for issued in IssuedCardCode.objects.select_related("card"))
    body = anon_client.get("/api/cards/", {"code": "er-core-017"}).json()
    assert [row["code"] for row in body["results"]] == ["ER-CORE-017"]
    assert anon_client.get(f"{CHARACTERS}iron-guardian/").json()["code"] == "ER-CORE-001"
    assert anon_client.get("/api/legends/spirits/akin/").json()["code"] == "AL-EOTP-001"
    assert anon_client.get(CHARACTERS, {"code": "ER-CORE-002"}).json()["count"] == 1


def test_prefixes_and_parsing():
    assert card_codes.set_prefix("realms", "er-core") == "ER-CORE"
    assert card_codes.set_prefix("realms", "promo") == "ER-PROMO"
    assert card_codes.set_prefix("legends", "al-eotp") == "AL-EOTP"
    assert card_codes.parse_code("ER-CORE-017") == ("ER-CORE", 17)
    assert card_codes.parse_code("ER-CORE-1234") == ("ER-CORE", 1234)
    for bad in ("ER-CORE-17", "ER-CORE-0017", "er-core-017", "ER-CORE-000", "ER--017", "X" * 50 + "-001"):
        assert card_codes.parse_code(bad) is None, bad


def test_staff_cards_get_the_next_free_number_and_a_deleted_card_s_code_is_never_reused(catalogue, staff_client):
    # er-test is a second Echo Realms set: its own numbers, from 001.
    created = staff_client.post(CHARACTERS, new_character_payload(), format="json")
    assert created.status_code == 201, created.content
    assert created.json()["code"] == "ER-TEST-001"
    in_core = staff_client.post(CHARACTERS, new_character_payload(slug="core-blade", set="er-core"), format="json")
    assert in_core.json()["code"] == "ER-CORE-065"
    assert staff_client.delete(f"{CHARACTERS}core-blade/").status_code == 204
    again = staff_client.post(CHARACTERS, new_character_payload(slug="core-blade-2", set="er-core"), format="json")
    assert again.json()["code"] == "ER-CORE-066"
    assert IssuedCardCode.objects.get(code="ER-CORE-065").card is None

    taken = staff_client.patch(f"{CHARACTERS}core-blade-2/", {"code": "ER-CORE-001"}, format="json")
    assert "another card" in assert_error_shape(taken, 400, "invalid")["fields"]["code"][0]
    retired = staff_client.patch(f"{CHARACTERS}core-blade-2/", {"code": "ER-CORE-065"}, format="json")
    assert "never reused" in assert_error_shape(retired, 400, "invalid")["fields"]["code"][0]
    for bad in ("ER-CORE-0100", "AL-EOTP-100", "core 100", ""):
        response = staff_client.patch(f"{CHARACTERS}core-blade-2/", {"code": bad}, format="json")
        assert "code" in assert_error_shape(response, 400, "invalid")["fields"], bad
    moved = staff_client.patch(f"{CHARACTERS}core-blade-2/", {"code": "ER-CORE-100"}, format="json")
    assert moved.status_code == 200 and moved.json()["code"] == "ER-CORE-100"
    # Its old code stays its own: no other card gets ER-CORE-066, and the next number is past 100.
    last = staff_client.post(CHARACTERS, new_character_payload(slug="core-blade-3", set="er-core"), format="json")
    assert last.json()["code"] == "ER-CORE-101"
    assert staff_client.patch(f"{CHARACTERS}core-blade-3/", {"code": "ER-CORE-066"}, format="json").status_code == 400
    # Moving a card to another set keeps its code: codes are stable.
    kept = staff_client.patch(f"{CHARACTERS}core-blade-3/", {"set": "er-test"}, format="json")
    assert kept.status_code == 200 and kept.json()["code"] == "ER-CORE-101"


def test_the_admin_shows_and_searches_codes(catalogue, client, django_user_model):
    client.force_login(django_user_model.objects.create_superuser("root", "r@example.com", "root-password-1"))
    page = client.get("/admin/realms/character/", {"q": "ER-CORE-017"}).content.decode()
    assert "ER-CORE-017" in page and "ER-CORE-018" not in page
    assert client.get("/admin/cardsdb/issuedcardcode/", {"q": "AL-EOTP"}).status_code == 200


def test_loading_again_and_updating_leave_codes_alone_and_keep_a_staff_edit(catalogue, staff_client):
    plan = services.official_update()
    assert plan.count(services.CONFLICT) == 0 and plan.count(services.UPDATE) == 0
    call_command("load_official", verbosity=0)
    edited = staff_client.patch(f"{CHARACTERS}iron-guardian/", {"code": "ER-CORE-200"}, format="json")
    assert edited.status_code == 200, edited.content
    plan = services.official_update(apply=True)
    assert [(p.label, p.pk) for p in plan.rows if p.action == services.CONFLICT] == [("cardsdb.card", "1001")]
    assert Card.objects.get(pk=1001).code == "ER-CORE-200"


def _fingerprint_without_code(card) -> str:
    fields = services.row_fields(card)
    fields.pop("code")
    return services.fingerprint(fields)


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_the_migration_gives_official_rows_their_fixture_codes_and_others_the_next_numbers():
    call_command("load_official", verbosity=0)
    Card.objects.filter(pk=1002).update(flavor_text="Edited by staff.")
    homebrew = Character.objects.get(pk=1003)
    homebrew.pk = homebrew.id = homebrew.card_ptr_id = None
    homebrew.slug, homebrew.code = "homebrew", ""
    homebrew.save()
    homebrew_pk = homebrew.pk
    # Records as the loader wrote them before cards had codes.
    for record in OfficialRecord.objects.filter(model="cardsdb.card"):
        card = Card.objects.get(pk=record.object_pk)
        if card.pk != 1002:
            record.fingerprint = _fingerprint_without_code(card)
            record.save()
    Card.objects.filter(pk=1064).delete()

    executor = MigrationExecutor(connection)
    executor.migrate([("cardsdb", "0002_officialrecord")])
    with connection.cursor() as cursor:
        cursor.execute("SELECT COUNT(*) FROM cardsdb_card")
        assert cursor.fetchone()[0] == 147
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())

    assert Card.objects.get(pk=1001).code == "ER-CORE-001"
    assert Card.objects.get(pk=2160).code == "AL-EOTP-083"
    assert Card.objects.get(pk=homebrew_pk).code == "ER-CORE-065"  # past every official number
    assert IssuedCardCode.objects.get(code="ER-CORE-064").card is None  # the deleted official card's code
    plan = services.official_update()
    conflicts = {(p.label, p.pk) for p in plan.rows if p.action == services.CONFLICT}
    # Edited, and deleted (both of its rows): every other official card is unedited still.
    assert conflicts == {("cardsdb.card", "1002"), ("cardsdb.card", "1064"), ("realms.character", "1064")}
    assert plan.count(services.UPDATE) == 0
    out = io.StringIO()
    call_command("load_official", stdout=out)
    assert "0 rows created" in out.getvalue()
