"""What a study plays, frozen when it is created: its planned pairings with every card they use as plain data.

A study is planned once, when it is stored (`batches.create_batch`); the plan is frozen here into plain JSON
(each card or catalogue once, referred to by index) and kept with the batch (`FrozenPlan`). Every chunk, on
every worker, plays the plan thawed from that JSON, never the catalogue as it stands when the chunk runs: a
card edited while a study runs changes none of its matches, and a study run again (`rerun`) a year later
plays the very same matches. What goes into a setup and a pool is each game's (`GameStudies.freeze_setup`
and its siblings); the shape of a study is this module's.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from cardsdb.card_history import card_versions, edited_since, release_matching
from cardsdb.models import WORKING, Release
from simulate.services import PreparedMatch, game_studies
from simulate.study_kinds.base import Pairing, Study

if TYPE_CHECKING:
    from simulate.models import Batch
    from simulate.services import GameStudies

FORMAT = 1  # the frozen plan's layout; a new layout gets a new number and a reader of its own
T = TypeVar("T")


def canonical(value: Any) -> str:
    """One text for equal JSON values (keys sorted, no spaces), to compare and hash them."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class Interned:
    """JSON values (cards, catalogues) kept once each while a plan is frozen, referred to by their index."""

    def __init__(self) -> None:
        self.values: list[Any] = []
        self._index: dict[str, int] = {}

    def ref(self, value: Any) -> int:
        """The index of `value`, added if it is new."""
        key = canonical(value)
        if key not in self._index:
            self._index[key] = len(self.values)
            self.values.append(value)
        return self._index[key]


class Thawing:
    """The values of a frozen plan, each parsed once however many pairings refer to it."""

    def __init__(self, values: list[Any]) -> None:
        self.values = values
        self._parsed: dict[tuple[int, Callable[[Any], Any]], Any] = {}

    def parsed(self, ref: int, parse: Callable[[Any], T]) -> T:
        """Value `ref` as `parse` makes it (the same object for every pairing)."""
        key = (ref, parse)
        if key not in self._parsed:
            self._parsed[key] = parse(self.values[ref])
        parsed: T = self._parsed[key]
        return parsed


def freeze(study: Study) -> dict[str, Any]:
    """The study as plain JSON, every card it plays included; not its count (`per_pairing`), which the batch
    keeps, so that studies of one plan and different sizes share it."""
    studies = game_studies(study.game)
    table = Interned()
    pairings = [freeze_pairing(pairing, studies, table) for pairing in study.pairings]
    frozen = {"format": FORMAT, "game": study.game, "kind": study.kind, "paired": study.paired,
              "pairings": pairings, "values": table.values}
    if study.units_fixed:  # kept only when set, so that the plans stored before it read the same
        frozen["units_fixed"] = study.units_fixed
    return frozen


def freeze_pairing(pairing: Pairing, studies: GameStudies, table: Interned) -> dict[str, Any]:
    prepared = pairing.prepared
    return {
        "label": pairing.label, "swap": pairing.swap, "patched": sorted(pairing.patched),
        "agents": prepared.agents, "options": prepared.options, "stored_setup": prepared.stored_setup,
        "setup": None if prepared.setup is None else studies.freeze_setup(prepared.setup, table),
        "pool": None if pairing.pool is None else studies.freeze_pool(pairing.pool, table),
    }


def thaw(data: Mapping[str, Any], per_pairing: int) -> Study:
    """The study a frozen plan holds, each pairing played `per_pairing` times, ready to play (no database
    read)."""
    if data.get("format") != FORMAT:
        raise ValueError(f"A frozen plan of format {data.get('format')!r} cannot be read (this reads {FORMAT}).")
    studies = game_studies(data["game"])
    table = Thawing(data["values"])
    pairings = [
        Pairing(
            label=entry["label"], swap=entry["swap"], patched=frozenset(entry["patched"]),
            prepared=PreparedMatch(
                setup=None if entry["setup"] is None else studies.thaw_setup(entry["setup"], table),
                agents=entry["agents"], options=entry["options"], stored_setup=entry["stored_setup"]),
            pool=None if entry["pool"] is None else studies.thaw_pool(entry["pool"], table),
        )
        for entry in data["pairings"]
    ]
    return Study(data["game"], data["kind"], pairings, per_pairing, paired=data["paired"],
                 units_fixed=data.get("units_fixed", 0))


def digest(data: Mapping[str, Any]) -> str:
    """The frozen plan's fingerprint: equal plans share one stored copy."""
    return hashlib.sha256(canonical(data).encode()).hexdigest()


def cards_played(data: Mapping[str, Any]) -> dict[str, list[str]]:
    """The catalogue's cards a frozen plan holds, by card model (its label), as they were when it was frozen
    (a what-if's patched copies are the plan's own, not the catalogue's)."""
    studies = game_studies(data["game"])
    found: dict[str, set[str]] = {}
    for value in data["values"]:
        for model, slugs in studies.frozen_cards(value).items():
            found.setdefault(model, set()).update(slugs)
    return {model: sorted(slugs) for model, slugs in sorted(found.items())}


def catalogue_state(data: Mapping[str, Any]) -> dict[str, Any]:
    """What a study records of the catalogue it froze: the cards it plays, by card model; each one's version
    in the card history; and the release those versions are, if they are exactly a release's. A study whose
    pairings play other states of the catalogue (a release's cards, named by their label's `catalogue`) records
    each state's versions apart: its `versions` are then those it played from the working catalogue (none when
    it played none), so that a release's cards are never claimed as the working ones."""
    game = data["game"]
    cards = cards_played(data)
    current = card_versions(game)
    named = list(dict.fromkeys(entry["label"]["catalogue"] for entry in data["pairings"]
                               if isinstance(entry["label"].get("catalogue"), str)))
    if not named:
        versions = held(cards, current)
        release = release_matching(game, versions)
        return {"cards": cards, "versions": versions, "release": None if release is None else release.name}
    states = []
    for slug in named:
        release = None if slug == WORKING else Release.objects.filter(game=game, slug=slug).first()
        states.append({"catalogue": slug, "release": None if release is None else release.name,
                       "versions": held(cards, current if slug == WORKING else release.versions if release else {})})
    working: dict[str, dict[str, int]] = next((state["versions"] for state in states if state["catalogue"] == WORKING), {})
    matching = release_matching(game, working) if working else None
    return {"cards": cards, "versions": working, "release": None if matching is None else matching.name,
            "states": states}


def held(cards: Mapping[str, list[str]], versions: Mapping[str, Mapping[str, int]]) -> dict[str, dict[str, int]]:
    """The versions of these cards that a state of the catalogue (by model, slug and version) holds."""
    return {model: {slug: versions[model][slug] for slug in slugs if slug in versions.get(model, {})}
            for model, slugs in cards.items()}


def catalogue_report(batch: Batch, current: Mapping[str, Mapping[str, int]] | None = None) -> dict[str, Any] | None:
    """What a study played, as its report names it, and the cards it played that were edited or deleted since
    (None: stored before studies kept what they played). `current` is the game's `card_versions`, when the
    caller reads it once for many studies: only a study one of whose cards moved then looks up what changed."""
    if batch.frozen_id is None:
        return None
    state = batch.catalogue or {}
    versions = state.get("versions", {})
    current = card_versions(batch.game) if current is None else current
    moved = any(current.get(model, {}).get(slug) != version
                for model, by_slug in versions.items() for slug, version in by_slug.items())
    # Every card it played that moved (renamed ones too), and a new card only under a slug it played.
    edited = [card for card in edited_since(batch.game, versions)
              if card["status"] != "added" or card["slug"] in versions.get(card["model"], {})] if moved else []
    return {"release": state.get("release"), "frozen_at": batch.created_at, "cards": state.get("cards", {}),
            "versions": versions, "edited_since": edited,
            **({"states": state["states"]} if "states" in state else {})}
