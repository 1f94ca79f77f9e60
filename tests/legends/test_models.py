"""Catalogue rules enforced on save (Model.clean), shared by the admin and the API."""

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from cardsdb.models import Card
from legends.models import DefenseCard, Protector, SummoningCard, TeamSetup
from tests.factories import make_card_set, make_rarity
from tests.legends.factories import (
    REVEAL,
    element,
    legends_set,
    make_defense,
    make_protector,
    make_spirit,
    make_summoning,
)

pytestmark = pytest.mark.django_db


def errors(instance) -> dict[str, list[str]]:
    with pytest.raises(ValidationError) as info:
        instance.full_clean()
    return info.value.message_dict


def test_cards_share_the_card_identity_and_are_forced_to_the_legends_game():
    card = make_defense("Steam Wall", "fire", "water")
    shared = Card.objects.get(pk=card.pk)
    assert shared.game == "legends" and shared.slug == card.slug
    card.game = "realms"
    card.save()
    assert Card.objects.get(pk=card.pk).game == "legends"


def test_defense_needs_two_different_elements():
    card = DefenseCard(name="Wall", slug="wall", card_set=legends_set(), element_1=element("fire"),
                       element_2=element("fire"))
    assert errors(card) == {"element_2": ["A defense requires two different elements (L2)."]}


def test_the_database_refuses_a_defense_with_one_element_twice():
    card = make_defense("Wall", "fire", "water")
    with pytest.raises(IntegrityError), transaction.atomic():
        DefenseCard.objects.filter(pk=card.pk).update(element_2=element("fire"))


def test_summoning_attacks_may_be_equal():
    card = make_summoning("Blaze", attacks=("fire", "fire"), effect=("boost", "air"), copies=2)
    assert card.rules_text == (
        "Attack: Fire (both ends). Effect: Air boost (+1 strength to every Air attack of your team this showdown)."
    )


def test_summoning_rules_text_is_composed_from_the_data():
    card = make_summoning("Steam", attacks=("fire", "water"), effect=("healing", "earth"), rules_text="ignored")
    assert card.rules_text == (
        "Attack: Fire or Water. Effect: Earth healing (removes one Earth marker from one of your team's defenses)."
    )


def test_a_second_row_for_the_same_design_is_refused():
    make_summoning("First", attacks=("fire", "water"), effect=("defense", "earth"))
    twin = SummoningCard(name="Twin", slug="twin", card_set=legends_set(), attack_1=element("water"),
                         attack_2=element("fire"), effect_kind="defense", effect_element=element("earth"))
    message = errors(twin)["__all__"][0]
    assert "already has these attacks and this effect; raise its copies instead" in message
    other_effect = SummoningCard(name="Other", slug="other", card_set=legends_set(), attack_1=element("water"),
                                 attack_2=element("fire"), effect_kind="boost", effect_element=element("earth"))
    other_effect.full_clean()


@pytest.mark.parametrize("copies, ok", [(0, False), (1, True), (12, True), (13, False)])
def test_copies_bounds(copies, ok):
    card = SummoningCard(name="Card", slug="card", card_set=legends_set(), attack_1=element("fire"),
                         attack_2=element("air"), effect_kind="defense", effect_element=element("air"), copies=copies)
    if ok:
        card.full_clean()
    else:
        assert "copies" in errors(card)


def test_protector_effect_is_validated_with_paths():
    card = Protector(name="Odd", slug="odd", card_set=legends_set(),
                     effect={"kind": "heal_marker", "when": "round_end", "count": 9, "element": "plasma"})
    element("fire")
    assert errors(card) == {"effect": [
        "effect.when: the heal_marker effect runs at round_start (got 'round_end')",
        "effect.count: must be between 1 and 2",
        "effect.element: unknown element 'plasma' (known: fire, or any)",
    ]}


def test_a_teams_only_effect_cannot_be_duel_legal():
    card = Protector(name="Spy", slug="spy", card_set=legends_set(), effect=REVEAL, duel_legal=True)
    message = errors(card)["duel_legal"][0]
    assert "before_second_turns" in message and "L13" in message
    card.duel_legal = False
    card.full_clean()


def test_protector_rules_text_is_the_effect_in_plain_words():
    element("fire")
    card = make_protector(
        "Herald", effect={"kind": "boost_first_attack", "when": "showdown_boosts", "amount": 2, "element": "fire"}
    )
    assert card.rules_text == "In each showdown, the team's first Fire attack (in turn order) gets +2 strength."


def test_spirit_keeps_its_written_text():
    spirit = make_spirit("Akin", rules_text="Protect me.", color="#ff8800")
    assert spirit.rules_text == "Protect me."
    spirit.color = "orange"
    assert "color" in errors(spirit)


def test_legends_cards_have_no_rarity_and_an_akin_legends_set():
    card = make_spirit("Akin")
    card.rarity = make_rarity("rare")
    card.card_set = make_card_set(game="realms")
    assert errors(card) == {
        "rarity": ["Akin Legends cards have no rarity."],
        "card_set": ["Choose an Akin Legends card set."],
    }


def test_an_element_in_use_cannot_be_deleted():
    from django.db.models import ProtectedError

    make_defense("Wall", "earth", "air")
    with pytest.raises(ProtectedError):
        element("earth").delete()


def test_deleting_a_card_removes_its_shared_row():
    card = make_protector("Gone")
    pk = card.pk
    card.delete()
    assert not Card.objects.filter(pk=pk).exists()


def test_team_setup_checks_the_structure_of_its_teams(user):
    setup = TeamSetup(owner=user, name="Friday", mode="teams", teams=[{"spirit": 3, "players": "all"}])
    assert errors(setup) == {"teams": [
        "teams[0].spirit: must be a card slug (a non-empty string)",
        "teams[0].players: must be a list",
    ]}
    setup.teams = [{"spirit": "akin", "players": []}]
    setup.full_clean()
    setup.mode = "solo"
    assert "mode" in errors(setup)
