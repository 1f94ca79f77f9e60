"""The Akin Legends event schema: every event type and its fields (docs/legends-engine.md).

Team fields are team indexes (0 or 1), player fields player ids ("t0p0"...), `seq` the
position of a turn in its round (0-based), `round` the round number (1-based; 0 before the
first round). Every event carries `visible_to`: the seats that could see everything in it
when it happened (all of them for public events; the owner alone for a hand; nobody for the
order of a shuffled pile, nor for the seeds of the run). Hidden cards are in the log, which is
read after the match: a face-down card's public `turn` event has no card, its `facedown` event
(visible to its player) has it, and the showdown's `reveal` shows it to everyone.

Schema 3 moved the match seed and the agents' seeds out of the public `match_start` into `seeds`
(visible to no seat, G2) and gave `redraw` its shortfall and the piles it was counted on (L8).
"""

from __future__ import annotations

from typing import Final

SCHEMA_VERSION: Final = 3

EVENT_FIELDS: Final[dict[str, tuple[str, ...]]] = {
    "match_start": (
        "schema", "mode", "options", "elements", "deck", "deck_size", "teams", "drawn", "agent_names", "visible_to",
    ),
    "seeds": ("seed", "agent_seeds", "visible_to"),
    "shuffle": ("round", "reason", "order", "visible_to"),
    "deal": ("player", "cards", "hand", "draw_pile", "visible_to"),
    "round_start": ("round", "order", "counters", "visible_to"),
    "decision": ("round", "stage", "player", "offered", "action", "visible_to"),
    "turn": (
        "round", "seq", "pass", "player", "team", "counter", "face", "orientation", "card", "element", "kind",
        "visible_to",
    ),
    "facedown": ("round", "seq", "player", "card", "element", "kind", "visible_to"),
    "redraw": (
        "round", "seq", "pass", "player", "team", "counter", "discarded", "size", "drawn", "short", "draw_pile",
        "discard_pile", "hand", "visible_to",
    ),
    "draw": ("round", "player", "reason", "source", "count", "cards", "hand", "draw_pile", "visible_to"),
    "spy": ("round", "team", "protector", "player", "seq", "card", "orientation", "element", "kind", "visible_to"),
    "showdown_start": ("round", "visible_to"),
    "reveal": ("round", "seq", "player", "team", "orientation", "card", "element", "kind", "visible_to"),
    "heal": (
        "round", "team", "via", "source", "player", "seq", "element", "defense", "removed", "chosen_by",
        "visible_to",
    ),
    "boost": ("round", "team", "via", "source", "player", "seq", "element", "amount", "attacks", "visible_to"),
    "strength": ("round", "team", "attack_cards", "points", "visible_to"),
    "pierce": ("round", "team", "source", "element", "player", "seq", "visible_to"),
    "cancel": (
        "round", "team", "via", "source", "player", "seq", "element", "cancelled", "pierced", "left", "visible_to",
    ),
    "allocation": (
        "round", "team", "player", "points", "attack_cards", "cap", "placements", "placed", "chosen_by",
        "visible_to",
    ),
    "destroyed": ("round", "team", "defense", "elements", "by", "visible_to"),
    "showdown_end": ("round", "defenses", "visible_to"),
    "round_end": ("round", "cards", "discard_pile", "visible_to"),
    "counters": ("round", "before", "after", "visible_to"),
    "match_end": ("winner", "reason", "rounds", "visible_to"),
}


# The fields of each event type in the logs of earlier schema versions, which stored matches keep as they were
# played (the API describes them too).
PAST_EVENT_FIELDS: Final[dict[int, dict[str, tuple[str, ...]]]] = {
    1: {
        "match_start": ("schema", "seed", "mode", "options", "teams", "drawn", "deck"),
        "deal": ("hands", "draw_pile"),
        "round_start": ("round", "order", "counters"),
        "turn": (
            "round", "seq", "pass", "player", "team", "counter", "face", "orientation", "card", "element",
            "kind",
        ),
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
            "round", "team", "player", "points", "attack_cards", "extra", "cap", "placements", "placed",
            "chosen_by",
        ),
        "destroyed": ("round", "team", "defense", "elements", "by"),
        "showdown_end": ("round", "defenses"),
        "round_end": ("round", "discarded", "discard_pile"),
        "counters": ("round", "before", "after"),
        "match_end": ("winner", "reason", "rounds"),
    },
    2: {
        "match_start": (
            "schema", "seed", "mode", "options", "elements", "deck", "deck_size", "teams", "drawn",
            "agent_names", "agent_seeds", "visible_to",
        ),
        "shuffle": ("round", "reason", "order", "visible_to"),
        "deal": ("player", "cards", "hand", "draw_pile", "visible_to"),
        "round_start": ("round", "order", "counters", "visible_to"),
        "decision": ("round", "stage", "player", "offered", "action", "visible_to"),
        "turn": (
            "round", "seq", "pass", "player", "team", "counter", "face", "orientation", "card", "element",
            "kind", "visible_to",
        ),
        "facedown": ("round", "seq", "player", "card", "element", "kind", "visible_to"),
        "redraw": (
            "round", "seq", "pass", "player", "team", "counter", "discarded", "size", "drawn", "hand",
            "visible_to",
        ),
        "draw": ("round", "player", "reason", "source", "count", "cards", "hand", "draw_pile", "visible_to"),
        "spy": (
            "round", "team", "protector", "player", "seq", "card", "orientation", "element", "kind",
            "visible_to",
        ),
        "showdown_start": ("round", "visible_to"),
        "reveal": ("round", "seq", "player", "team", "orientation", "card", "element", "kind", "visible_to"),
        "heal": (
            "round", "team", "via", "source", "player", "seq", "element", "defense", "removed", "chosen_by",
            "visible_to",
        ),
        "boost": ("round", "team", "via", "source", "player", "seq", "element", "amount", "attacks", "visible_to"),
        "strength": ("round", "team", "attack_cards", "points", "visible_to"),
        "pierce": ("round", "team", "source", "element", "player", "seq", "visible_to"),
        "cancel": (
            "round", "team", "via", "source", "player", "seq", "element", "cancelled", "pierced", "left",
            "visible_to",
        ),
        "allocation": (
            "round", "team", "player", "points", "attack_cards", "cap", "placements", "placed", "chosen_by",
            "visible_to",
        ),
        "destroyed": ("round", "team", "defense", "elements", "by", "visible_to"),
        "showdown_end": ("round", "defenses", "visible_to"),
        "round_end": ("round", "cards", "discard_pile", "visible_to"),
        "counters": ("round", "before", "after", "visible_to"),
        "match_end": ("winner", "reason", "rounds", "visible_to"),
    },
}
