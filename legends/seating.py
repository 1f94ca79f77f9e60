"""Akin Legends with people at some seats (simulate.seating): each legal action in words, and which moves may be
taken back without showing the person something it could use."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from legends.engine.start import setup_players
from legends.engine.vocabulary import TEAM_COUNT

# What a move may lead to and still be taken back: the person's own turn and the decisions it was offered. A
# redraw deals new cards and a showdown reveals the face-down ones: once seen, a move is kept.
TAKEN_BACK_EVENTS = frozenset({"decision", "turn", "facedown", "heal", "allocation"})


class LegendsSeating:
    game = "legends"
    takes_table_changes = False  # part of every hand is hidden: a table tracker keeps its counts instead

    def players(self, setup: Any) -> list[str]:
        return list(setup_players(setup))

    def label(self, observation: Any, action: Sequence[Any]) -> str:
        """An action as the person reads it."""
        catalogue = observation.catalogue
        kind = action[0]
        if kind == "attack":
            return f"Attack with {card_name(catalogue, action[1])} ({action[2]})"
        if kind == "effect":
            design = catalogue.design_by_slug.get(action[1])
            return f"{card_name(catalogue, action[1])}: its effect ({design.kind if design is not None else ''})"
        if kind == "redraw":
            discarded = ", ".join(card_name(catalogue, slug) for slug in action[1]) or "nothing"
            return f"Redraw: discard {discarded}, draw {action[2]}"
        if kind == "heal":
            return f"Heal the {action[2]} marker on {defense_name(catalogue, action[1])}"
        if kind == "allocate":
            placed = ", ".join(f"{element} on {defense_name(catalogue, slug)}" for slug, element in action[1])
            return f"Place the markers: {placed or 'none'}"
        return " ".join(str(part) for part in action)

    def detail(self, observation: Any, action: Sequence[Any]) -> str:
        """A card played for its effect: what the effect does."""
        design = observation.catalogue.design_by_slug.get(action[1]) if action[0] == "effect" else None
        return f"Effect: {design.kind} ({design.element})" if design is not None else ""

    def rematch_player(self, player: str) -> str:
        """The same place in the other team (player ids are "t<team>p<place>")."""
        team, place = player.removeprefix("t").split("p")
        return f"t{TEAM_COUNT - 1 - int(team)}p{place}"

    def agents_of(self, seats: Mapping[str, str]) -> Any:
        return list(seats.values())

    def undoable(self, events: Sequence[Mapping[str, Any]], player: str) -> bool:
        """Whether the events a move led to (as its player sees them) show nothing new: only its own turn."""
        return all(event["type"] in TAKEN_BACK_EVENTS and event.get("player") in (None, player)
                   for event in events)


def card_name(catalogue: Any, slug: str) -> str:
    design = catalogue.design_by_slug.get(slug)
    return design.name if design is not None else slug


def defense_name(catalogue: Any, slug: str) -> str:
    defense = catalogue.defenses.get(slug)
    return defense.name if defense is not None else slug


SEATING = LegendsSeating()
