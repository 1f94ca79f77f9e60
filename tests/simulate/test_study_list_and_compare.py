"""The study list's filters and what it says of each study, and two studies compared: through the API."""

import math

import pytest

from simulate import batches
from simulate.engine.stats import independent_difference
from tests.conftest import assert_error_shape
from tests.factories import finished_study, two_armies

pytestmark = pytest.mark.django_db

LIST = "/api/simulate/batches/"
COMPARE = "/api/simulate/batches/compare/"




def a_patch(atk=29):
    return [{"card": two_armies()["a"]["slots"][0]["card"], "changes": {"atk": atk}}]


def test_two_independent_deltas_combine_their_standard_errors():
    # Half-widths 0.08 and 0.06: standard errors 0.08/z and 0.06/z, combined sqrt(0.08² + 0.06²)/z = 0.1/z.
    difference, (low, high) = independent_difference(0.10, (0.02, 0.18), 0.04, (-0.02, 0.10))
    assert math.isclose(difference, 0.06)
    assert math.isclose(low, -0.04) and math.isclose(high, 0.16)


def test_the_list_says_what_each_study_is_and_filters_by_kind_status_and_game(catalogue, user, user_client):
    whatif = finished_study("whatif", {"armies": two_armies(), "patch": a_patch()}, user=user, count=2)
    gauntlet = finished_study("gauntlet", {"subject": two_armies()["a"], "opponents": [two_armies()["b"], two_armies()["b"]]}, user=user,
                        count=2)
    queued = batches.create_batch(game="legends", kind="matchup", inputs={"mode": "duel"}, count=2, seed=1, user=user)
    listed = {row["id"]: row for row in user_client.get(LIST).json()["results"]}
    card = two_armies()["a"]["slots"][0]["card"]
    assert (listed[str(whatif.id)]["kind_label"], listed[str(whatif.id)]["about"]) == ("What-if", f"{card} atk → 29")
    assert listed[str(gauntlet.id)]["about"] == "2 opponents, agents the default"
    assert listed[str(whatif.id)]["finished_at"] and listed[str(queued.id)]["finished_at"] is None

    def ids(**params):
        return {row["id"] for row in user_client.get(LIST, params).json()["results"]}

    assert ids(kind="whatif") == {str(whatif.id)}
    assert ids(status="queued") == {str(queued.id)}
    assert ids(game="realms") == {str(whatif.id), str(gauntlet.id)}
    assert ids(game="realms", kind="gauntlet", status="done") == {str(gauntlet.id)}
    assert ids(ordering="finished_at") == {str(whatif.id), str(gauntlet.id), str(queued.id)}
    body = assert_error_shape(user_client.get(LIST, {"kind": "tournament"}), 400, "invalid")
    assert "kind" in body["fields"]
    assert_error_shape(user_client.get(LIST, {"page_size": "201"}), 400)


def test_two_field_studies_compare_every_cards_delta(catalogue, user, user_client):
    first = finished_study("field", {}, user=user, count=20, seed=1)
    second = finished_study("field", {}, user=user, count=20, seed=2)
    response = user_client.get(COMPARE, {"a": str(first.id), "b": str(second.id)})
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["game"], body["kind"], body["a"]["id"], body["b"]["id"]) == ("realms", "field", str(first.id),
                                                                               str(second.id))
    assert body["headlines"]["a"]["measures"].startswith("Cards by delta")
    assert body["headlines"]["a"]["outcomes"][0]["draws"] == first.results["draws"]
    rows = body["members"]
    compared = [row for row in rows if row["difference"] is not None]
    sizes = [abs(row["difference"]) for row in compared]
    assert sizes == sorted(sizes, reverse=True) and compared == rows[:len(compared)]
    assert_a_cards_difference(next(row for row in compared if row["group"] == "cards"), first, second)


def assert_a_cards_difference(row, first, second):
    """The row's deltas are the studies' own, their difference a's less b's, and its interval the difference
    plus or minus the root of the sum of the squared half-widths (each standard error is a half-width over z,
    and the margin z times their combination: z cancels out)."""
    a_row = next(card for card in first.results["cards"] if card["card"] == row["member"])
    b_row = next(card for card in second.results["cards"] if card["card"] == row["member"])
    assert row["a"]["delta"] == a_row["delta"] and row["b"]["delta"] == b_row["delta"]
    assert row["difference"] == round(a_row["delta"] - b_row["delta"], 6)
    margin = math.hypot(*[(r["delta_ci"]["high"] - r["delta_ci"]["low"]) / 2 for r in (a_row, b_row)])
    assert row["difference_ci"]["low"] == pytest.approx(row["difference"] - margin, abs=2e-6)
    assert row["difference_ci"]["high"] == pytest.approx(row["difference"] + margin, abs=2e-6)


def test_two_whatifs_of_a_field_compare_their_patched_cards(catalogue, user, user_client):
    first = finished_study("whatif", {"base": "field", "patch": a_patch(29)}, user=user, count=6)
    second = finished_study("whatif", {"base": "field", "patch": a_patch(5)}, user=user, count=6)
    body = user_client.get(COMPARE, {"a": str(first.id), "b": str(second.id)}).json()
    assert body["headlines"]["a"]["difference"] is True
    assert body["headlines"]["a"]["value"] == first.results["difference"]["win_rate"]
    assert body["headlines"]["b"]["interval"] == second.results["difference"]["ci"]
    (card,) = body["patched_cards"]
    assert card["card"] == a_patch()[0]["card"]
    for name, batch in (("a", first), ("b", second)):
        (stored,) = batch.results["patched_rows"]
        for variant in ("baseline", "patched"):
            if stored[variant] is None:
                assert card[name][variant] is None
            else:
                assert card[name][variant]["delta"] == stored[variant]["delta"]


def test_two_matchups_compare_their_headlines(catalogue, user, user_client):
    first = finished_study("matchup", {"armies": two_armies()}, user=user, count=6, seed=1)
    second = finished_study("matchup", {"armies": two_armies()}, user=user, count=6, seed=50)
    body = user_client.get(COMPARE, {"a": str(first.id), "b": str(second.id)}).json()
    for name, batch in (("a", first), ("b", second)):
        headline = body["headlines"][name]
        assert headline["value"] == batch.results["win_rate"] and headline["interval"] == batch.results["win_rate_ci"]
        assert [headline["outcomes"][0][key] for key in ("wins", "draws", "losses")] == [
            batch.results[key] for key in ("wins", "draws", "losses")]
    assert "members" not in body and "patched_cards" not in body


def test_what_cannot_be_compared_is_refused(catalogue, user, user_client, other_user):
    field = finished_study("field", {}, user=user, count=4)
    matchup = finished_study("matchup", {"armies": two_armies()}, user=user)
    legends = finished_study("matchup", {"mode": "duel"}, user=user, game="legends", count=2)
    queued = batches.create_batch(game="realms", kind="matchup", inputs={"armies": two_armies()}, count=2, seed=1, user=user)
    theirs = finished_study("matchup", {"armies": two_armies()}, user=other_user)

    def compare(a, b):
        return user_client.get(COMPARE, {"a": str(a), "b": str(b)})

    assert "only studies of one kind and one game" in assert_error_shape(compare(field.id, matchup.id), 409,
                                                                         "not_comparable")["message"]
    assert "Akin Legends" in assert_error_shape(compare(matchup.id, legends.id), 409, "not_comparable")["message"]
    assert "queued" in assert_error_shape(compare(matchup.id, queued.id), 409, "not_comparable")["message"]
    assert_error_shape(compare(matchup.id, matchup.id), 409, "not_comparable")
    assert_error_shape(compare(matchup.id, str(matchup.id).upper()), 409, "not_comparable")
    assert_error_shape(compare(matchup.id, theirs.id), 404)
    assert_error_shape(compare(matchup.id, "00000000-0000-0000-0000-000000000000"), 404)
    assert set(assert_error_shape(compare(matchup.id, "not-a-uuid"), 400, "invalid")["fields"]) == {"b"}
    assert set(assert_error_shape(user_client.get(COMPARE), 400, "invalid")["fields"]) == {"a", "b"}
    assert_error_shape(user_client.get(f"{COMPARE}?a={matchup.id}&a={matchup.id}&b={field.id}"), 400, "invalid")


@pytest.mark.parametrize("value", ["AAA", "maybe", "null"])
def test_a_published_filter_that_is_not_true_or_false_is_refused(user_client, value):
    body = assert_error_shape(user_client.get(LIST, {"published": value}), 400, "invalid")
    assert "published" in body["fields"]
