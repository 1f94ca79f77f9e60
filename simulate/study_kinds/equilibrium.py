"""Equilibrium: a matrix of entrants played, and the meta it implies (simulate.equilibrium): the Nash
equilibrium of its zero-sum game, an α-Rank ranking, the support, entropy and top-3 share, the cycles, and how
stable the support is when the matrix is resampled within what its matches measured."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rest_framework import serializers

from simulate.engine.errors import InputError
from simulate.equilibrium import meta, resampled_support
from simulate.study_kinds.base import Headline, Outcomes, Ranked
from simulate.study_kinds.matrix import MAX_ENTRANTS
from simulate.study_kinds.matrix import Kind as Matrix
from simulate.study_kinds.search import Kind as Search
from simulate.study_kinds.search import cell_words, strongest
from simulate.study_kinds.text import pct, table

if TYPE_CHECKING:
    from argparse import _ArgumentGroup

    from simulate.models import Batch
    from simulate.services import GameStudies

RESAMPLES = 200  # draws of the matrix within its measured outcomes


class Kind(Matrix):
    name = "equilibrium"
    label = "Equilibrium"
    description = "A matrix of entrants (or a search's strongest armies), and the meta it implies: its equilibrium, α-Rank, cycles and stability."
    template = "simulate/studies/equilibrium.html"
    keys = frozenset({"entrants", "factions", "study"})
    speaks_of_cards = True

    def fields(self) -> dict[str, serializers.Field]:
        """None of its own: `factions` is the matrix's, `study` the suggestion's."""
        return {}

    def add_arguments(self, group: _ArgumentGroup) -> None:
        """None of its own: --factions is the matrix's, --from-study the suggestion's."""

    def command_inputs(self, body: dict[str, Any], arguments: Mapping[str, Any]) -> None:
        """--factions, or --from-study a matrix study."""
        super().command_inputs(body, arguments)
        if arguments.get("from_study"):
            body["study"] = arguments["from_study"]

    def validate(self, attrs: dict[str, Any]) -> None:
        """Entrants, factions or a matrix study's entrants: one of them."""
        given = [key for key in ("entrants", "factions", "study") if attrs.get(key)]
        if len(given) != 1:
            raise serializers.ValidationError("An equilibrium gives `entrants`, `factions: true` or the `study` of a "
                                              "matrix whose entrants it plays: one of them.")
        if "entrants" in attrs and len(attrs["entrants"]) < 2:
            raise serializers.ValidationError({"entrants": ["Give at least 2 entrants."]})

    def prepared_inputs(self, inputs: dict[str, Any], studies: GameStudies) -> list[str]:
        """A matrix study's entrants taken (and its names), else as a matrix prepares them."""
        if inputs.get("study"):
            source = source_study(inputs, studies.game)
            if source.kind == Search.name:
                kept = [cell for cell in strongest(source.results.get("search") or {}) if cell.get("entrant")]
                inputs["entrants"] = [cell["entrant"] for cell in kept[:MAX_ENTRANTS]]
                return [cell_words(cell) for cell in kept[:MAX_ENTRANTS]]
            inputs["entrants"] = source.inputs["entrants"]
            names = list(source.plan.get("names") or [])
            return names or [studies.entrant_name(entrant, i) for i, entrant in enumerate(inputs["entrants"])]
        return super().prepared_inputs(inputs, studies)

    def result_fields(self) -> dict[str, serializers.Field]:
        return {**super().result_fields(),
                "equilibrium": EquilibriumSerializer(required=False, help_text="equilibrium: the meta the matrix implies.")}

    def finished(self, batch: Batch) -> None:
        """The meta of the whole matrix, once (its resampling solves 200 programs: not at every chunk)."""
        batch.results = {**batch.results, "equilibrium": equilibrium_of(batch.results["matrix"], batch.seed)}

    def headline(self, batch: Batch, results: Mapping[str, Any], side: str) -> Headline:
        """The equilibrium's weights, heaviest first."""
        found = results.get("equilibrium") or {}
        rows = sorted(found.get("entrants") or [], key=lambda row: -row["weight"])
        return Headline("The equilibrium: each entrant's weight in the mix no entrant beats on average",
                        outcomes=(Outcomes.of("every match", results, sided=False),), ranked_title="Equilibrium",
                        ranked_figure="weight", ranked=tuple(Ranked(row["name"], row["weight"]) for row in rows),
                        note=health_words(found))

    def card_words(self, batch: Batch, card: str) -> str | None:
        """The entrants (armies given slot by slot) fielding the card, and their weight in the equilibrium."""
        entrants = batch.inputs.get("entrants") or []
        rows = (batch.results.get("equilibrium") or {}).get("entrants") or []
        fielding = [i for i, entrant in enumerate(entrants) if card in slot_cards(entrant)]
        if not fielding or len(rows) != len(entrants):
            return None
        weight = sum(rows[i]["weight"] for i in fielding)
        return (f"Fielded by {len(fielding)} of {len(entrants)} entrants, {pct(weight)} of the equilibrium's weight "
                f"({', '.join(rows[i]['name'] for i in fielding[:3])}{'…' if len(fielding) > 3 else ''}).")

    def about(self, batch: Batch) -> str:
        return f"the meta of {super().about(batch)}" if not batch.inputs.get("study") else "the meta of a matrix study"

    def report(self, batch: Batch, results: Mapping[str, Any], sort: str) -> dict[str, Any]:
        found = results.get("equilibrium") or {}
        return {**super().report(batch, results, sort),
                "equilibrium": {**found, "entrants": [{**row, "percent": round(row["weight"] * 100, 1),
                                                       "rank_percent": round(row["alpha_rank"] * 100, 1)}
                                                      for row in found.get("entrants") or []],
                                "health": health_words(found)}}

    def text(self, batch: Batch, results: Mapping[str, Any], labels: Mapping[str, Mapping[int, str]],
             seats: Mapping[str, str], studies: GameStudies) -> list[str]:
        found = results.get("equilibrium") or {}
        rows = [(row["name"], pct(row["weight"]), f"{pct(row['weight_low'])} to {pct(row['weight_high'])}",
                 pct(row["in_support"]), pct(row["alpha_rank"])) for row in found.get("entrants") or []]
        return [*super().text(batch, results, labels, seats, studies), "", "Equilibrium (" + health_words(found) + ")",
                *table(("entrant", "weight", "resampled 95%", "in support", "α-Rank"), rows),
                *(f"  cycle: {' → '.join(cycle)} → {cycle[0]}" for cycle in found.get("cycles") or [])]


def source_study(inputs: Mapping[str, Any], game: str) -> Batch:
    """The finished matrix study whose entrants an equilibrium plays, or the finished army search whose strongest
    armies it plays (MAX_ENTRANTS at most); InputError at `study`."""
    from simulate.models import Batch

    source = Batch.objects.filter(pk=inputs["study"], game=game, kind__in=(Matrix.name, Search.name),
                                  status=Batch.Status.DONE).first()
    if source is not None and source.kind == Search.name:
        kept = [cell for cell in (source.results.get("search") or {}).get("cells", []) if cell.get("entrant")]
        if len(kept) >= 2:
            return source
        raise InputError("This army search kept fewer than 2 armies to play.", [("study", "too few armies")])
    if source is None or not isinstance(source.inputs.get("entrants"), list):
        raise InputError("No finished matrix study or army search of this game has this id.",
                         [("study", "not found")])
    return source


def equilibrium_of(matrix: Mapping[str, Any], seed: int) -> dict[str, Any]:
    """The meta of a matrix's cells, each entrant named, the resampling seeded from the study's seed."""
    names, cells = matrix["rows"], matrix["cells"]
    outcomes = [[None if cell is None else (cell["wins"], cell["draws"], cell["losses"]) for cell in row]
                          for row in cells]
    lower = [[None if cell is None else cell["win_rate_ci"]["low"] for cell in row] for row in cells]
    found = meta(outcomes, lower)
    shares, bounds = resampled_support(outcomes, RESAMPLES, seed % 2**32)
    return {
        "entrants": [{"entrant": i, "name": name, "weight": found.weights[i], "alpha_rank": found.alpha_rank[i],
                      "in_support": shares[i], "weight_low": bounds[i][0], "weight_high": bounds[i][1]}
                     for i, name in enumerate(names)],
        "support": [names[i] for i in found.support], "entropy_bits": found.entropy_bits,
        "top3_share": found.top3_share, "cycles": [[names[i] for i in cycle] for cycle in found.cycles],
        "resamples": RESAMPLES,
    }


def slot_cards(entrant: Any) -> set[str]:
    """The cards of an entrant given slot by slot (as an army search's armies are); none for one given otherwise
    (a code, a saved army: the card page reads no catalogue for them)."""
    slots = entrant.get("slots") if isinstance(entrant, Mapping) else None
    return {str(slot.get("card")) for slot in slots if isinstance(slot, Mapping)} if isinstance(slots, list) else set()


def health_words(found: Mapping[str, Any]) -> str:
    """The meta's health in words."""
    if not found:
        return ""
    cycles = len(found.get("cycles") or [])
    return (f"support {len(found['support'])} of {len(found['entrants'])}, entropy {found['entropy_bits']:.2f} bits, "
            f"top-3 share {found['top3_share'] * 100:.0f}%, {cycles} cycle{'s' if cycles != 1 else ''}")


class EquilibriumEntrantSerializer(serializers.Serializer):
    entrant = serializers.IntegerField(min_value=0)
    name = serializers.CharField()
    weight = serializers.FloatField(help_text="Its weight in the equilibrium found.")
    alpha_rank = serializers.FloatField(help_text="Its α-Rank mass (α 10, population 50).")
    in_support = serializers.FloatField(help_text="The share of resampled matrices whose equilibrium holds it.")
    weight_low = serializers.FloatField(help_text="Its weight's 2.5th percentile over the resampled matrices.")
    weight_high = serializers.FloatField(help_text="Its weight's 97.5th percentile.")


class EquilibriumSerializer(serializers.Serializer):
    entrants = EquilibriumEntrantSerializer(many=True)
    support = serializers.ListField(child=serializers.CharField(), help_text="The entrants with weight.")
    entropy_bits = serializers.FloatField(help_text="The equilibrium's entropy: how many entrants it mixes, as bits.")
    top3_share = serializers.FloatField(help_text="The weight of its three heaviest entrants.")
    cycles = serializers.ListField(child=serializers.ListField(child=serializers.CharField()), help_text=(
        "Loops of entrants each beating the next beyond noise (its win rate's interval above 50%), the last the "
        "first; shortest first, at most 50."))
    resamples = serializers.IntegerField(help_text="Matrices drawn within the measured outcomes for the stability.")

