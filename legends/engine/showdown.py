"""The showdown of ruling L9, step by step, as small functions over plays and defenses.

Each step returns plain records (what happened, with its numbers) that the match turns into
log events, so the steps can be tested on hand-worked numbers without playing a match:

1. `heal_step`: each healing card of element X removes one X marker from one of its own
   team's defenses (a marker placed in an earlier round: this round's markers come later).
2. `boost_step`: each boost of element X gives +1 strength to every X attack of its team
   (stackable); a boost with no matching attack does nothing. A `boost_first_attack`
   protector adds its amount to the team's first matching attack in turn order.
3. `defense_step`: each defense card of element X cancels one strength point of the opposing
   team's X attacks, one card at a time; a `cancel_attack` protector cancels like that many
   free defense cards.
4. `allocation_options` / `best_allocation`: the remaining strength points are markers; a team
   places at most as many as the attack cards it played (plus an `extra_marker` protector),
   each on an opposing defense that requires the element and does not hold it yet (L10: the
   choice is the team's; the default policy maximises destroyed defenses, then markers).
5. `destroy_step`: defenses holding both of their elements are destroyed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from legends.engine.cards import DefenseCard, SummoningCard
from legends.engine.protectors import ANY_ELEMENT, ProtectorEffect

ATTACK = "attack"
EFFECT = "effect"


class Play:
    """A summoning card played this round: by whom, face up or down, as an attack or its effect."""

    __slots__ = ("seq", "seat", "pid", "team", "face_up", "orientation", "card", "element")

    def __init__(self, seq: int, seat: int, pid: str, team: int, face_up: bool, orientation: str,
                 card: SummoningCard, element: str) -> None:
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


class Defense:
    """A defense card in play: the element markers lying on it, and whether it is destroyed."""

    __slots__ = ("card", "slug", "team", "elements", "markers", "destroyed")

    def __init__(self, card: DefenseCard, team: int, markers: Sequence[str] = (), destroyed: bool = False) -> None:
        self.card = card
        self.slug = card.slug
        self.team = team
        self.elements = card.elements
        self.markers: list[str] = list(markers)
        self.destroyed = destroyed

    def copy(self) -> Defense:
        """An independent copy (look-ahead states)."""
        return Defense(self.card, self.team, self.markers, self.destroyed)

    def missing(self) -> list[str]:
        """The elements it requires and does not hold yet."""
        return [e for e in self.elements if e not in self.markers]

    def __repr__(self) -> str:
        state = "destroyed" if self.destroyed else f"markers={self.markers}"
        return f"<defense {self.slug} {self.elements} {state}>"


def intact(defenses: Sequence[Defense]) -> list[Defense]:
    """The defenses not destroyed yet."""
    return [d for d in defenses if not d.destroyed]


# ------------------------------------------------------------------ step 1: healing


def heal_target(defenses: Sequence[Defense], element: str, threats: frozenset[str] | set[str]) -> Defense | None:
    """The defense a heal of `element` cleans: one holding such a marker whose missing element the
    opponents attack with this round first, else the first one in setup order."""
    first = None
    for d in defenses:
        if d.destroyed or (element != ANY_ELEMENT and element not in d.markers) or not d.markers:
            continue
        if first is None:
            first = d
        for e in d.elements:
            if e not in d.markers and e in threats:
                return d
    return first


def heal_step(plays: Sequence[Play], defenses: Sequence[Sequence[Defense]]) -> list[dict[str, Any]]:
    """Step 1: every healing card removes one marker of its element from its own team's defenses."""
    threats: list[set[str]] = [set(), set()]
    for p in plays:
        if p.orientation == ATTACK:
            threats[1 - p.team].add(p.element)
    out: list[dict[str, Any]] = []
    for p in plays:
        if p.orientation != EFFECT or p.card.kind != "healing":
            continue
        target = heal_target(defenses[p.team], p.element, threats[p.team])
        if target is not None:
            target.markers.remove(p.element)
        out.append({"team": p.team, "play": p, "element": p.element,
                    "defense": target.slug if target is not None else None, "removed": target is not None})
    return out


def heal_markers(defenses: Sequence[Defense], effect: ProtectorEffect) -> list[tuple[str, str]]:
    """A `heal_marker` protector: remove up to `count` matching markers, first defenses first."""
    removed: list[tuple[str, str]] = []
    for _ in range(effect.count):
        target = heal_target(defenses, effect.element, frozenset())
        if target is None:
            break
        element = target.markers[0] if effect.element == ANY_ELEMENT else effect.element
        target.markers.remove(element)
        removed.append((target.slug, element))
    return removed


# ------------------------------------------------------------------ step 2: boosts


def boost_step(
    plays: Sequence[Play], effects: Sequence[ProtectorEffect | None]
) -> tuple[dict[int, int], list[dict[str, Any]]]:
    """Step 2: strength of each attack (by play seq) after boost cards and boosting protectors."""
    strength: dict[int, int] = {p.seq: 1 for p in plays if p.orientation == ATTACK}
    records: list[dict[str, Any]] = []
    for p in plays:
        if p.orientation != EFFECT or p.card.kind != "boost":
            continue
        boosted = [a.seq for a in plays if a.orientation == ATTACK and a.team == p.team and a.element == p.element]
        for seq in boosted:
            strength[seq] += 1
        records.append({"team": p.team, "via": "card", "play": p, "element": p.element, "amount": 1,
                        "attacks": boosted})
    for team, effect in enumerate(effects):
        if effect is None or effect.kind != "boost_first_attack":
            continue
        first = next((a for a in plays if a.orientation == ATTACK and a.team == team and effect.matches(a.element)),
                     None)
        if first is not None:
            strength[first.seq] += effect.amount
        records.append({"team": team, "via": "protector", "play": None,
                        "element": first.element if first is not None else effect.element,
                        "amount": effect.amount, "attacks": [first.seq] if first is not None else []})
    return strength, records


def team_strength(plays: Sequence[Play], strength: dict[int, int], team: int, elements: Sequence[str]) -> dict[str, int]:
    """A team's strength points by element (every catalogue element listed, in order)."""
    out = dict.fromkeys(elements, 0)
    for p in plays:
        if p.team == team and p.orientation == ATTACK:
            out[p.element] = out.get(p.element, 0) + strength[p.seq]
    return out


def attack_cards(plays: Sequence[Play], team: int) -> int:
    """How many attack cards a team played this round (the allocation cap of L9 step 4)."""
    return sum(1 for p in plays if p.team == team and p.orientation == ATTACK)


# ------------------------------------------------------------------ step 3: defenses


def defense_step(
    plays: Sequence[Play], totals: Sequence[dict[str, int]], effects: Sequence[ProtectorEffect | None],
    elements: Sequence[str],
) -> list[dict[str, Any]]:
    """Step 3: every defense card cancels one strength point of the opposing team's attacks of its
    element, one card at a time (in turn order); then cancelling protectors. Mutates `totals`."""
    records: list[dict[str, Any]] = []
    for p in plays:
        if p.orientation != EFFECT or p.card.kind != "defense":
            continue
        target = totals[1 - p.team]
        cancelled = 1 if target.get(p.element, 0) > 0 else 0
        if cancelled:
            target[p.element] -= 1
        records.append({"team": p.team, "via": "card", "play": p, "element": p.element,
                        "cancelled": cancelled, "left": target.get(p.element, 0)})
    for team, effect in enumerate(effects):
        if effect is None or effect.kind != "cancel_attack":
            continue
        target = totals[1 - team]
        for _ in range(effect.count):
            element = effect.element
            if element == ANY_ELEMENT:  # the strongest opposing element, in catalogue order on ties
                element = max(elements, key=lambda e: target.get(e, 0)) if elements else ""
            cancelled = 1 if target.get(element, 0) > 0 else 0
            if cancelled:
                target[element] -= 1
            records.append({"team": team, "via": "protector", "play": None, "element": element,
                            "cancelled": cancelled, "left": target.get(element, 0)})
    return records


# ------------------------------------------------------------------ step 4: allocation

Placement = tuple[str, str]  # (defense slug, element)


def allocation_slots(strength: dict[str, int], defenses: Sequence[Defense]) -> list[Placement]:
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


def allocation_options(strength: dict[str, int], cap: int, defenses: Sequence[Defense]) -> list[tuple[Placement, ...]]:
    """Every legal allocation: at most `cap` markers, at most the strength of each element,
    one marker per (defense, element); the empty allocation first (placing fewer is allowed)."""
    slots = allocation_slots(strength, defenses)
    if not slots or cap <= 0:
        return [()]
    options: list[tuple[Placement, ...]] = []
    n = len(slots)
    for mask in range(1 << n):
        chosen = [slots[i] for i in range(n) if mask >> i & 1]
        if len(chosen) > cap:
            continue
        used: dict[str, int] = {}
        ok = True
        for _, e in chosen:
            used[e] = used.get(e, 0) + 1
            if used[e] > strength[e]:
                ok = False
                break
        if ok:
            options.append(tuple(chosen))
    return options


def allocation_value(placements: Sequence[Placement], defenses: Sequence[Defense]) -> tuple[int, int]:
    """(defenses it destroys, markers it places): what the default policy maximises (L10)."""
    by_slug = {d.slug: d for d in defenses}
    added: dict[str, int] = {}
    for slug, _ in placements:
        added[slug] = added.get(slug, 0) + 1
    destroyed = sum(1 for slug, n in added.items() if len(by_slug[slug].markers) + n >= 2)
    return destroyed, len(placements)


def best_allocation(options: Sequence[tuple[Placement, ...]], defenses: Sequence[Defense]) -> int:
    """The index of the default policy's allocation: most destroyed, then most markers (first on ties)."""
    best = 0
    best_value = (-1, -1)
    for i, option in enumerate(options):
        value = allocation_value(option, defenses)
        if value > best_value:
            best, best_value = i, value
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
