"""The Akin Legends event schema: every event type and its fields (docs/legends-engine.md).

Team fields are team indexes (0 or 1), player fields player ids ("t0p0"...), `seq` the
position of a turn in its round (0-based), `round` the round number (1-based). A face-down
card appears in its `turn` event without card, element or kind; the showdown's `reveal`
event shows it.
"""

from __future__ import annotations

SCHEMA_VERSION = 1

EVENT_FIELDS: dict[str, tuple[str, ...]] = {
    "match_start": ("schema", "seed", "mode", "options", "teams", "drawn", "deck"),
    "deal": ("hands", "draw_pile"),
    "round_start": ("round", "order", "counters"),
    "turn": ("round", "seq", "pass", "player", "team", "counter", "face", "orientation", "card", "element", "kind"),
    "redraw": ("round", "seq", "pass", "player", "team", "counter", "discarded", "size", "drawn", "hand"),
    "draw": ("round", "player", "reason", "count", "drawn", "hand", "draw_pile"),
    "refill": ("round", "cards", "draw_pile"),
    "spy": ("round", "team", "protector", "player", "seq", "card", "orientation", "element"),
    "showdown_start": ("round",),
    "reveal": ("round", "seq", "player", "team", "orientation", "card", "element", "kind"),
    "heal": ("round", "team", "via", "source", "player", "seq", "element", "defense", "removed"),
    "boost": ("round", "team", "via", "source", "player", "seq", "element", "amount", "attacks"),
    "strength": ("round", "team", "attack_cards", "points"),
    "cancel": ("round", "team", "via", "source", "player", "seq", "element", "cancelled", "left"),
    "allocation": (
        "round", "team", "player", "points", "attack_cards", "extra", "cap", "placements", "placed", "chosen_by",
    ),
    "destroyed": ("round", "team", "defense", "elements", "by"),
    "showdown_end": ("round", "defenses"),
    "round_end": ("round", "discarded", "discard_pile"),
    "counters": ("round", "before", "after"),
    "match_end": ("winner", "reason", "rounds"),
}

# Fields of each team in match_start.teams.
TEAM_FIELDS = ("team", "spirit", "protector", "defenses", "players")
