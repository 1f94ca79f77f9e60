"""Search: the strongest legal armies of a pool, one per niche, found by MAP-Elites (simulate.elites).

Its count is shared among islands (`ISLAND_GAMES` games at most each, two at least so that two workers share
it), each an independent MAP-Elites run over the behaviour descriptors asked for (a game's `army_descriptors`;
none: the plain strongest-army search, one cell). An island's genome plays `PER_EVALUATION` games against the
pool's field (a random legal army a game, sides swapped every second game); at its end every elite plays again
on fresh games. Islands are merged cell by cell on the search's own figures, and each kept army is shown with
the win rate of its fresh games, which never chose it. Every game has its own number (seed + number) and
replays alone; the cards are the study's frozen copies (its catalogue state).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from rest_framework import serializers

from cardsdb.api.fields import TextField
from simulate import services
from simulate.elites import Settings, island_data, merged_cells, run_island
from simulate.engine.errors import InputError
from simulate.engine.stats import wilson
from simulate.engine.tally import WIN, Tally, figures, interval
from simulate.pages import charts
from simulate.study_kinds.base import (
    Headline,
    Outcomes,
    Pairing,
    PlanRequest,
    Ranked,
    Study,
    StudyKind,
    UnitCancelled,
    merge_all,
    play_unit_match,
)
from simulate.study_kinds.field import Kind as Field
from simulate.study_kinds.text import pct, table

if TYPE_CHECKING:
    from argparse import _ArgumentGroup

    from django import forms

    from simulate.models import Batch
    from simulate.pages.games import GamePages
    from simulate.services import GameStudies

ISLAND_GAMES = 20_000  # games an island plays at most: a chunk of a few minutes of one core
MIN_ISLAND_GAMES = 200
SETTINGS = Settings(per_evaluation=20, initial=24, final_share=0.25, final_min=10)
DEFAULT_DESCRIPTORS = ("factions", "mean_spd")
DEGENERATE_ABOVE = 0.7
TOP = 10  # armies the report lists, strongest first


def islands_for(count: int) -> int:
    """Islands a search of `count` games plays: two at least, none above ISLAND_GAMES."""
    return max(2, math.ceil(count / ISLAND_GAMES))


class Kind(StudyKind):
    name = "search"
    label = "Army search"
    description = "The strongest legal armies of a pool in each niche (MAP-Elites), each measured on fresh games."
    template = "simulate/studies/search.html"
    keys = frozenset({"pool", "descriptors", "degenerate_above"})
    game_roles = ("pool",)
    has_overall = False  # side a is whichever army the search tried: its overall rate says little
    speaks_of_cards = True
    limit_factor = 5  # its games are its search: a few hundred thousand on workers
    form_legend = "Army search"

    def fields(self) -> dict[str, serializers.Field]:
        return {
            "descriptors": serializers.ListField(
                child=TextField(max_length=40), max_length=2, required=False, help_text=(
                    "search: the behaviour descriptors its archive is a grid of, 0 to 2, of the game's own (factions, "
                    "vanguard, mean_spd; default factions and mean_spd; none: the plain strongest-army search).")),
            "degenerate_above": serializers.FloatField(
                min_value=0.5, max_value=1.0, required=False, help_text=(
                    f"search: an army is flagged degenerate when the lower end of its win rate's interval against "
                    f"the field is above this (default {DEGENERATE_ABOVE:g}).")),
        }

    def validate(self, attrs: dict[str, Any]) -> None:
        descriptors = attrs.get("descriptors")
        if descriptors is not None and len(set(descriptors)) != len(descriptors):
            raise serializers.ValidationError({"descriptors": ["Each descriptor once."]})

    def stored(self, inputs: dict[str, Any], validated: Mapping[str, Any]) -> None:
        inputs.setdefault("descriptors", list(DEFAULT_DESCRIPTORS))
        inputs.setdefault("degenerate_above", DEGENERATE_ABOVE)

    # ------------------------------------------------------------------------------ plan

    def plan(self, request: PlanRequest) -> Study:
        """The pool's field, side a the army searched (sides swapped every second game), shared among islands."""
        descriptors = list(request.inputs.get("descriptors", DEFAULT_DESCRIPTORS))
        known = request.studies.army_descriptors
        unknown = [name for name in descriptors if name not in known]
        if unknown:
            message = (f"Unknown descriptor {unknown[0]!r}; known: {', '.join(known)}." if known else
                       "This game has no army search.")
            raise InputError(message, [("descriptors", message)])
        field = Field().pairings(request)[0]
        request.studies.army_space(field.pool, descriptors)  # refuses a game without army search
        islands = islands_for(request.per_pairing)
        if request.per_pairing // islands < MIN_ISLAND_GAMES:
            message = f"A search plays at least {MIN_ISLAND_GAMES * islands:,} games ({MIN_ISLAND_GAMES} an island)."
            raise InputError(message, [("count", message)])
        pairing = replace(field, label={"descriptors": descriptors}, swap=True)
        return Study(request.game, self.name, [pairing], request.per_pairing, paired=False, units_fixed=islands)

    def play_unit(self, study: Study, unit: int, seed: int, tally: Tally) -> None:
        self.play_long_unit(study, unit, seed, tally, lambda: False)

    def play_long_unit(self, study: Study, unit: int, seed: int, tally: Tally, stop_now: Callable[[], bool]) -> None:
        """Island `unit`: MAP-Elites over its share of the games, numbered from its first; `stop_now` is asked
        before every army's games (an island plays for minutes)."""
        pairing = study.pairings[0]
        space = services.game_studies(study.game).army_space(pairing.pool, pairing.label["descriptors"])
        leg = tally["pairings"][0]

        def evaluate(genome: Any, first: int, games: int) -> int:
            if stop_now():
                raise UnitCancelled
            fielding = replace(pairing, pool=space.fielding(pairing.pool, genome))
            # Its report shows no field groups: what the field's armies fielded is not counted.
            return sum(play_unit_match(study, fielding, number, seed, leg, count_field=False).outcome == WIN
                       for number in range(first, first + games))

        per = study.matches_per_unit
        island = run_island(space, evaluate, per, unit * per, random.Random(f"search:{seed}:{unit}"), SETTINGS)
        tally.setdefault("islands", {})[str(unit)] = island_data(island, space.encode)

    def replayed_pairing(self, batch: Batch, study: Study, pairing: int, match: int) -> Pairing:
        """Game `match` of a kept army's fresh games: the field with that army on side a."""
        planned = study.pairings[pairing]
        found = (batch.results.get("search") or {}).get("cells") or []
        for cell in found:
            if cell["final_first"] <= match < cell["final_first"] + cell["final_games"]:
                space = services.game_studies(batch.game).army_space(planned.pool, planned.label["descriptors"])
                return replace(planned, pool=space.fielding(planned.pool, space.decode(cell["genome"])))
        message = "This search kept no army that played this game: replay a game of a kept army's fresh games."
        raise InputError(message, [("match", message)])

    # ---------------------------------------------------------------------------- results

    def result_fields(self) -> dict[str, serializers.Field]:
        return {"search": SearchSerializer(required=False, help_text="search: the archive, cell by cell.")}

    def results(self, batch: Batch, total: Tally, studies: GameStudies) -> dict[str, Any]:
        """Every game's figures, and the archive of the islands played so far."""
        found = archive_of(batch, total)
        return {**figures(merge_all(total["pairings"])), **({"search": found} if found else {})}

    def finished(self, batch: Batch) -> None:
        """Each kept army's code and builder link, once (they read the catalogue)."""
        found = batch.results.get("search")
        if not found:
            return
        studies = services.game_studies(batch.game)
        space = space_of(batch)
        cells = [{**cell, **studies.searched_army(space, cell["genome"])} for cell in found["cells"]]
        batch.results = {**batch.results, "search": {**found, "cells": cells}}

    def headline(self, batch: Batch, results: Mapping[str, Any], side: str) -> Headline:
        found = results.get("search") or {}
        top = strongest(found)
        return Headline("The strongest army of each niche: its win rate against the field, on fresh games",
                        outcomes=(Outcomes.of("every game of the search", results, sided=False),),
                        ranked_title="Strongest", ranked_figure="win rate",
                        ranked=tuple(Ranked(cell_words(cell), cell["win_rate"], cell["win_rate_ci"]) for cell in top),
                        note=search_words(found))

    def card_words(self, batch: Batch, card: str) -> str | None:
        """The niches whose strongest army fields the card, and the strongest of them."""
        cells = (batch.results.get("search") or {}).get("cells") or []
        fielding = strongest({"cells": [cell for cell in cells if card in {c["card"] for c in cell["cards"]}]})
        if not fielding:
            return None
        best = fielding[0]
        return (f"In the strongest army of {len(fielding)} of {len(cells)} niches; the strongest: "
                f"{cell_words(best)}, {charts.pct(best['win_rate'])} against the field "
                f"(95% interval {charts.interval(best['win_rate_ci'])}, {best['final_games']} fresh games).")

    def about(self, batch: Batch) -> str:
        descriptors = batch.inputs.get("descriptors") or []
        return f"armies by {', '.join(descriptors)}" if descriptors else "the strongest army"

    def sides_swapped(self, batch: Batch) -> bool:
        return True

    def report(self, batch: Batch, results: Mapping[str, Any], sort: str) -> dict[str, Any]:
        found = results.get("search") or {}
        return {"search": {**found, "grid": heat_grid(found), "top": strongest(found), "words": search_words(found)}}

    def text(self, batch: Batch, results: Mapping[str, Any], labels: Mapping[str, Mapping[int, str]],
             seats: Mapping[str, str], studies: GameStudies) -> list[str]:
        found = results.get("search") or {}
        rows = [(cell_words(cell), pct(cell["win_rate"]), f"{pct(cell['win_rate_ci']['low'])} to "
                 f"{pct(cell['win_rate_ci']['high'])}", "degenerate" if cell["degenerate"] else "",
                 " ".join(card["card"] for card in cell["cards"])) for cell in strongest(found)]
        return ["", f"Strongest armies ({search_words(found)})",
                *table(("niche", "win rate", "95% interval", "flag", "cards"), rows)]

    # ---------------------------------------------------------------------------- the doors

    def add_arguments(self, group: _ArgumentGroup) -> None:
        group.add_argument("--descriptors", nargs="*", default=None, metavar="NAME",
                           help="search: the archive's behaviour descriptors (0 to 2, of the game's own: factions, "
                                "vanguard, mean_spd).")
        group.add_argument("--degenerate-above", type=float, default=None, metavar="RATE",
                           help=f"search: flag armies whose interval lies above this (default {DEGENERATE_ABOVE:g}).")

    def command_inputs(self, body: dict[str, Any], arguments: Mapping[str, Any]) -> None:
        if arguments.get("descriptors") is not None:
            body["descriptors"] = arguments["descriptors"]
        if arguments.get("degenerate_above") is not None:
            body["degenerate_above"] = arguments["degenerate_above"]

    def form_fields(self, pages: GamePages) -> dict[str, forms.Field]:
        from django import forms

        choices = list(services.game_studies(pages.game).army_descriptors.items())
        return {"descriptors": forms.MultipleChoiceField(
            required=False, choices=choices, widget=forms.CheckboxSelectMultiple,
            label="Niches (army search)", help_text="Up to two; none ticked: the plain strongest army.")} if choices else {}

    def form_inputs(self, data: Mapping[str, Any], body: dict[str, Any]) -> None:
        if data.get("kind") == self.name and "descriptors" in data:
            body["descriptors"] = list(data["descriptors"] or [])


# ------------------------------------------------------------------------------------- the archive


def space_of(batch: Batch) -> Any:
    """The army space of a stored search, from its frozen cards."""
    from simulate import pinning

    study = pinning.thaw(batch.frozen.data, batch.per_pairing) if batch.frozen is not None else None
    if study is None:
        raise InputError("This search kept no frozen plan.", [("study", "not replayable")])
    pairing = study.pairings[0]
    return services.game_studies(batch.game).army_space(pairing.pool, pairing.label["descriptors"])


def archive_of(batch: Batch, total: Tally) -> dict[str, Any]:
    """The islands merged: each cell's army, its search figures and its fresh games' win rate and flag."""
    islands = [island for _, island in sorted((total.get("islands") or {}).items(), key=lambda item: int(item[0]))]
    if not islands:
        return {}
    space = space_of(batch)
    threshold = float(batch.inputs.get("degenerate_above", DEGENERATE_ABOVE))
    cells = []
    for cell, elite in sorted(merged_cells(islands).items()):
        low, high = wilson(elite["final_wins"], elite["final_games"])
        cards = space.describe(space.decode(elite["genome"]))
        cells.append({
            "cell": list(cell), "labels": [space.label(axis, value) for axis, value in enumerate(cell)],
            "genome": elite["genome"], "cards": cards, "island": elite["island"],
            "search_win_rate": round(elite["wins"] / elite["games"], 6), "search_games": elite["games"],
            "win_rate": round(elite["final_wins"] / elite["final_games"], 6) if elite["final_games"] else None,
            "win_rate_ci": interval((low, high)), "final_games": elite["final_games"],
            "final_first": elite["final_first"], "degenerate": bool(elite["final_games"]) and low > threshold})
    return {
        "descriptors": list(batch.inputs.get("descriptors") or []), "titles": space.titles(),
        "islands": len(islands), "evaluations": sum(island["evaluations"] for island in islands),
        "games_per_evaluation": SETTINGS.per_evaluation, "replaced": sum(island["replaced"] for island in islands),
        "degenerate_above": threshold, "cells": cells,
    }


def strongest(found: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The kept armies measured on fresh games, strongest first (by the lower end of their interval)."""
    cells = [cell for cell in found.get("cells") or [] if cell["win_rate"] is not None]
    return sorted(cells, key=lambda cell: (-cell["win_rate_ci"]["low"], cell["cell"]))[:TOP]


def cell_words(cell: Mapping[str, Any]) -> str:
    return ", ".join(cell["labels"]) or "every army"


def search_words(found: Mapping[str, Any]) -> str:
    if not found:
        return "no island finished yet"
    degenerate = sum(1 for cell in found["cells"] if cell["degenerate"])
    return (f"{len(found['cells'])} niche(s) filled by {found['islands']} island(s), {found['evaluations']:,} armies "
            f"tried ({found['games_per_evaluation']} games each), {degenerate} degenerate "
            f"(interval above {found['degenerate_above'] * 100:g}%)")


def heat_grid(found: Mapping[str, Any]) -> dict[str, Any]:
    """The archive as a grid: the first descriptor's values down, the second's across (one row, one cell when
    fewer), each cell its army's fresh win rate."""
    cells = {tuple(cell["cell"]): cell for cell in found.get("cells") or []}
    if not cells:
        return {"rows": [], "cols": []}
    dims = len(next(iter(cells)))
    downs = sorted({key[0] for key in cells}) if dims else [None]
    acrosses = sorted({key[1] for key in cells}) if dims == 2 else [None]

    def key(down: Any, across: Any) -> tuple[int, ...]:
        return tuple(value for value in (down, across) if value is not None)

    def label(values: list[Any], axis: int) -> list[str]:
        return [next(cell["labels"][axis] for k, cell in cells.items() if k[axis] == value) if value is not None
                else "" for value in values]

    cols = label(acrosses, 1) if dims == 2 else [""]
    rows = []
    for down, name in zip(downs, label(downs, 0) if dims else ["every army"], strict=True):
        row = []
        for across in acrosses:
            cell = cells.get(key(down, across))
            row.append(None if cell is None else {
                "anchor": "niche-" + "-".join(map(str, cell["cell"])), "rate": charts.pct(cell["win_rate"], 0),
                "ci": charts.interval(cell["win_rate_ci"]), "colour": charts.heat_colour(cell["win_rate"]),
                "words": cell_words(cell), "degenerate": cell["degenerate"]})
        rows.append({"name": name, "cells": row})
    return {"rows": rows, "cols": cols, "titles": found.get("titles") or []}


class SearchCardSerializer(serializers.Serializer):
    card = serializers.CharField()
    name = serializers.CharField()
    line = serializers.CharField()
    rarity = serializers.CharField()
    faction = serializers.CharField()
    atk = serializers.IntegerField()
    def_ = serializers.IntegerField()
    hp = serializers.IntegerField()
    spd = serializers.IntegerField()

    def get_fields(self) -> dict[str, serializers.Field]:
        fields = super().get_fields()
        fields["def"] = fields.pop("def_")
        return fields


class SearchCellSerializer(serializers.Serializer):
    cell = serializers.ListField(child=serializers.IntegerField(), help_text="Its descriptors' values.")
    labels = serializers.ListField(child=serializers.CharField(), help_text="The same in words.")
    genome = serializers.ListField(child=serializers.ListField(child=serializers.CharField()), help_text=(
        "Its army, slot by slot: [card, line]."))
    cards = SearchCardSerializer(many=True, help_text="Its cards as the study played them (its frozen copies).")
    island = serializers.IntegerField(min_value=0, help_text="The island that found it.")
    search_win_rate = serializers.FloatField(help_text=(
        "Its win rate while searched: it was kept for being the best of its cell, so this is biased upward."))
    search_games = serializers.IntegerField(min_value=1)
    win_rate = serializers.FloatField(allow_null=True, help_text=(
        "Its win rate against the field on fresh games, which never chose it (null: the island ran out of games)."))
    win_rate_ci = serializers.DictField(child=serializers.FloatField(), help_text="95% Wilson interval of win_rate.")
    final_games = serializers.IntegerField(min_value=0, help_text="Its fresh games.")
    final_first = serializers.IntegerField(min_value=0, help_text=(
        "The number of its first fresh game: games final_first to final_first + final_games - 1 replay alone."))
    degenerate = serializers.BooleanField(help_text="The lower end of its interval is above degenerate_above.")
    code = serializers.CharField(required=False, allow_null=True, help_text="Its army code, once the study is done.")
    builder_url = serializers.CharField(required=False, allow_null=True, help_text="The army builder opening it.")


class SearchSerializer(serializers.Serializer):
    descriptors = serializers.ListField(child=serializers.CharField())
    titles = serializers.ListField(child=serializers.CharField(), help_text="The descriptors' titles.")
    islands = serializers.IntegerField(min_value=0, help_text="Islands finished (independent MAP-Elites runs).")
    evaluations = serializers.IntegerField(min_value=0, help_text="Armies tried, over every island.")
    games_per_evaluation = serializers.IntegerField(min_value=1)
    replaced = serializers.IntegerField(min_value=0, help_text="Elites pushed out by a fitter army of their cell.")
    degenerate_above = serializers.FloatField()
    cells = SearchCellSerializer(many=True)
