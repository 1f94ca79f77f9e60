"""A targets study from the pages: the study form takes the intended win rates a line each, the screen's report
shows each matchup against its target, the patch found and the check of it, and the check's page, not the
screen's, offers staff to apply the patch."""

import html as entities
import re

import pytest
from django.urls import reverse

from simulate import batches
from simulate.models import Batch

pytestmark = pytest.mark.django_db

BAND = 8  # points: wide enough for a couple of hundred seeds to place a matchup against it
SEEDS = 200
APPLY = "Apply this patch to the catalogue"


def new_study() -> str:
    return f"{reverse('study-new')}?game=realms"


def targets_form(**fields: str) -> dict[str, str]:
    return {"kind": "targets", "count": str(SEEDS), "seed": "2", "targets_text": "tribal arcane 65",
            "targets_cards": "elven-archer", "band": str(BAND), **fields}


def page_of(client, batch: Batch) -> str:
    return entities.unescape(client.get(reverse("study-detail", args=[batch.pk])).content.decode())


def field_error(response, field: str) -> str:
    """The text of a field's own error list."""
    found = re.search(rf'<ul class="errorlist" id="id_{field}_error">(.*?)</ul>', response.content.decode(), re.S)
    return re.sub(r"<[^>]+>", " ", found.group(1)) if found else ""


def started_screen(client) -> Batch:
    """The form as staff see it for a targets study, filled in and posted: the screen it starts."""
    form_page = client.get(f"{new_study()}&kind=targets").content.decode()
    assert re.search(r'<textarea name="targets_text"[^>]*id="id_targets_text"', form_page), form_page[:2000]
    assert '<label for="id_targets_text">Targets</label>' in form_page
    assert 'id="id_targets_cards"' in form_page
    response = client.post(new_study(), targets_form())
    assert response.status_code == 302, response.content.decode()[:3000]
    screen = Batch.objects.get(kind="targets")
    assert screen.inputs["targets"] == [{"a": "tribal", "b": "arcane", "win_rate": 65}]
    assert screen.inputs["cards"] == ["elven-archer"] and screen.inputs["band"] == BAND
    return screen


def assert_screen_report(page: str, check: Batch) -> None:
    """The screen's report: the matchup against its target, the patch found, the screen and the check's link."""
    assert re.search(rf"Targets: each matchup within ±{BAND}(\.0)? points of its intended win rate", page)
    assert '<th scope="row">Tribal against Arcane</th><td class="num">65%</td>' in page
    assert "<h4>Suggested patch</h4>" in page
    assert re.search(r"<li>elven-archer: [a-z]+ \d+ → \d+</li>", page), page
    assert 'class="screen"' in page
    assert f"on the same seeds as the matchup itself ({SEEDS} seeds)</caption>" in page
    assert f'Check: <a href="{reverse("study-detail", args=[check.pk])}">a targets study of this patch</a>' in page


def predictions(page: str) -> str:
    found = re.search(r'<table class="target-predictions">(.*?)</table>', page, re.S)
    assert found, page
    return found.group(1)


def test_the_form_starts_a_fit_whose_report_shows_the_patch_its_check_measured_and_the_check_may_be_applied(
        client, staff, catalogue, handed_over, django_capture_on_commit_callbacks):
    client.force_login(staff)
    screen = started_screen(client)
    with django_capture_on_commit_callbacks(execute=True):
        batches.play_here(screen.pk)
    check = Batch.objects.get(kind="targets", inputs__confirms=str(screen.pk))
    assert check.inputs["patch"] and check.inputs["sequential"]
    page = page_of(client, screen)
    assert_screen_report(page, check)
    assert "not measured yet" in predictions(page)
    batches.play_here(check.pk)
    measured = predictions(page_of(client, screen))
    assert "as its check measured it</caption>" in measured
    assert any(f"<td>{verdict}</td>" in measured for verdict in ("inside", "outside", "unsure")), measured
    assert "not measured yet" not in measured
    assert_only_the_check_may_be_applied(client, screen, check)


def assert_only_the_check_may_be_applied(client, screen: Batch, check: Batch) -> None:
    """The check's page (a targets study of a patch) offers staff to apply it; the screen's has nothing to apply."""
    check.refresh_from_db()
    assert check.status == Batch.Status.DONE, check.error
    checked = page_of(client, check)
    assert APPLY in checked and '<th scope="col" class="num">With the patch</th>' in checked
    assert APPLY not in page_of(client, screen)


def test_a_faction_the_game_has_not_is_refused_at_the_targets_field(client, staff, catalogue, handed_over):
    client.force_login(staff)
    response = client.post(new_study(), targets_form(targets_text="tribal nowhere 65"))
    assert response.status_code == 400, response.content.decode()[:3000]
    said = field_error(response, "targets_text")
    assert "No faction 'nowhere'" in entities.unescape(said) and "known:" in said, response.content.decode()[:3000]
    assert not Batch.objects.exists()
