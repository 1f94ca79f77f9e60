"""A mirror study started from the study form, for both games, and its report saying what it measured."""


import pytest
from django.urls import reverse

from simulate import batches
from simulate.models import Batch

pytestmark = pytest.mark.django_db

NEW = reverse("study-new")


def test_a_realms_mirror_from_the_form_reports_the_first_seat(client, catalogue, handed_over):
    form = {"kind": "mirror", "count": "6", "seed": "4", "army_a": "faction:arcane", "army_b": "random",
            "agent_a": "greedy", "agent_b": "random", "patch_field": "atk"}
    response = client.post(f"{NEW}?game=realms", form)
    batch = Batch.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("study-detail", args=[batch.id])
    assert batch.kind == "mirror" and batch.inputs["agents"] == {"a": "greedy", "b": "random"}
    assert set(batch.inputs) == {"subject", "agents"} and not batch.swap_sides
    batches.play_here(batch.id)
    html = client.get(reverse("study-detail", args=[batch.id])).content.decode()
    assert "Mirror study" in html and "Mirror: the first seat's advantage" in html
    assert "6 matches with agents greedy, random, seeds 4 to 9" in html
    assert "Sides are never swapped in a mirror" in html


def test_a_legends_mirror_from_the_form(client, catalogue, handed_over):
    form = {"kind": "mirror", "count": "2", "seed": "1", "mode": "duel", "agent_a": "greedy", "agent_b": "greedy",
            "patch_field": "copies"}
    assert client.post(f"{NEW}?game=legends", form).status_code == 302
    batch = Batch.objects.get()
    assert batch.kind == "mirror" and batch.inputs["mode"] == "duel" and "subject" in batch.inputs
    assert batches.play_here(batch.id).status == Batch.Status.DONE


def test_a_mirror_refuses_an_input_it_leaves_out(client, catalogue, handed_over):
    form = {"kind": "mirror", "count": "2", "army_a": "random", "army_b": "random", "opponents": "faction:arcane",
            "agent_a": "greedy", "agent_b": "greedy", "patch_field": "atk"}
    response = client.post(f"{NEW}?game=realms", form)
    assert response.status_code == 400 and "Opponents (gauntlet) is filled in" in response.content.decode()
    assert not Batch.objects.exists()


def test_the_form_shows_the_subject_and_the_agents_for_a_mirror(client, catalogue):
    html = client.get(f"{NEW}?game=realms").content.decode()
    assert '<option value="mirror">Mirror</option>' in html
    armies = html.split('<legend>Armies</legend>')[0].rsplit("<fieldset", 1)[1]
    army_b = html.split('id="id_army_b"')[0].rsplit('<div class="field"', 1)[1]
    agents = html.split('<legend>Agents</legend>')[0].rsplit("<fieldset", 1)[1]
    assert "mirror" in armies
    assert "mirror" not in army_b and "mirror" in agents
