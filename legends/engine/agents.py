"""Akin Legends agents: `greedy` (a one-turn heuristic), `softmax` (greedy's values, each action drawn with
probability proportional to exp(value / T)) and `search` (determinised Monte Carlo).

All read the match only through the observation (G2) and draw randomness only from the
generator they are handed (their seat's own, never the match's: G2). `random` comes from the
shared core. Allocation (L10) by default maximises destroyed defenses, then markers placed
(`default_allocation`); a healing choice (L9 step 1) by default cleans the defense closest to
falling (`default_heal`). They use the engine's own steps (`legends.engine.showdown`) and each
protector effect kind's own reckoning (`legends.engine.effects`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Final

from legends.engine.cards import Catalogue, ProtectorCard, SummoningCard
from legends.engine.effects.base import ProtectorEffect
from legends.engine.observation import LegendsObservation
from legends.engine.showdown import DefenseLike, Play, attack_points, best_allocation, marker_cap
from legends.engine.state import LegendsState
from legends.engine.table import Action
from legends.engine.views import DefenseView, PlayView
from legends.engine.vocabulary import ATTACK, DEFENSE, HEALING, MAX_TEAM_DEFENSES, REDRAW, REDRAW_SIZE
from simulate.engine.agents import register_agent, softmax_choice
from simulate.engine.budget import LookaheadBudget
from simulate.engine.rng import child_seed

DESTROY_WEIGHT: Final = 3.0
MARKER_WEIGHT: Final = 1.0
REDRAW_BASE: Final = 0.3
# The search agent's budget, in decisions simulated in its look-ahead (never in time, G1): for one decision,
# and for one seat over a whole match.
DECISION_BUDGET: Final = 600
MATCH_BUDGET: Final = 10_000
# The softmax agent's temperature, in greedy's units (a defense destroyed is worth 3, a marker 1): chosen so that a
# matchup of two fixed teams plays a spread of plausible matches (docs/simulate.md).
SOFTMAX_TEMPERATURE: Final = 0.5


def default_allocation(obs: LegendsObservation, legal: Sequence[Action]) -> Action:
    """L10's default policy: the allocation destroying most defenses, then placing most markers."""
    defenses = obs.defenses[1 - obs.allocation.team] if obs.allocation is not None else obs.defenses[obs.opponent]
    return legal[best_allocation([action[1] for action in legal], defenses)]


def revealed_plays(obs: LegendsObservation) -> list[Play] | None:
    """The round's cards as the showdown steps take them, once every one of them is revealed (else None)."""
    if not obs.plays:
        return None
    seats = {p.pid: i for i, p in enumerate(obs.players)}
    plays: list[Play] = []
    for v in obs.plays:
        if v.card is None or v.element is None:
            return None
        plays.append(Play(v.seq, seats[v.player], v.player, v.team, v.face_up, v.orientation, v.card, v.element))
    return plays


def default_heal(obs: LegendsObservation, legal: Sequence[Action]) -> Action:
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
    opponents = 1 - team
    ours = obs.defenses[team]
    shown = last_attacks(obs, opponents)
    plays = revealed_plays(obs)
    points: dict[str, int] = {}
    cap = 0
    if plays is not None:
        points = attack_points(plays, [p.effect for p in obs.protectors], obs.elements)[3][opponents]
        cap = marker_cap(plays, opponents)
    best = legal[0]
    best_key: tuple[float, int] | None = None
    for action in legal:
        _, slug, element = action
        threat = heal_threat(ours, slug, shown)
        key = (alloc_score(points, cap, healed(ours, slug, element)) if plays is not None else 0.0, -threat)
        if best_key is None or key < best_key:
            best, best_key = action, key
    return best


def last_attacks(obs: LegendsObservation, team: int) -> dict[str, int]:
    """The attacks `team` made in the last round, counted by element."""
    shown: dict[str, int] = {}
    for v in obs.last_plays:
        if v.team == team and v.orientation == ATTACK and v.element is not None:
            shown[v.element] = shown.get(v.element, 0) + 1
    return shown


def heal_threat(ours: Sequence[DefenseView], slug: str, shown: dict[str, int]) -> int:
    """How often the opponents attacked (`shown`) with the elements the defense `slug` still misses."""
    for d in ours:
        if d.slug == slug:
            return sum(shown.get(e, 0) for e in d.elements if e not in d.markers)
    return 0


def healed(ours: Sequence[DefenseView], slug: str, element: str) -> list[DefenseView]:
    """The team's defenses once a heal took one `element` marker off the defense `slug`."""
    defenses = []
    for d in ours:
        if d.slug == slug:
            markers = list(d.markers)
            markers.remove(element)
            d = d._replace(markers=tuple(markers))
        defenses.append(d)
    return defenses


def groups_largest_first(count: int) -> list[int]:
    """Every non-empty set of `count` defenses as a bit mask, the largest sets first."""
    return sorted(range(1, 1 << count), key=lambda members: -bin(members).count("1"))


GROUPS: Final = [groups_largest_first(count) for count in range(MAX_TEAM_DEFENSES + 1)]  # by live defenses (L5)


class Targets:
    """A team's live defenses as allocation targets: each one's missing elements (positions in `index`) and per
    element the number of defenses missing it, worked out once for `score`."""

    __slots__ = ("missing", "open_slots", "groups", "markers", "used")

    def __init__(self, defenses: Sequence[DefenseLike], index: dict[str, int]) -> None:
        """The targets among `defenses` (destroyed ones left out)."""
        self.missing: list[list[int]] = []
        self.open_slots = [0] * len(index)
        for d in defenses:
            if d.destroyed:
                continue
            markers = d.markers
            missing = [index[e] for e in d.elements if e not in markers]
            self.missing.append(missing)
            for i in missing:
                self.open_slots[i] += 1
        count = len(self.missing)
        self.groups = GROUPS[count] if count < len(GROUPS) else groups_largest_first(count)
        # By group: the markers destroying it takes (the group's without its first defense, plus that defense's).
        self.markers = [0] * (1 << count)
        for members in range(1, 1 << count):
            lowest = members & -members
            self.markers[members] = self.markers[members ^ lowest] + len(self.missing[lowest.bit_length() - 1])
        self.used = [0] * len(index)  # scratch: the markers of each element a group takes

    def score(self, strength: list[int], cap: int) -> float:
        """The weighted best allocation with `strength` points by element and `cap` markers: 3 per defense
        destroyed, 1 per marker (see `alloc_score`)."""
        if cap <= 0:
            return 0.0
        # The markers placed whichever defenses are completed: each element's points up to its open slots.
        placed = 0
        for i, slots in enumerate(self.open_slots):
            points = strength[i]
            placed += points if points < slots else slots
        if placed > cap:
            placed = cap
        destroyed = 0
        completable = self.completable(strength)
        for members in self.groups:  # the largest groups first: the first that fits is the most destroyed
            if members & ~completable or self.markers[members] > cap:
                continue
            if self.fits(members, strength):
                destroyed = members.bit_count()
                break
        return destroyed * DESTROY_WEIGHT + placed * MARKER_WEIGHT

    def completable(self, strength: list[int]) -> int:
        """The defenses (a bit mask) whose every missing element has points."""
        missing = self.missing
        completable = 0
        for k in range(len(missing)):
            for i in missing[k]:
                if strength[i] <= 0:
                    break
            else:
                completable |= 1 << k
        return completable

    def fits(self, members: int, strength: list[int]) -> bool:
        """Whether `strength` has a point for every missing element of the group `members` at once."""
        missing = self.missing
        used = self.used  # scratch, left at zero again
        fits = True
        for k in range(len(missing)):
            if members >> k & 1:
                for i in missing[k]:
                    used[i] += 1
                    if used[i] > strength[i]:
                        fits = False
        for k in range(len(missing)):
            if members >> k & 1:
                for i in missing[k]:
                    used[i] = 0
        return fits


def alloc_score(strength: dict[str, int], cap: int, defenses: Sequence[DefenseLike]) -> float:
    """The weighted best allocation a team could make with `strength` points and `cap` markers.

    Markers placed are min(cap, sum over elements of min(points, open slots)) whichever defenses
    are completed, so only the set of destroyed defenses needs a search (at most 2^3 subsets).
    """
    elements = list(strength) + [e for d in defenses for e in d.elements]
    index = {e: i for i, e in enumerate(dict.fromkeys(elements))}
    return Targets(defenses, index).score([strength.get(e, 0) for e in index], cap)


class DefenseSummary:
    """One team's live defenses as the greedy agent counts them: as allocation targets, and per element (its
    place in the catalogue) the live defenses missing it, holding it, missing only it. It changes only when
    the team's defenses do, so the agent keeps it while an observation shows the same views of them (a heal
    or an allocation changes one team's defenses: the other's summary is kept)."""

    __slots__ = ("live", "targets", "open", "held", "last")

    def __init__(self, defenses: tuple[DefenseView, ...], index: dict[str, int]) -> None:
        """The summary of a team's `defenses`."""
        size = len(index)
        live = self.live = [d for d in defenses if not d.destroyed]
        targets = self.targets = Targets(live, index)
        self.open = targets.open_slots
        held = self.held = [0] * size
        last = self.last = [0] * size
        for k in range(len(live)):
            missing = targets.missing[k]
            for e in live[k].markers:
                held[index[e]] += 1
            if len(missing) == 1:
                last[missing[0]] += 1


class Reckoning:
    """How the greedy agent reckons with a team's protector, element by element (its place in the catalogue):
    what it adds to the team's first attack, which opposing defense cards it pierces and how many, and what it
    cancels of the opposing attacks. Each protector effect kind answers for itself (`legends.engine.effects`)."""

    __slots__ = ("first_attack_bonus", "pierce_budget", "pierces", "cancels")

    def __init__(self, effect: ProtectorEffect, elements: Sequence[str]) -> None:
        """The reckoning of `effect` over the catalogue's `elements`."""
        handler = effect.handler
        self.first_attack_bonus = [handler.first_attack_bonus(effect, e) for e in elements]
        self.pierce_budget = handler.pierce_budget(effect)
        self.pierces = [effect.matches(e) for e in elements]
        self.cancels = [handler.cancel_estimate(effect, e) for e in elements]


# The kinds of a card's effect as the greedy agent's cache of effect values counts them (`effect_slot`).
DEFENSE_SLOT: Final = 0
HEALING_SLOT: Final = 1
BOOST_SLOT: Final = 2
EFFECT_SLOTS: Final = 3


def effect_slot(kind: str) -> int:
    """The place of an effect kind among the cached effect values (every kind but defense and healing boosts)."""
    if kind == DEFENSE:
        return DEFENSE_SLOT
    if kind == HEALING:
        return HEALING_SLOT
    return BOOST_SLOT


def card_in(hand: Sequence[SummoningCard], slug: str) -> SummoningCard:
    """The card `slug` of a hand (the hand a turn's effect actions name)."""
    for card in hand:
        if card.slug == slug:
            return card
    raise KeyError(slug)


class CatalogueIndex:
    """A catalogue's places as the greedy agent reads them in its loops: each element's place in the catalogue's
    order, and the effect slot of each design it met (`effect_slot` times the elements, plus its element's
    place); plain dicts of the agent's own (the catalogue's mappings are read-only views, slower to read)."""

    __slots__ = ("elements", "effect_slots")

    def __init__(self, catalogue: Catalogue) -> None:
        """The places of `catalogue`'s elements; no design met yet."""
        self.elements: dict[str, int] = dict(catalogue.element_index)
        self.effect_slots: dict[str, int] = {}


class Board:
    """What the greedy agent reads off one observation: the round's visible plays summed up per team and
    element, the live defenses (`DefenseSummary`), the turns left and the elements the opponents showed; and
    the values of the turn's actions, each worked out once. Counts by element are lists in catalogue order
    (`index` gives an element's place). The agent keeps one board and reads every observation into it
    (`read`): its lists are refilled in place, not made again at every decision."""

    def __init__(self, size: int) -> None:
        """An empty board for a catalogue of `size` elements."""
        self.size = size
        self.me = 0
        self.hand: tuple[SummoningCard, ...] = ()
        self.elements: tuple[str, ...] = ()
        self.index: dict[str, int] = {}
        self.effect_slots: dict[str, int] = {}  # each design's effect: its slot among `effect_values`
        self.attacks = [[0] * size, [0] * size]
        self.boosts = [[0] * size, [0] * size]
        self.defends = [[0] * size, [0] * size]
        self.heals = [[0] * size, [0] * size]
        self.attack_cards = [0, 0]
        self.hidden_attacks = [0, 0]
        self.hidden_effects = [0, 0]
        self.reckonings: list[Reckoning] = []
        # Per team, from its `DefenseSummary`.
        self.live: list[list[DefenseView]] = [[], []]
        empty = Targets((), index={})
        self.targets: list[Targets] = [empty, empty]
        self.open: list[list[int]] = [[], []]
        self.held: list[list[int]] = [[], []]
        self.last: list[list[int]] = [[], []]
        self.turns_left = [0, 0]
        self.shown = [0] * size  # the opponents' attack elements of the last round
        self.points = [0] * size  # scratch: a team's points by element (`strength`)
        self.base_attack = 0.0  # the team's best allocation as the round stands
        self.base_threat = 0.0  # the opponents' one
        self.best_place = 0  # what `scan` found: the best play, the first redraw, the largest redraw
        self.best_value = 0.0
        self.first_redraw = -1
        self.largest_redraw = 0
        self.attack_values = [0.0] * size  # by element: an attack's value, once `attack_known`
        self.attack_known = [False] * size
        self.effect_values = [0.0] * (EFFECT_SLOTS * size)  # by effect slot and element, once `effect_known`
        self.effect_known = [False] * (EFFECT_SLOTS * size)

    def read(self, obs: LegendsObservation, defenses: list[DefenseSummary], reckonings: list[Reckoning],
             catalogue: CatalogueIndex, order_teams: list[int]) -> None:
        """Sum up `obs`, whose teams' defenses `defenses` sum up, whose protectors `reckonings` weigh, whose
        catalogue `catalogue` indexes and whose turn order has the teams `order_teams`."""
        me = obs.team
        self.me = me
        self.hand = obs.hand
        self.elements = obs.elements
        index = self.index = catalogue.elements
        self.effect_slots = catalogue.effect_slots
        self.clear()
        self.count_plays(obs.plays)
        self.reckonings = reckonings
        for team in (0, 1):
            summary = defenses[team]
            self.live[team] = summary.live
            self.targets[team] = summary.targets
            self.open[team] = summary.open
            self.held[team] = summary.held
            self.last[team] = summary.last
        count = len(order_teams)
        for turn in range(obs.turn + 1, count * obs.passes):  # the turns of each team after this one (turns_left)
            self.turns_left[order_teams[turn % count]] += 1
        for v in obs.last_plays:
            if v.team != me and v.orientation == ATTACK and v.element is not None:
                self.shown[index[v.element]] += 1
        self.base_attack = self.score(me)
        self.base_threat = self.score(1 - me)

    def count_plays(self, plays: tuple[PlayView, ...]) -> None:
        """The round's visible plays counted per team: attack cards, attacks by element, hidden attacks and
        effects, visible effects by kind and element."""
        index = self.index
        for v in plays:
            team = v.team
            element = v.element
            if v.orientation == ATTACK:
                self.attack_cards[team] += 1
                if element is None:
                    self.hidden_attacks[team] += 1
                else:
                    self.attacks[team][index[element]] += 1
            elif v.card is None or element is None:
                self.hidden_effects[team] += 1
            else:
                kind = v.card.kind
                counts = self.defends if kind == DEFENSE else self.heals if kind == HEALING else self.boosts
                counts[team][index[element]] += 1

    def clear(self) -> None:
        """Every count and every cached value back to none."""
        size = self.size
        for team in (0, 1):
            attacks, boosts, defends, heals = self.attacks[team], self.boosts[team], self.defends[team], self.heals[team]
            for i in range(size):
                attacks[i] = boosts[i] = defends[i] = heals[i] = 0
            self.attack_cards[team] = self.hidden_attacks[team] = self.hidden_effects[team] = 0
            self.turns_left[team] = 0
        for i in range(size):
            self.shown[i] = 0
            self.attack_known[i] = False
        for i in range(len(self.effect_known)):
            self.effect_known[i] = False

    def strength(self, team: int, attacks: list[int], boosts: list[int]) -> list[int]:
        """A team's points after boosts and the opposing visible defenses, reckoning with its protector (a first
        attack's bonus, the defense cards it pierces) and the opposing one (the points it cancels). The board's
        scratch list: read it before the next call."""
        own = self.reckonings[team]
        bonuses = own.first_attack_bonus
        pierces = own.pierces
        pierce = own.pierce_budget
        cancels = self.reckonings[1 - team].cancels
        against = self.defends[1 - team]
        out = self.points
        first_done = False
        for i in range(len(attacks)):
            count = attacks[i]
            if not count:
                out[i] = 0
                continue
            points = count * (1 + boosts[i])
            if not first_done:
                bonus = bonuses[i]
                if bonus:
                    points += bonus
                    first_done = True
            defends = against[i]
            if pierce and defends and pierces[i]:
                pierced = pierce if pierce < defends else defends
                defends -= pierced
                pierce -= pierced
            points -= defends + cancels[i]
            out[i] = points if points > 0 else 0
        return out

    def score(self, team: int, attacks: list[int] | None = None, boosts: list[int] | None = None,
              cards: int | None = None) -> float:
        """How much `team`'s visible attacks would achieve against the other team's defenses."""
        attacks = attacks if attacks is not None else self.attacks[team]
        boosts = boosts if boosts is not None else self.boosts[team]
        cap = cards if cards is not None else self.attack_cards[team]  # the cap of L9: attack cards only
        return self.targets[1 - team].score(self.strength(team, attacks, boosts), cap)

    def value(self, action: Action) -> float:
        """The heuristic value of an attack or an effect (not a redraw), each kind worked out once a turn."""
        if action[0] == ATTACK:
            element = self.index[action[2]]
            if not self.attack_known[element]:
                self.attack_values[element] = self.attack_value(element)
                self.attack_known[element] = True
            return self.attack_values[element]
        slot = self.effect_slots.get(action[1], -1)
        if slot < 0:  # a design met for the first time: read off the hand
            card = card_in(self.hand, action[1])
            slot = self.effect_slots[card.slug] = effect_slot(card.kind) * self.size + self.index[card.element]
        if not self.effect_known[slot]:
            self.effect_values[slot] = self.effect_value(slot // self.size, slot % self.size)
            self.effect_known[slot] = True
        return self.effect_values[slot]

    def attack_value(self, element: int) -> float:
        """What an attack of the element (its place in the catalogue) adds to the team's best allocation."""
        me, opponents = self.me, 1 - self.me
        attacks = self.attacks[me]
        attacks[element] += 1  # for this reckoning only
        gain = self.score(me, attacks=attacks, cards=self.attack_cards[me] + 1) - self.base_attack
        attacks[element] -= 1
        # Insurance against hidden defenses when the element is needed at all.
        need = self.open[opponents][element]
        return gain + (0.1 * need * (1 + self.hidden_effects[opponents]) / 2 if need else 0.0)

    def effect_value(self, kind: int, element: int) -> float:
        """The value of a card's effect: its kind (`effect_slot`), and its element's place in the catalogue."""
        me, opponents = self.me, 1 - self.me
        if kind == DEFENSE_SLOT:
            saved = 0.0
            if self.attacks[opponents][element]:
                self.defends[me][element] += 1
                saved = self.base_threat - self.score(opponents)
                self.defends[me][element] -= 1
            exposed = self.open[me][element]
            expected = 0.0
            if exposed:
                unknown = self.hidden_attacks[opponents] + 0.6 * self.turns_left[opponents]
                expected = 0.25 * unknown * (0.5 + self.shown[element] / 2) / max(1, len(self.elements) - 1)
                expected *= 1 + self.last[me][element]
            return saved + expected
        if kind == HEALING_SLOT:
            return self.heal_value(element)
        # boost
        if not self.attacks[me][element]:
            return 0.02 * self.turns_left[me]
        boosts = self.boosts[me]
        boosts[element] += 1  # for this reckoning only
        gain = self.score(me, boosts=boosts) - self.base_attack
        boosts[element] -= 1
        return gain + 0.15 * self.attacks[me][element] * self.hidden_effects[opponents]

    def heal_value(self, element: int) -> float:
        """The value of a healing effect of the element: more when a defense holding its marker is threatened."""
        me, opponents = self.me, 1 - self.me
        if self.held[me][element] - self.heals[me][element] <= 0:
            return 0.0
        threatened = 0.0
        marker = self.elements[element]
        for d in self.live[me]:
            if marker in d.markers:
                for e in d.elements:
                    i = self.index[e]
                    if e not in d.markers and (self.attacks[opponents][i] or self.shown[i]):
                        threatened = max(threatened, 1.5 if self.attacks[opponents][i] else 0.6)
        return 0.8 + threatened

    def keep_value(self, card: SummoningCard) -> float:
        """How worth keeping a card is for later rounds."""
        me, opponents = self.me, 1 - self.me
        first, second = card.attacks
        index = self.index
        need = self.open[opponents][index[first]]
        if second != first and self.open[opponents][index[second]] > need:
            need = self.open[opponents][index[second]]
        best = 0.5 * need
        element = index[card.element]
        if card.kind == HEALING:
            other = 1.0 if self.held[me][element] else 0.3
        elif card.kind == DEFENSE:
            other = 0.4 * self.open[me][element]
        else:
            other = 0.3
        return other if other > best else best

    def discards(self, size: int) -> tuple[str, ...]:
        """The slugs (in order) of the `size` cards of the hand least worth keeping (all of a smaller hand): the
        lowest keep values, then the first slugs."""
        hand = self.hand
        values = [self.keep_value(card) for card in hand]
        taken = [False] * len(hand)
        slugs: list[str] = []
        for _ in range(min(size, len(hand))):
            pick = -1
            for j in range(len(hand)):
                if taken[j]:
                    continue
                if pick < 0 or values[j] < values[pick] or (values[j] == values[pick]
                                                            and hand[j].slug < hand[pick].slug):
                    pick = j
            taken[pick] = True
            slugs.append(hand[pick].slug)
        slugs.sort()
        return tuple(slugs)

    def redraw_choice(self, legal: Sequence[Action]) -> int:
        """Which of the legal redraws stands for them all (its place in `legal`; -1 without any): see
        `redraw_at`."""
        first = -1
        largest = 0
        for i in range(len(legal)):
            action = legal[i]
            if action[0] == REDRAW:
                if first < 0:
                    first = i
                if action[2] > largest:
                    largest = action[2]
        return self.redraw_at(legal, first, largest) if first >= 0 else -1

    def redraw_at(self, legal: Sequence[Action], first: int, largest: int) -> int:
        """The place in `legal` of the redraw standing for them all, given the place of the first redraw and the
        largest redraw size: the largest draw for a short hand (else 3), discarding the least useful cards (the
        first redraw if none is that one)."""
        size = largest if len(self.hand) <= REDRAW_SIZE else REDRAW_SIZE
        try:
            return legal.index((REDRAW, self.discards(size), size), first)
        except ValueError:
            return first

    def choice(self, legal: Sequence[Action]) -> int:
        """The place in `legal` of the action of the best value, the first one on ties (one redraw standing for
        all of them): `best_scored` of the agent's `scores`, without the list of scored actions."""
        self.scan(legal)
        best_place = self.best_place
        if self.first_redraw < 0:
            return best_place
        # The redraw standing for all of them is looked for only when its value could win: above the best play,
        # or equal to it and placed before it (the first one wins ties).
        value = self.redraw_value()
        if value < self.best_value:
            return best_place
        chosen = self.redraw_at(legal, self.first_redraw, self.largest_redraw)
        return chosen if value > self.best_value or chosen < best_place else best_place

    def scan(self, legal: Sequence[Action]) -> None:
        """Value every play of `legal` (not the redraws): the best one's place and value (the first on ties; place
        0 and no value when there is no play), the first redraw's place (-1 without any) and the largest redraw."""
        best_place = 0
        best_value = float("-inf")
        first = -1
        largest = 0
        i = -1
        for action in legal:
            i += 1
            kind = action[0]
            if kind == REDRAW:
                if first < 0:
                    first = i
                if action[2] > largest:
                    largest = action[2]
                continue
            value = self.value(action)
            if value > best_value:
                best_place, best_value = i, value
        self.best_place, self.best_value, self.first_redraw, self.largest_redraw = best_place, best_value, first, largest

    def redraw_value(self) -> float:
        """Redraw beats a weak play, more so with a short hand."""
        return REDRAW_BASE + 0.2 * max(0, REDRAW_SIZE - len(self.hand))


class GreedyAgent:
    """Breaks defenses soonest, defends the elements the opponents showed, heals threatened defenses."""

    name = "greedy"

    def __init__(self) -> None:
        """An agent keeping the summary of the defenses it saw last (`defense_summary`), the reckoning of the
        protectors it saw last (`reckonings`), the teams of the turn order it saw last and its board."""
        self.summarised: list[tuple[DefenseView, ...] | None] = [None, None]  # per team: the views summed up
        self.summary: list[DefenseSummary] = []
        self.reckoned: tuple[ProtectorCard, ...] | None = None
        self.reckoning: list[Reckoning] = []
        self.indexed: Catalogue | None = None
        self.places: CatalogueIndex | None = None
        self.ordered: tuple[str, ...] | None = None
        self.order_teams: list[int] = []
        self.board: Board | None = None

    def catalogue_index(self, obs: LegendsObservation) -> CatalogueIndex:
        """The places of the observation's catalogue: made once per catalogue."""
        places = self.places
        if places is None or self.indexed is not obs.catalogue:
            places = self.places = CatalogueIndex(obs.catalogue)
            self.indexed = obs.catalogue
        return places

    def element_index(self, obs: LegendsObservation) -> dict[str, int]:
        """Each element's place in the catalogue's order."""
        return self.catalogue_index(obs).elements

    def defense_summary(self, obs: LegendsObservation) -> list[DefenseSummary]:
        """The summary of each team's defenses in the observation: the one kept while its views are the same."""
        index = self.element_index(obs)
        summary = self.summary
        if not summary:
            summary.extend(DefenseSummary(team, index) for team in obs.defenses)
            self.summarised = list(obs.defenses)
            return summary
        for team in (0, 1):
            views = obs.defenses[team]
            if self.summarised[team] is not views:
                summary[team] = DefenseSummary(views, index)
                self.summarised[team] = views
        return summary

    def reckonings(self, obs: LegendsObservation) -> list[Reckoning]:
        """Each team's protector reckoned with: the one kept while the observation shows the same protectors."""
        if self.reckoned is not obs.protectors:
            self.reckoning = [Reckoning(p.effect, obs.elements) for p in obs.protectors]
            self.reckoned = obs.protectors
        return self.reckoning

    def teams_in_order(self, obs: LegendsObservation) -> list[int]:
        """The team of each place of the round's turn order: the list kept while the observation shows the same
        order (an observation shares it for a whole round)."""
        if self.ordered is not obs.order:
            teams = {p.pid: p.team for p in obs.players}
            self.order_teams = [teams[pid] for pid in obs.order]
            self.ordered = obs.order
        return self.order_teams

    def read(self, obs: LegendsObservation) -> Board:
        """The agent's board with `obs` read into it."""
        places = self.catalogue_index(obs)
        board = self.board
        if board is None or board.size != len(places.elements):
            board = self.board = Board(len(places.elements))
        board.read(obs, self.defense_summary(obs), self.reckonings(obs), places, self.teams_in_order(obs))
        return board

    def act(self, observation: LegendsObservation, legal_actions: Sequence[Action], rng: random.Random) -> Action:
        """The legal action with the best one-turn heuristic value (first one on ties, as `best_scored` of
        `scores`; worked out here without the list of scored actions)."""
        if observation.stage == "allocate":
            return default_allocation(observation, legal_actions)
        if observation.stage == "heal":
            return default_heal(observation, legal_actions)
        return legal_actions[self.read(observation).choice(legal_actions)]

    def scores(self, obs: LegendsObservation, legal: Sequence[Action]) -> list[tuple[float, Action]]:
        """Every legal action of a turn with its heuristic value, in their order; one redraw (the best discards)
        stands for all of them."""
        board = self.read(obs)
        chosen = board.redraw_choice(legal)
        out: list[tuple[float, Action]] = []
        for i in range(len(legal)):
            action = legal[i]
            if action[0] != REDRAW:
                out.append((board.value(action), action))
            elif i == chosen:
                out.append((board.redraw_value(), action))
        return out


class SoftmaxAgent:
    """Greedy's values, but each play drawn with probability proportional to exp(value / temperature) from the
    seat's own generator (G1: the same seed plays the same match), so that the matches of one matchup differ.

    Allocations (L10) and healing choices (L9) keep their default policies, as greedy does.
    """

    name = "softmax"

    def __init__(self, temperature: float = SOFTMAX_TEMPERATURE) -> None:
        """A softmax agent drawing at `temperature` (near 0: greedy; large: uniform over the scored plays)."""
        self.temperature = temperature
        self.greedy = GreedyAgent()

    def act(self, observation: LegendsObservation, legal_actions: Sequence[Action], rng: random.Random) -> Action:
        """A legal play drawn by its greedy value (one redraw, the best discards, stands for all of them)."""
        if observation.stage == "allocate":
            return default_allocation(observation, legal_actions)
        if observation.stage == "heal":
            return default_heal(observation, legal_actions)
        return softmax_choice(self.greedy.scores(observation, legal_actions), self.temperature, rng)


class SearchAgent:
    """Determinised Monte Carlo: candidates (the best greedy actions) played out on sampled matches.

    Its reach: `determinisations` samples of the hidden cards (other hands, draw pile, face-down
    cards) drawn from the unseen cards, each shared by every candidate (common random numbers);
    from each, a greedy playout for every player through `horizon` showdowns (1: to the end of the
    current round) or the end of the match, scored by defenses and markers. Only the observation
    is read (G2); the samples' seeds come only from the generator the agent is handed (its seat's
    own, G2), so a match stays reproducible from its seed.

    Its budget, in simulated decisions (`simulate.engine.budget`): at most `budget` for one decision,
    shared equally by the playouts (each cut off and scored where it stands when its share is spent;
    fewer samples when the budget cannot give every candidate one decision in each), and at most
    `match_budget` over a seat's whole match. When the budget left cannot try every candidate, it
    plays greedy's choice.
    """

    name = "search"

    def __init__(
        self, determinisations: int = 10, max_candidates: int = 6, horizon: int = 1, budget: int = DECISION_BUDGET,
        match_budget: int = MATCH_BUDGET,
    ) -> None:
        """The search's reach (samples, candidates, showdowns looked ahead) and its budget (decisions simulated
        for one decision, and for a seat's match)."""
        self.determinisations = determinisations
        self.max_candidates = max_candidates
        self.horizon = horizon
        self.budget = LookaheadBudget(budget, match_budget)
        self.greedy = GreedyAgent()

    @property
    def simulated(self) -> int:
        """Decisions simulated so far, over every decision and match of this agent."""
        return self.budget.simulated

    def act(self, observation: LegendsObservation, legal_actions: Sequence[Action], rng: random.Random) -> Action:
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
        n = len(candidates)
        samples, share = self.budget.split(rng, n, self.determinisations)
        if not samples:  # not one simulated decision for each candidate: greedy's choice
            return self.greedy.act(observation, legal_actions, rng)
        seeds = [child_seed(rng) for _ in range(samples)]
        totals = [0.0] * n
        spent = 0
        for seed in seeds:
            world = observation.sandbox(seed)
            for i, action in enumerate(candidates):
                sim = world.clone(seed + i + 1)
                sim.apply(action)
                value, steps = self.playout(sim, observation.team, observation.round, share - 1)
                totals[i] += value
                spent += 1 + steps
        self.budget.spend(rng, spent)
        best = 0
        for i in range(1, n):
            if totals[i] > totals[best] + 1e-9:
                best = i
        return candidates[best]

    def playout(self, sim: LegendsState, team: int, start_round: int, limit: int) -> tuple[float, int]:
        """Greedy play for every player to the horizon, the end or `limit` decisions; the position's value (a win
        is worth 100, else defenses and markers) and the decisions applied."""
        greedy = self.greedy
        rng = sim.rng
        stop = start_round + self.horizon
        steps = 0
        while steps < limit and not sim.is_terminal() and sim.round < stop:
            legal = sim.pending_actions()
            player = sim.current_player()
            if len(legal) == 1 or player is None:
                sim.apply(legal[0])
            else:
                sim.apply(greedy.act(sim.observation(player), legal, rng))
            steps += 1
        return evaluate(sim, team), steps


def evaluate(sim: LegendsState, team: int) -> float:
    """A position's value for `team`: wins dominate, then defenses standing and markers on them."""
    if sim.is_terminal():
        if sim.winner is None:
            return 0.0
        return 100.0 if sim.winner == team else -100.0
    value = 0.0
    for side, sign in ((team, 1.0), (1 - team, -1.0)):
        for d in sim.defenses[side]:
            if d.destroyed:
                value -= sign * 10.0
            else:
                value -= sign * 3.0 * len(d.markers)
    return value


register_agent("greedy", description="One-turn heuristic: break defenses soonest, defend shown elements, heal.",
               game="legends")(GreedyAgent)
register_agent("softmax",
               description="Greedy's values, each play drawn with probability proportional to exp(value / T).",
               game="legends")(SoftmaxAgent)
register_agent("search", description="Determinised Monte Carlo over hidden cards, greedy playouts.",
               game="legends", lookahead=True)(SearchAgent)
