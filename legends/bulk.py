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
from simulate.selectors import published_field_study_id

# The `simulated` blocks come from the published field study: its id is part of the file's version.
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
    extra_version=lambda: published_field_study_id(game=Game.LEGENDS),
)
