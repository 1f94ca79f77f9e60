"""Card art on disk follows the rows: a replaced, removed or deleted card's image and thumbnail are deleted
once the change commits, never before, never on a rollback, and never while another card names them."""

from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction

from cardsdb.models import Card
from realms.models import Character
from tests.cardsdb.test_images import png_bytes, upload
from tests.factories import make_card, make_character

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def media(tmp_path, settings) -> Path:
    settings.MEDIA_ROOT = tmp_path
    return tmp_path


def art(name: str = "art.png", size: int = 40) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, png_bytes(size, size), content_type="image/png")


def files_of(card: Card) -> list[str]:
    card.refresh_from_db()
    return [name for name in (card.image.name, card.thumbnail.name) if name]


def on_disk(media: Path) -> set[str]:
    return {str(path.relative_to(media)) for path in media.rglob("*") if path.is_file()}


def with_art(card: Card, name: str = "art.png") -> list[str]:
    card.image = art(name)
    card.save()
    return files_of(card)


def test_replacing_art_through_the_api_deletes_the_old_files_after_commit(
    staff_client, media, django_capture_on_commit_callbacks
):
    card = make_card("Merlin")
    with django_capture_on_commit_callbacks(execute=True):
        assert upload(staff_client, card, png_bytes(60, 60), "first.png").status_code == 200
    old = files_of(card)
    assert len(old) == 2 and on_disk(media) == set(old)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        assert upload(staff_client, card, png_bytes(70, 70), "second.png").status_code == 200
    new = files_of(card)
    assert set(new).isdisjoint(old)
    assert on_disk(media) == set(old) | set(new)  # nothing is deleted before the commit
    for callback in callbacks:
        callback()
    assert on_disk(media) == set(new)


def test_removing_art_through_the_api_deletes_both_files(staff_client, media, django_capture_on_commit_callbacks):
    card = make_card()
    with django_capture_on_commit_callbacks(execute=True):
        upload(staff_client, card, png_bytes(50, 50))
    assert len(on_disk(media)) == 2
    with django_capture_on_commit_callbacks(execute=True):
        response = staff_client.delete(f"/api/cards/{card.slug}/image/")
    assert response.status_code == 200
    assert files_of(card) == [] and on_disk(media) == set()


def test_deleting_a_card_deletes_its_files(media, django_capture_on_commit_callbacks):
    character = make_character("Art Holder")
    with django_capture_on_commit_callbacks(execute=True):
        names = with_art(character)
    assert on_disk(media) == set(names)
    with django_capture_on_commit_callbacks(execute=True):
        Character.objects.get(pk=character.pk).delete()
    assert not Card.objects.filter(pk=character.pk).exists()
    assert on_disk(media) == set()


def test_deleting_cards_in_bulk_deletes_their_files(media, django_capture_on_commit_callbacks):
    cards = [make_card(f"Bulk {n}") for n in range(3)]
    with django_capture_on_commit_callbacks(execute=True):
        for n, card in enumerate(cards):
            with_art(card, f"bulk{n}.png")
    assert len(on_disk(media)) == 6
    with django_capture_on_commit_callbacks(execute=True):
        Card.objects.filter(pk__in=[card.pk for card in cards[:2]]).delete()
    assert on_disk(media) == set(files_of(cards[2]))


def test_a_rolled_back_change_keeps_the_old_files(media, django_capture_on_commit_callbacks):
    card = make_card()
    with django_capture_on_commit_callbacks(execute=True):
        old = with_art(card)
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(RuntimeError), transaction.atomic():
        card.image = ""
        card.save()
        raise RuntimeError("the request failed")
    assert files_of(card) == old and set(old) <= on_disk(media)


def test_a_file_another_card_names_is_kept(media, django_capture_on_commit_callbacks):
    first, second = make_card("First"), make_card("Second")
    with django_capture_on_commit_callbacks(execute=True):
        shared = with_art(first)
    Card.objects.filter(pk=second.pk).update(image=first.image.name, thumbnail=first.thumbnail.name)
    with django_capture_on_commit_callbacks(execute=True):
        first.image = art("replacement.png")
        first.save()
    assert set(shared) <= on_disk(media)  # the second card still shows them
    with django_capture_on_commit_callbacks(execute=True):
        Card.objects.get(pk=second.pk).delete()
    assert on_disk(media) == set(files_of(first))


def test_saving_without_touching_the_art_keeps_it(media, django_capture_on_commit_callbacks):
    card = make_card()
    with django_capture_on_commit_callbacks(execute=True):
        names = with_art(card)
        card.flavor_text = "New words."
        card.save()
        Card.objects.get(pk=card.pk).save(update_fields=["flavor_text"])
    assert files_of(card) == names and on_disk(media) == set(names)


def test_replacing_art_in_the_admin_deletes_the_old_files(client, django_user_model, media,
                                                          django_capture_on_commit_callbacks):
    client.force_login(django_user_model.objects.create_superuser("root", "root@example.com", "root-password-1"))
    card = make_card("Admin Art")
    with django_capture_on_commit_callbacks(execute=True):
        old = with_art(card)
    url = f"/admin/cardsdb/card/{card.pk}/change/"
    data = {"name": card.name, "slug": card.slug, "card_set": card.card_set_id, "rarity": "",
            "rules_text": "", "flavor_text": "", "image": art("admin.png")}
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url, data)
    assert response.status_code == 302, response.content.decode()[-3000:]
    new = files_of(card)
    assert set(new).isdisjoint(old) and on_disk(media) == set(new)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url, {**data, "image": "", "image-clear": "on"})
    assert response.status_code == 302
    assert files_of(card) == [] and on_disk(media) == set()
