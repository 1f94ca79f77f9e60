"""The regression study and `manage.py balance_gate`: a field played on a release and on the working catalogue
with the same seeds; a card broken since moves beyond noise and fails the gate, an unchanged catalogue passes it;
the API answers as its schema says, and the study records each state's versions of the cards it played."""

import io

import pytest
from django.core.management import CommandError, call_command

from cardsdb.card_history import apply_edit
from legends.models import Protector
from realms.models import Character
from simulate import batches
from simulate.models import Batch
from simulate.study_kinds.regression import change
from tests.conftest import assert_error_shape
from tests.simulate.test_contract import contract, openapi  # noqa: F401 - fixtures

pytestmark = pytest.mark.django_db

REALMS, LEGENDS = "/api/simulate/realms/batches/", "/api/simulate/legends/batches/"
BROKEN = "aasimar-acolyte"


@pytest.fixture
def release(catalogue, staff_client):
    """Both games' catalogues as they are, released as "Core 1.0" (slug core-10), as staff make one."""
    for game in ("realms", "legends"):
        response = staff_client.post(f"/api/{game}/releases/", {"name": "Core 1.0"}, format="json")
        assert response.status_code == 201, response.content
    return "Core 1.0"


def broken(slug: str = BROKEN) -> int:
    """A designer's edit since the release: the card's ATK up to 30 (as the admin saves it); its new version."""
    return apply_edit(Character.objects.get(slug=slug), {"attack": 30}, reason="Playtest").history_id


def gate(*args: str) -> tuple[str, str | None]:
    """What `manage.py balance_gate` prints, and its error (None when it exits 0)."""
    out = io.StringIO()
    try:
        call_command("balance_gate", *args, "--seed", "1", "--processes", "1", stdout=out, stderr=io.StringIO())
    except CommandError as exc:
        return out.getvalue(), str(exc)
    return out.getvalue(), None


def test_the_gate_fails_on_a_card_broken_since_the_release_and_names_it(release):
    broken()
    out, error = gate("--against", "core-10", "--count", "300")
    assert error is not None and error.startswith("FAIL: 1 moved") and BROKEN in error
    assert "Moved beyond noise by 3 points or more: 1" in out
    moved = out.split("Moved beyond noise")[1]
    assert f"cards  {BROKEN}" in moved and "FAIL: 1 moved beyond noise" in out
    assert out.splitlines()[2].startswith("FAIL: working against Core 1.0")


def test_the_gate_passes_an_unchanged_catalogue(release):
    out, error = gate("--against", "Core 1.0", "--count", "300")
    assert error is None
    assert "Moved beyond noise by 3 points or more: 0" in out
    assert out.rstrip().endswith("PASS: no card or group moved beyond noise by 3 points or more.")
    assert "PASS: working against Core 1.0" in out


def test_the_gate_refuses_a_release_the_game_does_not_have(release):
    with pytest.raises(CommandError, match="No release 'core-9'"):
        call_command("balance_gate", "--against", "core-9", "--count", "10", stdout=io.StringIO())


def test_a_regression_through_the_api_answers_its_schema_and_records_both_states(
        anon_client, release, contract, local_runner, django_capture_on_commit_callbacks):  # noqa: F811
    before = Character.objects.get(slug=BROKEN).history.latest().history_id
    after = broken()
    with django_capture_on_commit_callbacks(execute=True):
        queued = contract(anon_client.post(REALMS, {"kind": "regression", "against": "Core 1.0", "count": 20,
                                                    "seed": 4, "threshold": 5}, format="json"), REALMS)
    assert queued["about"] == "working vs Core 1.0" and queued["count"] == 40
    local_runner.run_all()
    body = contract(anon_client.get(queued["url"]), "/api/simulate/batches/{id}/", "get")
    results = body["results"]
    assert body["status"] == "done" and results["played"] == 40
    assert results["states"] == {"a": {"catalogue": "core-10", "name": "Core 1.0"},
                                 "b": {"catalogue": "working", "name": "working"}}
    assert results["gate"]["threshold"] == 5 and {"cards", "factions", "classes"} == {
        row["group"] for row in results["changes"]}
    assert results["gate"]["passed"] == (not results["gate"]["moved"])
    differences = [abs(row["difference"]) for row in results["changes"] if row["difference"] is not None]
    assert differences == sorted(differences, reverse=True)
    # Its record of the catalogue: the broken card as the release froze it on one side, as it is on the other.
    states = {state["catalogue"]: state for state in body["catalogue"]["states"]}
    assert states["core-10"]["release"] == "Core 1.0" and states["working"]["release"] is None
    assert states["core-10"]["versions"]["realms.character"][BROKEN] == before
    assert states["working"]["versions"]["realms.character"][BROKEN] == after
    assert body["catalogue"]["versions"]["realms.character"][BROKEN] == after
    assert body["catalogue"]["release"] is None  # the working half is no release


def test_a_field_study_records_the_working_versions_as_before(release):
    broken()
    batch = batches.create_batch(game="realms", kind="field", inputs={}, count=1, seed=1)
    assert "states" not in batch.catalogue and batch.catalogue["release"] is None
    assert batch.catalogue["versions"]["realms.character"][BROKEN] == \
        Character.objects.get(slug=BROKEN).history.latest().history_id


def test_an_unknown_release_is_refused_naming_against(anon_client, release):
    for payload in ({"kind": "regression", "against": "core-9", "count": 5},
                    {"kind": "regression", "against": "Core 1.0", "versus": "nope", "count": 5}):
        body = assert_error_shape(anon_client.post(REALMS, payload, format="json"), 400, "invalid")
        key = "versus" if "versus" in payload else "against"
        assert key in body["fields"] and "No release" in body["message"], body
    body = assert_error_shape(anon_client.post(REALMS, {"kind": "regression", "count": 5}, format="json"), 400)
    assert "against" in body["fields"]
    body = assert_error_shape(anon_client.post(REALMS, {"kind": "regression", "against": 10, "count": 5},
                                               format="json"), 400)
    assert "against" in body["fields"]  # a release is named by text only
    for threshold in (0, 51, "3"):
        body = assert_error_shape(anon_client.post(REALMS, {"kind": "regression", "against": "Core 1.0",
                                                            "threshold": threshold, "count": 5}, format="json"), 400)
        assert "threshold" in body["fields"], body
    assert not Batch.objects.exists()


def test_two_releases_compare_without_the_working_catalogue(anon_client, release, staff_client):
    broken()
    assert staff_client.post("/api/realms/releases/", {"name": "Core 1.1"}, format="json").status_code == 201
    Character.objects.filter(slug="reef-troll").delete()  # after both releases: neither state misses it
    batch = batches.play_here(batches.create_batch(game="realms", kind="regression", count=10, seed=2,
                                                   inputs={"against": "core-10", "versus": "Core 1.1"}).pk)
    assert batch.results["states"]["b"] == {"catalogue": "core-11", "name": "Core 1.1"}
    assert {state["catalogue"] for state in batch.catalogue["states"]} == {"core-10", "core-11"}
    assert batch.catalogue["versions"] == {} and batch.catalogue["release"] is None
    assert "reef-troll" in {row["member"] for row in batch.results["changes"] if row["status"] == "kept"}


def test_a_card_only_one_state_holds_is_added_or_removed(release):
    Character.objects.filter(slug="reef-troll").delete()
    batch = batches.play_here(batches.create_batch(game="realms", kind="regression", count=20, seed=3,
                                                   inputs={"against": "Core 1.0"}).pk)
    rows = {row["member"]: row for row in batch.results["changes"]}
    assert rows["reef-troll"]["status"] == "removed" and rows["reef-troll"]["b"] is None
    assert rows["reef-troll"]["difference"] is None and not rows["reef-troll"]["moved"]
    assert {"group": "cards", "member": "reef-troll", "difference": None} in batch.results["gate"]["removed"]


def test_a_legends_regression_lists_an_edited_protector_on_both_states(
        anon_client, release, contract, local_runner, django_capture_on_commit_callbacks):  # noqa: F811
    effect = {"kind": "cancel_attack", "when": "showdown_defenses", "count": 2, "element": "any"}
    apply_edit(Protector.objects.get(slug="tide-keeper"), {"effect": effect}, reason="Playtest")
    with django_capture_on_commit_callbacks(execute=True):
        queued = contract(anon_client.post(LEGENDS, {"kind": "regression", "mode": "duel", "against": "core-10",
                                                     "count": 30, "seed": 6}, format="json"), LEGENDS)
    local_runner.run_all()
    body = contract(anon_client.get(queued["url"]), "/api/simulate/batches/{id}/", "get")
    assert body["status"] == "done", body["error"]
    rows = {(row["group"], row["member"]): row for row in body["results"]["changes"]}
    assert {group for group, _ in rows} == {"protectors", "defenses", "summoning_cards"}
    tide = rows[("protectors", "tide-keeper")]
    assert tide["status"] == "kept" and tide["a"]["delta"] is not None and tide["b"]["delta"] is not None
    assert tide["difference"] == pytest.approx(tide["b"]["delta"] - tide["a"]["delta"], abs=1e-6)
    versions = {state["catalogue"]: state["versions"]["legends.protector"]["tide-keeper"]
                for state in body["catalogue"]["states"]}
    assert versions["core-10"] != versions["working"]


def test_the_difference_and_its_interval_by_hand():
    """0.10 (0.05 to 0.15) then 0.20 (0.15 to 0.25): a standard error of 0.05 / 1.96 each, so a margin of
    1.96 x sqrt(2) x 0.05 / 1.96 = 0.0707 about +0.10; moved at 3 points, not at 11."""
    before = {"appearances": 100, "win_rate": 0.5, "delta": 0.1, "delta_ci": {"low": 0.05, "high": 0.15}, "flag": "over"}
    after = {**before, "delta": 0.2, "delta_ci": {"low": 0.15, "high": 0.25}}
    row = change(before, after, 3)
    assert row["difference"] == pytest.approx(0.1)
    assert row["difference_ci"] == pytest.approx({"low": 0.029289, "high": 0.170711}, abs=1e-6)
    assert row["moved"] and row["status"] == "kept"
    assert not change(before, after, 11)["moved"]
    assert not change(before, {**after, "delta_ci": {"low": 0.05, "high": 0.35}}, 3)["moved"]  # within noise
