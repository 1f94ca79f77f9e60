"""The Akin Legends pages through Django's test client: bad input of every kind answers a readable 4xx or an
inline message, never a 500; what the pages save is what the API saves."""

import pytest
from django.urls import reverse

from cardsdb.query import MAX_LENGTH
from legends import services, setup_codes
from legends.api.serializers import SetupInputSerializer
from legends.engine.setup import MAX_NAME, MAX_SLUG, parse_teams
from legends.models import DefenseCard, Protector, SummoningCard, TeamSetup

pytestmark = pytest.mark.django_db

GALLERY = reverse("legends-gallery")
BUILDER = reverse("setup-builder")
CHECK = reverse("setup-builder-check")


def text(response) -> str:
    return response.content.decode()


# --------------------------------------------------------------------------- the gallery


@pytest.mark.parametrize(("query", "status", "says"), [
    ("kind=wizards", 400, "There is no kind of card &#x27;wizards&#x27;"),
    ("kind=summoning-cards&effect_kind=fireball", 400, "Select a valid choice"),
    ("kind=summoning-cards&double=perhaps", 400, "Use true or false"),
    ("kind=summoning-cards&copies=many", 400, "Enter a whole number"),
    ("kind=defenses&set_id=-1", 400, "greater than or equal to 0"),
    ("kind=defenses&set_id=99999999999999999999999", 400, "less than or equal to"),
    ("kind=protectors&updated_since=yesterday", 400, "ISO 8601"),
    ("set_id=1.5", 400, "Enter a whole number"),
    ("q=(", 400, "Query:"),
    ("q=element:fire)", 400, "Unexpected"),
    ("kind=summoning-cards&q=copies>=many", 400, "whole number"),
    (f"q={'a' * (MAX_LENGTH + 1)}", 400, f"longer than {MAX_LENGTH}"),
    ("q=fire%00", 400, "q: "),
    ("kind=spirits&kind=defenses", 400, "kind: give this parameter once"),
    ("page=abc", 404, "There is no page"),
    ("page=0", 404, "There is no page"),
    ("page=", 404, "There is no page"),
    ("page=99999999999999999999", 404, "There is no page"),
    ("kind=spirits&page=2", 404, "pages run from 1 to 1"),
])
def test_garbage_in_the_gallery_is_a_readable_message(client, catalogue, query, status, says):
    response = client.get(f"{GALLERY}?{query}")
    assert response.status_code == status, text(response)[:2000]
    assert says in text(response)
    assert 'role="alert"' in text(response)


def test_an_htmx_request_with_a_bad_query_gets_its_fragment_with_the_message(client, catalogue):
    response = client.get(f"{GALLERY}?kind=defenses&q=(", headers={"HX-Request": "true"})
    assert response.status_code == 400
    assert "<html" not in text(response) and "Query:" in text(response)
    assert "HX-Request" in response["Vary"]


def test_ignored_terms_come_back_as_warnings_and_blank_fields_are_no_filter(client, catalogue):
    response = client.get(f"{GALLERY}?kind=protectors&q=element:fire colour:red&effect_kind=&duel_legal=&name=")
    assert response.status_code == 200
    assert "Ignored: Unknown key &#x27;colour&#x27; (at position 13)" in text(response)


def test_an_unknown_element_matches_nothing_as_in_the_api(client, catalogue):
    response = client.get(f"{GALLERY}?kind=defenses&element=plasma")
    assert response.status_code == 200 and "No card matches." in text(response)


def test_a_query_no_kind_reads_whole_is_run_with_its_warnings(client, catalogue):
    response = client.get(f"{GALLERY}?q=e:fire e:water colour:red")
    assert response.status_code == 200
    # Every kind but spirits has the key `e`, so every such kind runs the query without the term it ignores.
    both = {"fire", "water"}
    defenses = DefenseCard.objects.select_related("element_1", "element_2")
    summoning = SummoningCard.objects.select_related("attack_1", "attack_2", "effect_element")
    expected = (sum(1 for d in defenses if {d.element_1.slug, d.element_2.slug} == both)
                + sum(1 for c in summoning if both <= {c.attack_1.slug, c.attack_2.slug, c.effect_element.slug}))
    assert Protector.objects.filter(effect__element="fire").filter(effect__element="water").count() == 0
    assert response.context["page_obj"].paginator.count == expected
    assert f"{expected} cards" in text(response)
    assert "Unknown key &#x27;colour&#x27;" in text(response)


# --------------------------------------------------------------------------- a card's page


@pytest.mark.parametrize("slug", ["no-such-card", "shadow-assassin", "x" * 300])
def test_unknown_cards_and_echo_realms_cards_have_no_akin_legends_page(client, catalogue, slug):
    response = client.get(f"/legends/cards/{slug}/")
    assert response.status_code == 404


def test_a_card_page_lists_only_the_users_own_setups_that_use_it(client, catalogue, user, other_user):
    teams = [{"spirit": "akin", "defenses": ["steam-wall", "dust-tower", "reef-barrier"],
              "players": [{"name": "steam-wall", "counter": 1}]}]
    TeamSetup.objects.create(owner=user, name="Mine", mode="teams", teams=teams)
    TeamSetup.objects.create(owner=other_user, name="Theirs", mode="teams", teams=teams)
    # The slug only as a player's name: not a use of the card.
    TeamSetup.objects.create(owner=user, name="Named after it", mode="teams",
                             teams=[{"spirit": "akin", "players": [{"name": "steam-wall", "counter": 1}]}])
    client.force_login(user)
    page = text(client.get("/legends/cards/steam-wall/"))
    assert "Mine" in page and "Theirs" not in page and "Named after it" not in page
    assert "Edit in admin" not in page


# --------------------------------------------------------------------------- the setup builder


def builder_fields(**changes) -> dict[str, str]:
    """The builder's fields for the default setup (two spirits, counters 1, 3 against 2, 4), changed."""
    fields = {"mode": "teams", "t0_spirit": "akin", "t1_spirit": "yulin",
              "t0_player_0_name": "Ann", "t0_player_0_counter": "1", "t0_player_1_name": "Ben",
              "t0_player_1_counter": "3", "t1_player_0_name": "Cat", "t1_player_0_counter": "2",
              "t1_player_1_name": "Dan", "t1_player_1_counter": "4"}
    return {**fields, **changes}


@pytest.mark.parametrize(("query", "says"), [
    ("code=garbage!", "Bad setup code"),
    ("code=", "Bad setup code"),
    (f"code={'A' * 4001}", "Bad setup code"),
    ("code=WzksInRlYW1zIixbXV0", "newer than this server reads"),
    ("code=a&code=b", "code: give this parameter once"),
])
def test_a_bad_code_is_a_readable_message_beside_a_usable_builder(client, catalogue, query, says):
    response = client.get(f"{BUILDER}?{query}")
    assert response.status_code == 400
    assert says in text(response) and 'name="t0_spirit"' in text(response)


def test_a_code_opens_its_setup(client, catalogue):
    data = SetupInputSerializer(data={"mode": "duel", "teams": [
        {"spirit": "yulin", "protector": "archivist", "players": [{"name": "Ann", "counter": 1}]},
        {"spirit": "akin", "players": [{"name": "Cat", "counter": 2}]}]})
    assert data.is_valid()
    code = services.setup_validate(**data.validated_data)["code"]
    response = client.get(f"{BUILDER}?code={code}")
    assert response.status_code == 200
    form = response.context["form"]
    assert form.setup_data() == {"mode": "duel", "teams": [
        {"spirit": "yulin", "protector": "archivist", "defenses": None, "players": [{"name": "Ann", "counter": 1}]},
        {"spirit": "akin", "protector": None, "defenses": None, "players": [{"name": "Cat", "counter": 2}]}]}
    assert response.context["report"]["code"] == code


@pytest.mark.parametrize("raw", ["abc", "-1", "1.5", "0", "99999999999999999999999", ""])
def test_a_garbage_setup_id_is_404(client, catalogue, user, raw):
    client.force_login(user)
    assert client.get(f"{BUILDER}?setup={raw}").status_code == 404


def test_another_users_setup_is_404_and_anonymous_users_are_sent_to_sign_in(client, catalogue, user, other_user):
    theirs = TeamSetup.objects.create(owner=other_user, name="Theirs", mode="teams", teams=[])
    response = client.get(f"{BUILDER}?setup={theirs.pk}")
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
    client.force_login(user)
    assert client.get(f"{BUILDER}?setup={theirs.pk}").status_code == 404
    response = client.post(BUILDER, builder_fields(action="save", name="Stolen", setup=str(theirs.pk)))
    assert response.status_code == 404
    assert TeamSetup.objects.get(pk=theirs.pk).name == "Theirs"


def test_a_saved_setup_past_the_builders_shape_says_what_it_leaves_out(client, catalogue, user):
    players = [{"name": f"P{n}", "counter": n} for n in range(1, 4)]
    saved = TeamSetup.objects.create(owner=user, name="Crowd", mode="teams",
                                     teams=[{"spirit": "akin", "players": players}] * 3)
    client.force_login(user)
    response = client.get(f"{BUILDER}?setup={saved.pk}")
    assert response.status_code == 200
    assert "the teams past the first 2" in text(response) and "players past the first 2" in text(response)


@pytest.mark.parametrize(("changes", "says"), [
    ({"mode": "chess"}, "Select a valid choice"),
    ({"t0_player_0_counter": "first"}, "Enter a whole number"),
    ({"t0_player_0_counter": "9" * 30}, "less than or equal to"),
    ({"t0_player_0_name": "n" * (MAX_NAME + 1)}, f"at most {MAX_NAME} characters"),
    ({"t0_spirit": "s" * (MAX_SLUG + 1)}, f"at most {MAX_SLUG} characters"),
    ({"t1_player_1_name": "Dan\x00"}, "Null characters are not allowed"),
    ({"setup": "abc"}, "Enter a whole number"),
])
def test_garbage_fields_are_refused_inline(client, catalogue, changes, says):
    response = client.post(BUILDER, builder_fields(**changes))
    assert response.status_code == 400 and says in text(response)
    fragment = client.post(CHECK, builder_fields(**changes))
    assert fragment.status_code == 200
    assert "Invalid" in text(fragment) and says in text(fragment)


def test_the_check_fragment_answers_what_the_api_validation_answers(client, catalogue):
    fields = builder_fields(t1_spirit="akin", t0_defense_0="ember-ward-of-steam", t0_protector="no-such-card")
    fragment = client.post(CHECK, fields)
    assert fragment.status_code == 200 and "<html" not in text(fragment)
    setup = {"mode": "teams", "teams": [
        {"spirit": "akin", "protector": "no-such-card", "defenses": ["ember-ward-of-steam"],
         "players": [{"name": "Ann", "counter": 1}, {"name": "Ben", "counter": 3}]},
        {"spirit": "akin", "protector": None, "defenses": None,
         "players": [{"name": "Cat", "counter": 2}, {"name": "Dan", "counter": 4}]}]}
    data = SetupInputSerializer(data=setup)
    assert data.is_valid()
    report = services.setup_validate(**data.validated_data)
    codes = {v["code"] for v in report["violations"]}
    assert {"spirit_duplicate", "unknown_card", "defense_count"} <= codes
    for violation in report["violations"]:
        assert violation["code"] in text(fragment)
    assert report["code"] is None and "No setup code" in text(fragment)
    assert client.get(CHECK).status_code == 405


def test_saving_needs_a_sign_in_and_a_name(client, catalogue, user):
    response = client.post(BUILDER, builder_fields(action="save", name="Friday"))
    assert response.status_code == 403 and "Sign in to save" in text(response)
    client.force_login(user)
    response = client.post(BUILDER, builder_fields(action="save", name=""))
    assert response.status_code == 400 and "Give the setup a name" in text(response)
    assert not TeamSetup.objects.exists()


def test_saving_creates_updates_and_copies_a_setup_as_the_api_stores_it(client, catalogue, user):
    client.force_login(user)
    fields = builder_fields(action="save", name="Friday", t0_protector="spy",
                            t1_defense_0="steam-wall", t1_defense_1="dust-tower", t1_defense_2="reef-barrier")
    response = client.post(BUILDER, fields)
    saved = TeamSetup.objects.get(owner=user)
    assert response.status_code == 302 and response["Location"] == f"{BUILDER}?setup={saved.pk}"
    assert (saved.name, saved.mode) == ("Friday", "teams")
    assert saved.teams == [
        {"spirit": "akin", "protector": "spy", "defenses": None,
         "players": [{"name": "Ann", "counter": 1}, {"name": "Ben", "counter": 3}]},
        {"spirit": "yulin", "protector": None, "defenses": ["steam-wall", "dust-tower", "reef-barrier"],
         "players": [{"name": "Cat", "counter": 2}, {"name": "Dan", "counter": 4}]}]

    client.post(BUILDER, {**fields, "name": "Friday, again", "setup": str(saved.pk)})
    saved.refresh_from_db()
    assert saved.name == "Friday, again" and TeamSetup.objects.count() == 1

    client.post(BUILDER, {**fields, "action": "save_new", "name": "Copy", "setup": str(saved.pk)})
    assert sorted(TeamSetup.objects.values_list("name", flat=True)) == ["Copy", "Friday, again"]

    opened = client.get(f"{BUILDER}?setup={saved.pk}")
    assert opened.status_code == 200 and opened.context["form"].setup_data() == {"mode": "teams", "teams": saved.teams}
    assert opened.context["report"]["code"] == setup_codes.encode_setup(saved.mode, parse_teams(saved.teams))


def test_a_saved_setup_naming_a_card_gone_since_shows_it_and_its_violation(client, catalogue, user):
    teams = [{"spirit": "akin", "defenses": ["steam-wall", "no-such-wall", "dust-tower"],
              "players": [{"name": "Ann", "counter": 1}]}]
    saved = TeamSetup.objects.create(owner=user, name="Old", mode="teams", teams=teams)
    client.force_login(user)
    page = text(client.get(f"{BUILDER}?setup={saved.pk}"))
    assert "no-such-wall (not in the catalogue)" in page
    assert "&#x27;no-such-wall&#x27; is not a defense card." in page


def test_a_filter_value_the_form_does_not_offer_is_shown_as_given(client, catalogue):
    response = client.get(f"{GALLERY}?kind=defenses&element=fire,water")
    both = DefenseCard.objects.filter(element_1__slug__in=["fire", "water"], element_2__slug__in=["fire", "water"])
    assert response.context["page_obj"].paginator.count == both.count()
    assert '<option value="fire,water" selected>fire,water (not offered here)</option>' in text(response)


def test_a_legal_setup_links_to_the_match_and_study_pages_with_its_code(client, catalogue):
    from urllib.parse import quote

    teams = [{"spirit": "akin", "players": [{"name": "Ada", "counter": 1}]},
             {"spirit": "yulin", "players": [{"name": "Dan", "counter": 2}]}]
    code = setup_codes.encode_setup("duel", parse_teams(teams))
    html = text(client.get(BUILDER, {"code": code}))
    assert (f'href="/matches/new/?game=legends&amp;setup_code={quote(code)}&amp;agent_0=person" id="play-setup">'
            f'Play this setup</a>') in html
    assert f'href="/matches/new/?game=legends&amp;setup_code={quote(code)}" id="watch-setup">Watch it played</a>' in html
    assert f'href="/studies/new/?game=legends&amp;setup_code={quote(code)}" id="study-setup">Study this setup</a>' in html
    teams[1]["spirit"] = "akin"
    html = text(client.get(BUILDER, {"code": setup_codes.encode_setup("duel", parse_teams(teams))}))
    assert "Play this setup" not in html and "Study this setup" not in html
    assert "Once the setup is valid, it can be played in a match or studied from here." in html
