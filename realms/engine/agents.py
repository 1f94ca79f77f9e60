"""Echo Realms agents: `greedy` (a one-step heuristic), `softmax` (greedy's values, each action drawn with
probability proportional to exp(value / T)) and `search` (Monte Carlo look-ahead).

All read the match only through the observation (G2) and draw randomness only from the
generator they are handed (G1). `random` comes from the shared core.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Final

from realms.engine import selectors
from realms.engine.cards import CharacterCard
from realms.engine.combat import damage_dealt
from realms.engine.effects import KINDS
from realms.engine.effects.base import Effect, EffectKind, ValueContext
from realms.engine.effects.damage import blow_value
from realms.engine.observation import RealmsObservation, UnitInfo
from realms.engine.selectors import (
    ALLIES,
    CHOSEN_LINE,
    ENEMIES,
    NO_UNITS,
    PICK_HIGHEST_ATK,
    PICK_RANDOM,
    SEL_GROUP,
    SEL_NONE,
    SEL_SELF,
    SEL_TARGET,
    Selector,
)
from realms.engine.spec import MainAbility
from realms.engine.units import fraction
from simulate.engine.agents import best_scored, register_agent, softmax_choice
from simulate.engine.budget import LookaheadBudget
from simulate.engine.rng import child_seed

RARITY_WEIGHT: Final = {"common": 0.0, "uncommon": 2.0, "rare": 4.0, "legendary": 6.0}
PLAN_CACHE_SIZE = 4096
# The search agent's budget, in decisions simulated in its look-ahead (never in time, G1): for one decision,
# and for one seat over a whole match (above what the longest ordinary matches spend: at most 40,214 in 40 seats of
# random legal armies, so that the budget binds only in matches that stall).
DECISION_BUDGET: Final = 600
MATCH_BUDGET: Final = 60_000
# The softmax agent's temperature, in greedy's units (a blow is worth the target's ATK + 1 times the share of its HP
# removed): chosen so that a matchup of two fixed armies plays a spread of plausible matches (docs/simulate.md).
SOFTMAX_TEMPERATURE: Final = 1.0


def card_value(card: CharacterCard) -> float:
    """A card's raw strength for the Formation Round (damage counts most: walls alone never win)."""
    return card.atk * 2.0 + card.def_ * 0.8 + card.hp / 4.0 + card.spd * 0.6 + RARITY_WEIGHT.get(card.rarity, 0.0)


class GreedyAgent:
    """Focus fire on the threat it can remove fastest; use the ability when it is worth more; heal the hurt."""

    name = "greedy"

    def act(self, observation: RealmsObservation, legal_actions: Sequence[Any], rng: random.Random) -> Any:
        """The legal action with the best one-step heuristic value (first one on ties)."""
        # A list, as the match hands it (compiled, read natively); any other sequence is copied into one.
        legal: list[Any] = legal_actions if isinstance(legal_actions, list) else list(legal_actions)
        kind = kind_of(legal[0])
        if kind != "attack":
            if kind == "deploy":
                return self.deploy(observation, legal)
            if kind == "stay" or kind == "switch":
                return self.flex(observation, legal)
        actor = observation.actor
        targets = observation.targets
        assert actor is not None  # an action decision has its acting unit
        my_atk = actor.atk
        k = best_blow_index(my_atk, targets)
        if k < 0:
            best = legal[0]
            best_value = -1.0
        else:
            target = targets[k]
            best_value = blow_value(damage_dealt(my_atk, target.def_), target)
            best = attack_on(legal, k, target.uid)
        if kind_of(legal[-1]) != "ability":
            return best
        return self.with_ability(observation, legal, actor, targets, best, best_value)

    def with_ability(
        self, observation: RealmsObservation, legal_actions: list[Any], actor: UnitInfo,
        targets: tuple[UnitInfo, ...], best: Any, best_value: float,
    ) -> Any:
        """The best of the Basic Attack `best` (worth `best_value`) and the Main Ability's actions."""
        main = actor.main
        assert main is not None  # the ability is legal only for a character
        plan = _plan(main)
        my_atk = actor.atk
        rnd = observation.round if plan.needs_round else 0
        enemies = observation.enemies() if plan.needs_enemies else None
        allies = observation.allies() if plan.needs_allies else None
        averages = _averages(actor, enemies or [], allies or []) if plan.needs_averages else None
        ctx = ValueContext(actor.side, rnd, averages)
        static = plan.static(ctx, my_atk, actor, enemies, allies)
        if not plan.has_chosen:  # every ability action is worth the same: the first one stands for all
            return first_ability(legal_actions) if static > best_value else best
        # The chosen units usually come in the order of the attack targets, or of every enemy for an ability that
        # ignores the lines (R12), or of the allies.
        if plan.choose_enemy:
            hint = tuple(enemies or observation.enemies()) if plan.ignore_lines else targets
        else:
            hint = tuple(allies or observation.allies())
        return best_aimed(plan, ctx, my_atk, enemies, static, hint, observation, legal_actions, best, best_value)

    def deploy(self, obs: RealmsObservation, legal: Sequence[Any]) -> Any:
        """Deploy the strongest card still allowed (`deploy_scores`; the first one on ties)."""
        return best_scored(self.deploy_scores(obs, legal), legal[0])

    def deploy_scores(self, obs: RealmsObservation, legal: Sequence[Any]) -> list[tuple[float, Any]]:
        """Every legal deployment with its value: the card's strength, one or two tanks up front, flex cards to
        the rearguard."""
        cards = {c.slug: c for c in obs.collection()}
        mine = obs.deployed()
        tanks = sum(1 for c, _ in mine if c.character_class == "tank")
        front = sum(1 for _, line in mine if line == "vanguard")
        out: list[tuple[float, Any]] = []
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
            out.append((value, action))
        return out

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
            attack_value[t.uid] = blow_value(damage_dealt(my_atk, t.def_), t)
        out: list[tuple[float, Any]] = []
        static: float | None = None
        for action in legal:
            kind, x = action
            if kind == "attack":
                out.append((attack_value[x], action))
                continue
            if static is None:
                assert actor.main is not None  # the ability is legal only for a character
                plan = _plan(actor.main)
                side, rnd = actor.side, obs.round
                allies = obs.allies() if plan.needs_allies else None
                averages = _averages(actor, enemies, allies or []) if plan.needs_averages else None
                ctx = ValueContext(side, rnd, averages)
                static = plan.static(ctx, my_atk, actor, enemies, allies)
            if x is None or not plan.has_chosen:
                out.append((static, action))
            else:
                value = plan.chosen(ctx, my_atk, enemies, static, obs.unit(x))
                out.append((value, action))
        return out


class SoftmaxAgent:
    """Greedy's values, but each action drawn with probability proportional to exp(value / temperature) from the
    seat's own generator (G1: the same seed plays the same match), so that the matches of one matchup differ.

    Deployments and the turns of units are drawn so; the Flex phase keeps greedy's rule (it has no values).
    """

    name = "softmax"

    def __init__(self, temperature: float = SOFTMAX_TEMPERATURE) -> None:
        """A softmax agent drawing at `temperature` (near 0: greedy; large: uniform over the legal actions)."""
        self.temperature = temperature
        self.greedy = GreedyAgent()

    def act(self, observation: RealmsObservation, legal_actions: Sequence[Any], rng: random.Random) -> Any:
        """A legal action drawn by its greedy value."""
        kind = legal_actions[0][0]
        if kind == "stay" or kind == "switch":
            return self.greedy.flex(observation, legal_actions)
        if kind == "deploy":
            scored = self.greedy.deploy_scores(observation, legal_actions)
        else:
            scored = self.greedy.scores(observation, legal_actions)
        return softmax_choice(scored, self.temperature, rng)


# ---------------------------------------------------------------- ability valuation
#
# The greedy agent values a Main Ability effect by effect, with each effect kind's own value
# (`on_enemy` / `on_ally` in realms.engine.effects) and the engine's own formulas for its size
# (⌊ATK × scale⌋ + flat) and its damage (max(MIN_DAMAGE, power − DEF)). An ability is planned once: which
# effects do not depend on the chosen unit (`static`) and which do (`chosen`).

def best_blow_index(my_atk: int, targets: tuple[UnitInfo, ...]) -> int:
    """The place in `targets` of the Basic Attack target worth the most (the first one on ties); -1: none."""
    best = -1
    best_value = -1.0
    for i in range(len(targets)):
        t = targets[i]
        value = blow_value(damage_dealt(my_atk, t.def_), t)
        if value > best_value:
            best, best_value = i, value
    return best


def kind_of(action: Any) -> str:
    """An action's kind, its first item (a tuple, as the match makes them, is read natively)."""
    if isinstance(action, tuple):
        first: str = action[0]
        return first
    kind: str = action[0]
    return kind


def unit_of(action: Any) -> str | None:
    """A Basic Attack's or Main Ability's unit id, its second item (None: an ability on no unit)."""
    if isinstance(action, tuple):
        second: str | None = action[1]
        return second
    uid: str | None = action[1]
    return uid


def attack_on(legal_actions: list[Any], k: int, uid: str) -> Any:
    """The Basic Attack on `uid`, the k-th target: the legal action itself (the actions on the targets come
    first, in their order), so that the match finds it by identity; a new tuple if they differ."""
    if k < len(legal_actions):
        action = legal_actions[k]
        if kind_of(action) == "attack" and unit_of(action) == uid:
            return action
    return ("attack", uid)


def first_ability(legal_actions: list[Any]) -> Any:
    """The first Main Ability action (the legal actions end with one)."""
    for action in legal_actions:
        if kind_of(action) == "ability":
            return action
    return legal_actions[-1]


def best_aimed(
    plan: _Plan, ctx: ValueContext, my_atk: int, enemies: list[UnitInfo] | None, static: float,
    hint: tuple[UnitInfo, ...], observation: RealmsObservation, legal_actions: list[Any], best: Any,
    best_value: float,
) -> Any:
    """The best of `best` and the Main Ability's actions aimed at a chosen unit (`hint`: the units the actions
    usually come in the order of, found without a search)."""
    n_hint = len(hint)
    k = 0
    for i in range(len(legal_actions)):
        action = legal_actions[i]
        if kind_of(action) != "ability":
            continue
        x = unit_of(action)
        if x is None:
            value = static
        else:
            if k < n_hint and hint[k].uid == x:
                v = hint[k]
                k += 1
            else:
                v = observation.unit(x)
            value = plan.chosen(ctx, my_atk, enemies, static, v)
        if value > best_value:
            best, best_value = action, value
    return best


class _Part:
    """One effect of a planned ability: its kind, its spec, its selector (from the registry) and its size for
    the actor's current ATK."""

    __slots__ = ("kind", "eff", "sel", "powered", "num", "den", "flat")

    def __init__(self, eff: Effect) -> None:
        """The part of `eff`, its size's fraction of ATK (⌊ATK × num / den⌋, as `units.scaled`) read once."""
        self.kind: EffectKind = KINDS[eff.kind]
        self.eff = eff
        self.sel: Selector = selectors.BY_NAME[eff.target] if self.kind.targeted else NO_UNITS
        self.powered: bool = self.kind.powered
        self.num, self.den = fraction(eff.scale)
        self.flat: int = eff.flat

    def power(self, my_atk: int) -> int:
        """⌊ATK × scale⌋ + flat for the kinds sized by ATK (the engine's own formula, its fraction read once)."""
        if not self.powered:
            return 0
        return my_atk * self.num // self.den + self.flat

    def value(self, v: UnitInfo, enemy: bool, power: int, ctx: ValueContext) -> float:
        """This effect's value on the unit `v`."""
        if enemy:
            return self.kind.on_enemy(self.eff, power, v, ctx)
        return self.kind.on_ally(self.eff, power, v, ctx)

    def add_static(
        self, total: float, ctx: ValueContext, my_atk: int, actor: UnitInfo, enemies: list[UnitInfo] | None,
        allies: list[UnitInfo] | None,
    ) -> float:
        """`total` plus this effect's value, which does not depend on the chosen unit (added unit by unit, in
        army order: the sum is the same float whatever the plan)."""
        sel = self.sel
        code = sel.code
        if code == SEL_NONE:
            return total + self.kind.worth(self.eff, ctx)
        power = self.power(my_atk)
        if code == SEL_SELF:
            return total + self.value(actor, False, power, ctx)
        whose = sel.whose
        if whose != ALLIES and whose != ENEMIES:  # "attacker" reaches no one outside a faction ability
            return total
        enemy = whose == ENEMIES
        units = (enemies if enemy else allies) or []
        if code == SEL_GROUP:
            return self.add_group(total, ctx, power, actor, units, enemy)
        if not units:
            return total
        if sel.pick == PICK_RANDOM:  # a random pick counts each candidate by its chance
            p = 1.0 / len(units)
            for v in units:
                total += p * self.value(v, enemy, power, ctx)
            return total
        return total + self.value(best_pick(units, sel.pick), enemy, power, ctx)

    def add_group(
        self, total: float, ctx: ValueContext, power: int, actor: UnitInfo, units: list[UnitInfo], enemy: bool
    ) -> float:
        """`total` plus the value on every unit of the group (its line only; without the actor for `others`)."""
        line = self.sel.line
        others = self.sel.others
        for v in units:
            if (not line or v.line == line) and not (others and v.uid == actor.uid):
                total += self.value(v, enemy, power, ctx)
        return total


def best_pick(units: list[UnitInfo], how: int) -> UnitInfo:
    """The unit a lowest-HP or highest-ATK pick takes (as `triggers.pick_from`: the first one on ties)."""
    pick = units[0]
    highest = how == PICK_HIGHEST_ATK
    for w in units:
        if (w.atk > pick.atk) if highest else (w.hp < pick.hp):
            pick = w
    return pick


class _Plan:
    """A Main Ability planned for the greedy heuristic.

    `static(ctx, my_atk, actor, enemies, allies)` is the value of the effects that do not depend on
    the chosen unit; `chosen(ctx, my_atk, enemies, total, unit)` adds to `total` those that do, for
    `unit` chosen. `enemies` and `allies` (lists of UnitInfo) are needed only when
    `needs_enemies` / `needs_allies`, `averages` (see `_averages`) only when `needs_averages`.
    """

    __slots__ = ("main", "fixed", "aimed", "has_chosen", "choose_enemy", "ignore_lines", "needs_enemies",
                 "needs_allies", "needs_averages", "needs_round")

    def __init__(self, main: MainAbility) -> None:
        """Sort the effects of `main` into those that depend on the chosen unit and those that do not."""
        self.main = main  # holding `main` keeps its id unique while the plan is cached
        self.fixed: list[_Part] = []
        self.aimed: list[_Part] = []
        lists: set[int] = set()  # whose units the fixed effects read: ALLIES, ENEMIES
        averages = False
        for eff in main.effects:
            part = _Part(eff)
            averages = averages or part.kind.needs_averages(eff)
            sel = part.sel
            if sel.chosen:
                self.aimed.append(part)
                if sel.whose == CHOSEN_LINE:
                    lists.add(ENEMIES)
            else:
                self.fixed.append(part)
                if sel.whose == ALLIES or sel.whose == ENEMIES:
                    lists.add(sel.whose)
        if averages:
            lists |= {ENEMIES, ALLIES}
        self.has_chosen = bool(self.aimed)
        self.choose_enemy = main.choose == "enemy"
        self.ignore_lines: bool = main.ignore_lines
        self.needs_enemies = ENEMIES in lists
        self.needs_allies = ALLIES in lists
        self.needs_averages = averages
        self.needs_round = any(KINDS[eff.kind].reads_round for eff in main.effects)

    def static(
        self, ctx: ValueContext, my_atk: int, actor: UnitInfo, enemies: list[UnitInfo] | None,
        allies: list[UnitInfo] | None,
    ) -> float:
        """The value of the effects that do not depend on the chosen unit."""
        total = 0.0
        for part in self.fixed:
            total = part.add_static(total, ctx, my_atk, actor, enemies, allies)
        return total

    def chosen(
        self, ctx: ValueContext, my_atk: int, enemies: list[UnitInfo] | None, total: float, unit: UnitInfo
    ) -> float:
        """`total` plus the value of the effects on the chosen `unit` (or on every enemy of its line)."""
        side = ctx.side
        for part in self.aimed:
            power = part.power(my_atk)
            if part.sel.code == SEL_TARGET:
                total += part.value(unit, unit.side != side, power, ctx)
            else:
                line = unit.line
                for v in enemies or ():
                    if v.line == line:
                        total += part.value(v, True, power, ctx)
        return total


_PLANS: Final[dict[int, _Plan]] = {}


def _plan(main: MainAbility) -> _Plan:
    """The plan of an ability (cached by identity)."""
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

    Its reach: the `max_candidates` best actions by the greedy heuristic (greedy's own choice always
    among them), each played out `rollouts` times to the end of the match (or `horizon` rounds,
    then judged on remaining strength). Playouts run on sandbox copies seeded from the seat's own
    generator, so a match stays reproducible from its seed (G1, G2).

    Its budget, in simulated decisions (`simulate.engine.budget`): at most `budget` for one decision,
    shared equally by the playouts (each cut off and judged when its share is spent; fewer rollouts
    when the budget cannot give every candidate one decision each of them), and at most
    `match_budget` over a seat's whole match. When the budget left cannot try every candidate, it
    plays greedy's choice.
    """

    name = "search"

    def __init__(
        self, rollouts: int = 3, max_candidates: int = 6, horizon: int = 3, budget: int = DECISION_BUDGET,
        match_budget: int = MATCH_BUDGET,
    ) -> None:
        """A search agent with its reach (playouts per candidate, candidates, rounds looked ahead) and its budget
        (decisions simulated for one decision, and for a seat's match)."""
        self.rollouts = rollouts
        self.max_candidates = max_candidates
        self.horizon = horizon
        self.budget = LookaheadBudget(budget, match_budget)
        self.greedy = GreedyAgent()

    @property
    def simulated(self) -> int:
        """Decisions simulated so far, over every decision and match of this agent."""
        return self.budget.simulated

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
        rollouts, share = self.budget.split(rng, len(candidates), self.rollouts)
        if not rollouts:  # not one simulated decision for each candidate: greedy's choice
            return self.greedy.act(observation, legal_actions, rng)
        me = observation.player
        # Common random numbers: every candidate is played out under the same seeds.
        seeds = [child_seed(rng) for _ in range(rollouts)]
        best = candidates[0]
        best_value = float("-inf")
        spent = 0
        for action in candidates:
            value = 0.0
            for seed in seeds:
                sim = observation.sandbox(seed)
                sim.apply(action)
                outcome, steps = self._playout(sim, me, share - 1)
                value += outcome
                spent += 1 + steps
            if value > best_value + 1e-9:
                best, best_value = action, value
        self.budget.spend(rng, spent)
        return best

    def _playout(self, sim: Any, me: str, limit: int) -> tuple[float, int]:
        """Greedy play for both sides to the end, the horizon or `limit` decisions; its value (a win is worth 1,
        a draw 0.5, else material) and the decisions it applied."""
        greedy = self.greedy
        stop_round = sim.round + self.horizon
        rng = sim.rng
        steps = 0
        while steps < limit and not sim.is_terminal() and sim.round < stop_round:
            legal = sim.legal_actions()
            if len(legal) == 1:
                sim.apply(legal[0])
            else:
                sim.apply(greedy.act(sim.observation(sim.current_player()), legal, rng))
            steps += 1
        view = sim.observation(me)
        mine = material(view.allies())
        theirs = material(view.enemies())
        share = mine / (mine + theirs) if mine + theirs > 0 else 0.5
        if sim.is_terminal():
            winner = sim.outcome().winner
            if winner is None:
                return 0.5, steps
            return (1.0 if winner == me else 0.0) + 0.1 * share, steps
        return 0.1 + 0.8 * share, steps


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
    "softmax", description="Greedy's values, each action drawn with probability proportional to exp(value / T).",
    game="realms",
)(SoftmaxAgent)
register_agent(
    "search", description="Monte Carlo look-ahead over the best greedy candidates, greedy playouts.", game="realms",
    lookahead=True,
)(SearchAgent)
