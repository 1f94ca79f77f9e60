"""Bulk data: one gzipped JSON file per game, equal to the API's card lists, rebuilt when the catalogue
changes and only then, answered 304 on a matching condition."""

import gzip
import hashlib
import json
import threading

import pytest
from django.db import connection

from cardsdb import bulk
from cardsdb.models import Faction
from legends.models import Element, Spirit
from realms.models import Character
from tests.conftest import assert_error_shape

LISTS = {
    "realms": {"characters": "/api/realms/characters/"},
    "legends": {
        "spirits": "/api/legends/spirits/",
        "protectors": "/api/legends/protectors/",
        "defenses": "/api/legends/defenses/",
        "summoning-cards": "/api/legends/summoning-cards/",
    },
}


@pytest.fixture(autouse=True)
def _bulk_root(settings, tmp_path):
    settings.BULK_ROOT = tmp_path / "bulk"


def every_row(client, url):
    rows, page = [], 1
    while page:
        body = client.get(url, {"page_size": 200, "page": page}).json()
        rows += body["results"]
        page = page + 1 if body["next"] else None
    return rows


def download(client, game, **headers):
    return client.get(f"/api/bulk/{game}.json.gz", headers=headers)


def document(response):
    return json.loads(gzip.decompress(b"".join(response.streaming_content)))


def relative(value):
    """The API's absolute URLs as the file's paths (the file is the same whatever host serves it)."""
    text = json.dumps(value).replace("http://testserver/", "/")
    return json.loads(text)


@pytest.mark.parametrize("game", ["realms", "legends"])
def test_the_file_holds_every_card_as_the_api_lists_them(catalogue, anon_client, game):
    response = download(anon_client, game)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/gzip"
    assert f'filename="{game}.json.gz"' in response["Content-Disposition"]
    assert response["ETag"] and response["Last-Modified"] and "max-age" in response["Cache-Control"]
    content = document(response)
    assert content["game"] == game
    assert set(content["cards"]) == set(LISTS[game])
    for key, url in LISTS[game].items():
        assert content["cards"][key] == relative(every_row(anon_client, url)), key
    assert content["card_count"] == sum(len(rows) for rows in content["cards"].values()) > 0
    sets = {row["code"] for row in content["related"]["sets"]}
    assert sets == {card["set"] for rows in content["cards"].values() for card in rows}


def test_the_list_describes_each_file(catalogue, anon_client):
    response = anon_client.get("/api/bulk/")
    assert response.status_code == 200
    listed = {row["game"]: row for row in response.json()}
    assert set(listed) == {"realms", "legends"}
    for game, row in listed.items():
        assert row["url"] == f"http://testserver/api/bulk/{game}.json.gz"
        got = download(anon_client, game)
        payload = b"".join(got.streaming_content)
        assert row["size"] == len(payload)
        assert row["sha256"] == hashlib.sha256(payload).hexdigest()
        assert row["etag"] == got["ETag"]
        assert row["card_count"] == json.loads(gzip.decompress(payload))["card_count"]


def test_the_etag_changes_with_the_catalogue_and_only_then(catalogue, anon_client):
    first = download(anon_client, "realms")["ETag"]
    assert download(anon_client, "realms")["ETag"] == first
    character = Character.objects.order_by("pk").first()
    character.flavor_text = "Edited."
    character.save()
    edited = download(anon_client, "realms")
    assert edited["ETag"] != first
    assert any(row["flavor_text"] == "Edited." for row in document(edited)["cards"]["characters"])
    # A related row, and a deletion, are changes too; another game's edit is not.
    legends = download(anon_client, "legends")["ETag"]
    Element.objects.filter(pk=Element.objects.order_by("pk").first().pk).update(name="Renamed")
    assert download(anon_client, "realms")["ETag"] == edited["ETag"]
    assert download(anon_client, "legends")["ETag"] != legends
    faction = Faction.objects.order_by("pk").first()
    faction.identity = "A new identity."
    faction.save()
    renamed = download(anon_client, "realms")["ETag"]
    assert renamed != edited["ETag"]
    legends = download(anon_client, "legends")["ETag"]
    Spirit.objects.order_by("pk").last().delete()
    assert download(anon_client, "legends")["ETag"] != legends
    assert download(anon_client, "realms")["ETag"] == renamed


def test_old_versions_are_pruned(catalogue, anon_client, settings):
    download(anon_client, "realms")
    character = Character.objects.order_by("pk").first()
    character.save()
    download(anon_client, "realms")
    names = sorted(path.name for path in settings.BULK_ROOT.glob("realms-*"))
    assert len(names) == 2 and {name.rsplit(".", 2)[0] for name in names} == {names[0].rsplit(".", 2)[0]}


@pytest.mark.parametrize("header", [
    "{etag}",
    'W/{etag}',
    '"something-else", W/{etag}',
    "*",
])
def test_a_matching_if_none_match_is_304(catalogue, anon_client, header):
    etag = download(anon_client, "legends")["ETag"]
    response = download(anon_client, "legends", if_none_match=header.format(etag=etag))
    assert response.status_code == 304
    assert response["ETag"] == etag and not response.content


def test_if_none_match_that_does_not_match_sends_the_file(catalogue, anon_client):
    response = download(anon_client, "legends", if_none_match='"old", W/"older"')
    assert response.status_code == 200 and document(response)["game"] == "legends"


def test_if_modified_since(catalogue, anon_client):
    last_modified = download(anon_client, "realms")["Last-Modified"]
    assert download(anon_client, "realms", if_modified_since=last_modified).status_code == 304
    assert download(anon_client, "realms", if_modified_since="Thu, 01 Jan 2015 00:00:00 GMT").status_code == 200


def test_an_unknown_game_is_404_in_the_error_shape(db, anon_client):
    assert_error_shape(download(anon_client, "chess"), 404)


def test_each_version_is_built_once(catalogue, monkeypatch):
    built = []
    real = bulk.catalogue_document
    monkeypatch.setattr(bulk, "catalogue_document", lambda game: built.append(game) or real(game))
    first = bulk.bulk_file("realms")
    assert bulk.bulk_file("realms") == first
    assert built == ["realms"]


@pytest.mark.django_db(transaction=True)
def test_concurrent_first_requests_build_the_file_once(monkeypatch):
    from django.core.management import call_command

    call_command("load_official", verbosity=0)
    built = []
    real = bulk.catalogue_document
    monkeypatch.setattr(bulk, "catalogue_document", lambda game: built.append(game) or real(game))
    found, errors = [], []

    def fetch():
        try:
            found.append(bulk.bulk_file("legends"))
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=fetch) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors and len(found) == 4 and len(set(found)) == 1
    assert built == ["legends"]
