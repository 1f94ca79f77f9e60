"""Small builders for engine tests: cards from plain dicts, matches driven action by action."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from realms.engine.cards import CharacterCard, card_from_dict
from realms.engine.game import new_match
from realms.engine.state import RealmsState

STRIKE = {
    "name": "Strike",
    "text": "Deals 100% ATK to the chosen enemy.",
    "choose": "enemy",
    "effects": [{"kind": "damage", "target": "target", "scale": 1.0}],
}
# A faction ability that never fires: at battle start every unit has full HP.
INERT = {
    "name": "Dormant",
    "text": "Never fires.",
    "trigger": "battle_start",
    "condition": {"hp_below": 0.01},
    "effects": [{"kind": "buff", "target": "self", "stat": "atk", "amount": 1, "duration": 1}],
}
POSITION = {"tank": "vanguard", "warrior": "vanguard", "mage": "rearguard", "archer": "rearguard",
            "assassin": "flex", "support": "rearguard"}


def card(
    slug: str = "unit",
    *,
    atk: int = 5,
    df: int = 5,
    spd: int = 5,
    hp: int = 20,
    cls: str = "warrior",
    position: str | None = None,
    rarity: str = "common",
    cooldown: int = 2,
    faction: str = "arcane",
    main: dict | None = None,
    fab: dict | None = None,
    name: str | None = None,
) -> CharacterCard:
    """A card from a plain dict, with a plain Strike and a faction ability that never fires by default."""
    return card_from_dict(
        {
            "slug": slug,
            "name": name or slug.replace("-", " ").title(),
            "faction": faction,
            "class": cls,
            "position": position or POSITION[cls],
            "rarity": rarity,
            "atk": atk,
            "def": df,
            "spd": spd,
            "hp": hp,
            "cooldown": cooldown,
            "main_ability": main or STRIKE,
            "faction_ability": fab or INERT,
        }
    )


def main(*effects: dict, choose: str = "enemy", ignore_lines: bool = False, name: str = "Test Ability") -> dict:
    """A main ability spec with the given effects."""
    spec: dict[str, Any] = {"name": name, "text": "Test.", "choose": choose, "effects": list(effects)}
    if ignore_lines:
        spec["ignore_lines"] = True
    return spec


def fab(
    trigger: str, *effects: dict, condition: dict | None = None, limit: str = "none", include_summons: bool = False
) -> dict:
    """A faction ability spec with the given trigger and effects."""
    spec: dict[str, Any] = {"name": f"On {trigger}", "text": "Test.", "trigger": trigger, "limit": limit,
                            "effects": list(effects)}
    if condition:
        spec["condition"] = condition
    if include_summons:
        spec["include_summons"] = True
    return spec


def line_of(c: CharacterCard) -> str:
    """The printed line of a card (flex cards start in the vanguard)."""
    return "vanguard" if c.position in ("vanguard", "flex") else "rearguard"


def battle(
    a: Sequence[CharacterCard | tuple[CharacterCard, str]],
    b: Sequence[CharacterCard | tuple[CharacterCard, str]],
    *,
    seed: int = 1,
    **options: Any,
) -> RealmsState:
    """A match between two small armies, at its first decision (options default to first_player a)."""
    options.setdefault("first_player", "a")

    def army(units: Sequence) -> list[tuple[CharacterCard, str]]:
        return [u if isinstance(u, tuple) else (u, line_of(u)) for u in units]

    return new_match({"armies": {"a": army(a), "b": army(b)}}, seed=seed, options=options)


def of_type(state: RealmsState, *types: str) -> list[dict[str, Any]]:
    """The logged events of the given types."""
    return [e for e in state.events() or [] if e["type"] in types]


def act_orders(state: RealmsState) -> list[dict[str, Any]]:
    """The logged attack orders of each round's actions (not the battle-start or round-1 start orders)."""
    return [e for e in of_type(state, "order") if e["phase"] == "act"]


def unit(state: RealmsState, uid: str) -> Any:
    """A unit's read-only view."""
    return state.observation("a").unit(uid)


def attack(state: RealmsState, target: str) -> None:
    """The pending unit basic-attacks `target`."""
    state.apply(("attack", target))


def use(state: RealmsState, target: str | None = None) -> None:
    """The pending unit uses its main ability (on `target`)."""
    state.apply(("ability", target))


def acting(state: RealmsState) -> str:
    """The id of the unit whose decision is pending."""
    u = state.acting_unit()
    assert u is not None
    return u.uid


def pass_turns(state: RealmsState, until: str | None = None, rounds: int | None = None) -> None:
    """Play first-legal actions (stay on Flex) until `until` is to act or `rounds` rounds have started."""
    target_round = state.round + rounds if rounds is not None else None
    while not state.is_terminal():
        if until is not None and state.acting_unit() is not None and acting(state) == until and state.phase() == "act":
            return
        if target_round is not None and state.round >= target_round:
            return
        state.apply(state.legal_actions()[0])


def effects(state: RealmsState, uid: str) -> tuple[tuple[str, str, int, int], ...]:
    """The effects standing on a unit: (kind, stat, amount, rounds left)."""
    return state.observation("a").effects(uid)
