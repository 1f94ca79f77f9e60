"""The Echo Realms bulk file (cardsdb/bulk.py): every character, and the sets, rarities, factions and races
its rows name, each as its API list shows it."""

from cardsdb import selectors as catalogue_selectors
from cardsdb.api.serializers import CardSetSerializer, FactionSerializer, RaritySerializer
from cardsdb.bulk import Catalogue, Part
from cardsdb.choices import Game
from cardsdb.models import Faction, Rarity
from realms import selectors
from realms.api.serializers import CharacterSerializer, RaceSerializer
from realms.models import Race
from simulate.selectors import published_field_study_id

# The `simulated` blocks come from the published field study: its id is part of the file's version.
CATALOGUE = Catalogue(
    game=Game.REALMS,
    cards=(Part("characters", selectors.character_list, CharacterSerializer),),
    related=(
        Part("sets", lambda: catalogue_selectors.card_set_list().filter(game=Game.REALMS), CardSetSerializer),
        Part("rarities", Rarity.objects.all, RaritySerializer),
        Part("factions", Faction.objects.all, FactionSerializer),
        Part("races", Race.objects.all, RaceSerializer),
    ),
    extra_version=lambda: published_field_study_id(game=Game.REALMS),
)
