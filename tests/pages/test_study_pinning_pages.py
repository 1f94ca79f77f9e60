"""The study page says what a study played and which cards were edited since, plays it again with the
same figures, and lets staff publish or withdraw it."""

import re

import pytest
from django.urls import reverse

from realms.models import Character
from simulate import batches
from simulate.models import Batch
from tests.factories import faction_army

pytestmark = pytest.mark.django_db


def text(response) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode()))


@pytest.fixture
def study(catalogue, user):
    armies = {"a": {"slots": faction_army("arcane")}, "b": {"slots": faction_army("iron-kingdom")}}
    return batches.play_here(batches.create_batch(game="realms", inputs={"armies": armies}, count=6, seed=2,
                                                  user=user).pk)


def test_the_page_names_what_it_played_and_plays_it_again(client, user, study):
    client.force_login(user)
    page = text(client.get(reverse("study-detail", args=[study.pk])))
    assert "the working catalogue of" in page and "14 characters, each as it was when the study was created" in page
    assert "No card it played was edited since." in page and "Published no: only its owner reads it" in page
    response = client.post(reverse("study-rerun", args=[study.pk]))
    assert response.status_code == 302
    again = Batch.objects.exclude(pk=study.pk).get()
    assert response["Location"] == reverse("study-detail", args=[again.pk]) and again.rerun_of_id == study.pk
    assert (again.frozen_id, again.seed, again.count) == (study.frozen_id, study.seed, study.count)
    assert batches.play_here(again.pk).results == study.results


def test_an_edit_is_listed_under_edited_since(client, user, study, staff):
    played = study.catalogue["cards"]["realms.character"][0]
    card = Character.objects.get(slug=played)
    before = card.attack
    card.attack = before + 1
    card.save()
    client.force_login(user)
    page = text(client.get(reverse("study-detail", args=[study.pk])))
    assert f"{card.name}: " in page and f"{before} → {before + 1}" in page


def test_staff_publish_and_withdraw_from_the_page(client, user, staff, study):
    client.force_login(user)  # the owner, not staff: no publish button, and the post is refused
    assert "Publish it" not in text(client.get(reverse("study-detail", args=[study.pk])))
    assert client.post(reverse("study-publish", args=[study.pk])).status_code == 403
    study.owner = staff
    study.save(update_fields=["owner"])
    client.force_login(staff)
    assert "Publish it" in text(client.get(reverse("study-detail", args=[study.pk])))
    assert client.post(reverse("study-publish", args=[study.pk])).status_code == 302
    assert Batch.objects.get(pk=study.pk).published_at is not None
    client.logout()
    page = text(client.get(reverse("study-detail", args=[study.pk])))
    assert "readable by everyone" in page
    client.force_login(staff)
    client.post(reverse("study-publish", args=[study.pk]), {"withdraw": "1"})
    client.logout()
    assert client.get(reverse("study-detail", args=[study.pk])).status_code == 404


def test_a_small_field_study_is_not_published_and_the_page_says_why(client, staff, catalogue):
    small = batches.play_here(batches.create_batch(game="realms", kind="field", inputs={}, count=10, seed=1,
                                                   user=staff).pk)
    client.force_login(staff)
    response = client.post(reverse("study-publish", args=[small.pk]))
    assert response.status_code == 409 and "within ±5 points" in text(response)
    assert Batch.objects.get(pk=small.pk).published_at is None


def test_a_card_page_says_which_version_the_figures_are_for_and_when_it_changed(client, staff, catalogue, settings):
    settings.SIMULATE_PUBLISH_POINTS = 100  # 100 matches measure every card within ±100 points
    study = batches.play_here(batches.create_batch(game="realms", kind="field", inputs={}, count=100, seed=4,
                                                   user=staff).pk)
    client.force_login(staff)
    assert client.post(reverse("study-publish", args=[study.pk])).status_code == 302
    client.logout()
    slug = study.results["cards"][0]["card"]
    version = study.catalogue["versions"]["realms.character"][slug]
    page = text(client.get(reverse("realms-card", args=[slug])))
    assert "Card measured as it was on" in page and f"(version {version})" in page
    assert "This card changed" not in page
    card = Character.objects.get(slug=slug)
    card.speed += 1
    card.save()
    page = text(client.get(reverse("realms-card", args=[slug])))
    assert "This card changed on" in page and "these figures are for its earlier version" in page
    api = client.get(f"/api/realms/characters/{slug}/").json()["simulated"]["catalogue"]
    assert api["version"] == version and api["edited_since"]["status"] == "changed"
    assert api["edited_since"]["version"] > version
