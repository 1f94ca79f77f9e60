"""Echo Realms agents: `greedy` (a one-step heuristic) and `search` (Monte Carlo look-ahead).

Both read the match only through the observation (G2) and draw randomness only from the
generator they are handed (G1). `random` comes from the shared core.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from realms.engine.observation import RealmsObservation, UnitInfo
from realms.engine.spec import Effect
from simulate.engine.agents import register_agent
from simulate.engine.rng import child_seed

RARITY_WEIGHT = {"common": 0.0, "uncommon": 2.0, "rare": 4.0, "legendary": 6.0}
KILL_BONUS = 0.5
PLAN_CACHE_SIZE = 4096


def _floor_scale(value: int, scale: float) -> int:
    """⌊value × scale⌋ (float is precise enough for a heuristic)."""
    return int(value * scale + 1e-9) if scale else 0


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
        if kind == "deploy":
            return self.deploy(observation, legal_actions)
        if kind == "stay" or kind == "switch":
            return self.flex(observation, legal_actions)
        # Same values as `scores`, inlined: this loop runs for every decision of every match.
        actor = observation.actor
        my_atk = actor.atk  # type: ignore[union-attr]
        best_target = None
        best_value = -1.0
        for t in observation.attack_targets():
            dmg = my_atk - t.def_
            if dmg < 1:
                dmg = 1
            ehp = t.hp + t.shield
            value = (t.atk + 1.0) * ((1.0 + KILL_BONUS) if dmg >= ehp else dmg / ehp)
            if value > best_value:
                best_target, best_value = t, value
        best = ("attack", best_target.uid) if best_target is not None else legal_actions[0]
        if legal_actions[-1][0] == "ability":
            ctx = _Context(observation, actor, observation.enemies())  # type: ignore[arg-type]
            for action in legal_actions:
                if action[0] == "ability":
                    value = ctx.ability_value(action[1])
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
        ctx: _Context | None = None
        for action in legal:
            kind, x = action
            if kind == "attack":
                out.append((attack_value[x], action))
            else:
                if ctx is None:
                    ctx = _Context(obs, actor, enemies)
                out.append((ctx.ability_value(x), action))
        return out

    @staticmethod
    def _damage_value(t: UnitInfo, dmg: int) -> float:
        """The value of dealing `dmg` to `t`: its threat times the share of its HP removed (a kill counts 1.5)."""
        ehp = t.hp + t.shield
        return threat(t) * ((1.0 + KILL_BONUS) if dmg >= ehp else dmg / ehp)  # same form as in act()


_CHOSEN_SELECTORS = ("target", "target_line")
_PLANS: dict[int, tuple[Any, tuple[Effect, ...], tuple[tuple[bool, bool, Effect], ...]]] = {}


def _plan(main: Any) -> tuple[tuple[Effect, ...], tuple[tuple[bool, bool, Effect], ...]]:
    """An ability's effects split into those that do not depend on the chosen unit and those that do
    (the latter as (is damage, reaches only the chosen unit, effect))."""
    entry = _PLANS.get(id(main))
    if entry is None or entry[0] is not main:
        if len(_PLANS) >= PLAN_CACHE_SIZE:
            _PLANS.clear()
        fixed = tuple(e for e in main.effects if e.kind == "summon" or e.target not in _CHOSEN_SELECTORS)
        chosen = tuple(
            (e.kind == "damage", e.target == "target", e)
            for e in main.effects
            if e.kind != "summon" and e.target in _CHOSEN_SELECTORS
        )
        entry = _PLANS[id(main)] = (main, fixed, chosen)  # holding `main` keeps its id unique
    return entry[1], entry[2]


class _Context:
    """What the greedy agent needs to value its ability at one decision (computed lazily)."""

    def __init__(self, obs: RealmsObservation, actor: UnitInfo, enemies: list[UnitInfo]) -> None:
        """Gather the decision's context; allies, lookups and averages are built only when needed."""
        self.obs = obs
        self.actor = actor
        self.side = actor.side
        self.my_atk = actor.atk
        self.round = obs.round
        self.enemies = enemies
        self._allies: list[UnitInfo] | None = None
        self._by_id: dict[str, UnitInfo] | None = None
        self.fixed, self.chosen = _plan(actor.main)
        self.static: float | None = None
        self._averages: tuple[float, float, float, float] | None = None

    @property
    def allies(self) -> list[UnitInfo]:
        """The actor's living allies (itself included)."""
        if self._allies is None:
            self._allies = self.obs.allies()
        return self._allies

    def unit(self, uid: str) -> UnitInfo:
        """A living unit of either side by id."""
        if self._by_id is None:
            self._by_id = {v.uid: v for v in self.enemies}
        found = self._by_id.get(uid)
        if found is None:
            self._by_id.update((v.uid, v) for v in self.allies)
            found = self._by_id[uid]
        return found

    def averages(self) -> tuple[float, float, float, float]:
        """Mean enemy HP, enemy threat, ally HP, ally threat."""
        if self._averages is None:
            en = self.enemies or [self.actor]
            al = self.allies or [self.actor]
            self._averages = (
                sum(v.hp + v.shield for v in en) / len(en),
                sum(v.atk + 1.0 for v in en) / len(en),
                sum(v.hp for v in al) / len(al),
                sum(v.atk + 1.0 for v in al) / len(al),
            )
        return self._averages

    def ability_value(self, chosen_id: str | None) -> float:
        """The ability's value with `chosen_id` picked: the chosen-independent part is computed once."""
        total = self.static
        if total is None:
            total = 0.0
            for eff in self.fixed:
                if eff.kind == "summon":
                    total += self._summon_value(eff)
                else:
                    for v, p in self.targets(eff.target, None):
                        total += p * self._effect_value(eff, v)
            self.static = total
        if chosen_id is None or not self.chosen:
            return total
        chosen = self.unit(chosen_id)
        for is_damage, single, eff in self.chosen:
            if single:
                targets: Sequence[UnitInfo] = (chosen,)
            else:
                line = chosen.line
                targets = [v for v in self.enemies if v.line == line]
            for v in targets:
                if is_damage and v.side != self.side:  # the common case, inlined
                    power = _floor_scale(self.my_atk, eff.scale) + eff.flat
                    dmg = power if eff.ignore_def else power - v.def_
                    if dmg < 1:
                        dmg = 1
                    ehp = v.hp + v.shield
                    total += (v.atk + 1.0) * ((1.0 + KILL_BONUS) if dmg >= ehp else dmg / ehp)
                else:
                    total += self._effect_value(eff, v)
        return total

    def _summon_value(self, eff: Effect) -> float:
        """The value of a summon: its expected damage over a few rounds against the average enemy."""
        unit = eff.unit
        if unit is None:
            return 0.0
        enemy_hp, enemy_threat, _, _ = self.averages()
        hits = min(3.0, unit.hp / max(1.0, enemy_threat))
        return eff.count * (unit.atk + 1.0) * hits * enemy_threat / max(1.0, enemy_hp)

    def targets(self, sel: str, chosen: UnitInfo | None) -> list[tuple[UnitInfo, float]]:
        """The units an effect would reach, each with the chance it does (random picks spread out)."""
        actor = self.actor
        if sel == "target":
            return [(chosen, 1.0)] if chosen is not None else []
        if sel == "self":
            return [(actor, 1.0)]
        if sel == "all_enemies":
            return [(v, 1.0) for v in self.enemies]
        if sel == "all_allies":
            return [(v, 1.0) for v in self.allies]
        if sel == "other_allies":
            return [(v, 1.0) for v in self.allies if v.uid != actor.uid]
        if sel == "target_line":
            if chosen is None:
                return []
            return [(v, 1.0) for v in self.enemies if v.line == chosen.line]
        if sel == "enemy_vanguard":
            return [(v, 1.0) for v in self.enemies if v.line == "vanguard"]
        if sel == "enemy_rearguard":
            return [(v, 1.0) for v in self.enemies if v.line == "rearguard"]
        if sel == "ally_vanguard":
            return [(v, 1.0) for v in self.allies if v.line == "vanguard"]
        if sel == "ally_rearguard":
            return [(v, 1.0) for v in self.allies if v.line == "rearguard"]
        if sel == "random_enemy" and self.enemies:
            return [(v, 1.0 / len(self.enemies)) for v in self.enemies]
        if sel == "random_ally" and self.allies:
            return [(v, 1.0 / len(self.allies)) for v in self.allies]
        if sel == "lowest_hp_enemy" and self.enemies:
            return [(min(self.enemies, key=lambda v: v.hp), 1.0)]
        if sel == "lowest_hp_ally" and self.allies:
            return [(min(self.allies, key=lambda v: v.hp), 1.0)]
        if sel == "highest_atk_enemy" and self.enemies:
            return [(max(self.enemies, key=lambda v: v.atk), 1.0)]
        return []

    def _effect_value(self, eff: Effect, v: UnitInfo) -> float:
        """The value of one effect on one unit, in 'threat removed' units like a basic attack."""
        kind = eff.kind
        enemy = v.side != self.side
        th = v.atk + 1.0
        if kind == "damage":
            power = _floor_scale(self.my_atk, eff.scale) + eff.flat
            dmg = power if eff.ignore_def else power - v.def_
            if dmg < 1:
                dmg = 1
            if not enemy:
                return -0.5 * th * min(dmg, v.hp) / v.max_hp
            ehp = v.hp + v.shield
            return th * ((1.0 + KILL_BONUS) if dmg >= ehp else dmg / ehp)
        if kind == "buff" or kind == "debuff":
            sign = 1.0 if (kind == "buff") != enemy else -1.0
            span = eff.amount * eff.duration
            if eff.stat == "atk":
                enemy_hp, enemy_threat, ally_hp, ally_threat = self.averages()
                if enemy:  # their hits on us change
                    return sign * span * ally_threat / max(1.0, ally_hp)
                return sign * span * enemy_threat / max(1.0, enemy_hp)  # our hits on them change
            if eff.stat == "def":
                if enemy:  # our hits on them change
                    return sign * span * 1.5 * th / (v.hp + v.shield)
                return sign * span * th / v.max_hp
            return sign * 0.05 * span
        rounds_left = eff.duration - 1 if eff.duration > 1 else 0
        if kind == "poison" or kind == "burn":
            total = eff.amount * rounds_left
            if not enemy:
                return -0.5 * total * th / v.max_hp
            return th * min(total, v.hp) / (v.hp + v.shield)
        if kind == "heal" or kind == "regen":
            if enemy:
                return 0.0
            if kind == "heal":
                amount = _floor_scale(self.my_atk, eff.scale) + eff.flat + _floor_scale(v.max_hp, eff.max_hp_fraction)
            else:
                amount = eff.amount * rounds_left
            missing = v.max_hp - v.hp
            urgency = 2.0 if v.hp * 5 < v.max_hp * 2 else 1.0
            return urgency * th * (amount if amount < missing else missing) / v.max_hp
        if kind == "shield":
            if enemy:
                return 0.0
            points = _floor_scale(self.my_atk, eff.scale) + eff.flat
            return (1.5 if v.hp * 2 < v.max_hp else 0.6) * th * points / v.max_hp
        if kind == "silence":
            if not enemy or v.main is None:
                return 0.0
            return 0.3 * th if v.ready_round <= self.round + eff.duration else 0.05
        if kind == "cooldown":
            if v.main is None:
                return 0.0
            if enemy:
                return 0.15 * eff.amount * th
            return 0.15 * min(-eff.amount, max(0, v.ready_round - self.round)) * th
        if kind == "move":
            if enemy:
                return 0.1 * th if v.line == "rearguard" else 0.0
            return 0.05 if v.hp * 2 < v.max_hp and v.line == "vanguard" else 0.0
        if kind == "cleanse":
            return 0.0 if enemy else 0.2 * v.debuffs
        if kind == "dispel":
            return 0.2 * v.buffs if enemy else 0.0
        return 0.0


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
