"""The showdown of ruling L9, step by step, as small functions over plays and defenses.

Each step returns plain records (what happened, with its numbers) that the match turns into
log events, so the steps can be tested on hand-worked numbers without playing a match:

1. healing: each healing card of element X removes one X marker from one of its own team's
   defenses (a marker placed in an earlier round: this round's markers come later). Which
   defense, when several hold an X marker, is the decision of the player who played the card:
   `heal_options` lists the choices, `apply_heal` carries one out.
2. `boost_step`: each boost of element X gives +1 strength to every X attack of its team
   (stackable); a boost with no matching attack does nothing. Then each protector's `boost`
   (a `boost_first_attack` protector adds its amount to the team's first matching attack).
3. `defense_step`: each defense card of element X cancels one strength point of the opposing
   team's X attacks, one card at a time; the attacking team's protector may pierce its first
   matching defense cards (`pierce_budget`), so that they cancel nothing; then each protector's
   `cancel` (a `cancel_attack` protector cancels like that many free defense cards).
   `attack_points` runs steps 2 and 3 together (the match and the agents use the same numbers).
4. `allocation_options`: the remaining strength points are markers; a team places at most as
   many as the attack cards it played (`marker_cap`, the only cap there is: nothing raises it),
   each on an opposing defense that requires the element and does not hold it yet (L10: the
   choice is the team's; the default policy maximises destroyed defenses, then markers).
5. `destroy_step`: defenses holding both of their elements are destroyed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from legends.engine.vocabulary import (
    ANY_ELEMENT,
    ATTACK,
    BOOST,
    DEFENSE,
    DEFENSE_ELEMENTS,
    EFFECT,
    HEALING,
    VIA_CARD,
    VIA_PROTECTOR,
)

if TYPE_CHECKING:
    from legends.engine.cards import DefenseCard, SummoningCard
    from legends.engine.effects.base import ProtectorEffect

Placement = tuple[str, str]  # (defense slug, element)


class Play:
    """A summoning card played this round: by whom, face up or down, as an attack or its effect."""

    __slots__ = ("seq", "seat", "pid", "team", "face_up", "orientation", "card", "element")

    def __init__(self, seq: int, seat: int, pid: str, team: int, face_up: bool, orientation: str,
                 card: SummoningCard, element: str) -> None:
        """The card of turn `seq` (0-based in its round), played by seat `seat` (player `pid`)."""
        self.seq = seq
        self.seat = seat
        self.pid = pid
        self.team = team
        self.face_up = face_up
        self.orientation = orientation
        self.card = card
        self.element = element

    @property
    def kind(self) -> str:
        """'attack', or the effect kind (defense, healing, boost)."""
        return ATTACK if self.orientation == ATTACK else self.card.kind

    def __repr__(self) -> str:
        face = "up" if self.face_up else "down"
        return f"<play #{self.seq} {self.pid} {face} {self.kind} {self.element} {self.card.slug}>"


class DefenseLike(Protocol):
    """What the allocation and healing steps read of a defense: a `Defense`, or an observation's view."""

    @property
    def slug(self) -> str: ...

    @property
    def elements(self) -> tuple[str, str]: ...

    @property
    def markers(self) -> Sequence[str]: ...

    @property
    def destroyed(self) -> bool: ...


class Defense:
    """A defense card in play: the element markers lying on it, and whether it is destroyed."""

    __slots__ = ("card", "slug", "team", "elements", "markers", "destroyed")

    def __init__(self, card: DefenseCard, team: int, markers: Sequence[str] = (), destroyed: bool = False) -> None:
        """`card` in play for `team`, holding `markers`."""
        self.card = card
        self.slug = card.slug
        self.team = team
        self.elements = card.elements
        self.markers: list[str] = list(markers)
        self.destroyed = destroyed

    def copy(self) -> Defense:
        """An independent copy (look-ahead states)."""
        return Defense(self.card, self.team, self.markers, self.destroyed)

    def __repr__(self) -> str:
        state = "destroyed" if self.destroyed else f"markers={self.markers}"
        return f"<defense {self.slug} {self.elements} {state}>"


class BoostRecord:
    """Step 2: a boost card (`play`) or a protector (`play` None) adding `amount` to the attacks `attacks`
    (their seqs; empty when nothing matched)."""

    __slots__ = ("team", "play", "element", "amount", "attacks")

    def __init__(self, team: int, play: Play | None, element: str, amount: int, attacks: list[int]) -> None:
        """What one boost did."""
        self.team = team
        self.play = play
        self.element = element
        self.amount = amount
        self.attacks = attacks

    @property
    def via(self) -> str:
        """'card' or 'protector'."""
        return VIA_CARD if self.play is not None else VIA_PROTECTOR


class CancelRecord:
    """Step 3: a defense card (`play`) or a protector (`play` None) of `team` cancelling `cancelled` point
    (0 or 1) of the opposing `element` attacks, `left` points remaining; `pierced` when the attacking
    team's protector pierced the card."""

    __slots__ = ("team", "play", "element", "cancelled", "pierced", "left")

    def __init__(self, team: int, play: Play | None, element: str, cancelled: int, pierced: bool, left: int) -> None:
        """What one cancellation did."""
        self.team = team
        self.play = play
        self.element = element
        self.cancelled = cancelled
        self.pierced = pierced
        self.left = left

    @property
    def via(self) -> str:
        """'card' or 'protector'."""
        return VIA_CARD if self.play is not None else VIA_PROTECTOR


def intact(defenses: Sequence[Defense]) -> list[Defense]:
    """The defenses not destroyed yet."""
    return [d for d in defenses if not d.destroyed]


# ------------------------------------------------------------------ step 1: healing


def heal_options(defenses: Sequence[DefenseLike], element: str) -> list[Placement]:
    """Every (defense, element) marker a heal of `element` may remove from the team's live defenses,
    in setup order; `any` (a protector's heal) may remove any marker."""
    out: list[Placement] = []
    for d in defenses:
        if d.destroyed:
            continue
        for marker in d.markers:
            if element in (ANY_ELEMENT, marker):
                out.append((d.slug, marker))
    return out


def apply_heal(defenses: Sequence[Defense], slug: str, element: str) -> None:
    """Remove one `element` marker from the defense `slug`."""
    for d in defenses:
        if d.slug == slug:
            d.markers.remove(element)
            return


def healing_cards(plays: Sequence[Play]) -> list[Play]:
    """The healing cards of the round, in turn order (step 1 takes them one at a time)."""
    return [p for p in plays if p.orientation == EFFECT and p.card.kind == HEALING]


# ------------------------------------------------------------------ step 2: boosts


def boost_step(plays: Sequence[Play], effects: Sequence[ProtectorEffect]) -> tuple[dict[int, int], list[BoostRecord]]:
    """Step 2: strength of each attack (by play seq) after boost cards and boosting protectors."""
    strength: dict[int, int] = {p.seq: 1 for p in plays if p.orientation == ATTACK}
    records: list[BoostRecord] = []
    for p in plays:
        if p.orientation != EFFECT or p.card.kind != BOOST:
            continue
        boosted = [a.seq for a in plays if a.orientation == ATTACK and a.team == p.team and a.element == p.element]
        for seq in boosted:
            strength[seq] += 1
        records.append(BoostRecord(p.team, p, p.element, 1, boosted))
    for team, effect in enumerate(effects):
        record = effect.handler.boost(effect, plays, strength, team)
        if record is not None:
            records.append(record)
    return strength, records


def team_strength(plays: Sequence[Play], strength: dict[int, int], team: int, elements: Sequence[str]) -> dict[str, int]:
    """A team's strength points by element (every catalogue element listed, in order)."""
    out = dict.fromkeys(elements, 0)
    for p in plays:
        if p.team == team and p.orientation == ATTACK:
            out[p.element] = out.get(p.element, 0) + strength[p.seq]
    return out


def marker_cap(plays: Sequence[Play], team: int) -> int:
    """L9 step 4's cap, absolute: the attack cards the team played this round. No protector, boost or
    option raises it; `allocation_options` is the one place that applies it."""
    return sum(1 for p in plays if p.team == team and p.orientation == ATTACK)


# ------------------------------------------------------------------ step 3: defenses


def defense_step(
    plays: Sequence[Play], totals: Sequence[dict[str, int]], effects: Sequence[ProtectorEffect], elements: Sequence[str]
) -> list[CancelRecord]:
    """Step 3: every defense card cancels one strength point of the opposing team's attacks of its
    element, one card at a time (in turn order), unless the attacking team's protector pierces it;
    then cancelling protectors. Mutates `totals`."""
    records: list[CancelRecord] = []
    pierce_left = [effect.handler.pierce_budget(effect) for effect in effects]
    for p in plays:
        if p.orientation != EFFECT or p.card.kind != DEFENSE:
            continue
        attacker = 1 - p.team
        target = totals[attacker]
        element = p.element
        pierced = False
        if target.get(element, 0) > 0 and pierce_left[attacker] and effects[attacker].matches(element):
            pierce_left[attacker] -= 1
            pierced = True
        cancelled = 1 if target.get(element, 0) > 0 and not pierced else 0
        if cancelled:
            target[element] -= 1
        records.append(CancelRecord(p.team, p, element, cancelled, pierced, target.get(element, 0)))
    for team, effect in enumerate(effects):
        records.extend(effect.handler.cancel(effect, totals[1 - team], elements, team))
    return records


def attack_points(
    plays: Sequence[Play], effects: Sequence[ProtectorEffect], elements: Sequence[str]
) -> tuple[list[BoostRecord], list[dict[str, int]], list[CancelRecord], list[dict[str, int]]]:
    """Steps 2 and 3 on revealed plays: (boost records, each team's strength after boosts,
    cancel records, each team's points left for allocation)."""
    strength, boosts = boost_step(plays, effects)
    totals = [team_strength(plays, strength, team, elements) for team in (0, 1)]
    left = [dict(points) for points in totals]
    cancels = defense_step(plays, left, effects, elements)
    return boosts, totals, cancels, left


# ------------------------------------------------------------------ step 4: allocation


def allocation_slots(strength: dict[str, int], defenses: Sequence[DefenseLike]) -> list[Placement]:
    """Every (opposing defense, element) that may take a marker: the element is required, not held,
    and the team has strength left in it."""
    slots: list[Placement] = []
    for d in defenses:
        if d.destroyed:
            continue
        for e in d.elements:
            if e not in d.markers and strength.get(e, 0) > 0:
                slots.append((d.slug, e))
    return slots


def allocation_options(
    strength: dict[str, int], cap: int, defenses: Sequence[DefenseLike]
) -> list[tuple[Placement, ...]]:
    """Every legal allocation: at most `cap` markers (`marker_cap`: the attack cards played), at most the
    strength of each element, one marker per (defense, element); the empty allocation first."""
    slots = allocation_slots(strength, defenses)
    if not slots or cap <= 0:
        return [()]
    options: list[tuple[Placement, ...]] = []
    n = len(slots)
    limits = element_limits(slots, strength)
    for mask in range(1 << n):
        # Checked on the mask, so that only legal allocations are gathered.
        if mask.bit_count() > cap or any((mask & members).bit_count() > most for members, most in limits):
            continue
        options.append(tuple([slots[i] for i in range(n) if mask >> i & 1]))
    return options


def element_limits(slots: Sequence[Placement], strength: dict[str, int]) -> list[tuple[int, int]]:
    """Each element's slots as a bit mask (bit i: `slots[i]`), with the element's strength: an allocation takes at
    most that many of them."""
    by_element: dict[str, int] = {}
    for i in range(len(slots)):
        e = slots[i][1]
        by_element[e] = by_element.get(e, 0) | 1 << i
    return [(members, strength[e]) for e, members in by_element.items()]


def allocation_value(placements: Sequence[Placement], defenses: Sequence[DefenseLike]) -> tuple[int, int]:
    """(defenses it destroys, markers it places): what the default policy maximises (L10)."""
    return destroyed_by(placements, markers_held(defenses)), len(placements)


def markers_held(defenses: Sequence[DefenseLike]) -> dict[str, int]:
    """The markers each defense holds, by slug."""
    return {d.slug: len(d.markers) for d in defenses}


def destroyed_by(placements: Sequence[Placement], held: dict[str, int]) -> int:
    """The defenses an allocation destroys, given the markers they hold (`markers_held`)."""
    added: dict[str, int] = {}
    for slug, _ in placements:
        added[slug] = added.get(slug, 0) + 1
    return sum(1 for slug, n in added.items() if held[slug] + n >= DEFENSE_ELEMENTS)


def best_allocation(options: Sequence[tuple[Placement, ...]], defenses: Sequence[DefenseLike]) -> int:
    """The index of the default policy's allocation: most destroyed, then most markers (first on ties), as
    `allocation_value` counts them (the markers held are counted once for every option)."""
    held = markers_held(defenses)
    best = 0
    best_destroyed = best_placed = -1
    for i, option in enumerate(options):
        destroyed = destroyed_by(option, held)
        placed = len(option)
        if destroyed > best_destroyed or (destroyed == best_destroyed and placed > best_placed):
            best, best_destroyed, best_placed = i, destroyed, placed
    return best


def place(placements: Sequence[Placement], defenses: Sequence[Defense]) -> None:
    """Put the chosen markers on the defenses."""
    by_slug = {d.slug: d for d in defenses}
    for slug, element in placements:
        by_slug[slug].markers.append(element)


# ------------------------------------------------------------------ step 5: destruction


def destroy_step(defenses: Sequence[Defense]) -> list[Defense]:
    """Defenses holding both of their elements are destroyed; the ones destroyed now."""
    fallen = []
    for d in defenses:
        if not d.destroyed and all(e in d.markers for e in d.elements):
            d.destroyed = True
            fallen.append(d)
    return fallen
