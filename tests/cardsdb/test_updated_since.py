"""`updated_since` on every card list of both games and the cross-game list: incremental sync."""

import datetime as dt

import pytest
from django.utils import timezone

from cardsdb.models import Card
from tests.conftest import assert_error_shape

CARD_LISTS = [
    "/api/cards/",
    "/api/realms/characters/",
    "/api/legends/spirits/",
    "/api/legends/protectors/",
    "/api/legends/defenses/",
    "/api/legends/summoning-cards/",
]


def slugs(client, url, **params):
    """The slugs of every page of a list."""
    found, page = set(), 1
    while page:
        response = client.get(url, {"page_size": 200, "page": page, **params})
        assert response.status_code == 200, response.content
        found |= {row["slug"] for row in response.json()["results"]}
        page = page + 1 if response.json()["next"] else None
    return found


@pytest.mark.parametrize("url", CARD_LISTS)
def test_updated_since_returns_exactly_the_cards_edited_since(catalogue, anon_client, url):
    every = slugs(anon_client, url)
    assert len(every) >= 2
    long_ago = timezone.now() - dt.timedelta(days=1)
    Card.objects.filter(slug__in=every).update(updated_at=long_ago)
    edited = sorted(every)[:2]
    since = timezone.now()
    for card in Card.objects.filter(slug__in=edited):
        card.save()

    assert slugs(anon_client, url, updated_since=since.isoformat()) == set(edited)
    assert slugs(anon_client, url, updated_since=since.strftime("%Y-%m-%dT%H:%M:%S.%fZ")) == set(edited)
    assert slugs(anon_client, url, updated_since=(long_ago - dt.timedelta(seconds=1)).isoformat()) == every


def test_a_time_without_an_offset_is_utc(catalogue, anon_client):
    Card.objects.update(updated_at=dt.datetime(2026, 1, 1, 12, tzinfo=dt.UTC))
    assert slugs(anon_client, "/api/cards/", updated_since="2026-01-01T12:00:00")
    assert not slugs(anon_client, "/api/cards/", updated_since="2026-01-01T12:00:01")
    assert slugs(anon_client, "/api/cards/", updated_since="2026-01-01T13:00:00+01:00")


@pytest.mark.parametrize("url", CARD_LISTS)
@pytest.mark.parametrize("bad", ["yesterday", "2026-01-01", "2026-13-01T00:00:00Z", "2026-01-01T25:00:00Z",
                                 "2026-01-01T10:00:00+99:00", "1700000000"])
def test_a_bad_updated_since_is_400_naming_it(db, anon_client, url, bad):
    body = assert_error_shape(anon_client.get(url, {"updated_since": bad}), 400)
    assert "updated_since" in body["fields"], body


@pytest.mark.parametrize("extreme", ["0001-01-01T00:00:00+23:59", "9999-12-31T23:59:59-23:59"])
def test_times_at_the_ends_of_the_calendar_answer(catalogue, anon_client, extreme):
    assert anon_client.get("/api/cards/", {"updated_since": extreme}).status_code == 200
