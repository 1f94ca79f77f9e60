"""The Akin Legends bulk file (cardsdb/bulk.py): every spirit, protector, defense and summoning card, and the
sets and elements they name, each as its API list shows it."""

from cardsdb import selectors as catalogue_selectors
from cardsdb.api.serializers import CardSetSerializer
from cardsdb.bulk import Catalogue, Part
from cardsdb.choices import Game
from legends import selectors
from legends.api.serializers import (
    DefenseCardSerializer,
    ElementSerializer,
    ProtectorSerializer,
    SpiritSerializer,
    SummoningCardSerializer,
)
from simulate.selectors import latest_field_study


def _latest_field_study():
    # The `simulated` block of protectors, defenses and summoning cards comes from it.
    study = latest_field_study(game=Game.LEGENDS)
    return None if study is None else str(study.pk)


CATALOGUE = Catalogue(
    game=Game.LEGENDS,
    cards=(
        Part("spirits", selectors.spirit_list, SpiritSerializer),
        Part("protectors", selectors.protector_list, ProtectorSerializer),
        Part("defenses", selectors.defense_list, DefenseCardSerializer),
        Part("summoning-cards", selectors.summoning_card_list, SummoningCardSerializer),
    ),
    related=(
        Part("sets", lambda: catalogue_selectors.card_set_list().filter(game=Game.LEGENDS), CardSetSerializer),
        Part("elements", selectors.element_list, ElementSerializer),
    ),
    extra_version=_latest_field_study,
)
