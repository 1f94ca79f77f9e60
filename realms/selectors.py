"""Reads of the Echo Realms catalogue, shaped for a fixed number of queries."""

from collections.abc import Mapping
from typing import Any

from django.db.models import Prefetch, QuerySet, TextField
from django.db.models.functions import Cast

from cardsdb.card_history import release_rows
from cardsdb.models import Collection, CollectionEntry, Release
from realms.engine.army import ArmyCard
from realms.engine.army_stats import StatCard
from realms.models import Army, Character


def character_list() -> QuerySet[Character]:
    return Character.objects.select_related("card_set", "rarity", "race", "faction")


def characters_as_of(release: Release | None) -> QuerySet:
    """The characters now, or as a release froze them (their versions there: every field as it was)."""
    return Character.objects.all() if release is None else release_rows(release, Character)


def army_cards(*, slugs=None, ids=None, codes=None, release: Release | None = None) -> dict[str, ArmyCard]:
    """What the army rules need of the named characters, keyed by slug (one query); with `release`, as that
    release froze them."""
    rows = characters_as_of(release)
    if codes is not None:
        rows = rows.filter(code__in=set(codes))
    if slugs is not None:
        rows = rows.filter(slug__in=set(slugs))
    if ids is not None:
        rows = rows.filter(pk__in=set(ids))
    return {
        row["slug"]: ArmyCard(id=row["id"], slug=row["slug"], rarity=row["rarity__slug"], position=row["position"],
                              code=row["code"])
        for row in rows.values("id", "slug", "rarity__slug", "position", "code")
    }


def stat_cards(*, slugs, release: Release | None = None) -> dict[str, StatCard]:
    """The printed values army statistics need of the named characters, keyed by slug (one query); with
    `release`, as that release froze them."""
    rows = characters_as_of(release).filter(slug__in=set(slugs)).values(
        "slug", "faction__slug", "character_class", "attack", "defense", "speed", "health")
    return {
        row["slug"]: StatCard(slug=row["slug"], faction=row["faction__slug"], character_class=row["character_class"],
                              atk=row["attack"], def_=row["defense"], spd=row["speed"], hp=row["health"])
        for row in rows
    }


def decklist_cards() -> list[Mapping[str, Any]]:
    """Every character's slug, printed name and position: what reading a decklist matches against."""
    return list(Character.objects.order_by("slug").values("slug", "name", "position"))


def owned_quantities(collection: Collection | None) -> dict[str, int] | None:
    """Copies held per card slug, or None when no collection applies (uses prefetched entries)."""
    if collection is None:
        return None
    return {entry.card.slug: entry.quantity for entry in collection.entries.all()}


def collection_for(*, user, collection_id: int) -> Collection | None:
    """The user's own collection with its entries, or None (another user's is never found)."""
    if not user.is_authenticated:
        return None
    entries = CollectionEntry.objects.select_related("card")
    return (
        Collection.objects.filter(owner=user, pk=collection_id)
        .prefetch_related(Prefetch("entries", queryset=entries))
        .first()
    )


def army_list(*, user) -> QuerySet[Army]:
    if not user.is_authenticated:
        return Army.objects.none()
    entries = CollectionEntry.objects.select_related("card")
    return (
        Army.objects.filter(owner=user)
        .select_related("collection")
        .prefetch_related(Prefetch("collection__entries", queryset=entries))
    )


def armies_using(*, user, slug: str) -> list[Army]:
    """The user's saved armies with the card in a slot (drafts too)."""
    if not user.is_authenticated:
        return []
    # The slots are JSON: a text match narrows the rows in the database, the parsed slots decide.
    candidates = (Army.objects.filter(owner=user).annotate(slots_text=Cast("slots", TextField()))
                  .filter(slots_text__contains=f'"{slug}"').only("pk", "name", "slots"))
    return [army for army in candidates
            if any(isinstance(slot, dict) and slot.get("card") == slug for slot in army.slots)]


MAX_TABLE_GAMES = 1000  # a player's most recent table games counted in their record (a bound on the work per answer)
Record = dict[str, int]


def empty_record() -> Record:
    """The record of an army with no finished table game."""
    return {"played": 0, "won": 0, "lost": 0, "drawn": 0}


def table_records(user) -> dict[tuple[tuple[str, str], ...], Record]:
    """A player's record at the table, by army: the finished table games they started (the starter plays Army A),
    each won, lost or drawn, keyed by that army's slots (card, line) in order; the most recent MAX_TABLE_GAMES."""
    from simulate.models import SeatedGame  # the simulate app imports this one's services

    games = (SeatedGame.objects.filter(game="realms", table=True, owner=user, status=SeatedGame.Status.FINISHED,
                                       match__isnull=False)
             .select_related("match").only("setup", "match__winner").order_by("-created_at")[:MAX_TABLE_GAMES])
    records: dict[tuple[tuple[str, str], ...], Record] = {}
    for game in games:
        army = tuple((slot["card"], slot["line"]) for slot in game.setup.get("armies", {}).get("a", []))
        record = records.setdefault(army, empty_record())
        record["played"] += 1
        winner = game.match.winner if game.match is not None else None
        record["won" if winner == "a" else "lost" if winner == "b" else "drawn"] += 1
    return records
