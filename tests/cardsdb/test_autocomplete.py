"""Name autocomplete (GET /api/cards/autocomplete/): ranking over the official cards, bounds, errors, query count."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from cardsdb.autocomplete import LIMIT, MAX_QUERY_LENGTH, fuzzy_score
from cardsdb.models import Card
from tests.conftest import assert_error_shape

URL = "/api/cards/autocomplete/"


def suggest(client, query: str | dict[str, str]) -> list[dict]:
    response = client.get(URL, {"q": query} if isinstance(query, str) else query)
    assert response.status_code == 200, response.content
    return response.json()["results"]


@pytest.mark.parametrize("text", ["mer", "Ember W", "s", "wind"])
def test_prefix_matches_come_first_in_name_order(catalogue, anon_client, text):
    results = suggest(anon_client, text)
    prefixed = sorted(
        (c.name for c in Card.objects.all() if c.name.casefold().startswith(text.casefold())), key=str
    )
    names = [row["name"] for row in results]
    assert prefixed, text
    assert names[: len(prefixed)] == prefixed[:LIMIT]
    assert len(names) <= LIMIT


def test_word_starts_and_misspellings_are_found_after_the_prefix_matches(catalogue, anon_client):
    assert [row["name"] for row in suggest(anon_client, "archmage")] == ["Merlin, Archmage of Runes"]
    assert suggest(anon_client, "merln")[0]["name"] == "Merlin, Archmage of Runes"
    assert suggest(anon_client, "stem wal")[0]["name"] == "Steam Wall"
    # "of runes": every word starts a word of the name.
    assert "Merlin, Archmage of Runes" in [row["name"] for row in suggest(anon_client, "of runes")]


def test_fuzzy_ranking_puts_word_starts_before_substrings_before_misspellings():
    assert fuzzy_score("arch", "Merlin, Archmage of Runes") > fuzzy_score("rchm", "Merlin, Archmage of Runes")
    assert fuzzy_score("rchm", "Merlin, Archmage of Runes") > fuzzy_score("merln", "Merlin, Archmage of Runes") > 0
    assert fuzzy_score("zzzz", "Merlin, Archmage of Runes") == 0


def test_each_result_names_its_card_and_its_api_url(catalogue, anon_client):
    for row in suggest(anon_client, "s"):
        card = Card.objects.get(slug=row["slug"])
        assert (row["name"], row["game"]) == (card.name, card.game)
        detail = anon_client.get(row["url"])
        assert detail.status_code == 200, row
        assert detail.json()["slug"] == card.slug
    kinds = {row["url"].split("/api/")[1].rsplit("/", 2)[0] for row in suggest(anon_client, "wall")}
    assert "legends/defenses" in kinds


def test_a_game_given_empty_is_refused(catalogue, anon_client):
    response = anon_client.get("/api/cards/autocomplete/", {"q": "mer", "game": ""})
    assert "game" in assert_error_shape(response, 400, "invalid")["fields"]


@pytest.mark.parametrize("game", ["realms", "legends"])
def test_game_filter(catalogue, anon_client, game):
    results = suggest(anon_client, {"q": "s", "game": game})
    assert results and {row["game"] for row in results} == {game}


def test_at_most_two_queries(catalogue, anon_client):
    with CaptureQueriesContext(connection) as queries:
        suggest(anon_client, "qqqq")  # nothing by prefix: the fuzzy candidates are read too
    selects = [q["sql"] for q in queries.captured_queries if "cardsdb_card" in q["sql"]]
    assert len(selects) <= 2


@pytest.mark.parametrize(
    "params, field",
    [
        ({"q": ""}, "q"),
        ({"q": "   "}, "q"),
        ({}, "q"),
        ({"q": "a" * (MAX_QUERY_LENGTH + 1)}, "q"),
        ({"q": "mer", "game": "chess"}, "game"),
    ],
)
def test_bad_input_is_a_400_naming_the_parameter(db, anon_client, params, field):
    body = assert_error_shape(anon_client.get(URL, params), 400, "invalid")
    assert field in body["fields"]


def test_the_longest_query_is_answered(catalogue, anon_client):
    assert suggest(anon_client, "m" * MAX_QUERY_LENGTH) == []
