"""A readable play-by-play of an Akin Legends event log."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from simulate.engine.events import render_lines

Event = dict[str, Any]


class _Names:
    """Player ids and team indexes to readable labels, learned from match_start."""

    def __init__(self) -> None:
        self.players: dict[str, str] = {}
        self.teams: dict[int, str] = {}

    def player(self, pid: str | None) -> str:
        """A player's name and id ("-" for none)."""
        if pid is None:
            return "-"
        name = self.players.get(pid)
        return f"{name} ({pid})" if name else pid

    def team(self, team: int | None) -> str:
        """A team's index and spirit ("-" for none)."""
        if team is None:
            return "-"
        spirit = self.teams.get(team)
        return f"team {team} ({spirit})" if spirit else f"team {team}"


def _points(points: dict[str, int]) -> str:
    shown = [f"{e} {n}" for e, n in points.items() if n]
    return ", ".join(shown) if shown else "none"


def _match_start(e: Event, names: _Names) -> list[str]:
    opts = e["options"]
    lines = [f"Akin Legends, {e['mode']} mode (max {opts.get('max_rounds')} rounds; "
             f"deck of {e['deck_size']} cards, {len(e['deck'])} designs)"]
    for t in e["teams"]:
        names.teams[t["team"]] = t["spirit"]["slug"]
        for p in t["players"]:
            names.players[p["id"]] = p["name"]
        protector = t["protector"]
        defenses = ", ".join(f"{d['slug']} [{'+'.join(d['elements'])}]" for d in t["defenses"])
        players = ", ".join(
            f"{p['name']} ({p['id']}, counter {p['counter']}, agent {e['agent_names'].get(p['id']) or '-'})"
            for p in t["players"]
        )
        lines.append(f"  {names.team(t['team'])}: protector {protector['slug']} ({protector['effect']['kind']}); "
                     f"defenses {defenses}; players {players}")
    for d in e["drawn"]:
        lines.append(f"  drawn for {names.team(d['team'])}: {d['kind']} {', '.join(d['cards'])} (from {len(d['pool'])})")
    return lines


def _action(action: list[Any]) -> str:
    kind = action[0]
    if kind == "attack":
        return f"attack {action[1]} ({action[2]})"
    if kind == "effect":
        return f"effect {action[1]}"
    if kind == "redraw":
        return f"redraw {action[2]} discarding {', '.join(action[1]) or 'nothing'}"
    if kind == "heal":
        return f"heal {action[2]} on {action[1]}"
    return "allocate " + (", ".join(f"{el} on {d}" for d, el in action[1]) or "nothing")


def _decision(e: Event, names: _Names) -> list[str]:
    return [f"    {names.player(e['player'])} chooses {_action(e['action'])} ({len(e['offered'])} offered, {e['stage']})"]


def _turn(e: Event, names: _Names) -> list[str]:
    who = f"  #{e['seq']} {names.player(e['player'])} [counter {e['counter']}]"
    if e["face"] == "down":
        return [f"{who} plays face down, as {'an attack' if e['orientation'] == 'attack' else 'an effect'}"]
    if e["orientation"] == "attack":
        return [f"{who} plays {e['card']} face up: {e['element']} attack"]
    return [f"{who} plays {e['card']} face up: {e['element']} {e['kind']}"]


def _reveal(e: Event, names: _Names) -> list[str]:
    what = f"{e['element']} attack" if e["orientation"] == "attack" else f"{e['element']} {e['kind']}"
    return [f"  reveal #{e['seq']} {names.player(e['player'])}: {e['card']} = {what}"]


def _heal(e: Event, names: _Names) -> list[str]:
    src = f"{e['source']} of {names.player(e['player'])}" if e["via"] == "card" else f"protector {e['source']}"
    if not e["removed"]:
        marker = "marker" if e["element"] == "any" else f"{e['element']} marker"
        return [f"  heal: {src} finds no {marker} on {names.team(e['team'])}'s defenses (no effect)"]
    how = "chosen" if e["chosen_by"] == "agent" else "the only choice"
    return [f"  heal: {src} removes a {e['element']} marker from {e['defense']} ({how})"]


def _boost(e: Event, names: _Names) -> list[str]:
    src = f"{e['source']} of {names.player(e['player'])}" if e["via"] == "card" else f"protector {e['source']}"
    if not e["attacks"]:
        return [f"  boost: {src} ({e['element']}) has no matching attack (no effect)"]
    seqs = ", ".join(f"#{s}" for s in e["attacks"])
    return [f"  boost: {src} gives +{e['amount']} to {e['element']} attack(s) {seqs}"]


def _cancel(e: Event, names: _Names) -> list[str]:
    src = f"{e['source']} of {names.player(e['player'])}" if e["via"] == "card" else f"protector {e['source']}"
    if e["pierced"]:
        return [f"  defense: {src} ({e['element']}) is pierced and cancels nothing, {e['left']} left"]
    if not e["cancelled"]:
        return [f"  defense: {src} ({e['element']}) has nothing to cancel"]
    return [f"  defense: {src} cancels 1 {e['element']} point of {names.team(1 - e['team'])}, {e['left']} left"]


def _allocation(e: Event, names: _Names) -> list[str]:
    who = f"chosen by {names.player(e['player'])}" if e["chosen_by"] == "agent" else "no choice"
    where = ", ".join(f"{el} on {d}" for d, el in e["placements"]) or "nothing"
    return [f"  allocation of {names.team(e['team'])}: points {_points(e['points'])}; cap {e['cap']} "
            f"({e['attack_cards']} attack card(s)); places {e['placed']}: {where} ({who})"]


def _seeds(e: Event, names: _Names) -> list[str]:
    agents = ", ".join(f"{names.player(pid)} {seed}" for pid, seed in e["agent_seeds"].items())
    return [f"  seeds (seen by no seat): match {e['seed']}; agents {agents}"]


def _redraw(e: Event, names: _Names) -> list[str]:
    gone = ", ".join(e["discarded"]) or "no card"
    # The shortfall from size and drawn, which every schema's redraw holds (stored logs are rendered too).
    short = e["size"] - e["drawn"]
    piles = f", {short} short: the piles held only {e['drawn']}" if short else ""
    return [f"  #{e['seq']} {names.player(e['player'])} [counter {e['counter']}] redraws: discards {gone}, "
            f"draws {e['drawn']} of {e['size']}{piles} (hand {e['hand']})"]


def _draw(e: Event, names: _Names) -> list[str]:
    why = {"play": "after playing", "redraw": "redraw"}.get(e["reason"], f"protector {e['source']}")
    cards = ", ".join(e["cards"]) or "nothing"
    return [f"  {names.player(e['player'])} draws {cards} ({why}), hand {e['hand']}"]


def _match_end(e: Event, names: _Names) -> list[str]:
    if e["winner"] is None:
        return [f"Result: draw ({e['reason']}) after {e['rounds']} round(s)."]
    return [f"Result: {names.team(e['winner'])} wins ({e['reason']}) after {e['rounds']} round(s)."]


_RENDER: dict[str, Callable[[Event, _Names], list[str]]] = {
    "match_start": _match_start,
    "seeds": _seeds,
    "shuffle": lambda e, names: [f"  {'the deck' if e['reason'] == 'start' else 'the discard pile'} is shuffled "
                             f"into the draw pile ({len(e['order'])} cards)"],
    "deal": lambda e, names: [f"  {names.player(e['player'])} is dealt {', '.join(e['cards'])}"],
    "decision": _decision,
    "facedown": lambda e, names: [f"    face down: {e['card']} = {e['element']} {e['kind']}"],
    "pierce": lambda e, names: [f"  pierce: protector {e['source']} of {names.team(e['team'])} pierces #{e['seq']} of "
                            f"{names.player(e['player'])} ({e['element']})"],
    "round_start": lambda e, names: [f"Round {e['round']}: order {', '.join(names.player(p) for p in e['order'])}"],
    "turn": _turn,
    "redraw": _redraw,
    "draw": _draw,
    "spy": lambda e, names: [f"  spy: {names.team(e['team'])} looks at #{e['seq']} of {names.player(e['player'])}: {e['card']} "
                         f"({e['orientation']}, {e['element']})"],
    "showdown_start": lambda e, names: [f" Showdown of round {e['round']}"],
    "reveal": _reveal,
    "heal": _heal,
    "boost": _boost,
    "strength": lambda e, names: [f"  strength of {names.team(e['team'])} after boosts: {_points(e['points'])} "
                              f"({e['attack_cards']} attack card(s))"],
    "cancel": _cancel,
    "allocation": _allocation,
    "destroyed": lambda e, names: [f"  {e['defense']} of {names.team(e['team'])} is destroyed ({'+'.join(e['elements'])})"],
    "showdown_end": lambda e, names: [f"  defenses left: team 0 {e['defenses'][0]}, team 1 {e['defenses'][1]}"],
    "round_end": lambda e, names: [f"  {len(e['cards'])} card(s) to the discard pile ({e['discard_pile']})"],
    "counters": lambda e, names: [
        "  counters handed on: " + ", ".join(f"{names.player(p)} {e['before'][p]}->{c}" for p, c in e["after"].items())
    ],
    "match_end": _match_end,
}


def render_events(events: Sequence[Event]) -> str:
    """Every turn, showdown step and result, one line per event."""
    return render_lines(events, _RENDER, _Names())
