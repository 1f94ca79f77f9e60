"""No page answers 500, whatever arrives: every page's URL with hostile query strings and form bodies."""

import random

import pytest
from django.urls import reverse

from realms.models import Character
from realms.studies import command_army
from simulate.models import Batch, Match
from simulate.services import play_match

NASTY = ["\x00", "x" * 100_000, "💥" * 500, "<script>alert(1)</script>", "' OR 1=1 --", "-1",
         "99999999999999999999999999", "1e309", "[]", "{}", "%", "../../etc/passwd"]
# Bytes no text can be: a lone surrogate and invalid UTF-8 (as percent escapes), a bare percent sign.
RAW_QUERIES = ["q=%ED%A0%80", "q=%FF%FE&page=%C0", "%00=%00", "q=%", "code=%ED%A0%80&game=%FF"]
PAGES = ["home", "search", "login", "signup", "realms-gallery", "army-builder", "legends-gallery",
         "setup-builder", "match-new", "study-new", "study-list", "study-compare"]


def every_url():
    """Every page, with a card, a match and a study of each kind it shows."""
    character = Character.objects.order_by("pk").first()
    slots = command_army("random", random.Random(1))
    match, _ = play_match(game="realms", inputs={"armies": {"a": {"slots": slots}, "b": {"slots": slots}}}, seed=1)
    batch = Batch.objects.create(game="realms", kind="matchup", inputs={}, count=10, seed=1)
    return [*(reverse(name) for name in PAGES), reverse("realms-card", args=[character.slug]),
            reverse("legends-card", args=["akin"]), reverse("match-replay", args=[match.pk]),
            reverse("study-detail", args=[batch.pk]), reverse("study-progress", args=[batch.pk]),
            reverse("army-builder-panel"), reverse("setup-builder-check"), reverse("study-cancel", args=[batch.pk])]


@pytest.mark.django_db
def test_hostile_query_strings_and_bodies_never_answer_500(client, catalogue, settings):
    settings.DEBUG_PROPAGATE_EXCEPTIONS = True  # a server error fails the test with its traceback
    answers = {}
    for url in every_url():
        for value in NASTY:
            for params in ({"q": value, "page": value, "kind": value, "code": value, "army": value,
                            "setup": value, "game": value, "sort": value, "status": value, "a": value,
                            "b": value},
                           {value[:50]: value}, {"q": [value, value]}):
                answers[("GET", url, repr(params)[:60])] = client.get(url, params).status_code
                answers[("POST", url, repr(params)[:60])] = client.post(url, params).status_code
            answers[("POST json", url, value[:20])] = client.post(
                url, data=value, content_type="application/json").status_code
        for query in RAW_QUERIES:
            answers[("GET raw", url, query)] = client.get(f"{url}?{query}").status_code
            answers[("POST raw", url, query)] = client.post(
                url, data=query, content_type="application/x-www-form-urlencoded").status_code
    served = [key for key, status in answers.items() if status < 500]
    assert len(served) == len(answers), {key: status for key, status in answers.items() if status >= 500}
    assert Match.objects.count() == 1  # nothing garbage asked for was played


STUDY_FORM = {"kind": "matchup", "count": "4", "army_a": "random", "army_b": "random", "agent_a": "greedy",
              "agent_b": "greedy", "patch_field": "atk", "mode": "teams"}


@pytest.mark.django_db
@pytest.mark.parametrize("inputs, path", [
    ('{"armies": {"a": {"army": 1e400}, "b": {"army": 1}}}', "armies.a.army"),
    ('{"armies": {"a": {"slots": []}, "b": {"slots": []}}, "seed": -1e400}', "seed"),
    ('{"armies": NaN}', "armies"),
])
def test_the_study_json_box_names_numbers_no_float_holds(client, catalogue, inputs, path):
    response = client.post(f"{reverse('study-new')}?game=realms", {**STUDY_FORM, "inputs_json": inputs})
    assert response.status_code == 400
    text = response.content.decode()
    assert f"{path}: A finite number is required." in text
    assert not Batch.objects.exists()


@pytest.mark.django_db
def test_a_patch_value_no_float_holds_is_refused(client, catalogue):
    character = Character.objects.order_by("pk").first()
    form = {**STUDY_FORM, "kind": "whatif", "base": "matchup", "patch_card": character.slug, "patch_value": "1e400"}
    response = client.post(f"{reverse('study-new')}?game=realms", form)
    assert response.status_code == 400
    assert "A finite number is required." in response.content.decode()
    assert not Batch.objects.exists()
