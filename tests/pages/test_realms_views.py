"""The Echo Realms pages answer bad input with a readable 4xx page or message, never a 500 (Django's test client)."""

import re

import pytest
from django.urls import reverse

from realms import services
from realms.api.serializers import MAX_SLOTS
from realms.models import Army, Character
from tests.factories import faction_army

GALLERY = "/realms/cards/"
BUILDER = "/realms/armies/build/"
PANEL = "/realms/armies/build/panel/"


def _slots_post(slots, **extra):
    return {"card": [s["card"] for s in slots], "line": [s["line"] for s in slots], **extra}


@pytest.mark.parametrize("query", [
    "rarity_id=abc", "rarity_id=1.5", "atk__gte=-1", "atk__gte=abc", "hp__lte=99999999999999999999999",
    "class=wizard", "position=middle", "ordering=colour", "q=(atk>", "q=" + "x" * 600, "q=a%00b",
    "faction=arcane&faction=shadow", "has_image=maybe", "updated_since=yesterday",
])
def test_gallery_garbage_filters_answer_400_with_the_message(client, catalogue, query):
    response = client.get(f"{GALLERY}?{query}")
    assert response.status_code == 400
    assert b"These filters could not be used" in response.content


@pytest.mark.parametrize("page", ["0", "abc", "999", "", "1.5", "9" * 30])
def test_gallery_garbage_page_is_a_404_with_the_page_range(client, catalogue, page):
    response = client.get(f"{GALLERY}?page={page}")
    assert response.status_code == 404
    assert b"the pages go from 1 to" in response.content


def test_gallery_q_warnings_are_shown_and_the_query_still_runs(client, catalogue):
    response = client.get(f"{GALLERY}?q=colour:red class:mage")
    assert response.status_code == 200
    assert b"Parts of the query were ignored" in response.content
    count = Character.objects.filter(character_class="mage").count()
    assert f"{count} cards".encode() in response.content


def test_gallery_answers_htmx_with_the_grid_only(client, catalogue):
    response = client.get(f"{GALLERY}?faction=arcane", headers={"HX-Request": "true"})
    assert response.status_code == 200
    assert b"<html" not in response.content
    assert b'hx-swap-oob="innerHTML"' in response.content
    assert "HX-Request" in response["Vary"]


def test_gallery_answers_an_htmx_history_restore_with_the_whole_page(client, catalogue):
    response = client.get(f"{GALLERY}?faction=arcane", headers={"HX-Request": "true", "HX-History-Restore-Request": "true"})
    assert response.status_code == 200
    assert b"<html" in response.content


def test_gallery_and_card_page_refuse_post(client, catalogue):
    assert client.post(GALLERY).status_code == 405
    slug = Character.objects.order_by("pk").values_list("slug", flat=True)[0]
    assert client.post(f"/realms/cards/{slug}/").status_code == 405


def test_unknown_card_slug_is_a_404_page(client, catalogue):
    response = client.get("/realms/cards/no-such-card/")
    assert response.status_code == 404
    assert b"<html" in response.content


@pytest.mark.parametrize("query", [
    "code=!!!", "code=" + "A" * 300, "code=AgEHRVItQ09SRQ", "code=", "army=abc", "army=0", "army=-3",
    "army=" + "9" * 40, "find=" + "x" * 600, "code=a&code=b",
])
def test_builder_garbage_query_answers_400_with_a_message(client, catalogue, query):
    response = client.get(f"{BUILDER}?{query}")
    assert response.status_code == 400
    assert b'class="message error"' in response.content


def test_builder_bad_code_says_bad_army_code(client, catalogue):
    response = client.get(f"{BUILDER}?code=!!!")
    assert b"Bad army code" in response.content


def test_builder_opens_a_code(client, catalogue):
    slots = faction_army("arcane")
    code = services.army_validate(slots=services.slots_from_data(slots))["code"]
    response = client.get(BUILDER, {"code": code})
    assert response.status_code == 200
    for character in Character.objects.filter(slug__in=[s["card"] for s in slots]):
        assert character.name.encode() in response.content
    assert b">Valid<" in response.content


def test_another_users_army_is_a_404(client, catalogue, user, other_user):
    army = Army.objects.create(owner=other_user, name="Bob's", slots=faction_army("arcane"))
    client.force_login(user)
    assert client.get(BUILDER, {"army": army.pk}).status_code == 404
    assert client.post(PANEL, {"army": army.pk, "save": "1", "name": "Mine now"}).status_code == 404
    assert Army.objects.get(pk=army.pk).name == "Bob's"


def test_anonymous_cannot_open_an_army_by_id(client, catalogue, other_user):
    army = Army.objects.create(owner=other_user, name="Bob's", slots=[])
    assert client.get(BUILDER, {"army": army.pk}).status_code == 404


@pytest.mark.parametrize("data", [
    {"card": ["a", "b"], "line": ["vanguard"]},
    {"card": ["a"], "line": ["middle"]},
    {"card": ["x" * 300], "line": ["vanguard"]},
    {"card": ["a"] * (MAX_SLOTS + 1), "line": ["vanguard"] * (MAX_SLOTS + 1)},
    {"remove": "7"}, {"remove": "9" * 5000}, {"move": "-1"}, {"earlier": "0"}, {"later": "abc"},
    {"earlier": "9" * 5000}, {"card": ["a"], "line": ["vanguard"], "later": "0"},
    {"army": "abc"}, {"name": "x" * 500}, {"find": "x" * 600},
    {"paste_go": "1", "paste": ""}, {"paste_go": "1", "paste": "x" * 20_001},
    {"paste_go": "1", "paste": "\n" * 300}, {"paste_go": "1", "paste": "!!!"},
])
def test_builder_garbage_posts_answer_4xx_with_a_message(client, catalogue, data):
    for url in (BUILDER, PANEL):
        response = client.post(url, data)
        assert 400 <= response.status_code < 500, (url, data, response.status_code)
        assert b'class="message error"' in response.content


def _army_in_page(response) -> list[dict]:
    """The army a builder answer holds, in army order (its hidden inputs)."""
    pairs = re.findall(r'name="card" value="([^"]+)"><input type="hidden" name="line" value="([^"]+)"',
                       response.content.decode())
    return [{"card": card, "line": line} for card, line in pairs]


def test_builder_moves_a_card_earlier_or_later_in_army_order(client, catalogue):
    slots = faction_army("arcane")
    for url in (BUILDER, PANEL):
        response = client.post(url, _slots_post(slots, later="0"))
        assert response.status_code == 200
        assert _army_in_page(response) == [slots[1], slots[0], *slots[2:]]
        name = Character.objects.get(slug=slots[0]["card"]).name
        assert f"{name} is now number 2 of {len(slots)} in the army order.".encode() in response.content
        response = client.post(url, _slots_post(slots, earlier=str(len(slots) - 1)))
        assert _army_in_page(response) == [*slots[:-2], slots[-1], slots[-2]]
        for button, index, where in (("earlier", 0, "first"), ("later", len(slots) - 1, "last")):
            response = client.post(url, _slots_post(slots, **{button: str(index)}))
            assert response.status_code == 400
            assert f"That card is already {where} in the army order.".encode() in response.content
            assert _army_in_page(response) == slots


def test_builder_refuses_adding_past_the_api_bound(client, catalogue):
    slugs = list(Character.objects.values_list("slug", flat=True)[:MAX_SLOTS])
    data = _slots_post([{"card": slug, "line": "vanguard"} for slug in slugs], add=f"vanguard:{slugs[0]}")
    response = client.post(PANEL, data)
    assert response.status_code == 400
    assert b"That change was not made" in response.content
    assert response.content.count(b'name="card"') == MAX_SLOTS


def test_builder_add_of_an_unknown_card_is_a_violation_not_an_error(client, catalogue):
    response = client.post(PANEL, {"add": "vanguard:no-such-card"})
    assert response.status_code == 200
    assert b"No character card" in response.content


def test_anonymous_save_is_refused_with_a_sign_in_message(client, catalogue):
    response = client.post(PANEL, _slots_post(faction_army("arcane"), save="1", name="Mine"))
    assert response.status_code == 403
    assert b"Sign in to save" in response.content
    assert not Army.objects.exists()


def test_save_without_js_redirects_to_the_saved_army(client, catalogue, user):
    client.force_login(user)
    response = client.post(BUILDER, _slots_post(faction_army("arcane"), save="1", name="Arcane"))
    army = Army.objects.get(owner=user)
    assert response.status_code == 302
    assert response["Location"] == f"{reverse('army-builder')}?army={army.pk}"
    assert army.name == "Arcane"
    page = client.get(response["Location"])
    assert "Saved “Arcane”.".encode() in page.content


def test_save_with_a_blank_name_says_why(client, catalogue, user):
    client.force_login(user)
    response = client.post(PANEL, _slots_post(faction_army("arcane"), save="1", name=""))
    assert response.status_code == 400
    assert b"Not saved. Army name" in response.content


def test_the_builder_panel_refuses_get(client, catalogue):
    assert client.get(PANEL).status_code == 405


def test_gallery_ignores_the_empty_fields_a_form_sends(client, catalogue):
    response = client.get(f"{GALLERY}?q=&faction=&class=&atk__gte=&ordering=")
    assert response.status_code == 200
    assert f"{Character.objects.count()} cards".encode() in response.content


def test_gallery_pushes_the_address_of_the_filters_given(client, catalogue):
    response = client.get(f"{GALLERY}?q=&faction=arcane&class=", headers={"HX-Request": "true"})
    assert response["HX-Push-Url"] == f"{GALLERY}?faction=arcane"


def test_a_post_naming_an_army_you_do_not_have_changes_nothing(client, catalogue, user):
    client.force_login(user)
    response = client.post(PANEL, _slots_post(faction_army("arcane"), army="123456", save="1", name="X"))
    assert response.status_code == 404
    assert b"You have no saved army with this number" in response.content
    assert not Army.objects.exists()


def test_an_htmx_post_to_the_page_answers_the_panel(client, catalogue):
    response = client.post(BUILDER, {"add": "vanguard:no-such-card"}, headers={"HX-Request": "true"})
    assert response.status_code == 200
    assert b"<html" not in response.content
    assert b'id="army-status" hx-swap-oob="innerHTML"' in response.content


def test_a_legal_army_links_to_the_match_and_study_pages_with_its_code(client, catalogue):
    from urllib.parse import quote

    slots = faction_army("arcane")
    code = services.army_validate(slots=services.slots_from_data(slots))["code"]
    html = client.get(BUILDER, {"code": code}).content.decode()
    assert f'href="/matches/new/?game=realms&amp;a_code={quote(code)}&amp;agent_a=person" id="play-army">Play this army</a>' \
        in html
    assert f'href="/matches/new/?game=realms&amp;a_code={quote(code)}" id="watch-army">Watch it played</a>' in html
    assert f'href="/studies/new/?game=realms&amp;army_a={quote(code)}" id="study-army">Study this army</a>' in html
    # The match page the link opens has the army chosen.
    match_page = client.get(f"/matches/new/?game=realms&a_code={quote(code)}").content.decode()
    assert 'id="a-source-code" value="code" checked' in match_page
    short = services.army_validate(slots=services.slots_from_data(slots[:5]))["code"]
    html = client.get(BUILDER, {"code": short}).content.decode()
    assert "Play this army" not in html and "Study this army" not in html
    assert "Once the army is valid, it can be played in a match or studied from here." in html
