"""Every card of the official starter set does in play what its text says.

For each of the 64 cards a seeded search finds a match (the greedy agent against greedy, then other
pairings: an eager greedy that always uses the card's ability, random) in which the card uses its
main ability and fires its faction ability, each for the first time, each standing alone (no other
ability answers it, the match goes on) and each visibly: every effect of the ability changes
something. Then, for each of the two abilities:

* its text is the one generated from its spec (realms/engine/text.py), so the spec is the text;
* the log shows the text happening: the use is legal as the text says (the chosen unit, R12's
  lines, the cooldown; the trigger, condition and limit of a faction ability), and the events of
  the use are exactly the ones a small model of the words predicts: the damage of the spec's
  formula against the target's DEF, the shields, buffs and debuffs with their amounts and
  durations on the named units, the heal, the cooldown shift, the move, the summon, the cleanse;
* the same match replayed, decision for decision, with that ability's effects swapped for an
  inert one (a move to the line the unit already holds, which fizzles) is identical up to the use,
  and right after it differs from the original exactly by what the text says: the model applied
  to the replay's state gives the original's state (HP, lines, cooldowns, standing effects, units).

No mocks and no timing: the engine plays through `simulate.engine.runner.play_match`, and the log
(realms/engine/events.py) is all the checks read.
"""

from __future__ import annotations

import copy
import json
import random
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from realms.engine.agents import GreedyAgent
from realms.engine.cards import CharacterCard, cards_from_fixture
from realms.engine.effects.base import Effect
from realms.engine.formation import legal_deployments, line_allows, random_army
from realms.engine.text import faction_text, main_text
from simulate.engine.runner import MatchResult, play_match

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = json.loads((ROOT / "fixtures" / "realms_starter.json").read_text())
CARDS = cards_from_fixture(FIXTURE)
FACTION_NAMES = {
    row["fields"]["slug"]: row["fields"]["name"]
    for row in json.loads((ROOT / "fixtures" / "catalogue.json").read_text())
    if row["model"] == "cardsdb.faction"
}
MAX_TRIES = 300

PICKS = {"lowest_hp_ally", "random_ally", "random_enemy", "lowest_hp_enemy", "highest_atk_enemy"}
NEGATIVE = {"debuff", "poison", "burn", "silence"}
POSITIVE = {"buff", "shield", "regen"}
ONGOING = {"poison", "burn", "regen"}
LASTING = {"shield", "buff", "debuff", "poison", "burn", "regen", "silence"}
BOUNDARIES = {"decision", "round_end", "round_start", "order", "match_end", "ability_used", "faction_triggered",
              "cooldown_started"}
DEFEAT_EXPIRIES = {"depleted", "unit_defeated", "source_defeated"}


# --- the board as the log tells it -----------------------------------------------------------------


@dataclass
class Standing:
    """An effect standing on a unit."""

    eid: int | None
    kind: str
    stat: str
    amount: int | None
    until: int
    src: str
    persists: bool

    def key(self) -> tuple:
        return (self.kind, self.stat, self.amount, self.until, self.src, self.persists)


@dataclass
class Piece:
    """A unit on the board."""

    uid: str
    side: str
    faction: str
    summon: bool
    name: str
    line: str
    atk: int
    df: int
    spd: int
    max_hp: int
    hp: int
    cooldown: int
    ready: int = 1
    alive: bool = True
    effects: list[Standing] = field(default_factory=list)

    def stat(self, stat: str) -> int:
        base = {"atk": self.atk, "def": self.df, "spd": self.spd}[stat]
        for a in self.effects:
            if a.stat == stat and a.kind in ("buff", "debuff"):
                base += a.amount if a.kind == "buff" else -a.amount  # type: ignore[operator]
        return max(0, base)


class Board:
    """Every unit's values, replayed from the log alone (HP, line, cooldown, standing effects)."""

    def __init__(self) -> None:
        self.units: dict[str, Piece] = {}
        self.round = 0

    def living(self, side: str) -> list[Piece]:
        return [u for u in self.units.values() if u.alive and u.side == side]

    def characters(self, side: str) -> list[Piece]:
        return [u for u in self.living(side) if not u.summon]

    def snapshot(self) -> dict[str, tuple]:
        return {
            u.uid: (u.alive, u.hp, u.line, u.ready, (u.name, u.atk, u.df, u.spd, u.max_hp),
                    tuple(sorted((a.key() for a in u.effects), key=repr)))
            for u in self.units.values()
        }

    def absorb(self, u: Piece, amount: int) -> tuple[int, list[Standing]]:
        """Shields take the damage first, in the order they were put on (R11)."""
        absorbed, depleted, left = 0, [], amount
        for a in u.effects:
            if a.kind == "shield" and a.amount:
                take = min(a.amount, left)
                a.amount -= take
                absorbed += take
                left -= take
                if a.amount == 0:
                    depleted.append(a)
                if not left:
                    break
        return absorbed, depleted

    def apply(self, e: dict[str, Any]) -> None:
        t = e["type"]
        if t == "match_start":
            self.place(e["units"])
        elif t == "round_start":
            self.round = e["round"]
        else:
            self.change(t, e)

    def place(self, units: list[dict[str, Any]]) -> None:
        """The units of both armies as the match starts."""
        for u in units:
            self.units[u["id"]] = Piece(
                u["id"], u["side"], u["faction"], False, u["name"], u["line"], u["atk"], u["def"], u["spd"],
                u["hp"], u["hp"], u["cooldown"],
            )

    def change(self, t: str, e: dict[str, Any]) -> None:
        """What an event of the match does to one unit (or a new one, summoned)."""
        if t == "move":
            self.units[e["unit"]].line = e["to"]
        elif t == "cooldown_started" or t == "cooldown":
            self.units[e["unit"]].ready = e["ready_after"]
        elif t == "damage":
            u = self.units[e["tgt"]]
            self.absorb(u, e["amount"])
            u.hp = e["hp_after"]
        elif t == "heal":
            self.units[e["tgt"]].hp = e["hp_after"]
        elif t == "effect_applied":
            self.units[e["unit"]].effects.append(
                Standing(e["eid"], e["kind"], e["stat"] or "", e["amount"], e["until"], e["src"], e["persists"])
            )
        elif t == "effect_expired":
            u = self.units[e["unit"]]
            u.effects = [a for a in u.effects if a.eid != e["eid"]]
        elif t == "summon":
            self.units[e["unit"]] = Piece(
                e["unit"], e["side"], "", True, e["name"], e["line"], e["atk"], e["def"], e["spd"], e["hp"], e["hp"], 0
            )
        elif t == "defeated":
            u = self.units[e["unit"]]
            u.alive = False
            u.hp = 0


def board_at(events: list[dict[str, Any]], end: int) -> Board:
    """The board after events[:end]."""
    board = Board()
    for e in events[:end]:
        board.apply(e)
    return board


# --- the words of an ability, as a model of what they make happen -----------------------------------


def scaled(value: int, scale: float) -> int:
    """⌊value × scale⌋ for the decimal written in the spec."""
    return int(value * Fraction(repr(float(scale))) // 1) if scale else 0


class Unpredictable(Exception):
    """The use does something the words alone cannot foretell (another ability answers, the match ends)."""


@dataclass
class Prediction:
    events: list[tuple] = field(default_factory=list)
    changed: list[bool] = field(default_factory=list)


class Words:
    """Apply an ability's effects to a board as its text reads (docs/abilities.md, rulings R11–R19),
    logging what should be logged. Random picks take the unit the log names (the seeded draw), after
    checking it comes from the pool the words allow."""

    def __init__(self, board: Board, actor: str, *, chosen: str | None, attacker: str | None, reach_all: bool,
                 picks: list[dict[str, Any]]) -> None:
        self.b = board
        self.src = board.units[actor]
        self.chosen = board.units[chosen] if chosen else None
        self.attacker = board.units[attacker] if attacker else None
        self.reach_all = reach_all
        self.picks = list(picks)
        self.memo: dict[str, Piece | None] = {}
        self.out = Prediction()

    def log(self, *event: Any) -> None:
        self.out.events.append(event)

    def run(self, effects: tuple[Effect, ...]) -> Prediction:
        for eff in effects:
            self.changed = False
            if not self.src.alive:  # R10: fallen midway, the rest fizzles
                self.log("fizzle", eff.kind, None, "source_defeated")
            elif eff.kind == "summon":
                self.summon(eff)
            else:
                targets = self.select(eff.target)
                if targets:
                    getattr(self, f"fx_{eff.kind}")(eff, targets)
                else:
                    self.log("fizzle", eff.kind, None, "no_target")
            self.out.changed.append(self.changed)
        return self.out

    # selectors
    def select(self, sel: str) -> list[Piece]:
        if sel in ("target", "self", "attacker"):
            return self.select_named(sel)
        if sel in PICKS:
            return self.select_picked(sel)
        if sel == "target_line":
            c = self.chosen
            return [u for u in self.b.living(c.side) if u.line == c.line] if c is not None else []
        return self.select_group(sel)

    def select_named(self, sel: str) -> list[Piece]:
        """The chosen target, the user itself, or the attacker it answers (while alive)."""
        if sel == "target":
            return [self.chosen] if self.chosen is not None and self.chosen.alive else []
        if sel == "self":
            return [self.src]
        return [self.attacker] if self.attacker is not None and self.attacker.alive else []

    def select_picked(self, sel: str) -> list[Piece]:
        """The unit picked once for the whole use (while alive)."""
        if sel not in self.memo:
            self.memo[sel] = self.pick(sel)
        u = self.memo[sel]
        return [u] if u is not None and u.alive else []

    def select_group(self, sel: str) -> list[Piece]:
        """A group of living units: all or some allies or enemies, or one side's line."""
        src, b = self.src, self.b
        foe = "b" if src.side == "a" else "a"
        groups = {
            "all_allies": b.living(src.side),
            "other_allies": [u for u in b.living(src.side) if u is not src],
            "all_enemies": b.living(foe),
            "enemy_vanguard": [u for u in b.living(foe) if u.line == "vanguard"],
            "enemy_rearguard": [u for u in b.living(foe) if u.line == "rearguard"],
            "ally_vanguard": [u for u in b.living(src.side) if u.line == "vanguard"],
            "ally_rearguard": [u for u in b.living(src.side) if u.line == "rearguard"],
        }
        return groups[sel]

    def pick(self, sel: str) -> Piece | None:
        """One unit for the whole use; an enemy pick from the Vanguard obeys R12 unless lines are ignored."""
        pool = self.pick_pool(sel)
        if not self.picks:
            raise AssertionError(f"the log shows no pick for {sel}")
        logged = self.picks.pop(0)
        unit = self.pick_from(sel, pool, logged)
        self.log("pick", sel, tuple(u.uid for u in pool), unit.uid if unit else None)
        return unit

    def pick_pool(self, sel: str) -> list[Piece]:
        """The units a pick may take: living allies, or living enemies (only the Vanguard from the Vanguard, R12)."""
        src = self.src
        if sel.endswith("_ally"):
            return self.b.living(src.side)
        pool = self.b.living("b" if src.side == "a" else "a")
        front = [u for u in pool if u.line == "vanguard"]
        if src.line == "vanguard" and not self.reach_all and front:
            pool = front
        return pool

    @staticmethod
    def pick_from(sel: str, pool: list[Piece], logged: dict[str, Any]) -> Piece | None:
        """The unit picked: the logged one for a random pick (checked to be in the pool), else by its rule."""
        if not pool:
            unit = None
        elif sel.startswith("random"):
            unit = next((u for u in pool if u.uid == logged["unit"]), None)
            assert unit is not None, f"random pick {logged['unit']} is not in the pool {[u.uid for u in pool]}"
        elif sel == "highest_atk_enemy":
            unit = pool[0]
            for u in pool:
                if u.stat("atk") > unit.stat("atk"):
                    unit = u
        else:
            unit = min(pool, key=lambda u: u.hp)  # the first of the lowest
        return unit

    # effects
    def fx_damage(self, eff: Effect, targets: list[Piece]) -> None:
        for t in targets:
            if not self.src.alive:
                break
            if not t.alive:
                continue
            atk = self.src.stat("atk")
            power = scaled(atk, eff.scale) + eff.flat
            dfn = None if eff.ignore_def else t.stat("def")
            amount = max(1, power - (dfn or 0))
            before = t.hp
            absorbed, depleted = self.b.absorb(t, amount)
            t.hp = max(0, before - amount + absorbed)
            self.log("damage", self.src.uid, t.uid, atk, power, dfn, amount, absorbed, before, t.hp)
            self.changed = True
            for a in depleted:
                t.effects.remove(a)
                self.log("expired", t.uid, "shield", "depleted")
            if t.hp == 0:
                self.defeat(t)

    def defeat(self, u: Piece) -> None:
        """HP 0: gone at once; the effects on it end, and those it put on others end unless they persist (R17)."""
        u.alive = False
        self.log("defeated", u.uid, "damage")
        for a in list(u.effects):
            self.log("expired", u.uid, a.kind, "unit_defeated")
        u.effects = []
        for side in ("a", "b"):
            for v in self.b.living(side):
                for a in [a for a in v.effects if a.src == u.uid and not a.persists]:
                    v.effects.remove(a)
                    self.log("expired", v.uid, a.kind, "source_defeated")
        if not u.summon and not self.b.characters(u.side):
            raise Unpredictable("the match ends")

    def fx_heal(self, eff: Effect, targets: list[Piece]) -> None:
        base = scaled(self.src.stat("atk"), eff.scale) + eff.flat
        for t in targets:
            if t.alive:
                amount = base + scaled(t.max_hp, eff.max_hp_fraction)
                healed = max(0, min(amount, t.max_hp - t.hp))
                self.log("heal", self.src.uid, t.uid, amount, healed, t.hp, t.hp + healed)
                t.hp += healed
                self.changed |= healed > 0

    def lasting(self, eff: Effect, targets: list[Piece], amount: int | None) -> None:
        rnd = self.b.round
        until = rnd + eff.duration if eff.kind in ONGOING else max(rnd, 1) + eff.duration - 1
        for t in targets:
            if t.alive:
                t.effects.append(Standing(None, eff.kind, eff.stat, amount, until, self.src.uid, eff.persists))
                self.log("applied", t.uid, eff.kind, eff.stat or None, amount, eff.duration, until, eff.persists,
                         self.src.uid)
                self.changed = True

    def fx_shield(self, eff: Effect, targets: list[Piece]) -> None:
        self.lasting(eff, targets, scaled(self.src.stat("atk"), eff.scale) + eff.flat)

    def fx_buff(self, eff: Effect, targets: list[Piece]) -> None:
        self.lasting(eff, targets, eff.amount)

    fx_debuff = fx_poison = fx_burn = fx_regen = fx_buff

    def fx_silence(self, eff: Effect, targets: list[Piece]) -> None:
        self.lasting(eff, targets, None)

    def fx_cooldown(self, eff: Effect, targets: list[Piece]) -> None:
        rnd = self.b.round
        for t in targets:
            if not t.alive:
                continue
            if t.summon:
                self.log("fizzle", "cooldown", t.uid, "no_ability")
                continue
            before = t.ready
            if eff.amount > 0:
                after = max(before, rnd) + eff.amount
            else:
                after = before if before <= rnd else max(rnd, before + eff.amount)
            t.ready = after
            self.log("cooldown", t.uid, eff.amount, before, after)
            self.changed |= after != before

    def fx_move(self, eff: Effect, targets: list[Piece]) -> None:
        for t in targets:
            if not t.alive:
                continue
            dest = eff.to if eff.to != "other" else ("rearguard" if t.line == "vanguard" else "vanguard")
            if t.line == dest:
                self.log("fizzle", "move", t.uid, "same_line")
            elif sum(1 for u in self.b.living(t.side) if u.line == dest) >= 5:
                self.log("fizzle", "move", t.uid, "no_room")
            else:
                self.log("move", t.uid, t.line, dest)
                t.line = dest
                self.changed = True

    def summon(self, eff: Effect) -> None:
        unit = eff.unit
        assert unit is not None
        side = self.src.side
        line = self.src.line if eff.line == "same" else eff.line
        for _ in range(eff.count):
            if sum(1 for u in self.b.living(side) if u.line == line) >= 5:
                self.log("fizzle", "summon", None, "no_room")
                return
            uid = f"{side}{sum(1 for u in self.b.units.values() if u.side == side) + 1}"
            self.b.units[uid] = Piece(uid, side, "", True, unit.name, line, unit.atk, unit.def_, unit.spd, unit.hp,
                                      unit.hp, 0)
            self.log("summon", uid, side, unit.name, line, unit.atk, unit.def_, unit.spd, unit.hp)
            self.changed = True

    def fx_cleanse(self, eff: Effect, targets: list[Piece]) -> None:
        kinds, reason = (NEGATIVE, "cleansed") if eff.kind == "cleanse" else (POSITIVE, "dispelled")
        for t in targets:
            if t.alive:
                for a in [a for a in t.effects if a.kind in kinds]:
                    t.effects.remove(a)
                    self.log("expired", t.uid, a.kind, reason)
                    self.changed = True

    fx_dispel = fx_cleanse


def projected(e: dict[str, Any]) -> tuple:
    """The part of a logged event the words speak of (no ids, slots or lines of the log's own)."""
    t = e["type"]
    if t == "pick":
        return ("pick", e["selector"], tuple(e["pool"]), e["unit"])
    if t == "damage":
        return ("damage", e["src"], e["tgt"], e["atk"], e["power"], e["def"], e["amount"], e["absorbed"],
                e["hp_before"], e["hp_after"])
    if t == "heal":
        return ("heal", e["src"], e["tgt"], e["amount"], e["healed"], e["hp_before"], e["hp_after"])
    if t == "effect_applied":
        return ("applied", e["unit"], e["kind"], e["stat"], e["amount"], e["duration"], e["until"], e["persists"],
                e["src"])
    if t == "effect_expired":
        return ("expired", e["unit"], e["kind"], e["reason"])
    if t == "cooldown":
        return ("cooldown", e["unit"], e["amount"], e["ready_before"], e["ready_after"])
    if t == "move":
        return ("move", e["unit"], e["from"], e["to"])
    if t == "summon":
        return ("summon", e["unit"], e["side"], e["name"], e["line"], e["atk"], e["def"], e["spd"], e["hp"])
    if t == "defeated":
        return ("defeated", e["unit"], e["cause"])
    if t == "fizzle":
        return ("fizzle", e["effect"], e["unit"], e["reason"])
    return (t,)


# --- finding the uses in a match ------------------------------------------------------------------------


def block_end(events: list[dict[str, Any]], k: int) -> int:
    """The end of the events of the ability use that events[k] starts: its own events and the expiries
    of a defeat it causes; the next decision, phase, action or ability use ends it."""
    use = events[k]["use"]
    j = k + 1
    while j < len(events):
        e = events[j]
        if e["type"] in BOUNDARIES:
            break
        if e["use"] is None:
            if not (e["type"] == "effect_expired" and e["reason"] in DEFEAT_EXPIRIES):
                break
        elif e["use"] != use:
            break
        j += 1
    return j


@dataclass
class Use:
    """The first use of one of the card's abilities in a match."""

    which: str  # "main" | "faction"
    k: int  # index of its ability_used / faction_triggered event
    end: int  # end of its events
    actor: str
    chosen: str | None
    attacker: str | None
    line: str  # the actor's line when it is used

    def effects(self, card: CharacterCard) -> tuple[Effect, ...]:
        return card.main.effects if self.which == "main" else card.faction_ability.effects


def first_use(events: list[dict[str, Any]], actor: str, which: str) -> Use | None:
    kind = "ability_used" if which == "main" else "faction_triggered"
    k = next((i for i, e in enumerate(events) if e["type"] == kind and e["unit"] == actor), None)
    if k is None:
        return None
    e = events[k]
    attacker = None
    if which == "faction" and e["trigger"] == "on_hit":
        attacker = next(x["src"] for x in reversed(events[:k]) if x["type"] == "damage" and x["tgt"] == actor)
    line = board_at(events, k).units[actor].line
    return Use(which, k, block_end(events, k), actor, e.get("target"), attacker, line)


def predict(events: list[dict[str, Any]], board: Board, use: Use, card: CharacterCard) -> Prediction:
    """What the words of the used ability make happen on `board` (the board just before its effects)."""
    picks = [e for e in events[use.k + 1: use.end] if e["type"] == "pick"]
    reach_all = use.which == "main" and card.main.ignore_lines
    words = Words(board, use.actor, chosen=use.chosen, attacker=use.attacker, reach_all=reach_all, picks=picks)
    return words.run(use.effects(card))


def clean_and_visible(events: list[dict[str, Any]], use: Use, card: CharacterCard) -> bool:
    """Whether the use stands alone (no other ability answers it, the match goes on) and each of its
    effects changes something, as the words say it would."""
    after = events[use.end] if use.end < len(events) else {"type": "match_end"}
    if after["type"] == "match_end" or (after["type"] == "faction_triggered" and after["cause"] == events[use.k]["use"]):
        return False
    if any(e.get("use") == events[use.k]["use"] and e["type"] != "cooldown_started" for e in events[use.end:]):
        return False
    try:
        prediction = predict(events, board_at(events, use.k + 1), use, card)
    except Unpredictable:
        return False
    return all(prediction.changed)


# --- the matches ------------------------------------------------------------------------------------------


def army_with(card: CharacterCard, rng: random.Random) -> list[tuple[CharacterCard, str]]:
    """A legal army holding `card` first, filled from its own faction first (faction conditions need allies)."""
    faction = [c for c in CARDS if c.faction == card.faction]
    line = rng.choice([ln for ln in ("vanguard", "rearguard") if line_allows(card.position, ln)])
    army = [(card, line)]
    while len(army) < 7:
        pool = faction if legal_deployments(army, faction) else CARDS
        _, slug, line = rng.choice(legal_deployments(army, pool))
        army.append((next(c for c in CARDS if c.slug == slug), line))
    return army


class Eager:
    """The greedy agent, except that the card under test uses its main ability whenever it may (on a
    unit drawn with the agent's own generator): some abilities the greedy agent seldom values."""

    name = "eager"

    def __init__(self, actor: str) -> None:
        self.actor = actor
        self.greedy = GreedyAgent()

    def act(self, observation: Any, legal_actions: list, rng: random.Random) -> Any:
        me = observation.actor
        uses = [a for a in legal_actions if a[0] == "ability"]
        if me is not None and me.uid == self.actor and uses:
            return uses[rng.randrange(len(uses))]
        return self.greedy.act(observation, legal_actions, rng)


# The agents of the card's side and of the other side, by seed.
AGENTS = (("greedy", "greedy"), ("eager", "greedy"), ("random", "greedy"), ("eager", "random"), ("greedy", "random"))


class Replay:
    """An agent that takes again the decisions of a logged match (the first legal action once they no
    longer fit): the replay follows the original exactly for as long as nothing differs."""

    name = "replay"

    def __init__(self, events: list[dict[str, Any]], side: str) -> None:
        self.actions = [tuple(e["action"]) for e in events
                        if e["type"] == "decision" and e["player"] == side and len(e["legal"]) > 1]

    def act(self, observation: Any, legal_actions: list, rng: random.Random) -> Any:
        action = self.actions.pop(0) if self.actions else None
        return action if action in legal_actions else legal_actions[0]


def play(armies: dict[str, list], seed: int, agents: dict[str, Any]) -> MatchResult:
    return play_match("realms", setup={"armies": armies}, agents=agents, seed=seed, keep_log=True)


@dataclass
class Found:
    armies: dict[str, list]
    seed: int
    result: MatchResult
    actor: str
    main: Use
    faction: Use


def find_match(card: CharacterCard) -> Found | None:
    """The first seeded match in which the card's first main ability use and first faction ability
    firing each stand alone and visibly change the match."""
    rng = random.Random(card.slug)
    for seed in range(MAX_TRIES):
        armies = {"a": army_with(card, rng), "b": random_army(CARDS, rng)}
        mine, theirs = AGENTS[seed % len(AGENTS)]
        result = play(armies, seed, {"a": Eager("a1") if mine == "eager" else mine, "b": theirs})
        events = result.events
        actor = "a1"  # the card comes first in its army
        assert events[0]["units"][0]["card"] == card.slug
        main = first_use(events, actor, "main")
        fab = first_use(events, actor, "faction")
        if main and fab and clean_and_visible(events, main, card) and clean_and_visible(events, fab, card):
            return Found(armies, seed, result, actor, main, fab)
    return None


def inert(card: CharacterCard, use: Use) -> CharacterCard:
    """The card with the used ability's effects swapped for a move to the line the unit holds then
    (a fizzle): same name, choice, trigger, condition and limit, so the match runs the same way."""
    nothing = (Effect(kind="move", target="self", to=use.line),)
    if use.which == "main":
        return replace(card, main=replace(card.main, effects=nothing))
    return replace(card, faction_ability=replace(card.faction_ability, effects=nothing))


# --- what the log must show ----------------------------------------------------------------------------


def check_main_use(events: list[dict[str, Any]], use: Use, card: CharacterCard) -> None:
    """The decision offered the ability on the units its words allow (R12), and R13's cooldown."""
    board = board_at(events, use.k)
    decision = next(e for e in reversed(events[: use.k]) if e["type"] == "decision")
    assert decision["unit"] == use.actor and decision["action"] == ["ability", use.chosen]
    offered = sorted(x for kind, x in decision["legal"] if kind == "ability") if card.main.choose != "none" else None
    check_targets_offered(board, decision, offered, use, card)
    check_cooldown_after_use(events, use, card, board)


def check_targets_offered(board: Board, decision: dict[str, Any], offered: list | None, use: Use,
                          card: CharacterCard) -> None:
    """R12: the decision offered the ability on exactly the units its words allow."""
    actor = board.units[use.actor]
    foe = "b" if actor.side == "a" else "a"
    if card.main.choose == "enemy":
        pool = board.living(foe)
        front = [u for u in pool if u.line == "vanguard"]
        if actor.line == "vanguard" and front and not card.main.ignore_lines:
            pool = front  # R12: from the Vanguard, only the enemy Vanguard while it stands
        assert offered == sorted(u.uid for u in pool)
    elif card.main.choose == "ally":
        assert offered == sorted(u.uid for u in board.living(actor.side))
    else:
        assert ["ability", None] in decision["legal"] and use.chosen is None


def check_cooldown_after_use(events: list[dict[str, Any]], use: Use, card: CharacterCard, board: Board) -> None:
    """R13: the cooldown starts once the whole use has resolved: after its last effect and every ability it set off."""
    number = events[use.k]["use"]
    started = next(k for k, e in enumerate(events) if e["type"] == "cooldown_started" and e["use"] == number)
    assert started >= use.end and all(e.get("use") != number and e.get("cause") != number for e in events[started + 1:])
    assert events[started]["ready_after"] == max(events[started]["ready_before"], board.round) + card.cooldown


def check_faction_firing(events: list[dict[str, Any]], use: Use, card: CharacterCard) -> None:
    """The ability fired when its trigger words say, while its condition held, within its limit."""
    fab = card.faction_ability
    fired = events[use.k]
    assert fired["trigger"] == fab.trigger
    board = board_at(events, use.k)
    me = board.units[use.actor]
    check_condition_held(board, me, fab.condition)
    check_trigger_moment(events, use, fab, board, me)
    check_firing_limit(events, use, fab)


def check_condition_held(board: Board, me: Piece, cond: Any) -> None:
    """The faction ability's condition held when it fired: its line, its HP, its allies of the faction."""
    if cond.line:
        assert me.line == cond.line
    if cond.hp_below:
        assert me.hp < cond.hp_below * me.max_hp
    if cond.allies_same_faction_gte:
        others = [u for u in board.characters(me.side) if u.faction == me.faction and u is not me]
        assert len(others) >= cond.allies_same_faction_gte


def check_trigger_moment(events: list[dict[str, Any]], use: Use, fab: Any, board: Board, me: Piece) -> None:
    """The faction ability fired at the moment its trigger words say."""
    fired = events[use.k]
    before = events[: use.k]
    last = last_of_each(before)
    trigger = fab.trigger
    if trigger == "battle_start":
        assert last["round_start"] == -1
    elif trigger == "round_start":
        assert last["round_start"] > last["decision"] and board.round >= 1
    elif trigger == "before_action":
        check_fired_before_its_action(events, use)
    elif trigger == "after_action":
        assert before[last["decision"]]["unit"] == use.actor and before[last["decision"]]["stage"] == "act"
    elif trigger == "on_hit":
        check_fired_on_a_hit(before[last["damage"]], fired, use, board, me)
    elif trigger in ("ally_defeated", "enemy_defeated", "defeats_enemy"):
        check_fired_on_a_defeat(before[last["defeated"]], trigger, fab, use, board, me)
    elif trigger == "round_end":
        check_fired_at_round_end(events, use, last)


def last_of_each(before: list[dict[str, Any]]) -> dict[str, int]:
    """The index of the last round start, decision, damage, defeat and order before the firing (-1: none)."""
    return {t: max((i for i, e in enumerate(before) if e["type"] == t), default=-1)
            for t in ("round_start", "decision", "damage", "defeated", "order")}


def check_fired_at_round_end(events: list[dict[str, Any]], use: Use, last: dict[str, int]) -> None:
    """round_end: the round ends right after the firing, and someone acted in the round."""
    nxt = next(e for e in events[use.end:] if e["type"] in ("decision", "round_end", "round_start"))
    assert nxt["type"] == "round_end" and last["decision"] > last["round_start"]


def check_fired_before_its_action(events: list[dict[str, Any]], use: Use) -> None:
    """before_action: the unit's own turn to act follows, unless its ability felled it (R10)."""
    following = next(e for e in events[use.end:] if e["type"] == "decision")
    fallen = not board_at(events, use.end).units[use.actor].alive  # by its own ability (R10)
    assert fallen or (following["unit"] == use.actor and following["stage"] == "act")


def check_fired_on_a_hit(hit: dict[str, Any], fired: dict[str, Any], use: Use, board: Board, me: Piece) -> None:
    """on_hit: the last damage hit the unit, by an enemy's basic attack or ability, and caused the firing."""
    assert hit["tgt"] == use.actor and hit["via"] in ("basic", "ability") and fired["cause"] == hit["use"]
    assert board.units[hit["src"]].side != me.side


def check_fired_on_a_defeat(fallen: dict[str, Any], trigger: str, fab: Any, use: Use, board: Board,
                            me: Piece) -> None:
    """A defeat trigger: the last unit defeated was on the side its words say (and felled by the unit, if said)."""
    victim = board.units[fallen["unit"]]
    assert (victim.side == me.side) is (trigger == "ally_defeated") and victim is not me
    assert fab.include_summons or not victim.summon  # R18: characters, unless the text says "unit"
    if trigger == "defeats_enemy":
        assert fallen["by"] == use.actor


def check_firing_limit(events: list[dict[str, Any]], use: Use, fab: Any) -> None:
    """The faction ability fired within its limit: once a battle, or once a round."""
    firings = [e for e in events if e["type"] == "faction_triggered" and e["unit"] == use.actor]
    rounds = [board_at(events, events.index(e)).round for e in firings] if fab.limit == "round" else []
    if fab.limit == "battle":
        assert len(firings) == 1
    elif fab.limit == "round":
        assert len(rounds) == len(set(rounds))


def check_use(found: Found, use: Use, card: CharacterCard) -> None:
    events = found.result.events
    if use.which == "main":
        assert card.main.text == main_text(card.main)
        check_main_use(events, use, card)
    else:
        assert card.faction_ability.text == faction_text(card.faction_ability, FACTION_NAMES[card.faction])
        check_faction_firing(events, use, card)

    # The log shows what the words say, event for event.
    prediction = predict(events, board_at(events, use.k + 1), use, card)
    logged = [projected(e) for e in events[use.k + 1: use.end]]
    assert logged == prediction.events, f"{card.name}: the log of {use.which} differs from its text"
    assert all(prediction.changed)

    # The same match with the ability made inert: the same until the use, then less by what the text says.
    armies = {side: list(army) for side, army in found.armies.items()}
    armies["a"][0] = (inert(card, use), armies["a"][0][1])
    replay = play(armies, found.seed, {"a": Replay(events, "a"), "b": Replay(events, "b")})
    other = replay.events
    assert other[1: use.k + 1] == events[1: use.k + 1], f"{card.name}: the replay differs before the use"
    end = block_end(other, use.k)
    assert [projected(e) for e in other[use.k + 1: end]] == [("fizzle", "move", use.actor, "same_line")]
    without = board_at(other, end)
    with_text = copy.deepcopy(without)
    words = Words(with_text, use.actor, chosen=use.chosen, attacker=use.attacker,
                  reach_all=use.which == "main" and card.main.ignore_lines,
                  picks=[e for e in events[use.k + 1: use.end] if e["type"] == "pick"])
    words.run(use.effects(card))
    original = board_at(events, use.end).snapshot()
    assert original != without.snapshot(), f"{card.name}: the {use.which} ability changed nothing"
    assert with_text.snapshot() == original, f"{card.name}: the {use.which} ability did not do what its text says"


@pytest.mark.parametrize("card", CARDS, ids=[c.slug for c in CARDS])
def test_the_card_does_what_its_text_says(card: CharacterCard) -> None:
    found = find_match(card)
    assert found is not None, f"{card.name}: no match in {MAX_TRIES} where both abilities are used visibly"
    check_use(found, found.main, card)
    check_use(found, found.faction, card)


def test_the_model_of_the_words_catches_a_card_that_lies() -> None:
    """The check has teeth: a card whose ability does other than its words (a stronger hit) fails it."""
    card = next(c for c in CARDS if c.slug == "iron-guardian")
    found = find_match(card)
    assert found is not None
    stronger = tuple(replace(e, flat=e.flat + 3) for e in card.main.effects)
    liar = replace(card, main=replace(card.main, effects=stronger))
    armies = {side: list(army) for side, army in found.armies.items()}
    armies["a"][0] = (liar, armies["a"][0][1])
    replay = play(armies, found.seed, {"a": Replay(found.result.events, "a"), "b": Replay(found.result.events, "b")})
    with pytest.raises(AssertionError, match="the log of main differs from its text"):
        check_use(Found(armies, found.seed, replay, found.actor, found.main, found.faction), found.main, card)
