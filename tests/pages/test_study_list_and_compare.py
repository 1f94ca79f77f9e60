"""The studies page (a list a designer can filter), two studies compared side by side, and the report's way
there: through Django's test client."""

import re

import pytest
from django.urls import reverse

from realms.models import Character
from simulate.pages import charts
from tests.factories import faction_army, finished_study, two_armies

pytestmark = pytest.mark.django_db

LIST = reverse("study-list")
COMPARE = reverse("study-compare")




def text_of(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).replace("&#x27;", "'")


def rows_of(html: str) -> list[str]:
    """The text of each row of the page's first table body."""
    body = html.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    return [text_of(row).strip() for row in re.findall(r"<tr.*?</tr>", body, re.S)]


def test_the_list_names_each_study_and_filters_them(client, catalogue, user):
    card = faction_army("arcane")[0]["card"]
    whatif = finished_study("whatif", {"armies": two_armies(), "patch": [{"card": card, "changes": {"atk": 9}}]}, user=user,
                      count=2, seed=11)
    field = finished_study("field", {}, user=user, count=2, seed=12)
    client.force_login(user)
    html = client.get(LIST).content.decode()
    assert '<label for="id_kind">' in html and '<label for="id_status">' in html and '<label for="id_game">' in html
    rows = rows_of(html)
    assert rows[0].startswith("Field the official sets Echo Realms Done 2 of 2 12")
    assert rows[1].startswith(f"What-if {card} atk → 9 Echo Realms Done 4 of 4 11")
    assert reverse("study-detail", args=[whatif.id]) in html and str(whatif.id)[:8] not in text_of(html)
    filtered = client.get(LIST, {"kind": "field", "status": "done", "game": "realms"}).content.decode()
    assert reverse("study-detail", args=[field.id]) in filtered
    assert reverse("study-detail", args=[whatif.id]) not in filtered
    assert "No study of this kind, status or game yet." in client.get(LIST, {"game": "legends"}).content.decode()


def test_the_list_refuses_bad_filters_and_pages_with_a_page(client, catalogue, user):
    client.force_login(user)
    response = client.get(LIST, {"kind": "<tournament>"})
    assert response.status_code == 400 and "Select a valid choice" in text_of(response.content.decode())
    assert "<tournament>" not in response.content.decode()
    assert client.get(LIST, {"page": "9"}).status_code == 404
    assert client.get(f"{LIST}?kind=field&kind=matchup").status_code == 400


def test_an_anonymous_visitor_is_asked_to_sign_in(client):
    html = client.get(LIST).content.decode()
    assert "Sign in" in html and "<table" not in html


def test_the_new_study_page_lists_recent_studies_by_what_they_are(client, catalogue, user):
    batch = finished_study("gauntlet", {"subject": two_armies()["a"], "opponents": [two_armies()["b"]]}, user=user, count=2)
    client.force_login(user)
    html = client.get(reverse("study-new")).content.decode()
    assert "Gauntlet" in html and "1 opponent, agents the default" in html and str(batch.id)[:8] not in text_of(html)
    assert f'href="{LIST}"' in html


def test_a_report_offers_the_users_other_studies_of_its_kind_to_compare(client, catalogue, user):
    first = finished_study("field", {}, user=user, count=2, seed=1)
    second = finished_study("field", {}, user=user, count=2, seed=2)
    finished_study("matchup", {"armies": two_armies()}, user=user)
    client.force_login(user)
    html = client.get(reverse("study-detail", args=[first.id])).content.decode()
    form = html.split('class="compare-form"', 1)[1].split("</form>", 1)[0]
    assert f'action="{COMPARE}"' in html and f'name="a" value="{first.id}"' in form
    assert re.findall(r'<option value="([^"]+)"', form) == [str(second.id)]
    assert '<label for="compare-with">Compare with another of your field studies</label>' in form


def test_two_field_studies_side_by_side(client, catalogue, user):
    first = finished_study("field", {}, user=user, count=20, seed=1)
    second = finished_study("field", {}, user=user, count=20, seed=2)
    client.force_login(user)
    response = client.get(COMPARE, {"a": str(first.id), "b": str(second.id)})
    assert response.status_code == 200
    html = response.content.decode()
    text = text_of(html)
    assert "Compare two Echo Realms field studies" in text
    assert "combines their standard errors" in text
    assert "Study a: Cards by delta" in text and "Study b: Cards by delta" in text
    top = html.split('class="compared-members"', 1)[1]
    (first_row, *_) = rows_of(top)
    of_a = {row["card"]: row for row in first.results["cards"]}
    of_b = {row["card"]: row for row in second.results["cards"]}
    biggest = max((card for card in of_a if card in of_b and of_a[card]["delta"] is not None
                   and of_b[card]["delta"] is not None),
                  key=lambda card: abs(round(of_a[card]["delta"] - of_b[card]["delta"], 6)))
    name = Character.objects.get(slug=biggest).name
    difference = round(of_a[biggest]["delta"] - of_b[biggest]["delta"], 6)
    assert first_row.startswith(f"{name} Cards {charts.points(of_a[biggest]['delta'])}")
    assert charts.points(difference) in first_row


def test_what_cannot_be_compared_is_a_readable_page(client, catalogue, user, other_user):
    field = finished_study("field", {}, user=user, count=2)
    matchup = finished_study("matchup", {"armies": two_armies()}, user=user)
    theirs = finished_study("matchup", {"armies": two_armies()}, user=other_user)
    client.force_login(user)
    cases = [
        ({"a": field.id, "b": matchup.id}, 409, "only studies of one kind and one game are compared"),
        ({"a": matchup.id, "b": theirs.id}, 404, "There is no study b"),
        ({"a": matchup.id, "b": "not-a-uuid"}, 400, "b: Not a study id"),
        ({"a": matchup.id}, 400, "b: Give the id of a study."),
    ]
    for params, status, said in cases:
        response = client.get(COMPARE, params)
        assert response.status_code == status, params
        assert said in text_of(response.content.decode()), params
