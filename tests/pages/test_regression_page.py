"""A regression study started from the study form: the form offers it and its fields, and its report gives
the verdict first."""

import pytest
from django.urls import reverse

from simulate import batches
from simulate.models import Batch
from tests.simulate.test_regression import release  # noqa: F401 - fixture

pytestmark = pytest.mark.django_db


def test_the_study_form_offers_the_regression_and_starts_one(client, release, handed_over):  # noqa: F811
    new = reverse("study-new")
    html = client.get(f"{new}?game=realms").content.decode()
    assert '<option value="regression">Regression</option>' in html
    for name in ("against", "versus", "threshold"):
        assert f'id="id_{name}"' in html
    form = {"kind": "regression", "count": "4", "seed": "2", "against": "Core 1.0", "threshold": "4",
            "agent_a": "softmax", "agent_b": "softmax", "patch_field": "atk"}
    response = client.post(f"{new}?game=realms", form)
    batch = Batch.objects.get()
    assert response.status_code == 302, response.content.decode()[:2000]
    assert batch.kind == "regression" and batch.inputs == {"against": "Core 1.0", "threshold": 4.0}
    batches.play_here(batch.id)
    html = client.get(reverse("study-detail", args=[batch.id])).content.decode()
    assert "Regression gate: working against Core 1.0" in html and "Passed" in html
    assert 'id="regression-moved"' in html and 'id="regression-all"' in html
