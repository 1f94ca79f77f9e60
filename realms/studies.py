"""Echo Realms in the balance lab: pairings of given armies, random legal armies for a field, a patch applied
to a sandbox copy of the catalogue, how decisive a win was, and the study flags of the command line.

`RealmsStudies` is its `simulate.services.GameStudies`, registered by `RealmsConfig.ready()`; the inputs'
serializers are in realms.api.studies.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from django.core.exceptions import ValidationError
from django.urls import reverse

from cardsdb.models import Card, CardSet, OfficialRecord, Release
from realms import selectors, services
from realms.api.studies import MAX_PATCH, PATCHABLE, RealmsPatchSerializer, RealmsPoolSerializer
from realms.army_search import DESCRIPTORS, ArmySpace
from realms.engine.army import Slot
from realms.engine.cards import CharacterCard, card_from_dict
from realms.engine.formation import RANDOM_ARMY_DRAW, ArmyDraw, legal_deployments, random_army
from realms.models import Character
from realms.snapshot import STUDY_AGENT, card_raw, character_card, character_snapshot
from simulate.engine.errors import InputError
from simulate.services import PreparedMatch, Tuning

if TYPE_CHECKING:
    from argparse import ArgumentParser

    from simulate.pinning import Interned, Thawing

CARD_MODEL = "realms.character"  # the model label a card's versions are kept under


@dataclass(frozen=True)
class RealmsPool:
    """The cards a field draws each side's army from: side b's from `against` when it is set (a faction
    matchup), else from the same cards."""

    cards: tuple[CharacterCard, ...]
    against: tuple[CharacterCard, ...] | None = None
    army: tuple[tuple[CharacterCard, str], ...] | None = None  # side a's army, when only side b is drawn (a search)
    # Each side's ArmyDraw, made at its first army: shared by the copies `replace` makes of the pool (a search's).
    draws: dict[str, ArmyDraw[CharacterCard]] = field(default_factory=dict, compare=False, repr=False)

    def of_side(self, side: str) -> tuple[CharacterCard, ...]:
        return self.against if side == "b" and self.against is not None else self.cards

    def random_army(self, side: str, rng: random.Random) -> list[tuple[CharacterCard, str]]:
        """A random legal army of the side's cards (`random_army`)."""
        cards, draw = self.of_side(side), self.draws.get(side)
        if draw is None or draw.cards is not cards:
            draw = self.draws[side] = ArmyDraw(cards)
        return draw.draw(rng)


class RealmsStudies:
    """The Echo Realms part of every kind of study (see simulate.study_kinds)."""

    game = "realms"
    plays_features = False  # a side's features are what it fielded
    study_agent = STUDY_AGENT
    field_draw = f"Two random legal armies a match. {RANDOM_ARMY_DRAW}."

    field_groups = {"cards": "card", "factions": "faction", "classes": "class"}
    card_groups = {"cards": CARD_MODEL}
    pair_paths = {"armies.a": "a", "armies.b": "b"}  # where pair_inputs puts each entrant, and its side
    pool_request = RealmsPoolSerializer
    patch_request = RealmsPatchSerializer
    # A stat's bounds are its model's; the screen's step is about a tenth of a stat's usual range.
    tuning = {"atk": Tuning(0, 30, -1, 2), "def": Tuning(0, 30, -1, 2), "spd": Tuning(0, 30, -1, 2),
              "hp": Tuning(1, 99, -1, 4), "cooldown": Tuning(1, 3, 1, 1)}
    tuning_group = "cards"
    army_descriptors = {name: descriptor.title for name, descriptor in DESCRIPTORS.items()}

    # ------------------------------------------------------------------- pairings of given armies

    def pair_inputs(self, inputs: Mapping[str, Any], first: Any, second: Any) -> dict[str, Any]:
        """A match of army `first` (side a) against army `second`, with the study's options."""
        return {"armies": {"a": first, "b": second}, **({"options": inputs["options"]} if "options" in inputs else {})}

    def level_agents(self, prepared: PreparedMatch, agent: str) -> dict[str, str]:
        return {"a": agent, "b": agent}

    def entrant_name(self, entrant: Mapping[str, Any], index: int) -> str:
        if "army" in entrant:
            return f"saved army {entrant['army']}"
        if "code" in entrant:
            return f"army {index + 1} ({entrant['code'][:16]})"
        return f"army {index + 1}"

    def strongest_entrants(self, inputs: Mapping[str, Any]) -> tuple[list[dict[str, Any]], list[str]]:
        """Every faction's strongest legal army, built greedily: the legal deployment of the card with the
        highest ATK + DEF + SPD + HP first (ties by slug, vanguard first). Factions that cannot field a legal
        army are left out."""
        cards = sorted(self.official_cards(), key=lambda c: c.slug)
        entrants, names = [], []
        by_faction: dict[str, list[CharacterCard]] = {}
        for card in cards:
            by_faction.setdefault(card.faction, []).append(card)
        factions = dict(selectors.character_list().values_list("faction__slug", "faction__name"))
        for faction, members in sorted(by_faction.items()):
            army = strongest_army(members)
            if army is not None:
                entrants.append({"slots": [{"card": card.slug, "line": line} for card, line in army]})
                names.append(factions.get(faction, faction))
        if len(entrants) < 2:
            message = "Fewer than two factions can field a legal army from the official sets."
            raise InputError(message, [("factions", message)])
        return entrants, names

    def faction_names(self) -> dict[str, str]:
        """Every faction's slug and name."""
        return dict(selectors.character_list().values_list("faction__slug", "faction__name"))

    def faction_pool(self, inputs: Mapping[str, Any], first: str, second: str, *, user,
                     path: str) -> tuple[RealmsPool, PreparedMatch]:
        """A field of faction `first`'s armies against faction `second`'s: each side a random legal army of its
        faction's cards in the study's pool; InputError at `path` when a faction cannot field one."""
        pool, prepared = self.field_pool(inputs, user=user)
        sides = []
        for faction in (first, second):
            cards = tuple(card for card in pool.cards if card.faction == faction)
            try:
                random_army(cards, random.Random(0))
            except ValueError as exc:
                message = f"The pool's {faction} cards cannot make a legal army."
                raise InputError(message, [(path, message)]) from exc
            sides.append(cards)
        return RealmsPool(sides[0], sides[1]), prepared

    def setup_cards(self, setup: Mapping[str, Any]) -> list[str]:
        """Both armies' cards (or both Formation Round pools')."""
        if "armies" in setup:
            return sorted({card.slug for army in setup["armies"].values() for card, _ in army})
        return sorted({card.slug for pool in setup["collections"].values() for card in pool})

    def pool_cards_of(self, pool: RealmsPool) -> list[str]:
        return sorted({card.slug for card in (*pool.cards, *(pool.against or ()))})

    # --------------------------------------------------------------------------------- field

    def official_cards(self, release: Release | None = None) -> list[CharacterCard]:
        """The cards of the official sets (every card when none is loaded), now or as `release` froze them."""
        official = OfficialRecord.objects.filter(model="cardsdb.cardset").values_list("object_pk", flat=True)
        rows = selectors.characters_as_of(release).filter(card_set__game="realms")
        ids = [int(pk) for pk in official if pk.isdigit()]
        if ids and rows.filter(card_set__in=ids).exists():
            rows = rows.filter(card_set__in=ids)
        return list(character_snapshot(rows.values_list("slug", flat=True), release=release).values())

    def field_pool(self, inputs: Mapping[str, Any], *, user,
                   release: Release | None = None) -> tuple[RealmsPool, PreparedMatch]:
        """The pool of a field study and the match every draw is played as (agents, options); with `release`,
        its cards as that release froze them (a card it did not hold is unknown)."""
        from simulate.engine.runner import validate_options

        cards = self.pool_cards(inputs.get("pool") or {}, user=user, release=release)
        cards.sort(key=lambda card: card.slug)
        try:
            random_army(cards, random.Random(0))
        except ValueError as exc:
            message = "These cards cannot make a legal army (3 Common, 2 Uncommon, 1 Rare, 1 Legendary, lines ≤ 5)."
            raise InputError(message, [("pool", message)]) from exc
        prepared = PreparedMatch(setup=None, agents=dict(inputs.get("agents") or {"a": STUDY_AGENT, "b": STUDY_AGENT}),
                                 options=validate_options("realms", inputs.get("options")), stored_setup={})
        return RealmsPool(tuple(cards)), prepared

    def pool_cards(self, pool: Mapping[str, Any], *, user, release: Release | None) -> list[CharacterCard]:
        """The cards a pool names (slugs, sets, a collection; the official sets by default), now or as `release`
        froze them; InputError naming what is unknown."""
        if "cards" in pool:
            catalogue = character_snapshot(pool["cards"], release=release)
            missing = sorted(set(pool["cards"]) - set(catalogue))
            if missing:
                message = f"Unknown character(s): {', '.join(missing[:10])}."
                raise InputError(message, [("pool.cards", message)])
            return list(catalogue.values())
        if "sets" in pool:
            known = set(CardSet.objects.filter(code__in=pool["sets"], game="realms").values_list("code", flat=True))
            missing = sorted(set(pool["sets"]) - known)
            if missing:
                message = f"Unknown Echo Realms set(s): {', '.join(missing)}."
                raise InputError(message, [("pool.sets", message)])
            slugs = selectors.characters_as_of(release).filter(card_set__code__in=known).values_list("slug", flat=True)
            return list(character_snapshot(slugs, release=release).values())
        if "collection" in pool:
            collection = selectors.collection_for(user=user, collection_id=pool["collection"])
            if collection is None:
                message = f"You have no collection {pool['collection']}."
                raise InputError(message, [("pool.collection", message)])
            owned = selectors.owned_quantities(collection) or {}
            return list(character_snapshot([slug for slug, n in owned.items() if n > 0], release=release).values())
        return self.official_cards(release)

    def field_setup(self, pool: RealmsPool, rng: random.Random) -> dict[str, Any]:
        """Two random legal armies from the pool (side a's the pool's own army when it has one)."""
        return {"armies": {side: list(pool.army) if side == "a" and pool.army is not None
                           else pool.random_army(side, rng) for side in ("a", "b")}}

    def fielded(self, setup: Mapping[str, Any]) -> tuple[dict, dict]:
        """What each army fields: its cards, factions and classes."""
        first, second = ({"cards": [card.slug for card, _ in army], "factions": [card.faction for card, _ in army],
                          "classes": [card.character_class for card, _ in army]}
                         for army in (setup["armies"]["a"], setup["armies"]["b"]))
        return first, second

    # ---------------------------------------------------------------------------- army search

    def army_space(self, pool: RealmsPool, descriptors: Sequence[str]) -> ArmySpace:
        """The legal armies of the pool's cards, their cells over `descriptors` (names of army_descriptors)."""
        return ArmySpace(pool.cards, descriptors)

    def searched_army(self, space: ArmySpace, genome: Any) -> dict[str, Any]:
        """An army a search kept: as a study's entrant, its code and the builder opening it (none when a card has
        left the catalogue since)."""
        slots = space.decode(genome)
        code = services.army_code([Slot(slug, line) for slug, line in slots])
        return {"entrant": {"slots": [{"card": slug, "line": line} for slug, line in slots]}, "code": code, "builder_url": f"{reverse('army-builder')}?{urlencode({'code': code})}" if code else None}

    # --------------------------------------------------------------------------------- what-if

    def validated_patch(self, patch: Sequence[Mapping[str, Any]], *, user) -> dict[str, CharacterCard]:
        """The patched cards, each checked exactly as an admin edit is (the model's full_clean) on a copy
        that is never saved; InputError naming `patch.<i>.changes.<field>`."""
        if not 1 <= len(patch) <= MAX_PATCH:
            message = f"A patch changes 1 to {MAX_PATCH} cards."
            raise InputError(message, [("patch", message)])
        rows = {row.slug: row for row in selectors.character_list().filter(slug__in={p["card"] for p in patch})}
        patched: dict[str, CharacterCard] = {}
        errors: list[tuple[str, str]] = []
        for index, entry in enumerate(patch):
            row = rows.get(entry["card"])
            if row is None or entry["card"] in patched:
                errors.append((f"patch.{index}.card", "Unknown character." if row is None else "Patched twice."))
                continue
            edit = edit_errors(row, entry["changes"], f"patch.{index}")
            if edit:
                errors.extend(edit)
                continue
            patched[row.slug] = character_card(row)
        if errors:
            raise InputError("The patch is not a valid edit: " + "; ".join(f"{p}: {r}" for p, r in errors), errors)
        return patched

    def patch_values(self, card: str) -> dict[str, Any] | None:
        """The character's values of every patch field (`atk` is its attack...)."""
        row = selectors.character_list().filter(slug=card).first()
        return None if row is None else {key: getattr(row, field) for key, field in PATCHABLE.items()}

    def drawn_setup(self, setup: Mapping[str, Any]) -> dict[str, Any]:
        """Two drawn armies as slots."""
        return {"armies": {side: [{"card": card.slug, "line": line} for card, line in army]
                           for side, army in setup["armies"].items()}}

    def patch_edits(self, patch: Sequence[Mapping[str, Any]]) -> list[tuple[type[Card], str, dict[str, Any]]]:
        """Each patched character, its changes by model field (`atk` is `attack`...)."""
        return [(Character, entry["card"], {PATCHABLE[key]: value for key, value in entry["changes"].items()})
                for entry in patch]

    def patched_pool(self, pool: RealmsPool, patched: Mapping[str, CharacterCard]) -> RealmsPool:
        against = None if pool.against is None else tuple(patched.get(card.slug, card) for card in pool.against)
        return RealmsPool(tuple(patched.get(card.slug, card) for card in pool.cards), against)

    def patched_match(self, prepared: PreparedMatch, patched: Mapping[str, CharacterCard]) -> PreparedMatch:
        """The same match with the patched cards in place of the catalogue's."""
        setup = prepared.setup
        if "armies" in setup:
            armies = {side: [(patched.get(card.slug, card), line) for card, line in army]
                      for side, army in setup["armies"].items()}
            return replace(prepared, setup={"armies": armies})
        pools = {side: [patched.get(card.slug, card) for card in pool] for side, pool in setup["collections"].items()}
        return replace(prepared, setup={"collections": pools})

    # ----------------------------------------------------------------------------- frozen plans

    def freeze_setup(self, setup: Mapping[str, Any], table: Interned) -> dict[str, Any]:
        """Two armies (each card and its line) or two Formation Round pools, their cards in `table`."""
        if "armies" in setup:
            return {"armies": {side: [[table.ref(card_raw(card)), line] for card, line in army]
                               for side, army in setup["armies"].items()}}
        return {"collections": {side: [table.ref(card_raw(card)) for card in pool]
                                for side, pool in setup["collections"].items()}}

    def thaw_setup(self, data: Mapping[str, Any], table: Thawing) -> dict[str, Any]:
        if "armies" in data:
            return {"armies": {side: [(table.parsed(ref, card_from_dict), line) for ref, line in army]
                               for side, army in data["armies"].items()}}
        return {"collections": {side: [table.parsed(ref, card_from_dict) for ref in pool]
                                for side, pool in data["collections"].items()}}

    def freeze_pool(self, pool: RealmsPool, table: Interned) -> dict[str, Any]:
        frozen = {"cards": [table.ref(card_raw(card)) for card in pool.cards]}
        if pool.against is not None:
            frozen["against"] = [table.ref(card_raw(card)) for card in pool.against]
        return frozen

    def thaw_pool(self, data: Mapping[str, Any], table: Thawing) -> RealmsPool:
        against = data.get("against")
        return RealmsPool(tuple(table.parsed(ref, card_from_dict) for ref in data["cards"]),
                          None if against is None else tuple(table.parsed(ref, card_from_dict) for ref in against))

    def frozen_cards(self, value: Mapping[str, Any]) -> dict[str, list[str]]:
        """A frozen plan's values are cards."""
        return {CARD_MODEL: [value["slug"]]}

    # ----------------------------------------------------------------------------- decisiveness

    def kept_share(self, setup: Mapping[str, Any], result: Any, seat: str) -> float:
        """The share of its starting HP the winner's characters kept (of its characters, for a Formation
        Round, whose armies the setup does not hold)."""
        standing = [unit for unit in result.survivors.get(seat, []) if not unit["summon"]]
        if "armies" not in setup:
            return len(standing) / 7
        start = sum(card.hp for card, _ in setup["armies"][seat])
        return min(1.0, sum(min(unit["hp"], unit["max_hp"]) for unit in standing) / start) if start else 0.0

    # ------------------------------------------------------------------ manage.py simulate_batch

    side_names = ("side a", "side b")  # the sides as the command's tables name them

    def add_study_arguments(self, parser: ArgumentParser) -> None:
        """--opponents, --entrants (armies as --a and --b take them) and --sets."""
        group = parser.add_argument_group(
            "Echo Realms studies",
            "Armies as --a and --b take them. --a is a gauntlet's subject; --a and --b fill the armies the JSON "
            "leaves out, drawn from the seed as `manage.py simulate` draws them.",
        )
        group.add_argument("--opponents", nargs="+", default=None, metavar="ARMY",
                           help="gauntlet: the armies the subject (--a) meets.")
        group.add_argument("--entrants", nargs="+", default=None, metavar="ARMY",
                           help="matrix: the armies that each meet each other.")
        group.add_argument("--sets", nargs="+", default=None, metavar="CODE",
                           help="field: the card sets its random armies come from (default: the official ones).")

    def study_command_inputs(self, body: dict[str, Any], roles: Sequence[str], arguments: Mapping[str, Any],
                             seed: int) -> dict[str, dict[int, str]]:
        """A subject (--a, unless the JSON gives one), opponents and entrants (armies drawn from the seed) and a
        field's sets, set on `body`; the labels of the armies given (their specs)."""
        rng = random.Random(seed)

        def army(spec: str, flag: str) -> dict[str, Any]:
            try:
                return {"slots": command_army(spec, rng)}
            except InputError as exc:
                raise InputError(f"{flag}: {exc}", [(flag, str(exc))]) from exc

        labels: dict[str, dict[int, str]] = {}
        if "subject" in roles and "subject" not in body:
            body["subject"] = army(arguments["a"], "--a")
        for key in ("opponents", "entrants"):
            if arguments[key] is not None:
                body[key] = [army(spec, f"--{key}") for spec in arguments[key]]
                labels[key] = dict(enumerate(arguments[key]))
        if arguments["sets"] is not None:
            body["pool"] = {"sets": arguments["sets"]}
        return labels


def edit_errors(row: Any, changes: Mapping[str, Any], where: str) -> list[tuple[str, str]]:
    """Set the changes on the (unsaved) character and check it as the admin does; every error, at
    `<where>.changes.<field>` (or `where` for the card as a whole)."""
    for key, value in changes.items():
        setattr(row, PATCHABLE[key], value)
    try:
        row.full_clean(validate_unique=False, validate_constraints=False)
    except ValidationError as exc:
        fields = {field: name for name, field in PATCHABLE.items()}
        return [(f"{where}.changes.{fields[field]}" if field in fields else where, message)
                for field, messages in exc.message_dict.items() for message in messages]
    return []


def command_army(spec: str, rng: random.Random) -> list[dict]:
    """Slots for an army given on the command line as a code, 'random' or 'faction:<slug>' (a random legal
    army of that faction, drawn with `rng`)."""
    if spec == "random" or spec.startswith("faction:"):
        cards = selectors.army_cards()
        if spec.startswith("faction:"):
            faction = spec.split(":", 1)[1]
            slugs = set(selectors.character_list().filter(faction__slug=faction).values_list("slug", flat=True))
            cards = {slug: card for slug, card in cards.items() if slug in slugs}
        try:
            army = random_army(sorted(cards.values(), key=lambda c: c.slug), rng)
        except ValueError as exc:
            raise InputError(f"No legal army can be built for '{spec}'.", [("army", "no legal army")]) from exc
        return [{"card": card.slug, "line": line} for card, line in army]
    try:
        return [{"card": s.card, "line": s.line} for s in services.army_from_code(spec)]
    except ValueError as exc:
        raise InputError(f"'{spec}' is not an army code: {exc}", [("army", str(exc))]) from exc


def stat_total(card: CharacterCard) -> int:
    return card.atk + card.def_ + card.spd + card.hp


def strongest_army(cards: Sequence[CharacterCard]) -> list[tuple[CharacterCard, str]] | None:
    """The greedy strongest legal army of `cards` (None if they make none)."""
    by_slug = {card.slug: card for card in cards}
    army: list[tuple[CharacterCard, str]] = []
    while len(army) < 7:
        options = legal_deployments(army, cards)
        if not options:
            return None
        _, slug, line = min(options, key=lambda o: (-stat_total(by_slug[o[1]]), o[1], o[2] != "vanguard"))
        army.append((by_slug[slug], line))
    return army

