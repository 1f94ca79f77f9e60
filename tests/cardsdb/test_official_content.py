"""Official content: loading adds what is missing and never overwrites a row; an update to a new release
changes only the rows nobody edited since they were loaded, and reports the edited ones as conflicts."""

import io
import json
import shutil
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command

from cardsdb import services
from cardsdb.models import Card, CardSet, OfficialRecord, Rarity
from realms.models import Character
from tests.cardsdb.test_fixtures_and_settings import ROOT, dump_all
from tests.cardsdb.test_images import png_bytes
from tests.conftest import official_fixture_files

pytestmark = pytest.mark.django_db

OFFICIAL_ROWS = sum(len(json.loads(Path(path).read_text())) for path in official_fixture_files())


@pytest.fixture(autouse=True)
def media_root(tmp_path, settings):
    settings.MEDIA_ROOT = tmp_path / "media"


def run(command: str, *args: str) -> str:
    out = io.StringIO()
    call_command(command, *args, stdout=out)
    return out.getvalue()


def edit_iron_guardian() -> Character:
    """What a staff member does in the admin: new flavour text, ATK and art."""
    card = Character.objects.get(slug="iron-guardian")
    card.flavor_text = "Edited by staff."
    card.attack = 9
    card.image = SimpleUploadedFile("guardian.png", png_bytes(64, 64), content_type="image/png")
    card.full_clean()
    card.save()
    return card


def release_copy(tmp_path: Path) -> dict[str, Path]:
    """The official fixtures copied to a folder, to be edited into a new release."""
    folder = tmp_path / "release"
    folder.mkdir()
    paths = {}
    for name in services.OFFICIAL_FIXTURE_NAMES:
        paths[name] = folder / name
        shutil.copy(ROOT / "fixtures" / name, paths[name])
    return paths


def edit_release(path: Path, change) -> None:
    rows = json.loads(path.read_text())
    change(rows)
    path.write_text(json.dumps(rows, indent=1, ensure_ascii=False))


def row(rows: list[dict], model: str, pk: int) -> dict:
    return next(r for r in rows if r["model"] == model and r["pk"] == pk)


def test_make_load_uses_the_command_that_never_overwrites():
    makefile = (ROOT / "Makefile").read_text()
    target = makefile.split("\nload:", 1)[1].split("\n\n", 1)[0]
    assert "manage.py load_official" in target and "loaddata" not in target


def test_loading_creates_every_row_and_records_it():
    out = run("load_official")
    assert f"{OFFICIAL_ROWS} rows created" in out
    assert OfficialRecord.objects.count() == OFFICIAL_ROWS
    # Every recorded fingerprint is the fingerprint of the row as it now stands in the database.
    for record in OfficialRecord.objects.all():
        assert record.fingerprint == services.fingerprint(services.row_fields(record.recorded_row())), record
    # The id sequences moved past the fixture keys (PostgreSQL would otherwise hand out id 1 again).
    Rarity.objects.create(slug="mythic", name="Mythic", order=5)
    CardSet.objects.create(code="er-two", name="Echo Realms: Two", game="realms", release_date="2026-06-01")


def test_loading_twice_changes_nothing():
    run("load_official")
    first = dump_all()
    out = run("load_official")
    assert dump_all() == first
    assert f"0 rows created, {OFFICIAL_ROWS} already present" in out


def test_loading_again_keeps_the_edits_of_staff(tmp_path):
    run("load_official")
    card = edit_iron_guardian()
    image, thumbnail = card.image.name, card.thumbnail.name
    assert image and thumbnail
    before = dump_all()
    run("load_official")
    assert dump_all() == before
    card = Character.objects.get(slug="iron-guardian")
    assert (card.flavor_text, card.attack, card.image.name, card.thumbnail.name) == (
        "Edited by staff.", 9, image, thumbnail)
    assert (tmp_path / "media" / image).is_file() and (tmp_path / "media" / thumbnail).is_file()


def test_loading_after_loaddata_records_rows_without_changing_them():
    call_command("loaddata", *official_fixture_files(), verbosity=0)
    edit_iron_guardian()
    before = dump_all()
    out = run("load_official")
    assert "0 rows created" in out and f"{OFFICIAL_ROWS} recorded as official now, 2 of them differing" in out
    assert OfficialRecord.objects.count() == OFFICIAL_ROWS
    assert dump_all(exclude=OfficialRecord) == before  # only records were written
    card = Character.objects.get(slug="iron-guardian")
    assert (card.flavor_text, card.attack) == ("Edited by staff.", 9)
    # The edited rows were recorded as shipped, so an update sees them as edited, never as unedited.
    report = run("update_official")
    assert "conflict  cardsdb.card 1001 (Iron Guardian): edited since it was loaded" in report
    assert "2 conflicts" in report and "0 rows would be updated" in report


def test_a_row_deleted_by_staff_stays_deleted():
    run("load_official")
    Character.objects.get(slug="iron-guardian").delete()
    before = dump_all()
    out = run("load_official")
    assert dump_all() == before
    assert not Card.objects.filter(slug="iron-guardian").exists()
    assert "2 deleted since they were loaded and left deleted" in out


def test_a_row_that_cannot_be_created_stops_the_whole_load():
    Rarity.objects.create(pk=50, slug="common", name="Staff common", order=9)
    with pytest.raises(CommandError, match=r"cardsdb.rarity 1 \(Common\) cannot be created"):
        run("load_official")
    assert list(Rarity.objects.values_list("slug", flat=True)) == ["common"]
    assert not Card.objects.exists() and not OfficialRecord.objects.exists()


def test_an_unchanged_release_changes_nothing():
    run("load_official")
    before = dump_all()
    out = run("update_official", "--apply")
    assert dump_all() == before
    assert "0 rows updated, 0 created; 0 conflicts" in out and f"{OFFICIAL_ROWS} unchanged" in out


def new_release(rows_by_file: dict[str, Path]) -> None:
    """A release that changes an edited card, an unedited card and a rarity, adds a card and drops one."""

    def starter(rows):
        row(rows, "cardsdb.card", 1001)["fields"]["flavor_text"] = "The wall, reprinted."  # edited by staff
        row(rows, "realms.character", 1001)["fields"]["attack"] = 5  # edited by staff
        row(rows, "cardsdb.card", 1002)["fields"]["flavor_text"] = "Pikes first, questions later."
        row(rows, "realms.character", 1002)["fields"]["attack"] = 8
        new_card = json.loads(json.dumps(row(rows, "cardsdb.card", 1003)))
        new_card["pk"] = 1999
        new_card["fields"].update(name="Reprint Herald", slug="reprint-herald", code="ER-CORE-099",
                                  flavor_text="New in this release.")
        new_character = json.loads(json.dumps(row(rows, "realms.character", 1003)))
        new_character["pk"] = 1999
        rows.extend([new_card, new_character])
        rows[:] = [r for r in rows if r["pk"] != 1004]  # Shieldbearer of Valdren leaves the release

    def catalogue(rows):
        row(rows, "cardsdb.rarity", 4)["fields"]["color"] = "#ffc107"

    edit_release(rows_by_file["realms_starter.json"], starter)
    edit_release(rows_by_file["catalogue.json"], catalogue)


def test_an_update_dry_run_reports_every_change_and_writes_nothing(tmp_path):
    run("load_official")
    edit_iron_guardian()
    release = release_copy(tmp_path)
    new_release(release)
    before = dump_all()
    out = run("update_official", *map(str, release.values()))
    assert dump_all() == before
    lines = out.splitlines()
    check_dry_run_lists_updates_and_creations(lines)
    check_dry_run_lists_conflicts_and_retirements(lines)
    assert ("Dry run: 3 rows would be updated, 2 would be created; 2 conflicts kept as they are, 0 held back "
            "with them; 2 no longer in the release (left in place);") in out
    assert "run again with --apply" in out


def check_dry_run_lists_updates_and_creations(lines: list[str]) -> None:
    """Each row the release changes, with each field's old and new value; each row it adds."""
    assert "update    cardsdb.card 1002 (Kingdom Pikeman)" in lines
    assert "    flavor_text: 'Ten pikes, one heartbeat.' -> 'Pikes first, questions later.'" in lines
    assert "update    realms.character 1002 (Kingdom Pikeman)" in lines
    assert "    attack: 7 -> 8" in lines
    assert "update    cardsdb.rarity 4 (Legendary)" in lines
    assert any(line.startswith("    color: ") and line.endswith("-> '#ffc107'") for line in lines)
    assert "create    cardsdb.card 1999 (Reprint Herald)" in lines
    assert "create    realms.character 1999 (Reprint Herald)" in lines


def check_dry_run_lists_conflicts_and_retirements(lines: list[str]) -> None:
    """Each row edited since it was loaded, with the database's and the release's values; each row retired."""
    assert "conflict  cardsdb.card 1001 (Iron Guardian): edited since it was loaded; kept as it is" in lines
    assert "    flavor_text: database 'Edited by staff.', release 'The wall, reprinted.'" in lines
    assert "conflict  realms.character 1001 (Iron Guardian): edited since it was loaded; kept as it is" in lines
    assert "    attack: database 9, release 5" in lines
    assert "    image: database 'cards/guardian.png', release ''" in lines
    assert any(line.startswith("retired   cardsdb.card 1004 (Shieldbearer of Valdren)") for line in lines)


def test_an_update_applied_changes_unedited_rows_and_keeps_edited_ones(tmp_path):
    run("load_official")
    guardian = edit_iron_guardian()
    image = guardian.image.name
    release = release_copy(tmp_path)
    new_release(release)
    out = run("update_official", "--apply", *map(str, release.values()))
    assert "Applied: 3 rows updated, 2 created; 2 conflicts" in out

    guardian = Character.objects.get(pk=1001)
    assert (guardian.flavor_text, guardian.attack, guardian.image.name) == ("Edited by staff.", 9, image)
    pikeman = Character.objects.get(pk=1002)
    assert (pikeman.flavor_text, pikeman.attack) == ("Pikes first, questions later.", 8)
    assert pikeman.updated_at > guardian.created_at
    assert Rarity.objects.get(pk=4).color == "#ffc107"
    herald = Character.objects.get(slug="reprint-herald")
    assert herald.flavor_text == "New in this release." and herald.race_id == Character.objects.get(pk=1003).race_id
    assert Character.objects.filter(pk=1004).exists()  # retired from the release, never deleted
    # Updated rows are recorded as the release has them: the same release again changes nothing.
    after = dump_all()
    again = run("update_official", "--apply", *map(str, release.values()))
    assert dump_all() == after
    assert "Applied: 0 rows updated, 0 created; 2 conflicts" in again


def test_a_conflict_holds_back_the_rest_of_its_card(tmp_path):
    run("load_official")
    card = Character.objects.get(pk=1002)
    card.flavor_text = "Staff wording."
    card.save()
    release = release_copy(tmp_path)
    new_release(release)
    out = run("update_official", "--apply", *map(str, release.values()))
    lines = out.splitlines()
    assert "conflict  cardsdb.card 1002 (Kingdom Pikeman): edited since it was loaded; kept as it is" in lines
    assert ("held      realms.character 1002 (Kingdom Pikeman): held back: another row of this object is in "
            "conflict") in lines
    card.refresh_from_db()
    # The ATK the release changes is not applied alone: the card stays as staff left it.
    assert (card.flavor_text, card.attack) == ("Staff wording.", 7)


def test_a_bad_fixture_is_refused(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text('[{"model": "cardsdb.rarity", "pk": 1, "fields": {"slug": ')
    with pytest.raises(CommandError, match="broken.json"):
        run("load_official", str(broken))
    with pytest.raises(CommandError, match="broken.json"):
        run("update_official", str(broken))


def test_the_admin_records_a_row_as_it_stands_and_refuses_a_missing_one(client, django_user_model):
    run("load_official")
    client.force_login(django_user_model.objects.create_superuser("root", "root@example.com", "root-password-1"))
    OfficialRecord.objects.filter(model="cardsdb.rarity", object_pk="4").delete()
    Rarity.objects.filter(pk=4).update(color="#000000")
    response = client.post("/admin/cardsdb/officialrecord/add/",
                           {"model": "cardsdb.rarity", "object_pk": "4", "source": "catalogue.json"})
    assert response.status_code == 302, response.content.decode()[-2000:]
    record = OfficialRecord.objects.get(model="cardsdb.rarity", object_pk="4")
    assert record.fingerprint == services.fingerprint(services.row_fields(Rarity.objects.get(pk=4)))
    response = client.post("/admin/cardsdb/officialrecord/add/",
                           {"model": "cardsdb.rarity", "object_pk": "99", "source": "catalogue.json"})
    assert response.status_code == 200 and "No cardsdb.rarity row has the key &#x27;99&#x27;." in response.content.decode()


def test_the_admin_action_lets_a_release_replace_an_edit(client, django_user_model, tmp_path,
                                                         django_capture_on_commit_callbacks):
    run("load_official")
    client.force_login(django_user_model.objects.create_superuser("root", "root@example.com", "root-password-1"))
    guardian = edit_iron_guardian()
    art = [tmp_path / "media" / guardian.image.name, tmp_path / "media" / guardian.thumbnail.name]
    assert all(path.is_file() for path in art)
    records = OfficialRecord.objects.filter(object_pk="1001", model__in=["cardsdb.card", "realms.character"])
    response = client.post("/admin/cardsdb/officialrecord/", {
        "action": "record_as_it_stands", "_selected_action": [str(pk) for pk in records.values_list("pk", flat=True)],
    })
    assert response.status_code == 302
    release = release_copy(tmp_path)
    new_release(release)
    with django_capture_on_commit_callbacks(execute=True):
        out = run("update_official", "--apply", *map(str, release.values()))
    assert "Applied: 5 rows updated, 2 created; 0 conflicts" in out
    guardian = Character.objects.get(pk=1001)
    assert (guardian.flavor_text, guardian.attack, guardian.image.name) == ("The wall, reprinted.", 5, "")
    assert not any(path.exists() for path in art)  # the art the release removed left the disk with it
