"""Reads of the Akin Legends catalogue, shaped so list pages run a fixed number of queries."""

from django.db.models import QuerySet

from legends.engine.setup import SetupCatalogue
from legends.models import DefenseCard, Element, Protector, Spirit, SummoningCard, TeamSetup


def element_list() -> QuerySet[Element]:
    return Element.objects.all()


def spirit_list() -> QuerySet[Spirit]:
    return Spirit.objects.select_related("card_set")


def protector_list() -> QuerySet[Protector]:
    return Protector.objects.select_related("card_set")


def defense_list() -> QuerySet[DefenseCard]:
    return DefenseCard.objects.select_related("card_set", "element_1", "element_2")


def summoning_card_list() -> QuerySet[SummoningCard]:
    return SummoningCard.objects.select_related("card_set", "attack_1", "attack_2", "effect_element")


def team_setup_list(*, user) -> QuerySet[TeamSetup]:
    """The saved setups of one user (none for an anonymous user)."""
    if not user.is_authenticated:
        return TeamSetup.objects.none()
    return TeamSetup.objects.filter(owner=user).select_related("owner")


def setup_catalogue() -> SetupCatalogue:
    """A snapshot of the card slugs a setup may name (three queries, whatever the setup)."""
    return SetupCatalogue(
        spirits=frozenset(Spirit.objects.values_list("slug", flat=True)),
        protectors=dict(Protector.objects.values_list("slug", "duel_legal")),
        defenses=frozenset(DefenseCard.objects.values_list("slug", flat=True)),
    )
