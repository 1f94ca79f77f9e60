"""Echo Realms agents: `greedy` (a one-step heuristic) and `search` (Monte Carlo look-ahead).

Both read the match only through the observation (G2) and draw randomness only from the
generator they are handed (G1). `random` comes from the shared core.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from typing import Any, NamedTuple

from realms.engine.observation import RealmsObservation, UnitInfo
from realms.engine.spec import Effect
from simulate.engine.agents import register_agent
from simulate.engine.rng import child_seed

RARITY_WEIGHT = {"common": 0.0, "uncommon": 2.0, "rare": 4.0, "legendary": 6.0}
KILL_BONUS = 0.5
KILL = 1.0 + KILL_BONUS  # the factor of a blow that defeats its target
PLAN_CACHE_SIZE = 4096


def threat(v: UnitInfo) -> float:
    """How much a unit matters: its effective ATK plus a little for simply being there."""
    return v.atk + 1.0


def card_value(card: Any) -> float:
    """A card's raw strength for the Formation Round (damage counts most: walls alone never win)."""
    return card.atk * 2.0 + card.def_ * 0.8 + card.hp / 4.0 + card.spd * 0.6 + RARITY_WEIGHT.get(card.rarity, 0.0)


class GreedyAgent:
    """Focus fire on the threat it can remove fastest; use the ability when it is worth more; heal the hurt."""

    name = "greedy"

    def act(self, observation: RealmsObservation, legal_actions: Sequence[Any], rng: random.Random) -> Any:
        """The legal action with the best one-step heuristic value (first one on ties)."""
        kind = legal_actions[0][0]
        if kind != "attack":
            if kind == "deploy":
                return self.deploy(observation, legal_actions)
            if kind == "stay" or kind == "switch":
                return self.flex(observation, legal_actions)
        # Same values as `scores`, inlined: this loop runs for every decision of every match.
        actor, targets = observation.actor_and_targets()
        my_atk = actor.atk  # type: ignore[union-attr]
        best_target = None
        best_value = -1.0
        for t in targets:
            dmg = my_atk - t.def_
            if dmg < 1:
                dmg = 1
            ehp = t.hp + t.shield
            value = (t.atk + 1.0) * (KILL if dmg >= ehp else dmg / ehp)
            if value > best_value:
                best_target, best_value = t, value
        best = ("attack", best_target.uid) if best_target is not None else legal_actions[0]
        if legal_actions[-1][0] != "ability":
            return best
        main = actor.main  # type: ignore[union-attr]
        plan = _PLANS.get(id(main))
        if plan is None or plan.main is not main:
            plan = _plan(main)
        side = actor.side  # type: ignore[union-attr]
        rnd = observation.round if plan.needs_round else 0
        enemies = observation.enemies() if plan.needs_enemies else None
        allies = observation.allies() if plan.needs_allies else None
        averages = _averages(actor, enemies, allies) if plan.needs_averages else None  # type: ignore[arg-type]
        static = plan.static(side, my_atk, rnd, actor, enemies, allies, averages)
        if not plan.has_chosen:  # every ability action is worth the same: the first one stands for all
            if static > best_value:
                for action in legal_actions:
                    if action[0] == "ability":
                        return action
            return best
        # The chosen units usually come in the order of the attack targets (enemies) or allies.
        hint = targets if plan.choose_enemy else allies or observation.allies()
        n_hint = len(hint)
        k = 0
        chosen_value = plan.chosen
        for action in legal_actions:
            if action[0] == "ability":
                x = action[1]
                if x is None:
                    value = static
                else:
                    if k < n_hint and hint[k].uid == x:
                        v = hint[k]
                        k += 1
                    else:
                        v = observation.unit(x)
                    value = chosen_value(side, my_atk, rnd, actor, enemies, allies, averages, static, v)
                if value > best_value:
                    best, best_value = action, value
        return best

    def deploy(self, obs: RealmsObservation, legal: Sequence[Any]) -> Any:
        """Deploy the strongest card still allowed, one or two tanks up front; flex cards go to the rearguard."""
        cards = {c.slug: c for c in obs.collection()}
        mine = obs.deployed()
        tanks = sum(1 for c, _ in mine if c.character_class == "tank")
        front = sum(1 for _, line in mine if line == "vanguard")
        best = legal[0]
        best_value = float("-inf")
        for action in legal:
            _, slug, line = action
            card = cards[slug]
            value = card_value(card)
            if card.character_class == "tank":
                value += 6.0 if tanks == 0 else -8.0 * tanks
            if line == "vanguard" and front >= 3:
                value -= 4.0
            if card.position == "flex" and line == "rearguard":
                value += 0.1
            if value > best_value:
                best, best_value = action, value
        return best

    def flex(self, obs: RealmsObservation, legal: Sequence[Any]) -> Any:
        """An Assassin moves back to the rearguard while another ally still holds the vanguard."""
        actor = obs.actor
        for action in legal:
            if action[0] == "switch" and action[1] == "rearguard" and actor is not None:
                holders = sum(1 for v in obs.allies() if v.line == "vanguard" and v.uid != actor.uid)
                if holders > 0:
                    return action
        return legal[0]

    def scores(self, obs: RealmsObservation, legal: Sequence[Any]) -> list[tuple[float, Any]]:
        """Every legal action of a unit's turn with its heuristic value."""
        actor = obs.actor
        assert actor is not None
        enemies = obs.enemies()
        my_atk = actor.atk
        attack_value: dict[str, float] = {}
        for t in enemies:
            dmg = my_atk - t.def_
            attack_value[t.uid] = self._damage_value(t, dmg if dmg > 1 else 1)
        out: list[tuple[float, Any]] = []
        static: float | None = None
        for action in legal:
            kind, x = action
            if kind == "attack":
                out.append((attack_value[x], action))
                continue
            if static is None:
                plan = _plan(actor.main)
                side, rnd = actor.side, obs.round
                allies = obs.allies() if plan.needs_allies else None
                averages = _averages(actor, enemies, allies) if plan.needs_averages else None  # type: ignore[arg-type]
                static = plan.static(side, my_atk, rnd, actor, enemies, allies, averages)
            if x is None or not plan.has_chosen:
                out.append((static, action))
            else:
                value = plan.chosen(side, my_atk, rnd, actor, enemies, allies, averages, static, obs.unit(x))
                out.append((value, action))
        return out

    @staticmethod
    def _damage_value(t: UnitInfo, dmg: int) -> float:
        """The value of dealing `dmg` to `t`: its threat times the share of its HP removed (a kill counts 1.5)."""
        ehp = t.hp + t.shield
        return threat(t) * ((1.0 + KILL_BONUS) if dmg >= ehp else dmg / ehp)  # same form as in act()


# ---------------------------------------------------------------- ability valuation
#
# The greedy agent values a Main Ability effect by effect (see `_VALUE` below for each kind).
# Each ability is compiled once into two small Python functions, with the effect parameters as
# constants and the loops over the reached units written out, so that valuing an ability at a
# decision is a single call with no per-unit dispatch. The arithmetic of every value, and the
# order in which the values are summed, are those of the per-effect formulas below.

# Value of one effect on the unit `v`, as statements assigning `val`: (on an enemy, on an ally).
# Names available: `side` (the actor's side), `rnd` (the round), `enemy_hp`, `enemy_threat`,
# `ally_hp`, `ally_threat` (the averages), `p{i}` (⌊ATK × scale⌋ + flat of effect i) and the
# effect's constants. A unit's threat is its ATK + 1.
_VALUE: dict[str, tuple[str, str]] = {
    # Threat times the share of HP + shield removed (a kill counts 1.5); hurting an ally costs.
    "damage": (
        """
dmg = {power}
if dmg < 1:
    dmg = 1
ehp = v.hp + v.shield
val = (v.atk + 1.0) * (KILL if dmg >= ehp else dmg / ehp)
""",
        """
dmg = {power}
if dmg < 1:
    dmg = 1
val = -0.5 * (v.atk + 1.0) * min(dmg, v.hp) / v.max_hp
""",
    ),
    # A stat change by its size and duration, valued by whose hits it changes: ATK changes their
    # hits on us (enemy) or ours on them (ally), DEF the other way round.
    "modifier_atk": (
        "val = {enemy_sign} * {span} * ally_threat / max(1.0, ally_hp)\n",
        "val = {ally_sign} * {span} * enemy_threat / max(1.0, enemy_hp)\n",
    ),
    "modifier_def": (
        "val = {enemy_sign} * {span} * 1.5 * (v.atk + 1.0) / (v.hp + v.shield)\n",
        "val = {ally_sign} * {span} * (v.atk + 1.0) / v.max_hp\n",
    ),
    "modifier_spd": (
        "val = {enemy_sign} * 0.05 * {span}\n",
        "val = {ally_sign} * 0.05 * {span}\n",
    ),
    # Damage over the coming start phases.
    "ongoing": (
        "val = (v.atk + 1.0) * min({total}, v.hp) / (v.hp + v.shield)\n",
        "val = -0.5 * {total} * (v.atk + 1.0) / v.max_hp\n",
    ),
    # Healing of what is missing, doubled on an ally below 40 %.
    "heal": (
        "val = 0.0\n",
        """
amount = {amount}
missing = v.max_hp - v.hp
urgency = 2.0 if v.hp * 5 < v.max_hp * 2 else 1.0
val = urgency * (v.atk + 1.0) * (amount if amount < missing else missing) / v.max_hp
""",
    ),
    # Shield points, worth more on an ally below half HP.
    "shield": (
        "val = 0.0\n",
        "val = (1.5 if v.hp * 2 < v.max_hp else 0.6) * (v.atk + 1.0) * {power} / v.max_hp\n",
    ),
    # An enemy ability kept from use.
    "silence": (
        "val = 0.0 if v.main is None else (0.3 * (v.atk + 1.0) if v.ready_round <= rnd + {duration} else 0.05)\n",
        "val = 0.0\n",
    ),
    # Readiness shifted: later for an enemy, sooner for an ally.
    "cooldown": (
        "val = 0.0 if v.main is None else 0.15 * {amount} * (v.atk + 1.0)\n",
        "val = 0.0 if v.main is None else 0.15 * min({neg_amount}, max(0, v.ready_round - rnd)) * (v.atk + 1.0)\n",
    ),
    # An enemy pulled out of the rearguard, a hurt ally out of the vanguard.
    "move": (
        'val = 0.1 * (v.atk + 1.0) if v.line == "rearguard" else 0.0\n',
        'val = 0.05 if v.hp * 2 < v.max_hp and v.line == "vanguard" else 0.0\n',
    ),
    "cleanse": ("val = 0.0\n", "val = 0.2 * v.debuffs\n"),
    "dispel": ("val = 0.2 * v.buffs\n", "val = 0.0\n"),
    "none": ("val = 0.0\n", "val = 0.0\n"),
}
_ZERO = "val = 0.0\n"

# Which units a chosen-independent effect reaches: (unit list, only this line, leaves out the actor).
_GROUPS = {
    "all_enemies": ("enemies", "", False),
    "enemy_vanguard": ("enemies", "vanguard", False),
    "enemy_rearguard": ("enemies", "rearguard", False),
    "all_allies": ("allies", "", False),
    "other_allies": ("allies", "", True),
    "ally_vanguard": ("allies", "vanguard", False),
    "ally_rearguard": ("allies", "rearguard", False),
}
_POWER_KINDS = ("damage", "heal", "shield")


class _EffectCode(NamedTuple):
    """One effect's value as source: on an enemy, on an ally; whether `v` matters beyond its side."""

    enemy: str
    ally: str
    per_unit: bool
    averages: bool


def _indent(code: str, depth: int) -> str:
    """`code` indented by `depth` levels."""
    pad = "    " * depth
    return "".join(pad + line + "\n" for line in code.strip("\n").splitlines())


def _effect_code(eff: Effect, i: int) -> _EffectCode:
    """The statements valuing effect `i` on `v` (assigning `val`)."""
    kind = eff.kind
    if kind in ("buff", "debuff"):
        buff = kind == "buff"
        stat = eff.stat if eff.stat in ("atk", "def") else "spd"
        enemy, ally = _VALUE["modifier_" + stat]
        signs = {
            "enemy_sign": "-1.0" if buff else "1.0",  # a buff on an enemy, a debuff on an ally: a loss
            "ally_sign": "1.0" if buff else "-1.0",
            "span": repr(eff.amount * eff.duration),
        }
        return _EffectCode(enemy.format(**signs), ally.format(**signs), stat == "def", stat == "atk")
    rounds_left = eff.duration - 1 if eff.duration > 1 else 0
    params: dict[str, str] = {}
    if kind in ("poison", "burn"):
        kind, params["total"] = "ongoing", repr(eff.amount * rounds_left)
    elif kind == "damage":
        params["power"] = f"p{i}" if eff.ignore_def else f"p{i} - v.def_"
    elif kind == "heal":
        part = f"int(v.max_hp * {eff.max_hp_fraction!r} + 1e-9)" if eff.max_hp_fraction else "0"
        params["amount"] = f"p{i} + {part}"
    elif kind == "regen":
        kind, params["amount"] = "heal", repr(eff.amount * rounds_left)
    elif kind == "shield":
        params["power"] = f"p{i}"
    elif kind == "silence":
        params["duration"] = repr(eff.duration)
    elif kind == "cooldown":
        params["amount"], params["neg_amount"] = repr(eff.amount), repr(-eff.amount)
    enemy, ally = _VALUE.get(kind, _VALUE["none"])
    return _EffectCode(enemy.format(**params), ally.format(**params), True, False)


def _reach_code(sel: str, code: _EffectCode) -> tuple[str, set[str]]:
    """An effect's value summed over the units a chosen-independent selector reaches (a random pick
    counts each candidate by its chance), and the unit lists it reads. Adding 0.0 changes nothing,
    so an effect worth nothing on the units it reaches is left out."""
    if sel == "self":
        return ("v = actor\n" + code.ally + "total += val\n", set()) if code.ally != _ZERO else ("", set())
    if sel in _GROUPS:
        units, line, others = _GROUPS[sel]
        body = code.enemy if units == "enemies" else code.ally
        if body == _ZERO:
            return "", set()
        test = " and ".join(([f"v.line == {line!r}"] if line else []) + (["v.uid != actor.uid"] if others else []))
        if code.per_unit:
            inner = _indent(body + "total += val\n", 2 if test else 1)
            return f"for v in {units}:\n" + (f"    if {test}:\n" if test else "") + inner, {units}
        # The same value for every unit reached: worked out once, added once per unit.
        add = _indent("total += val\n", 2 if test else 1)
        return body + f"for v in {units}:\n" + (f"    if {test}:\n" if test else "") + add, {units}
    if sel in ("random_enemy", "random_ally"):
        units = "enemies" if sel == "random_enemy" else "allies"
        body = code.enemy if units == "enemies" else code.ally
        if body == _ZERO:
            return "", set()
        inner = _indent(body + "total += p * val\n", 2)
        return f"if {units}:\n    p = 1.0 / len({units})\n    for v in {units}:\n" + inner, {units}
    if sel in ("lowest_hp_enemy", "lowest_hp_ally", "highest_atk_enemy"):
        units = "allies" if sel.endswith("ally") else "enemies"
        body = code.enemy if units == "enemies" else code.ally
        if body == _ZERO:
            return "", set()
        better = "w.hp < v.hp" if sel.startswith("lowest") else "w.atk > v.atk"  # first one on ties
        pick = f"v = {units}[0]\nfor w in {units}:\n    if {better}:\n        v = w\n"
        return f"if {units}:\n" + _indent(pick + body + "total += val\n", 1), {units}
    return "", set()  # "attacker" reaches no one outside a faction ability


def _chosen_code(sel: str, code: _EffectCode) -> tuple[str, set[str]]:
    """An effect's value on the chosen unit (any side), or on every enemy of the chosen unit's line."""
    if sel == "target":
        return (
            "v = chosen\nif enemy:\n" + _indent(code.enemy + "total += val\n", 1)
            + "else:\n" + _indent(code.ally + "total += val\n", 1)
        ), set()
    inner = _indent(code.enemy + "total += val\n", 2)
    return "line = chosen.line\nfor v in enemies:\n    if v.line == line:\n" + inner, {"enemies"}


def _summon_code(eff: Effect) -> str:
    """A summon: its expected damage over a few rounds against the average enemy."""
    unit = eff.unit
    if unit is None:
        return ""
    return (
        f"hits = min(3.0, {unit.hp!r} / max(1.0, enemy_threat))\n"
        f"total += {eff.count!r} * ({unit.atk!r} + 1.0) * hits * enemy_threat / max(1.0, enemy_hp)\n"
    )


_SIGNATURE = "side, my_atk, rnd, actor, enemies, allies, averages"


def _function(name: str, body: str, powers: list[str], averages: bool) -> str:
    """The source of `static` or `chosen`: the powers and averages its body reads, then the body."""
    prelude = "".join(line for line in powers if re.search(rf"\b{line.split()[0]}\b", body))
    if averages and "_threat" in body:
        prelude = "enemy_hp, enemy_threat, ally_hp, ally_threat = averages\n" + prelude
    if name == "chosen" and "if enemy:" in body:
        prelude += "enemy = chosen.side != side\n"
    args = _SIGNATURE + (", total, chosen" if name == "chosen" else "")
    return f"def {name}({args}):\n" + _indent(prelude + body + "return total\n", 1)


class _Plan:
    """A Main Ability compiled for the greedy heuristic.

    `static(side, my_atk, rnd, actor, enemies, allies, averages)` is the value of the effects that
    do not depend on the chosen unit; `chosen(<the same>, total, unit)` adds to `total` those that
    do, for `unit` chosen.
    `enemies` and `allies` (lists of UnitInfo) are needed only when `needs_enemies` / `needs_allies`,
    `averages` (see `_averages`) only when `needs_averages`.
    """

    __slots__ = ("main", "static", "chosen", "has_chosen", "choose_enemy", "needs_enemies", "needs_allies",
                 "needs_averages", "needs_round", "source")

    def __init__(self, main: Any) -> None:
        """Write and compile both functions for `main`."""
        self.main = main  # holding `main` keeps its id unique while the plan is cached
        powers: list[str] = []
        fixed: list[str] = []
        chosen: list[str] = []
        lists: set[str] = set()
        averages = False
        for i, eff in enumerate(main.effects):
            if eff.kind in _POWER_KINDS:
                scaled = f"int(my_atk * {eff.scale!r} + 1e-9) + " if eff.scale else ""
                powers.append(f"p{i} = {scaled}{eff.flat!r}\n")
            if eff.kind == "summon":
                fixed.append(_summon_code(eff))
                averages = True
                continue
            code = _effect_code(eff, i)
            averages = averages or code.averages
            if eff.target in ("target", "target_line"):
                text, used = _chosen_code(eff.target, code)
                chosen.append(text)
            else:
                text, used = _reach_code(eff.target, code)
                fixed.append(text)
            lists |= used
        if averages:
            lists |= {"enemies", "allies"}
        source = _function("static", "total = 0.0\n" + "".join(fixed), powers, averages) + "\n\n" + _function(
            "chosen", "".join(chosen), powers, averages
        )
        namespace: dict[str, Any] = {"KILL": KILL}
        code = compile(source, f"<greedy plan: {main.name}>", "exec")
        exec(code, namespace)  # our own template, built above
        self.static = namespace["static"]
        self.chosen = namespace["chosen"]
        self.has_chosen = bool(chosen)
        self.choose_enemy = main.choose == "enemy"
        self.needs_enemies = "enemies" in lists
        self.needs_allies = "allies" in lists
        self.needs_averages = averages
        self.needs_round = any(eff.kind in ("silence", "cooldown") for eff in main.effects)  # they read `rnd`
        self.source = source  # kept for reading what was compiled


_PLANS: dict[int, _Plan] = {}


def _plan(main: Any) -> _Plan:
    """The compiled plan of an ability (cached by identity)."""
    plan = _PLANS.get(id(main))
    if plan is None or plan.main is not main:
        if len(_PLANS) >= PLAN_CACHE_SIZE:
            _PLANS.clear()
        plan = _PLANS[id(main)] = _Plan(main)
    return plan


def _averages(actor: UnitInfo, enemies: list[UnitInfo], allies: list[UnitInfo]) -> tuple[float, float, float, float]:
    """Mean enemy HP + shield, enemy threat (ATK + 1), ally HP, ally threat; an empty side counts as the actor."""
    en = enemies or [actor]
    al = allies or [actor]
    # Integer sums are exact, so the means do not depend on the order of summation.
    hp = atk = 0
    for v in en:
        hp += v.hp + v.shield
        atk += v.atk
    a_hp = a_atk = 0
    for v in al:
        a_hp += v.hp
        a_atk += v.atk
    n, m = len(en), len(al)
    return hp / n, (atk + n) / n, a_hp / m, (a_atk + m) / m


class SearchAgent:
    """Monte Carlo look-ahead: each promising action is played out with greedy play for both sides.

    Budget: the `max_candidates` best actions by the greedy heuristic (greedy's own choice always
    among them), each played out `rollouts` times to the end of the match (or `horizon` rounds,
    then judged on remaining strength). Playouts run on sandbox copies seeded from the match
    generator, so a match stays reproducible from its seed (G1).
    """

    name = "search"

    def __init__(self, rollouts: int = 3, max_candidates: int = 6, horizon: int = 3) -> None:
        """A search agent with its budget (playouts per candidate, candidates, rounds looked ahead)."""
        self.rollouts = rollouts
        self.max_candidates = max_candidates
        self.horizon = horizon
        self.greedy = GreedyAgent()

    def act(self, observation: RealmsObservation, legal_actions: Sequence[Any], rng: random.Random) -> Any:
        """The candidate action with the best mean playout value."""
        kind = legal_actions[0][0]
        if kind == "deploy":
            return self.greedy.deploy(observation, legal_actions)
        if kind == "stay" or kind == "switch":
            candidates = list(legal_actions)
        else:
            scored = self.greedy.scores(observation, legal_actions)
            order = sorted(range(len(scored)), key=lambda i: -scored[i][0])
            candidates = [scored[i][1] for i in order[: self.max_candidates]]
        me = observation.player
        # Common random numbers: every candidate is played out under the same seeds.
        seeds = [child_seed(rng) for _ in range(self.rollouts)]
        best = candidates[0]
        best_value = float("-inf")
        for action in candidates:
            value = 0.0
            for seed in seeds:
                sim = observation.sandbox(seed)
                sim.apply(action)
                value += self._playout(sim, me)
            if value > best_value + 1e-9:
                best, best_value = action, value
        return best

    def _playout(self, sim: Any, me: str) -> float:
        """Greedy play for both sides to the end or the horizon; a win is worth 1, a draw 0.5, else material."""
        greedy = self.greedy
        stop_round = sim.round + self.horizon
        rng = sim.rng
        while not sim.is_terminal() and sim.round < stop_round:
            legal = sim.legal_actions()
            if len(legal) == 1:
                sim.apply(legal[0])
            else:
                sim.apply(greedy.act(sim.observation(sim.current_player()), legal, rng))
        view = sim.observation(me)
        mine = material(view.allies())
        theirs = material(view.enemies())
        share = mine / (mine + theirs) if mine + theirs > 0 else 0.5
        if sim.is_terminal():
            winner = sim.outcome().winner
            if winner is None:
                return 0.5
            return (1.0 if winner == me else 0.0) + 0.1 * share
        return 0.1 + 0.8 * share


def material(units: Sequence[UnitInfo]) -> float:
    """A side's remaining strength: each unit's fighting value times its share of HP left."""
    total = 0.0
    for v in units:
        total += (v.atk + 0.5 * v.def_ + 2.0) * (0.5 + 0.5 * min(1.0, (v.hp + v.shield) / v.max_hp))
    return total


register_agent("greedy", description="One-step heuristic: focus fire, abilities when worth it, heals.", game="realms")(
    GreedyAgent
)
register_agent(
    "search", description="Monte Carlo look-ahead over the best greedy candidates, greedy playouts.", game="realms"
)(SearchAgent)
