"""The Echo Realms event schema: every event type and its fields (see docs/events.md)."""

from __future__ import annotations

SCHEMA_VERSION = 1

EVENT_FIELDS: dict[str, tuple[str, ...]] = {
    "formation_start": ("first_player", "collections"),
    "deploy": ("player", "card", "line", "pick"),
    "match_start": ("schema", "seed", "options", "first_player", "units"),
    "round_start": ("round",),
    "move": ("unit", "from", "to", "via", "src"),
    "order": ("round", "units", "ties"),
    "damage": (
        "src", "tgt", "src_line", "tgt_line", "via", "atk", "power", "def",
        "amount", "absorbed", "hp_before", "hp_after", "eid",
    ),
    "heal": ("src", "tgt", "via", "amount", "healed", "hp_before", "hp_after", "eid"),
    "effect_applied": ("eid", "unit", "kind", "stat", "amount", "duration", "until", "src", "via"),
    "effect_expired": ("eid", "unit", "kind", "reason"),
    "ability_used": ("unit", "ability", "target", "round", "ready"),
    "faction_triggered": ("unit", "ability", "trigger"),
    "cooldown": ("unit", "src", "amount", "ready_before", "ready_after"),
    "summon": ("unit", "side", "name", "line", "atk", "def", "spd", "hp", "src", "slot", "acts"),
    "fizzle": ("src", "effect", "unit", "reason"),
    "defeated": ("unit", "by", "cause", "lost_action"),
    "round_end": ("round",),
    "match_end": ("winner", "reason", "rounds"),
}

# Unit fields listed in match_start.units.
UNIT_FIELDS = ("id", "side", "card", "name", "class", "faction", "line", "atk", "def", "spd", "hp", "cooldown")
