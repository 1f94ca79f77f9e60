"""Echo Realms with people at some seats (simulate.seating): each legal action in words, as a person chooses it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

LINE_WORDS = {"vanguard": "the Vanguard", "rearguard": "the Rearguard"}


class RealmsSeating:
    game = "realms"
    takes_table_changes = True  # its players may correct HP and effects at the table (realms.engine.table)

    def players(self, setup: Any) -> list[str]:
        return ["a", "b"]

    def label(self, observation: Any, action: Sequence[Any]) -> str:
        """An action as the person reads it: who does what to whom."""
        kind = action[0]
        if kind == "deploy":
            card = next((c for c in observation.own_collection if c.slug == action[1]), None)
            return f"Deploy {card.name if card is not None else action[1]} in {LINE_WORDS.get(action[2], action[2])}"
        actor = observation.actor
        who = actor.name if actor is not None else "The unit"
        if kind == "stay":
            return f"{who} stays in {LINE_WORDS.get(actor.line, actor.line) if actor is not None else 'its line'}"
        if kind == "switch":
            return f"{who} moves to {LINE_WORDS.get(action[1], action[1])}"
        target = observation.unit(action[1]) if len(action) > 1 and action[1] is not None else None
        on = f" on {target.name} ({target.hp} HP)" if target is not None else ""
        if kind == "attack":
            return f"{who}: Basic Attack{on}"
        main = actor.main if actor is not None else None
        return f"{who}: {main.name if main is not None else 'Main Ability'}{on}"

    def detail(self, observation: Any, action: Sequence[Any]) -> str:
        """An ability's text, for an ability used."""
        actor = observation.actor
        main = actor.main if actor is not None and action[0] == "ability" else None
        return main.text if main is not None else ""

    def rematch_player(self, player: str) -> str:
        return "b" if player == "a" else "a"

    def agents_of(self, seats: Mapping[str, str]) -> Any:
        return dict(seats)

    def undoable(self, events: Sequence[Mapping[str, Any]], player: str) -> bool:
        """Always: nothing is hidden once a card is deployed, and a move is only taken back before another seat
        decides, so taking one back shows the person nothing it could use."""
        return True


SEATING = RealmsSeating()
