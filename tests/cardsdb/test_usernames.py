"""Skeletons and script mixes of usernames (cardsdb.usernames), on Unicode's own data."""

import unicodedata

import pytest

from cardsdb.usernames import digests, fold, mixed_scripts, prototypes, skeleton


@pytest.mark.parametrize(("text", "expected"), [
    ("\u0430lice", "alice"),  # Cyrillic а
    ("\u0440\u0430\u0443\u0440\u0430\u04cf", "paypai"),  # all Cyrillic: раураӏ
    ("rnike", "rnike"), ("mike", "rnike"),  # m reads as r n
    ("a1ice", "alice"), ("aIice", "alice"),  # digit one and capital i read as l
])
def test_skeletons_map_look_alikes_to_one_form(text, expected):
    assert skeleton(text) == expected


def test_a_skeleton_is_its_own_skeleton():
    # Of the characters a name can hold: the sign-up form normalizes names (NFKC), as fold() does.
    for char in (char for char in prototypes() if unicodedata.normalize("NFKC", char) == char):
        assert skeleton(skeleton(char)) == skeleton(char), char


@pytest.mark.parametrize(("a", "b"), [("alice", "ALICE"), ("alice", "aIice"), ("stra\u00dfe", "STRASSE"),
                                      ("oliver", "0liver"), ("mike", "rnike")])
def test_names_that_read_alike_share_a_fold(a, b):
    assert fold(a) & fold(b)
    assert set(digests(a)) & set(digests(b))  # as stored: one unique digest each form


@pytest.mark.parametrize(("a", "b"), [("alice", "alice2"), ("alice", "malice"), ("bob", "rob"), ("ian", "lan")])
def test_names_that_read_differently_share_none(a, b):
    assert not fold(a) & fold(b)
    assert not set(digests(a)) & set(digests(b))


@pytest.mark.parametrize(("name", "scripts"), [
    ("\u0430lice", ["Cyrillic", "Latin"]),
    ("\u03b1lice", ["Greek", "Latin"]),
    ("alice_99", []), ("Jose\u0301", []), ("\u0432\u0430\u0441\u044f", []),
    ("\u5c71\u7530\u305f\u308d\u3046", []), ("tanaka\u592a\u90ce", []),  # Japanese, and Latin with Han
    ("\u5c71\u7530\u0430", ["Cyrillic", "Han"]),
])
def test_only_the_mixes_of_the_highly_restrictive_level_are_taken(name, scripts):
    assert mixed_scripts(name) == scripts


@pytest.mark.django_db(transaction=True)
def test_the_migration_gives_existing_accounts_their_forms_the_older_first(django_user_model):
    from django.core.management import call_command

    from cardsdb.models import UsernameForm

    call_command("migrate", "cardsdb", "0005", verbosity=0)
    try:  # accounts made before names were checked, two of them reading alike
        # (bulk_create sends no signal: the table the signal writes to is not there yet at this migration)
        older, younger, other = django_user_model.objects.bulk_create(
            [django_user_model(username=name) for name in ("alice", "a1ice", "bob")])
        if older.pk is None:  # databases that hand back no ids from a bulk insert
            older, younger, other = (django_user_model.objects.get(username=n) for n in ("alice", "a1ice", "bob"))
    finally:  # every app forward: the card history of both games depends on cardsdb's later migrations
        call_command("migrate", verbosity=0)
    held = dict(UsernameForm.objects.values_list("digest", "user_id"))
    assert all(held[digest] == older.pk for digest in digests("alice"))  # "a1ice" reads as "alice": the older holds it
    assert set(digests("a1ice")) <= set(digests("alice")) and younger.pk not in held.values()
    assert all(held[digest] == other.pk for digest in digests("bob"))
    assert django_user_model.objects.count() == 3  # every account kept
