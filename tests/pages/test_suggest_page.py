"""A suggestion from the pages: a flagged card of a published field study links to the study form filled in for
it, the form starts the suggestion, and its report shows the patch, the screen and the confirming what-if."""

import html as entities

import pytest
from django.urls import reverse

from simulate import batches
from simulate.models import Batch
from tests.simulate.test_suggest import BAND, broken_field  # noqa: F401 - fixture

pytestmark = pytest.mark.django_db


def test_a_flagged_card_links_to_a_suggestion_that_the_form_starts_and_the_report_shows(
        client, staff, broken_field, handed_over, django_capture_on_commit_callbacks):  # noqa: F811
    study, broken = broken_field
    client.force_login(staff)
    report = entities.unescape(client.get(reverse("study-detail", args=[study.pk])).content.decode())
    link = f"{reverse('study-new')}?game=realms&kind=suggest&suggest_study={study.pk}&suggest_cards={broken}"
    assert f'class="find-fix" href="{link}"' in report
    form_page = client.get(link).content.decode()
    assert f'value="{broken}"' in form_page and f'value="{study.pk}"' in form_page
    form = {"kind": "suggest", "count": "150", "seed": "3", "suggest_study": str(study.pk), "suggest_cards": broken,
            "band": str(BAND), "agent_a": "softmax", "agent_b": "softmax", "patch_field": "atk"}
    response = client.post(f"{reverse('study-new')}?game=realms", form)
    assert response.status_code == 302, response.content.decode()[:3000]
    suggestion = Batch.objects.get(kind="suggest")
    assert suggestion.inputs["cards"] == [broken] and suggestion.inputs["band"] == BAND
    with django_capture_on_commit_callbacks(execute=True):
        batches.play_here(suggestion.pk)
    confirmation = Batch.objects.get(kind="whatif", inputs__confirms=str(suggestion.pk))
    page = client.get(reverse("study-detail", args=[suggestion.pk])).content.decode()
    assert f"Suggested patch: every card within ±{BAND}" in page or f"±{BAND:g}" in page
    assert 'class="suggestion"' in page and 'class="screen"' in page and 'class="front"' in page
    assert "on the same seeds as the field itself (150 seeds)" in page and "Paired difference (sides fielding it)" in page
    assert reverse("study-detail", args=[confirmation.pk]) in page
    again = f"{reverse('study-new')}?game=realms&amp;kind=suggest&amp;band={BAND}&amp;suggest_cards={broken}"
    assert again in page
    batches.play_here(confirmation.pk)
    page = client.get(reverse("study-detail", args=[suggestion.pk])).content.decode()
    assert any(verdict in page for verdict in ("<td>inside</td>", "<td>outside</td>", "<td>unsure</td>"))
