"""Matrix: every entrant against every other, sides swapped; a win-rate grid and standings."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from simulate.api.fields import TrueFalseField
from simulate.api.figures import DISTINCT_GAMES_SCHEMA, INTERVAL_SCHEMA
from simulate.engine.tally import GAMES, Tally, figures, new_tally
from simulate.pages import charts
from simulate.study_kinds.base import Headline, Outcomes, Pairing, PlanRequest, Ranked, StudyKind, merge_all
from simulate.study_kinds.text import ONE_GAME_MARK, ONE_GAME_NOTE, pct, table

if TYPE_CHECKING:
    from argparse import _ArgumentGroup

    from simulate.models import Batch
    from simulate.services import GameStudies

MAX_ENTRANTS = 8  # a matrix of 8 plays 28 pairings
CELL_KEYS = ("played", "wins", "draws", "losses", "win_rate", "win_rate_ci", "distinct_games", "one_game")
FACTIONS = "factions"  # the stored entrants of a matrix of factions until they are chosen


@extend_schema_field({
    "type": "array", "description": "cells[i][j]: entrant i against entrant j, from i's side; null on the diagonal.",
    "items": {"type": "array", "items": {
        "type": "object", "nullable": True, "additionalProperties": False,
        "required": ["played", "wins", "draws", "losses", "win_rate", "win_rate_ci"],
        "properties": {"played": {"type": "integer", "minimum": 0}, "wins": {"type": "integer", "minimum": 0},
                       "draws": {"type": "integer", "minimum": 0}, "losses": {"type": "integer", "minimum": 0},
                       "win_rate": {"type": "number", "nullable": True}, "win_rate_ci": INTERVAL_SCHEMA,
                       "distinct_games": DISTINCT_GAMES_SCHEMA, "one_game": {"type": "boolean"}},
    }},
})
class MatrixCellsField(serializers.JSONField):
    """The matrix's cells, null on the diagonal (a list's child serializer cannot say null in the schema)."""


class MatrixSerializer(serializers.Serializer):
    rows = serializers.ListField(child=serializers.CharField())
    cols = serializers.ListField(child=serializers.CharField())
    cells = MatrixCellsField()


class StandingSerializer(serializers.Serializer):
    entrant = serializers.IntegerField(min_value=0)
    name = serializers.CharField()
    mean_win_rate = serializers.FloatField(allow_null=True, help_text="Its mean win rate against every other entrant.")


class Kind(StudyKind):
    name = "matrix"
    label = "Matrix"
    description = "Every entrant against every other, sides swapped."
    template = "simulate/studies/matrix.html"
    keys = frozenset({"entrants", "factions"})
    form_reads = ("agent_a", "agent_b")
    game_roles = ("entrants",)
    has_overall = False  # its first side is each row in turn: no one side's win rate
    details_note = " (of every match, from the row's side)"

    def fields(self) -> dict[str, serializers.Field]:
        """`factions`: every faction's strongest army as the entrants."""
        return {"factions": TrueFalseField(required=False,
                                           help_text="matrix: every faction's strongest legal army as the entrants.")}

    def validate(self, attrs: dict[str, Any]) -> None:
        """Entrants (two at least) or factions, not both."""
        if ("entrants" in attrs) == bool(attrs.get("factions")):
            raise serializers.ValidationError(f"A matrix gives `entrants` (2 to {MAX_ENTRANTS}) or `factions: true`.")
        if "entrants" in attrs and len(attrs["entrants"]) < 2:
            raise serializers.ValidationError({"entrants": ["Give at least 2 entrants."]})

    def add_arguments(self, group: _ArgumentGroup) -> None:
        """--factions."""
        group.add_argument("--factions", action="store_true", help="matrix: every faction's strongest army.")

    def command_inputs(self, body: dict[str, Any], arguments: Mapping[str, Any]) -> None:
        """--factions as `factions: true`."""
        if arguments["factions"]:
            body["factions"] = True

    def stored(self, inputs: dict[str, Any], validated: Mapping[str, Any]) -> None:
        """A matrix of factions keeps `entrants: "factions"` until they are chosen."""
        if validated.get("factions"):
            inputs.pop("factions", None)
            inputs["entrants"] = FACTIONS

    def prepared_inputs(self, inputs: dict[str, Any], studies: GameStudies) -> list[str]:
        """The factions' strongest entrants chosen; every entrant's name."""
        if inputs.get("entrants") == FACTIONS:
            inputs["entrants"], names = studies.strongest_entrants(inputs)
            return names
        return [studies.entrant_name(entrant, i) for i, entrant in enumerate(inputs.get("entrants") or [])]

    def pairings(self, request: PlanRequest) -> list[Pairing]:
        """Each entrant (first side) against each later one, sides swapped in odd matches."""
        entrants = request.inputs["entrants"]
        if entrants == FACTIONS:
            entrants, _ = request.studies.strongest_entrants(request.inputs)
        return [Pairing({"row": i, "col": j},
                        request.prepare_pair(entrants[i], entrants[j], (f"entrants.{i}", f"entrants.{j}")), True)
                for i in range(len(entrants)) for j in range(i + 1, len(entrants))]

    def result_fields(self) -> dict[str, serializers.Field]:
        """`matrix` and `standings`."""
        return {"matrix": MatrixSerializer(required=False),
                "standings": StandingSerializer(many=True, required=False, help_text="matrix: entrants by mean win rate.")}

    def results(self, batch: Batch, total: Tally, studies: GameStudies) -> dict[str, Any]:
        """The overall figures, the win-rate grid (row against column, from the row's side) and each entrant's
        mean against the others."""
        size = len(batch.inputs["entrants"])
        names = batch.plan.get("names") or [f"entrant {i}" for i in range(size)]
        cells = grid(total["pairings"], size)
        return {**figures(merge_all(total["pairings"])),
                "matrix": {"rows": names, "cols": names, "cells": cells}, "standings": standings(cells, names)}

    def headline(self, batch: Batch, results: Mapping[str, Any], side: str) -> Headline:
        """The standings, and the draws of every match."""
        return Headline("Standings: each entrant's mean win rate against the others",
                        outcomes=(Outcomes.of("every match", results, sided=False),), ranked_title="Standings",
                        ranked_figure="mean win rate",
                        ranked=tuple(Ranked(row["name"], row["mean_win_rate"]) for row in results.get("standings", [])))

    def about(self, batch: Batch) -> str:
        """Every faction, or how many entrants."""
        entrants = batch.inputs.get("entrants")
        if entrants == FACTIONS or batch.inputs.get("factions"):
            return "every faction's strongest army"
        return f"{len(entrants or [])} entrants"

    def sides_swapped(self, batch: Batch) -> bool:
        """Always: every cell is played from both sides."""
        return True

    def report(self, batch: Batch, results: Mapping[str, Any], sort: str) -> dict[str, Any]:
        """The grid as a heat map (the standings lead the report)."""
        matrix = results.get("matrix") or {}
        names, cells = matrix.get("rows", []), matrix.get("cells", [])
        rows = [{"name": name, "cells": [heat_cell(cell, names[j]) for j, cell in enumerate(cells[i] if i < len(cells)
                                                                                            else [])]}
                for i, name in enumerate(names)]
        one_game_cells = any(cell.get("one_game") for row in rows for cell in row["cells"])
        return {"matrix": {"cols": names, "rows": rows, "one_game_cells": one_game_cells}}

    def text(self, batch: Batch, results: Mapping[str, Any], labels: Mapping[str, Mapping[int, str]],
             seats: Mapping[str, str], studies: GameStudies) -> list[str]:
        """The grid of win rates (the standings lead the report)."""
        given = labels.get("entrants", {})
        grid_ = results["matrix"]
        names = [given.get(i, name) for i, name in enumerate(grid_["rows"])]
        rows = [(f"{i + 1} {name}", *("—" if cell is None else pct(cell["win_rate"]) + one_game_mark(cell)
                                      for cell in grid_["cells"][i]))
                for i, name in enumerate(names)]
        marked = any(cell is not None and cell.get("one_game") for row in grid_["cells"] for cell in row)
        return ["", "Win rate of the row against the column (sides swapped every second match)",
                *table(("", *(str(j + 1) for j in range(len(names)))), rows),
                *([ONE_GAME_NOTE] if marked else [])]


def grid(legs: Sequence[Tally], size: int) -> list[list[dict[str, Any] | None]]:
    """cells[i][j]: entrant i against entrant j from i's side (its pairing's figures, or their mirror)."""
    cells: list[list[dict[str, Any] | None]] = [[None] * size for _ in range(size)]
    pairs = [(i, j) for i in range(size) for j in range(i + 1, size)]
    for (i, j), leg in zip(pairs, legs, strict=True):
        mirrored = new_tally()
        mirrored.update(wins=leg["losses"], losses=leg["wins"], draws=leg["draws"], matches=leg["matches"])
        if GAMES in leg:
            mirrored[GAMES] = leg[GAMES]
        else:
            del mirrored[GAMES]
        cells[i][j], cells[j][i] = compact(figures(leg)), compact(figures(mirrored))
    return cells


def one_game_mark(cell: Mapping[str, Any]) -> str:
    """The mark of a cell whose matches were effectively one game."""
    return ONE_GAME_MARK if cell.get("one_game") else ""


def compact(cell: Mapping[str, Any]) -> dict[str, Any]:
    """The figures a cell keeps."""
    return {key: cell[key] for key in CELL_KEYS}


def standings(cells: Sequence[Sequence[dict[str, Any] | None]], names: Sequence[str]) -> list[dict[str, Any]]:
    """Entrants by their mean win rate against every other, highest first."""
    rows: list[dict[str, Any]] = []
    for i, row in enumerate(cells):
        rates = [cell["win_rate"] for cell in row if cell is not None and cell["win_rate"] is not None]
        rows.append({"entrant": i, "name": names[i] if i < len(names) else f"entrant {i}",
                     "mean_win_rate": round(sum(rates) / len(rates), 6) if rates else None})
    rows.sort(key=lambda row: -(row["mean_win_rate"] or 0))
    return rows


def heat_cell(cell: Mapping[str, Any] | None, against: str) -> dict[str, Any]:
    """A cell of the heat map: its rate and colour, or the diagonal."""
    if cell is None:
        return {"self": True, "against": against}
    return {"against": against, "rate": charts.pct(cell["win_rate"], 0), "exact": charts.pct(cell["win_rate"]),
            "ci": charts.interval(cell["win_rate_ci"]), "colour": charts.heat_colour(cell["win_rate"]),
            "wins": cell["wins"], "draws": cell["draws"], "losses": cell["losses"],
            "one_game": cell.get("one_game", False)}
