"""Akin Legends agents: `greedy` (a one-turn heuristic) and `search` (determinised Monte Carlo).

Both read the match only through the observation (G2) and draw randomness only from the
generator they are handed (their seat's own, never the match's: G2). `random` comes from the
shared core. Allocation (L10) by default maximises destroyed defenses, then markers placed
(`default_allocation`); a healing choice (L9 step 1) by default cleans the defense closest to
falling (`default_heal`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from legends.engine.observation import DefenseView, LegendsObservation
from legends.engine.protectors import ProtectorEffect
from legends.engine.showdown import allocation_value, attack_points, marker_cap
from simulate.engine.agents import register_agent
from simulate.engine.rng import child_seed

DESTROY_WEIGHT = 3.0
MARKER_WEIGHT = 1.0
REDRAW_BASE = 0.3


def default_allocation(obs: LegendsObservation, legal: Sequence[Any]) -> Any:
    """L10's default policy: the allocation destroying most defenses, then placing most markers."""
    defenses = obs.defenses[1 - obs.allocation.team] if obs.allocation is not None else obs.defenses[obs.opponent]
    best = legal[0]
    best_value = (-1, -1)
    for action in legal:
        value = allocation_value(action[1], defenses)
        if value > best_value:
            best, best_value = action, value
    return best


def default_heal(obs: LegendsObservation, legal: Sequence[Any]) -> Any:
    """L9's default healing choice: the marker whose removal leaves the team's defenses furthest from falling.

    At the showdown every card is revealed, so the opponents' points after boosts and defenses are
    known (the engine's own steps, `attack_points`): the heal after which their best allocation this
    round does least (`alloc_score`: destroyed defenses, then markers) is chosen. A protector's heal at
    round start has no attack to read yet: it cleans the defense whose missing element the opponents
    attacked with most in the last round. Ties: the opponents' last-round attacks, then the first
    option (setup order).
    """
    heal = obs.heal
    if heal is None or len(legal) == 1:
        return legal[0]
    team = heal.team
    opp = 1 - team
    ours = obs.defenses[team]
    shown: dict[str, int] = {}
    for v in obs.last_plays:
        if v.team == opp and v.orientation == "attack" and v.element is not None:
            shown[v.element] = shown.get(v.element, 0) + 1
    revealed = bool(obs.plays) and all(v.card is not None for v in obs.plays)
    points: dict[str, int] = {}
    cap = 0
    if revealed:
        effects = [p.effect for p in obs.protectors]
        points = attack_points(obs.plays, effects, obs.elements)[3][opp]
        cap = marker_cap(obs.plays, opp)
    best = legal[0]
    best_key: tuple[float, int] | None = None
    for action in legal:
        _, slug, element = action
        defenses = []
        threat = 0
        for d in ours:
            if d.slug == slug:
                markers = list(d.markers)
                markers.remove(element)
                threat = sum(shown.get(e, 0) for e in d.elements if e not in d.markers)
                d = d._replace(markers=tuple(markers))
            defenses.append(d)
        key = (alloc_score(points, cap, defenses) if revealed else 0.0, -threat)
        if best_key is None or key < best_key:
            best, best_key = action, key
    return best


def alloc_score(strength: dict[str, int], cap: int, defenses: Sequence[DefenseView]) -> float:
    """The weighted best allocation a team could make with `strength` points and `cap` markers.

    Markers placed are min(cap, sum over elements of min(points, open slots)) whichever defenses
    are completed, so only the set of destroyed defenses needs a search (at most 2^3 subsets).
    """
    if cap <= 0:
        return 0.0
    needs = []
    open_slots: dict[str, int] = {}
    for d in defenses:
        if d.destroyed:
            continue
        missing = [e for e in d.elements if e not in d.markers]
        if all(strength.get(e, 0) > 0 for e in missing):
            needs.append(missing)
        for e in missing:
            open_slots[e] = open_slots.get(e, 0) + 1
    placed = 0
    for e, n in open_slots.items():
        s = strength.get(e, 0)
        placed += s if s < n else n
    if placed > cap:
        placed = cap
    destroyed = 0
    k = len(needs)
    for mask in range(1, 1 << k):
        used: dict[str, int] = {}
        total = 0
        count = 0
        for i in range(k):
            if mask >> i & 1:
                count += 1
                for e in needs[i]:
                    used[e] = used.get(e, 0) + 1
                    total += 1
        if count > destroyed and total <= cap and all(n <= strength[e] for e, n in used.items()):
            destroyed = count
    return destroyed * DESTROY_WEIGHT + placed * MARKER_WEIGHT


def _effect(effect: ProtectorEffect, kind: str, element: str) -> int:
    """A protector's parameter when it is of `kind` and applies to `element`, else 0."""
    if effect.kind != kind or not effect.matches(element):
        return 0
    return effect.amount if kind == "boost_first_attack" else effect.count


class _Table:
    """What the greedy agent reads off one observation: visible plays summed up per team and element."""

    def __init__(self, obs: LegendsObservation) -> None:
        self.obs = obs
        me = obs.team
        self.me = me
        elements = obs.elements
        self.attacks = [dict.fromkeys(elements, 0), dict.fromkeys(elements, 0)]
        self.boosts = [dict.fromkeys(elements, 0), dict.fromkeys(elements, 0)]
        self.defends = [dict.fromkeys(elements, 0), dict.fromkeys(elements, 0)]
        self.heals = [dict.fromkeys(elements, 0), dict.fromkeys(elements, 0)]
        self.attack_cards = [0, 0]
        self.hidden_attacks = [0, 0]
        self.hidden_effects = [0, 0]
        for v in obs.plays:
            t = v.team
            if v.orientation == "attack":
                self.attack_cards[t] += 1
                if v.element is None:
                    self.hidden_attacks[t] += 1
                else:
                    self.attacks[t][v.element] += 1
            elif v.card is None:
                self.hidden_effects[t] += 1
            else:
                kind = v.card.kind
                table = self.defends if kind == "defense" else self.heals if kind == "healing" else self.boosts
                table[t][v.element] += 1
        self.effects = [p.effect for p in obs.protectors]
        self.live = [[d for d in team if not d.destroyed] for team in obs.defenses]
        # Per team and element: live defenses missing it, holding it, missing only it.
        self.open = [dict.fromkeys(elements, 0), dict.fromkeys(elements, 0)]
        self.held = [dict.fromkeys(elements, 0), dict.fromkeys(elements, 0)]
        self.last = [dict.fromkeys(elements, 0), dict.fromkeys(elements, 0)]
        for t in (0, 1):
            for d in self.live[t]:
                missing = [e for e in d.elements if e not in d.markers]
                for e in missing:
                    self.open[t][e] += 1
                for e in d.markers:
                    self.held[t][e] += 1
                if len(missing) == 1:
                    self.last[t][missing[0]] += 1
        n = len(obs.order)
        teams = {p.pid: p.team for p in obs.players}
        self.turns_left = [0, 0]
        for t in range(obs.turn + 1, n * obs.passes):
            self.turns_left[teams[obs.order[t % n]]] += 1
        self.shown = dict.fromkeys(elements, 0)  # the opponents' attack elements of the last round
        for v in obs.last_plays:
            if v.team != me and v.orientation == "attack" and v.element is not None:
                self.shown[v.element] += 1

    def strength(self, team: int, attacks: dict[str, int], boosts: dict[str, int]) -> dict[str, int]:
        """A team's points after boosts and the opposing visible defenses (its piercing protector, their
        cancelling one)."""
        effect = self.effects[team]
        other = 1 - team
        against = self.defends[other]
        cancel_effect = self.effects[other]
        pierce = effect.count if effect.kind == "pierce_defense" else 0
        out = {}
        first_done = False
        for e, n in attacks.items():
            if not n:
                out[e] = 0
                continue
            points = n * (1 + boosts[e])
            if not first_done and _effect(effect, "boost_first_attack", e):
                points += effect.amount
                first_done = True
            defends = against[e]
            if pierce and defends and effect.matches(e):
                pierced = pierce if pierce < defends else defends
                defends -= pierced
                pierce -= pierced
            points -= defends + _effect(cancel_effect, "cancel_attack", e)
            out[e] = points if points > 0 else 0
        return out

    def score(self, team: int, attacks: dict[str, int] | None = None, boosts: dict[str, int] | None = None,
              cards: int | None = None) -> float:
        """How much `team`'s visible attacks would achieve against the other team's defenses."""
        attacks = attacks if attacks is not None else self.attacks[team]
        boosts = boosts if boosts is not None else self.boosts[team]
        cap = cards if cards is not None else self.attack_cards[team]  # the cap of L9: attack cards only
        return alloc_score(self.strength(team, attacks, boosts), cap, self.live[1 - team])


class GreedyAgent:
    """Breaks defenses soonest, defends the elements the opponents showed, heals threatened defenses."""

    name = "greedy"

    def act(self, observation: LegendsObservation, legal_actions: Sequence[Any], rng: random.Random) -> Any:
        """The legal action with the best one-turn heuristic value (first one on ties)."""
        if observation.stage == "allocate":
            return default_allocation(observation, legal_actions)
        if observation.stage == "heal":
            return default_heal(observation, legal_actions)
        best = legal_actions[0]
        best_value = float("-inf")
        for value, action in self.scores(observation, legal_actions):
            if value > best_value:
                best, best_value = action, value
        return best

    def scores(self, obs: LegendsObservation, legal: Sequence[Any]) -> list[tuple[float, Any]]:
        """Every legal action of a turn with its heuristic value; one redraw (the best discards) stands
        for all of them."""
        table = _Table(obs)
        me, opp = table.me, 1 - table.me
        base_attack = table.score(me)
        base_threat = table.score(opp)
        values: dict[tuple, float] = {}
        out: list[tuple[float, Any]] = []
        cards = {c.slug: c for c in obs.hand}
        redraw = self.redraw_choice(obs, legal, table)
        for action in legal:
            kind = action[0]
            if kind == "redraw":
                if action is redraw:
                    out.append((self.redraw_value(obs, table), action))
                continue
            card = cards[action[1]]
            key = ("attack", action[2]) if kind == "attack" else (card.kind, card.element)
            value = values.get(key)
            if value is None:
                value = values[key] = self.value(key, table, base_attack, base_threat)
            out.append((value, action))
        return out

    def value(self, key: tuple[str, str], table: _Table, base_attack: float, base_threat: float) -> float:
        """The value of one use of a card: an attack of an element, or an effect of a kind and element."""
        kind, element = key
        me, opp = table.me, 1 - table.me
        if kind == "attack":
            attacks = dict(table.attacks[me])
            attacks[element] += 1
            gain = table.score(me, attacks=attacks, cards=table.attack_cards[me] + 1) - base_attack
            # Insurance against hidden defenses when the element is needed at all.
            need = table.open[opp][element]
            return gain + (0.1 * need * (1 + table.hidden_effects[opp]) / 2 if need else 0.0)
        if kind == "defense":
            saved = 0.0
            if table.attacks[opp][element]:
                table.defends[me][element] += 1
                saved = base_threat - table.score(opp)
                table.defends[me][element] -= 1
            exposed = table.open[me][element]
            expected = 0.0
            if exposed:
                unknown = table.hidden_attacks[opp] + 0.6 * table.turns_left[opp]
                expected = 0.25 * unknown * (0.5 + table.shown[element] / 2) / max(1, len(table.obs.elements) - 1)
                expected *= 1 + table.last[me][element]
            return saved + expected
        if kind == "healing":
            if table.held[me][element] - table.heals[me][element] <= 0:
                return 0.0
            threatened = 0.0
            for d in table.live[me]:
                if element in d.markers:
                    for e in d.elements:
                        if e not in d.markers and (table.attacks[opp][e] or table.shown[e]):
                            threatened = max(threatened, 1.5 if table.attacks[opp][e] else 0.6)
            return 0.8 + threatened
        # boost
        if not table.attacks[me][element]:
            return 0.02 * table.turns_left[me]
        boosts = dict(table.boosts[me])
        boosts[element] += 1
        gain = table.score(me, boosts=boosts) - base_attack
        return gain + 0.15 * table.attacks[me][element] * table.hidden_effects[opp]

    @staticmethod
    def keep_value(table: _Table, card: Any) -> float:
        """How worth keeping a card is for later rounds."""
        me, opp = table.me, 1 - table.me
        a0, a1 = card.attacks
        need = table.open[opp][a0]
        if a1 != a0 and table.open[opp][a1] > need:
            need = table.open[opp][a1]
        best = 0.5 * need
        e = card.element
        if card.kind == "healing":
            other = 1.0 if table.held[me][e] else 0.3
        elif card.kind == "defense":
            other = 0.4 * table.open[me][e]
        else:
            other = 0.3
        return other if other > best else best

    def redraw_choice(self, obs: LegendsObservation, legal: Sequence[Any], table: _Table) -> Any:
        """The redraw to consider: the largest draw for a short hand, discarding the least useful cards."""
        redraws = [a for a in legal if a[0] == "redraw"]
        if not redraws:
            return None
        hand = obs.hand
        size = max(a[2] for a in redraws) if len(hand) <= 3 else 3
        order = sorted(hand, key=lambda c: (self.keep_value(table, c), c.slug))
        k = min(size, len(hand))
        discards = tuple(sorted(c.slug for c in order[:k]))
        for a in redraws:
            if a[2] == size and a[1] == discards:
                return a
        return redraws[0]

    def redraw_value(self, obs: LegendsObservation, table: _Table) -> float:
        """Redraw beats a weak play, more so with a short hand."""
        return REDRAW_BASE + 0.2 * max(0, 3 - len(obs.hand))


class SearchAgent:
    """Determinised Monte Carlo: candidates (the best greedy actions) played out on sampled matches.

    Budget: `determinisations` samples of the hidden cards (other hands, draw pile, face-down
    cards) drawn from the unseen cards, each shared by every candidate (common random numbers);
    from each, a greedy playout for every player through `horizon` showdowns (1: to the end of the
    current round) or the end of the match, scored by defenses and markers. Only the observation
    is read (G2); the samples' seeds come only from the generator the agent is handed (its seat's
    own, G2), so a match stays reproducible from its seed.
    """

    name = "search"

    def __init__(self, determinisations: int = 10, max_candidates: int = 6, horizon: int = 1) -> None:
        self.determinisations = determinisations
        self.max_candidates = max_candidates
        self.horizon = horizon
        self.greedy = GreedyAgent()

    def act(self, observation: LegendsObservation, legal_actions: Sequence[Any], rng: random.Random) -> Any:
        """The candidate with the best mean playout value."""
        if observation.stage == "allocate":
            return default_allocation(observation, legal_actions)
        if observation.stage == "heal":
            return default_heal(observation, legal_actions)
        scored = self.greedy.scores(observation, legal_actions)
        scored.sort(key=lambda item: -item[0])
        candidates = [a for _, a in scored[: self.max_candidates]]
        if len(candidates) == 1:
            return candidates[0]
        seeds = [child_seed(rng) for _ in range(self.determinisations)]
        totals = [0.0] * len(candidates)
        for seed in seeds:
            world = observation.sandbox(seed)
            for i, action in enumerate(candidates):
                sim = world.clone(seed + i + 1)
                sim.apply(action)
                totals[i] += self._playout(sim, observation.team, observation.round)
        best = 0
        for i in range(1, len(candidates)):
            if totals[i] > totals[best] + 1e-9:
                best = i
        return candidates[best]

    def _playout(self, sim: Any, team: int, start_round: int) -> float:
        """Greedy play for every player to the horizon; a win is worth 100, else defenses and markers."""
        greedy = self.greedy
        rng = sim.rng
        stop = start_round + self.horizon
        while not sim.is_terminal() and sim.round < stop:
            legal = sim.legal_actions()
            if len(legal) == 1:
                sim.apply(legal[0])
            else:
                sim.apply(greedy.act(sim.observation(sim.current_player()), legal, rng))
        return evaluate(sim, team)


def evaluate(sim: Any, team: int) -> float:
    """A position's value for `team`: wins dominate, then defenses standing and markers on them."""
    if sim.is_terminal():
        if sim.winner is None:
            return 0.0
        return 100.0 if sim.winner == team else -100.0
    value = 0.0
    for t, sign in ((team, 1.0), (1 - team, -1.0)):
        for d in sim.defenses[t]:
            if d.destroyed:
                value -= sign * 10.0
            else:
                value -= sign * 3.0 * len(d.markers)
    return value


register_agent("greedy", description="One-turn heuristic: break defenses soonest, defend shown elements, heal.",
               game="legends")(GreedyAgent)
register_agent("search", description="Determinised Monte Carlo over hidden cards, greedy playouts.",
               game="legends")(SearchAgent)
