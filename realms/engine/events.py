"""The Echo Realms event schema: every event type and its fields (see docs/events.md)."""

from __future__ import annotations

SCHEMA_VERSION = 3

EVENT_FIELDS: dict[str, tuple[str, ...]] = {
    "formation_start": ("first_player",),
    "collection": ("player", "cards", "visible_to"),
    "deploy": ("player", "card", "line", "pick"),
    "match_start": ("schema", "options", "first_player", "agents", "units"),
    "seeds": ("seed", "agent_seeds", "visible_to"),
    "decision": ("round", "stage", "player", "unit", "legal", "action", "visible_to"),
    "round_start": ("round",),
    "move": ("unit", "from", "to", "via", "src", "use"),
    "order": ("round", "phase", "units", "ties"),
    "pick": ("src", "selector", "pool", "unit", "random", "use"),
    "damage": (
        "src", "tgt", "src_line", "tgt_line", "via", "atk", "power", "def",
        "amount", "absorbed", "hp_before", "hp_after", "eid", "use",
    ),
    "heal": ("src", "tgt", "via", "amount", "healed", "hp_before", "hp_after", "eid", "use"),
    "effect_applied": ("eid", "unit", "kind", "stat", "amount", "duration", "until", "persists", "src", "via", "use"),
    "effect_expired": ("eid", "unit", "kind", "reason", "src", "via", "use"),
    "ability_used": ("use", "unit", "ability", "target", "round"),
    "cooldown_started": ("unit", "use", "round", "cooldown", "ready_before", "ready_after"),
    "faction_triggered": ("use", "cause", "unit", "ability", "trigger"),
    "cooldown": ("unit", "src", "amount", "ready_before", "ready_after", "via", "use"),
    "summon": ("unit", "side", "name", "line", "atk", "def", "spd", "hp", "src", "slot", "acts", "tie", "via", "use"),
    "fizzle": ("src", "effect", "unit", "reason", "via", "use"),
    "defeated": ("unit", "by", "cause", "lost_action", "use"),
    "round_end": ("round",),
    "match_end": ("winner", "reason", "rounds"),
    "table_change": ("round", "change", "unit", "amount", "hp_before", "hp_after", "eid"),
}


# The fields of each event type in the logs of earlier schema versions, which stored matches keep as they were
# played (the API describes them too).
PAST_EVENT_FIELDS: dict[int, dict[str, tuple[str, ...]]] = {
    1: {
        "formation_start": ("first_player", "collections"),
        "deploy": ("player", "card", "line", "pick"),
        "match_start": ("schema", "seed", "options", "first_player", "units"),
        "round_start": ("round",),
        "move": ("unit", "from", "to", "via", "src"),
        "order": ("round", "units", "ties"),
        "damage": (
            "src", "tgt", "src_line", "tgt_line", "via", "atk", "power", "def", "amount", "absorbed",
            "hp_before", "hp_after", "eid",
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
    },
    2: {
        "formation_start": ("first_player", "collections"),
        "deploy": ("player", "card", "line", "pick"),
        "match_start": ("schema", "seed", "options", "first_player", "agents", "units"),
        "decision": ("round", "stage", "player", "unit", "legal", "action"),
        "round_start": ("round",),
        "move": ("unit", "from", "to", "via", "src", "use"),
        "order": ("round", "phase", "units", "ties"),
        "pick": ("src", "selector", "pool", "unit", "random", "use"),
        "damage": (
            "src", "tgt", "src_line", "tgt_line", "via", "atk", "power", "def", "amount", "absorbed",
            "hp_before", "hp_after", "eid", "use",
        ),
        "heal": ("src", "tgt", "via", "amount", "healed", "hp_before", "hp_after", "eid", "use"),
        "effect_applied": (
            "eid", "unit", "kind", "stat", "amount", "duration", "until", "persists", "src", "via", "use",
        ),
        "effect_expired": ("eid", "unit", "kind", "reason", "src", "via", "use"),
        "ability_used": ("use", "unit", "ability", "target", "round", "ready"),
        "faction_triggered": ("use", "cause", "unit", "ability", "trigger"),
        "cooldown": ("unit", "src", "amount", "ready_before", "ready_after", "via", "use"),
        "summon": ("unit", "side", "name", "line", "atk", "def", "spd", "hp", "src", "slot", "acts", "via", "use"),
        "fizzle": ("src", "effect", "unit", "reason", "via", "use"),
        "defeated": ("unit", "by", "cause", "lost_action", "use"),
        "round_end": ("round",),
        "match_end": ("winner", "reason", "rounds"),
    },
}

# Unit fields listed in match_start.units: the full card (G3).
UNIT_FIELDS = (
    "id", "side", "card", "name", "rarity", "position", "class", "faction", "line", "atk", "def", "spd", "hp",
    "cooldown", "main_ability", "faction_ability",
)
