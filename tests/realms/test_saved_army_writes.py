"""Nothing broken is ever stored: nested writes are checked whole, partial or not; a request that fails stores
nothing; a saved army (or setup, or faction) that could not be read back is refused by the model itself, in
the admin and in code alike; and the migration repairs (and reports) armies stored broken before."""

import io
from unittest import mock

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command

from cardsdb.models import Faction
from legends.models import TeamSetup
from realms.api.serializers import ArmySerializer
from realms.models import Army
from tests.conftest import assert_error_shape
from tests.factories import legal_slots, make_roster

pytestmark = pytest.mark.django_db

ARMIES = "/api/realms/armies/"


@pytest.fixture
def roster(db):
    return make_roster()


@pytest.fixture
def army(user_client, roster) -> dict:
    response = user_client.post(ARMIES, {"name": "Keep", "slots": legal_slots(roster)}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


@pytest.fixture
def admin_client(client, django_user_model):
    client.force_login(django_user_model.objects.create_superuser("root", "root@example.com", "root-password-1"))
    return client


def stored_slots(army_id: int) -> list:
    return Army.objects.get(pk=army_id).slots


# --- the API --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("slots, fields", [
    ([{"line": "rearguard"}], {"slots.0.card"}),
    ([{"card": "iron-guardian"}], {"slots.0.line"}),
    ([{}], {"slots.0.card", "slots.0.line"}),
    ([{"card": "a", "line": "vanguard"}, {"line": "up"}], {"slots.1.card", "slots.1.line"}),
])
def test_a_partial_update_checks_each_slot_whole(user_client, army, slots, fields):
    user_client.raise_request_exception = False
    response = user_client.patch(f"{ARMIES}{army['id']}/", {"slots": slots}, format="json")
    assert set(assert_error_shape(response, 400, "invalid")["fields"]) == fields
    assert stored_slots(army["id"]) == army["slots"]
    assert user_client.get(ARMIES).status_code == 200
    assert user_client.get(f"{ARMIES}{army['id']}/").json()["valid"] is True


def test_a_partial_update_of_other_fields_keeps_the_slots(user_client, army):
    response = user_client.patch(f"{ARMIES}{army['id']}/", {"name": "Renamed"}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["name"] == "Renamed" and stored_slots(army["id"]) == army["slots"]
    whole = [{"card": army["slots"][0]["card"], "line": army["slots"][0]["line"]}]
    assert user_client.patch(f"{ARMIES}{army['id']}/", {"slots": whole}, format="json").json()["slots"] == whole


def test_a_saved_army_plays_after_a_refused_update(user_client, army):
    user_client.raise_request_exception = False
    user_client.patch(f"{ARMIES}{army['id']}/", {"slots": [{"line": "rearguard"}]}, format="json")
    response = user_client.post("/api/simulate/realms/matches/", {
        "armies": {"a": {"army": army["id"]}, "b": {"slots": army["slots"]}}, "seed": 1}, format="json")
    assert response.status_code == 201, response.content


@pytest.mark.parametrize("method", ["post", "patch", "put"])
def test_a_request_that_fails_after_saving_stores_nothing(user_client, army, roster, method):
    """Whatever fails while the answer is made (here the army's report), the write is undone with it."""
    user_client.raise_request_exception = False
    url = ARMIES if method == "post" else f"{ARMIES}{army['id']}/"
    body = {"name": "Changed", "slots": legal_slots(roster)[:3]}
    with mock.patch.object(ArmySerializer, "get_valid", side_effect=RuntimeError("answer failed")):
        response = getattr(user_client, method)(url, body, format="json")
    assert_error_shape(response, 500, "server_error")
    assert list(Army.objects.values_list("name", flat=True)) == ["Keep"]
    assert stored_slots(army["id"]) == army["slots"]


def test_a_delete_that_fails_deletes_nothing(user_client, army):
    user_client.raise_request_exception = False
    with mock.patch("rest_framework.mixins.DestroyModelMixin.perform_destroy",
                    side_effect=lambda instance: (instance.delete(), 1 / 0)):
        assert_error_shape(user_client.delete(f"{ARMIES}{army['id']}/"), 500, "server_error")
    assert Army.objects.filter(pk=army["id"]).exists()


# --- the model: every way of saving ----------------------------------------------------------------------

@pytest.mark.parametrize("slots", [
    [{"line": "rearguard"}], [{"card": "x", "line": "middle"}], [{"card": "", "line": "vanguard"}],
    [{"card": "x", "line": "vanguard", "turn": 1}], ["x"], {"card": "x"}, None, [{"card": 7, "line": "vanguard"}],
    [{"card": "x", "line": "vanguard"}] * 51,
])
def test_the_model_refuses_slots_it_could_not_read_back(user, slots):
    with pytest.raises(ValidationError) as refused:
        Army.objects.create(owner=user, name="Broken", slots=slots)
    assert "slots" in refused.value.message_dict
    assert not Army.objects.exists()


def test_the_admin_refuses_a_broken_slot(admin_client, user, army):
    url = f"/admin/realms/army/{army['id']}/change/"
    response = admin_client.post(url, {"owner": user.pk, "name": "Keep", "slots": '[{"line": "rearguard"}]',
                                       "collection": ""})
    assert response.status_code == 200  # the form again, with its errors
    assert b"slots.0.card: This field is required." in response.content
    assert stored_slots(army["id"]) == army["slots"]


@pytest.mark.parametrize("teams", [[{"players": [{"name": "Ann"}]}], "teams", [{"spirit": 3, "players": []}]])
def test_a_setup_whose_teams_cannot_be_read_is_never_saved(user, teams):
    with pytest.raises(ValidationError) as refused:
        TeamSetup.objects.create(owner=user, name="Broken", mode="teams", teams=teams)
    assert "teams" in refused.value.message_dict
    assert not TeamSetup.objects.exists()


@pytest.mark.parametrize("characteristics", [{"a": 1}, "Runes", [1, 2], ["x" * 61], ["Runes"] * 21, None])
def test_a_faction_whose_keywords_cannot_be_read_is_never_saved(characteristics):
    with pytest.raises(ValidationError):
        Faction.objects.create(slug="odd", name="Odd", icon="*", identity="Odd", description="Odd",
                               characteristics=characteristics)


def test_the_admin_refuses_faction_keywords_the_api_could_not_show(admin_client):
    response = admin_client.post("/admin/cardsdb/faction/add/", {
        "slug": "odd", "name": "Odd", "icon": "*", "identity": "Odd", "description": "Odd",
        "characteristics": '{"a": 1}', "color": "#607d8b"})
    assert response.status_code == 200 and b"characteristics" in response.content
    assert not Faction.objects.filter(slug="odd").exists()


# --- armies stored broken before: repaired and reported ------------------------------------------------

@pytest.mark.django_db(transaction=True)
def test_the_migration_repairs_broken_armies_and_reports_each_slot_it_leaves_out(user, roster, capsys):
    good = legal_slots(roster)
    broken = Army.objects.create(owner=user, name="Broken", slots=good)
    # As a partial update stored them before: written past the model's checks.
    Army.objects.filter(pk=broken.pk).update(slots=[good[0], {"line": "rearguard"}, {**good[1], "note": 1}, "x"])
    not_a_list = Army.objects.create(owner=user, name="Odd", slots=[])
    Army.objects.filter(pk=not_a_list.pk).update(slots={"card": "x"})
    fine = Army.objects.create(owner=user, name="Fine", slots=good)

    call_command("migrate", "realms", "0001", verbosity=0, stdout=io.StringIO())
    call_command("migrate", "realms", verbosity=0, stdout=io.StringIO())

    assert stored_slots(broken.pk) == [good[0], good[1]]
    assert stored_slots(not_a_list.pk) == []
    assert stored_slots(fine.pk) == good
    report = capsys.readouterr().out
    assert f"Army {broken.pk} ('Broken' of alice): slot 1 could not be read and was left out: " \
           '{"line": "rearguard"}' in report
    assert f"Army {broken.pk} ('Broken' of alice): slot 3 could not be read and was left out: \"x\"" in report
    assert 'slot 2 kept, without its unknown keys {"note": 1}' in report
    assert f"Army {not_a_list.pk} ('Odd' of alice): its slots were not a list" in report
    assert "Fine" not in report
