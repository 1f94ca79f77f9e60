"""Akin Legends in the balance lab: the inputs of every kind of study, random legal setups for a field, a
patch applied to a sandbox copy of the catalogue, and how decisive a win was.

`LegendsStudies` is its `simulate.services.GameStudies`, registered by `LegendsConfig.ready()`; the inputs'
serializers are in legends.api.studies.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from django.core.exceptions import ValidationError

from legends import selectors
from legends.api.studies import MAX_PATCH, LegendsPatchSerializer, LegendsPoolSerializer
from legends.engine.cards import Catalogue, parse_catalogue
from legends.engine.start import MatchStart, normalize_setup
from legends.engine.vocabulary import MAX_COPIES, MODES, TEAM_COUNT
from legends.models import Element, Protector, SummoningCard
from legends.snapshot import (
    STUDY_AGENT,
    catalogue_raw,
    design_entry,
    legal_players,
    protector_entry,
    seat_agents,
)
from simulate.engine.errors import InputError, SetupError
from simulate.engine.runner import validate_options
from simulate.services import PreparedMatch, Tuning, seat_agent_names

if TYPE_CHECKING:
    from argparse import ArgumentParser

    from cardsdb.models import Card, Release
    from simulate.pinning import Interned, Thawing

# What a patch may change of each kind of card: the fields its admin page edits.
PATCHABLE = {"protector": ("effect", "duel_legal"),
             "summoning card": ("attack_1", "attack_2", "effect_kind", "effect_element", "copies")}
ELEMENT_FIELDS = ("attack_1", "attack_2", "effect_element")  # given as element slugs


# The catalogue's kinds of card, as a raw catalogue lists them, and the model label their versions are kept under.
CARD_MODELS = {"spirits": "legends.spirit", "protectors": "legends.protector", "defenses": "legends.defensecard",
               "deck": "legends.summoningcard"}


@dataclass(frozen=True)
class LegendsPool:
    """A field study's draws: the mode, the catalogue its protectors and defenses are drawn from (the pool's
    cards only) and the players of each team."""

    mode: str
    catalogue: Catalogue
    protectors: tuple[str, ...]
    defenses: tuple[str, ...]
    players: tuple[list[dict[str, Any]], list[dict[str, Any]]]


@dataclass(frozen=True)
class LegendsPatch:
    """A validated patch: the catalogue with it, as plain data and parsed (a sandbox copy, never saved)."""

    raw: dict[str, Any]
    catalogue: Catalogue


class LegendsStudies:
    """The Akin Legends part of every kind of study (see simulate.study_kinds)."""

    game = "legends"
    plays_features = True  # the summoning cards a team played count with what it fielded
    study_agent = STUDY_AGENT
    field_draw = ("Two random teams a match, protecting two different spirits. Each protector (duel-legal ones in a "
                  "duel) and each defense card equally likely, drawn without replacement as L6 draws them.")

    field_groups = {"protectors": "protector", "defenses": "defense", "summoning_cards": "summoning_card"}
    card_groups = {"protectors": CARD_MODELS["protectors"], "defenses": CARD_MODELS["defenses"],
                   "summoning_cards": CARD_MODELS["deck"]}
    # Where pair_inputs puts each entrant, as the setup's errors name it, and its side (a violation's team).
    pair_paths = {"teams[0]": "0", "teams[1]": "1"}
    pool_request = LegendsPoolSerializer
    patch_request = LegendsPatchSerializer
    tuning = {"copies": Tuning(1, MAX_COPIES, -1, 1)}  # fewer copies of a summoning card: drawn less often
    tuning_group = "summoning_cards"
    army_descriptors: dict[str, str] = {}  # a team's setup is one deck and a protector: nothing to search

    # ------------------------------------------------------------------- pairings of given teams

    def pair_inputs(self, inputs: Mapping[str, Any], first: Any, second: Any) -> dict[str, Any]:
        """A match of team `first` (team 0) against team `second`, with the study's mode and options. Teams
        given apart may clash on what two teams cannot share: the second then protects the spirit left and
        its players take the counters left (in their order). InputError at `mode` when the study gives none."""
        mode = inputs.get("mode")
        if mode is None:
            message = "A study of teams given apart gives the mode (teams or duel)."
            raise InputError(message, [("mode", message)])
        second = fitted(first, second, mode)
        return {"mode": mode, "setup": {"mode": mode, "teams": [first, second]},
                **({"options": inputs["options"]} if "options" in inputs else {})}

    def level_agents(self, prepared: PreparedMatch, agent: str) -> list[str]:
        return [agent] * len(seat_agent_names(prepared.agents))

    def entrant_name(self, entrant: Mapping[str, Any], index: int) -> str:
        cards = [entrant.get("protector")] + list(entrant.get("defenses") or [])
        named = ", ".join(card for card in cards if card)
        return f"team {index + 1}" + (f" ({named})" if named else "")

    def strongest_entrants(self, inputs: Mapping[str, Any]) -> tuple[list[dict[str, Any]], list[str]]:
        message = ("Akin Legends has no factions to build entrants from: give the matrix's `entrants` (teams with "
                   "their protector and defenses).")
        raise InputError(message, [("factions", message)])

    def faction_names(self) -> dict[str, str]:
        """None: Akin Legends has no factions."""
        return {}

    def faction_pool(self, inputs: Mapping[str, Any], first: str, second: str, *, user,
                     path: str) -> tuple[LegendsPool, PreparedMatch]:
        message = "Akin Legends has no factions to draw target matchups from."
        raise InputError(message, [(path, message)])

    def setup_cards(self, setup: Mapping[str, Any]) -> list[str]:
        """Every summoning card of the deck both teams draw from, and the teams' protectors and defenses."""
        catalogue = setup["catalogue"]
        teams = [team for team in setup.get("teams") or [] if isinstance(team, Mapping)]
        return sorted({*(design.slug for design in catalogue.designs),
                       *(team["protector"] for team in teams if isinstance(team.get("protector"), str)),
                       *(slug for team in teams for slug in team.get("defenses") or [] if isinstance(slug, str))})

    def pool_cards_of(self, pool: LegendsPool) -> list[str]:
        return sorted({*pool.protectors, *pool.defenses})

    # --------------------------------------------------------------------------------- field

    def field_pool(self, inputs: Mapping[str, Any], *, user,
                   release: Release | None = None) -> tuple[LegendsPool, PreparedMatch]:
        """The draws of a field study and the match every draw is played as (agents, options); with `release`,
        its cards as that release froze them (a card it did not hold is unknown)."""
        mode = inputs["mode"]
        raw = catalogue_raw(release)
        chosen = inputs.get("pool") or {}
        errors = []
        for kind in ("protectors", "defenses"):
            known = {card["slug"] for card in raw[kind]}
            missing = sorted(set(chosen.get(kind, ())) - known)
            if missing:
                errors.append((f"pool.{kind}", f"Unknown {kind[:-1]}(s): {', '.join(missing[:10])}."))
        if errors:
            raise InputError("; ".join(reason for _, reason in errors), errors)
        protectors = tuple(card["slug"] for card in raw["protectors"]
                           if "protectors" not in chosen or card["slug"] in chosen["protectors"])
        defenses = tuple(card["slug"] for card in raw["defenses"]
                         if "defenses" not in chosen or card["slug"] in chosen["defenses"])
        players = legal_players(mode)
        pool = drawable(LegendsPool(mode, restricted(raw, protectors, defenses), protectors, defenses,
                                    (players[0], players[1])), "pool")
        prepared = PreparedMatch(setup=None, agents=seat_agents(inputs.get("agents") or STUDY_AGENT, MODES[mode].players),
                                 options=validate_options("legends", inputs.get("options")), stored_setup={})
        return pool, prepared

    def field_setup(self, pool: LegendsPool, rng: random.Random) -> MatchStart:
        """Two random legal teams: their spirits, then their protectors and defenses drawn as L6 draws them."""
        return normalize_setup(field_setup(pool, rng), rng)

    def fielded(self, setup: MatchStart) -> tuple[dict, dict]:
        """What each team fields: its protector and defenses."""
        first, second = ({"protectors": [team.protector.slug], "defenses": [card.slug for card in team.defenses]}
                         for team in setup.teams)
        return first, second

    def played_features(self, features: tuple[dict, dict], result: Any) -> tuple[dict, dict]:
        """What each team fielded, and the summoning cards it played in the match (the outcome's `played`)."""
        played = result.played or {}
        first, second = ({**side, "summoning_cards": played.get(str(team), [])} for team, side in enumerate(features))
        return first, second

    # ---------------------------------------------------------------------------- army search

    def army_space(self, pool: Any, descriptors: Sequence[str]) -> Any:
        raise InputError("Akin Legends has no army search: every team plays the one official deck.",
                         [("kind", "no army search in this game")])

    def searched_army(self, space: Any, genome: Any) -> dict[str, Any]:
        raise NotImplementedError  # never reached: no space is ever made

    # --------------------------------------------------------------------------------- what-if

    def validated_patch(self, patch: Sequence[Mapping[str, Any]], *, user) -> LegendsPatch:
        """The catalogue with the patched cards, each checked exactly as an admin edit is (the model's
        full_clean) on a copy that is never saved; InputError naming `patch.<i>.changes.<field>`."""
        if not 1 <= len(patch) <= MAX_PATCH:
            message = f"A patch changes 1 to {MAX_PATCH} cards."
            raise InputError(message, [("patch", message)])
        slugs = {entry["card"] for entry in patch}
        rows: dict[str, Protector | SummoningCard] = {
            **{row.slug: row for row in selectors.summoning_card_list().filter(slug__in=slugs)},
            **{row.slug: row for row in selectors.protector_list().filter(slug__in=slugs)},
        }
        elements = {element.slug: element for element in selectors.element_list()}
        raw = catalogue_raw()
        errors: list[tuple[str, str]] = []
        done: set[str] = set()
        for index, entry in enumerate(patch):
            row = rows.get(entry["card"])
            if row is None or entry["card"] in done:
                errors.append((f"patch.{index}.card",
                               "No protector or summoning card has this slug." if row is None else "Patched twice."))
                continue
            done.add(row.slug)
            edit = edit_errors(row, entry["changes"], elements, f"patch.{index}.changes")
            errors.extend(edit)
            if not edit:
                put_in(raw, row)
        if errors:
            raise InputError("The patch is not a valid edit: " + "; ".join(f"{p}: {r}" for p, r in errors), errors)
        try:
            catalogue = parse_catalogue(raw)
        except SetupError as exc:
            raise patch_error(exc) from exc
        return LegendsPatch(raw, catalogue)

    def patch_values(self, card: str) -> dict[str, Any] | None:
        """The protector's or summoning card's values of the fields a patch may change of its kind, elements by
        slug."""
        row: Protector | SummoningCard | None = selectors.protector_list().filter(slug=card).first()
        kind = "protector"
        if row is None:
            row, kind = selectors.summoning_card_list().filter(slug=card).first(), "summoning card"
        if row is None:
            return None
        values = {field: getattr(row, field) for field in PATCHABLE[kind]}
        return {field: value.slug if field in ELEMENT_FIELDS and value is not None else value
                for field, value in values.items()}

    def drawn_setup(self, setup: MatchStart) -> dict[str, Any]:
        """Two drawn teams, every card named, as a setup gives them."""
        return {"mode": setup.mode, "teams": [
            {"spirit": team.spirit, "protector": team.protector.slug,
             "defenses": [card.slug for card in team.defenses],
             "players": [{"name": player.name, "counter": player.counter} for player in team.players]}
            for team in setup.teams]}

    def patch_edits(self, patch: Sequence[Mapping[str, Any]]) -> list[tuple[type[Card], str, dict[str, Any]]]:
        """Each patched protector or summoning card (as its slug names it), its changes as given: the patch
        names model fields, elements by slug."""
        protectors = set(Protector.objects.filter(slug__in=[entry["card"] for entry in patch])
                         .values_list("slug", flat=True))
        return [(Protector if entry["card"] in protectors else SummoningCard, entry["card"], dict(entry["changes"]))
                for entry in patch]

    def patched_pool(self, pool: LegendsPool, patch: LegendsPatch) -> LegendsPool:
        return drawable(replace(pool, catalogue=restricted(patch.raw, pool.protectors, pool.defenses)), "patch")

    def patched_match(self, prepared: PreparedMatch, patch: LegendsPatch) -> PreparedMatch:
        """The same match played with the patched catalogue; refused if the patch makes its setup illegal (a
        protector of a duel no longer duel-legal, a deck too small)."""
        setup = {**prepared.setup, "catalogue": patch.catalogue}
        try:
            normalize_setup(setup, random.Random(0))
        except SetupError as exc:
            raise patch_error(exc) from exc
        return replace(prepared, setup=setup)

    # ----------------------------------------------------------------------------- frozen plans

    def freeze_setup(self, setup: Mapping[str, Any], table: Interned) -> dict[str, Any]:
        """The mode and teams as given, the catalogue (the patched one, in a what-if) in `table`."""
        return {**setup, "catalogue": table.ref(catalogue_as_raw(setup["catalogue"]))}

    def thaw_setup(self, data: Mapping[str, Any], table: Thawing) -> dict[str, Any]:
        return {**data, "catalogue": table.parsed(data["catalogue"], parse_catalogue)}

    def freeze_pool(self, pool: LegendsPool, table: Interned) -> dict[str, Any]:
        return {"mode": pool.mode, "catalogue": table.ref(catalogue_as_raw(pool.catalogue)),
                "protectors": list(pool.protectors), "defenses": list(pool.defenses), "players": list(pool.players)}

    def thaw_pool(self, data: Mapping[str, Any], table: Thawing) -> LegendsPool:
        first, second = data["players"]
        return LegendsPool(data["mode"], table.parsed(data["catalogue"], parse_catalogue), tuple(data["protectors"]),
                           tuple(data["defenses"]), (first, second))

    def frozen_cards(self, value: Mapping[str, Any]) -> dict[str, list[str]]:
        """A frozen plan's values are catalogues: every spirit, protector, defense and summoning card in them."""
        return {model: [card["slug"] for card in value[key]] for key, model in CARD_MODELS.items()}

    # ----------------------------------------------------------------------------- decisiveness

    def kept_share(self, setup: Any, result: Any, seat: str) -> float:
        """The share of its defenses the winning team kept intact."""
        mode = setup.mode if isinstance(setup, MatchStart) else setup["mode"]
        return len(result.survivors.get(seat, [])) / MODES[mode].defenses_per_team

    # ------------------------------------------------------------------ manage.py simulate_batch

    side_names = ("team 0", "team 1")  # the teams as the command's tables name them (they are numbered)

    def add_study_arguments(self, parser: ArgumentParser) -> None:
        """None: a study's teams are given in the JSON (--input, --inputs); --mode fills its mode."""

    def study_command_inputs(self, body: dict[str, Any], roles: Sequence[str], arguments: Mapping[str, Any],
                             seed: int) -> dict[str, dict[int, str]]:
        """Nothing beyond the JSON and the common flags, so no labels."""
        return {}


def catalogue_as_raw(catalogue: Catalogue) -> dict[str, Any]:
    """A parsed catalogue back as the plain data `parse_catalogue` takes."""
    return {
        "elements": list(catalogue.elements),
        "spirits": [{"slug": slug, "name": catalogue.spirit_names[slug]} for slug in catalogue.spirits],
        "protectors": [card.as_dict() for card in catalogue.protectors.values()],
        "defenses": [card.as_dict() for card in catalogue.defenses.values()],
        "deck": [card.as_dict() for card in catalogue.designs],
    }


def fitted(first: Mapping[str, Any], second: Mapping[str, Any], mode: str) -> dict[str, Any]:
    """Team `second` made to meet team `first`: the spirit and the counters left when it shares theirs."""
    second = dict(second)
    if second.get("spirit") is not None and second.get("spirit") == first.get("spirit"):
        left = [slug for slug in selectors.spirit_list().order_by("slug").values_list("slug", flat=True)
                if slug != first["spirit"]]
        if left:
            second["spirit"] = left[0]
    taken = {player["counter"] for player in first.get("players", [])}
    players = second.get("players", [])
    if taken & {player["counter"] for player in players}:
        free = [counter for counter in range(1, MODES[mode].counters + 1) if counter not in taken]
        if len(free) == len(players):
            second["players"] = [{**player, "counter": counter} for player, counter in zip(players, free, strict=True)]
    return second


def edit_errors(row: Protector | SummoningCard, changes: Mapping[str, Any], elements: Mapping[str, Element],
                where: str) -> list[tuple[str, str]]:
    """Set the changes on the (unsaved) row and check it as the admin does; every error, at `where`."""
    errors = apply_changes(row, changes, elements, where)
    try:
        row.full_clean(validate_unique=False, validate_constraints=False)
    except ValidationError as exc:
        errors.extend((where + (f".{field}" if field in changes else ""), message)
                      for field, messages in exc.message_dict.items() for message in messages)
    return errors


def put_in(raw: dict[str, Any], row: Protector | SummoningCard) -> None:
    """The raw catalogue with the edited row in place of its card."""
    if isinstance(row, Protector):
        raw["protectors"] = [protector_entry(row) if card["slug"] == row.slug else card for card in raw["protectors"]]
    else:
        raw["deck"] = [design_entry(row) if card["slug"] == row.slug else card for card in raw["deck"]]


def apply_changes(row: Protector | SummoningCard, changes: Mapping[str, Any], elements: Mapping[str, Element],
                  where: str) -> list[tuple[str, str]]:
    """Set the changes on the (unsaved) row; the changes its kind of card does not have, or unknown elements."""
    kind = "protector" if isinstance(row, Protector) else "summoning card"
    errors = []
    for field, value in changes.items():
        if field not in PATCHABLE[kind]:
            errors.append((f"{where}.{field}", f"A {kind} has no {field}; it takes {', '.join(PATCHABLE[kind])}."))
        elif field in ELEMENT_FIELDS:
            if value not in elements:
                errors.append((f"{where}.{field}", f"Unknown element {value!r}; known: {', '.join(elements)}."))
            else:
                setattr(row, field, elements[value])
        else:
            setattr(row, field, value)
    return errors


def restricted(raw: Mapping[str, Any], protectors: Sequence[str], defenses: Sequence[str]) -> Catalogue:
    """The catalogue of `raw` with only these protectors and defenses to draw from (the deck whole)."""
    return parse_catalogue({**raw, "protectors": [card for card in raw["protectors"] if card["slug"] in protectors],
                            "defenses": [card for card in raw["defenses"] if card["slug"] in defenses]})


def field_setup(pool: LegendsPool, rng: random.Random) -> dict[str, Any]:
    """A setup of two teams protecting two different spirits drawn from `rng`, their cards left to draw."""
    spirits = rng.sample(pool.catalogue.spirits, TEAM_COUNT)
    return {"mode": pool.mode, "catalogue": pool.catalogue,
            "teams": [{"spirit": spirit, "players": players} for spirit, players in zip(spirits, pool.players,
                                                                                       strict=True)]}


def drawable(pool: LegendsPool, path: str) -> LegendsPool:
    """The pool, if two teams can draw their cards from it (checked by drawing them once)."""
    try:
        normalize_setup(field_setup(pool, random.Random(0)), random.Random(0))
    except SetupError as exc:
        message = f"Two teams cannot draw their cards from these: {exc}"
        raise InputError(message, [(path, message)]) from exc
    return pool


def patch_error(exc: SetupError) -> InputError:
    message = f"The patched catalogue cannot be played: {exc}"
    return InputError(message, [("patch", message)])
