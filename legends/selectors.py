"""Reads of the Akin Legends catalogue, shaped so list pages run a fixed number of queries."""

from django.db.models import QuerySet, TextField
from django.db.models.functions import Cast

from cardsdb.card_history import release_rows
from cardsdb.models import Card, Release
from legends.engine.setup import SetupCatalogue, SetupFormatError, parse_teams
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


def setup_catalogue(release: Release | None = None) -> SetupCatalogue:
    """A snapshot of the card slugs a setup may name (three queries, whatever the setup); with `release`, the
    cards as that release froze them."""

    return SetupCatalogue(
        spirits=frozenset(cards_as_of(Spirit, release).values_list("slug", flat=True)),
        protectors=dict(cards_as_of(Protector, release).values_list("slug", "duel_legal")),
        defenses=frozenset(cards_as_of(DefenseCard, release).values_list("slug", flat=True)),
    )


def cards_as_of(model: type[Card], release: Release | None) -> QuerySet:
    """The cards of one model now, or as a release froze them (their versions there: every field as it was),
    in the model's order either way."""
    if release is None:
        return model._default_manager.all()
    return release_rows(release, model).order_by(*(model._meta.ordering or ()), "slug")


def setups_using(*, user, slug: str, limit: int) -> list[TeamSetup]:
    """The user's saved setups that name the card (as spirit, protector or defense), at most `limit`."""
    if not user.is_authenticated:
        return []
    # The teams are JSON: a text match narrows the rows in the database, the parsed teams decide.
    candidates = (team_setup_list(user=user).annotate(teams_text=Cast("teams", TextField()))
                  .filter(teams_text__contains=f'"{slug}"').select_related(None).only("pk", "name", "mode", "teams"))
    found: list[TeamSetup] = []
    for setup in candidates.iterator():
        try:
            teams = parse_teams(setup.teams)
        except SetupFormatError:
            continue
        if any(slug in (team.spirit, team.protector, *(team.defenses or ())) for team in teams):
            found.append(setup)
            if len(found) == limit:
                break
    return found
