"""A readable play-by-play of an Echo Realms event log."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from realms.engine.effects import KINDS
from simulate.engine.events import render_lines

Event = dict[str, Any]


class _Names:
    """Unit ids to 'a3 Merlin' labels, learned from match_start and summon events."""

    def __init__(self) -> None:
        """Start with no known names."""
        self.names: dict[str, str] = {}

    def __call__(self, uid: str | None) -> str:
        """'a3 Merlin' for a known id, the id alone otherwise."""
        if uid is None:
            return "-"
        name = self.names.get(uid)
        return f"{uid} {name}" if name else uid


def _match_start(e: Event, n: _Names) -> list[str]:
    """The match's options and every unit with its printed stats."""
    opts = e["options"]
    seed = f"seed {e['seed']}; " if "seed" in e else ""  # schema 3 logs it apart, in `seeds`
    lines = [
        f"Match start ({seed}tie break {opts.get('tie_break')}; max {opts.get('max_rounds')} rounds; "
        f"first player {e['first_player']})"
    ]
    for u in e["units"]:
        n.names[u["id"]] = u["name"]
        lines.append(
            f"  {u['id']} {u['name']} [{u['side']}, {u['line']}] ATK {u['atk']} DEF {u['def']} "
            f"SPD {u['spd']} HP {u['hp']} CD {u['cooldown']}"
        )
    return lines


def _damage(e: Event, n: _Names) -> list[str]:
    """Who hits whom, how (basic, ability, faction, ongoing), for how much, and the HP change."""
    if e["via"] == "ongoing":
        how = f"ongoing effect #{e['eid']} of {n(e['src'])}"
        calc = f"{e['amount']}, DEF ignored"
    else:
        how = {"basic": "basic attack", "ability": "ability", "faction": "faction ability"}[e["via"]]
        how = f"{n(e['src'])} ({e['src_line']}) -> {how}"
        raw = f"{e['power']}" if e["power"] == e["atk"] else f"{e['power']} from ATK {e['atk']}"
        calc = f"{raw} - DEF {e['def']}" if e["def"] is not None else f"{raw}, DEF ignored"
    shield = f", shield absorbs {e['absorbed']}" if e["absorbed"] else ""
    return [
        f"  {how}: {n(e['tgt'])} ({e['tgt_line']}) takes {e['amount']} ({calc}){shield}, "
        f"HP {e['hp_before']} -> {e['hp_after']}"
    ]


def _heal(e: Event, n: _Names) -> list[str]:
    """Who heals whom and by how much."""
    src = f"ongoing effect #{e['eid']}" if e["via"] == "ongoing" else n(e["src"])
    return [f"  {src} heals {n(e['tgt'])} by {e['healed']} (of {e['amount']}), HP {e['hp_before']} -> {e['hp_after']}"]


def _applied(e: Event, n: _Names) -> list[str]:
    """A lasting effect landing on a unit, with its last active round."""
    what = e["kind"]
    if e["stat"]:
        kind = KINDS.get(e["kind"])
        sign = "+" if kind is not None and kind.positive else "-"  # a stat change helps or harms (its kind)
        what = f"{e['kind']} {sign}{e['amount']} {e['stat'].upper()}"
    elif e["amount"] is not None:
        what = f"{e['kind']} {e['amount']}"
    return [f"  {n(e['unit'])} gets {what} #{e['eid']} from {n(e['src'])} until end of round {e['until']}"]


def _summon(e: Event, n: _Names) -> list[str]:
    """A summoned unit, its stats and its place in the attack order."""
    n.names[e["unit"]] = e["name"]
    when = "acts this round" if e["acts"] else "first acts next round"
    tie = e.get("tie")  # schema 3: a tie with enemy units at its SPD
    led = f"; tie at SPD {tie[0]} led by {tie[1]}" if tie else ""
    return [
        f"  {n(e['src'])} summons {n(e['unit'])} in the {e['line']} (ATK {e['atk']} DEF {e['def']} "
        f"SPD {e['spd']} HP {e['hp']}), order slot {e['slot']}{led}, {when}"
    ]


def _defeated(e: Event, n: _Names) -> list[str]:
    """A unit falling (or leaving with its army)."""
    if e["cause"] == "army_defeated":
        return [f"  {n(e['unit'])} leaves the battlefield with its army"]
    lost = " before acting (its action is lost)" if e["lost_action"] else ""
    if e["cause"] == "table":
        return [f"  {n(e['unit'])} is defeated at the table (HP 0 by hand){lost}"]
    return [f"  {n(e['unit'])} is defeated by {n(e['by'])}{lost}"]


def _table_change(e: Event, n: _Names) -> list[str]:
    """A change made by hand at the table (what it caused follows as its own events)."""
    if e["change"] == "hp":
        return [f"  At the table: {n(e['unit'])}'s HP {e['amount']:+d} by hand, HP {e['hp_before']} -> {e['hp_after']}"]
    if e["change"] == "effect":
        return [f"  At the table: an effect put on {n(e['unit'])} by hand"]
    return [f"  At the table: effect #{e['eid']} taken off {n(e['unit'])} by hand"]


def _match_end(e: Event, n: _Names) -> list[str]:
    """The result line."""
    if e["winner"] is None:
        return [f"Result: draw ({e['reason']}) after {e['rounds']} round(s)."]
    return [f"Result: player {e['winner']} wins ({e['reason']}) after {e['rounds']} round(s)."]


_ORDER_LABELS = {"battle_start": "Battle-start order", "start": "Start-phase order", "act": "Order"}

_RENDER: dict[str, Callable[[Event, _Names], list[str]]] = {
    "formation_start": lambda e, n: [f"Formation Round: player {e['first_player']} deploys first."],
    "collection": lambda e, n: [f"  {e['player']}'s collection: {len(e['cards'])} cards"],
    "deploy": lambda e, n: [f"  {e['player']} deploys {e['card']} in the {e['line']} (pick {e['pick']})"],
    "match_start": _match_start,
    "seeds": lambda e, n: [f"  Seeds (seen by no player): match {e['seed']}, agents "
                           + ", ".join(f"{p} {s}" for p, s in sorted(e["agent_seeds"].items()))],
    "round_start": lambda e, n: [f"Round {e['round']}"],
    "order": lambda e, n: [
        f"  {_ORDER_LABELS[e['phase']]}: " + ", ".join(f"{n(uid)} ({spd})" for uid, spd in e["units"])
        + ("".join(f"; tie at SPD {s} led by {p}" for s, p in e["ties"]))
    ],
    "decision": lambda e, n: [],  # the action itself follows as its own events
    "pick": lambda e, n: [
        f"  {n(e['src'])} picks {n(e['unit']) if e['unit'] else 'no one'} ({e['selector']}"
        + (", a seeded draw" if e["random"] else "") + ")"
    ],
    "move": lambda e, n: [f"  {n(e['unit'])} moves {e['from']} -> {e['to']} ({e['via']})"],
    "damage": _damage,
    "heal": _heal,
    "effect_applied": _applied,
    "effect_expired": lambda e, n: [f"  {e['kind']} #{e['eid']} on {n(e['unit'])} ends ({e['reason']})"],
    "ability_used": lambda e, n: [
        f"  {n(e['unit'])} uses {e['ability']}" + (f" on {n(e['target'])}" if e["target"] else "")
        + (f" (ready again in round {e['ready']})" if "ready" in e else "")  # schema 2 said it here
    ],
    "cooldown_started": lambda e, n: [
        f"  {n(e['unit'])}'s ability cools down {e['cooldown']} round(s): ready again in round {e['ready_after']}"
    ],
    "faction_triggered": lambda e, n: [f"  {n(e['unit'])}: {e['ability']} ({e['trigger']})"],
    "cooldown": lambda e, n: [
        f"  {n(e['src'])} shifts {n(e['unit'])}'s cooldown by {e['amount']:+d}: "
        f"ready round {e['ready_before']} -> {e['ready_after']}"
    ],
    "summon": _summon,
    "fizzle": lambda e, n: [
        f"  {e['effect']} of {n(e['src'])} fizzles" + (f" on {n(e['unit'])}" if e["unit"] else "") + f" ({e['reason']})"
    ],
    "defeated": _defeated,
    "round_end": lambda e, n: [],
    "match_end": _match_end,
    "table_change": _table_change,
}


def render_events(events: Sequence[Event]) -> str:
    """Who hits whom and for how much, who falls, and the result, one line per event."""
    return render_lines(events, _RENDER, _Names())
