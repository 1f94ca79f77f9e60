"""The attack order (R7, R9, R15): living units by current SPD, ties between the players settled by the
`tie_break` option, a summon slotted in by its SPD (a tie with enemy units settled the same way)."""

from __future__ import annotations

from realms.engine.battlefield import ACT, FLEX, START, Battlefield
from realms.engine.units import Unit
from realms.engine.vocabulary import OTHER


def tie_leader(bf: Battlefield) -> str:
    """R9: the player who leads a tie between the players: a seeded coin (`random`) or the alternation,
    which runs on across every tie of the match (`alternate`)."""
    if bf.tie_random:
        return "a" if bf.rng.random() < 0.5 else "b"
    lead = bf.alternate_lead
    bf.alternate_lead = OTHER[lead]
    return lead


def ranked(bf: Battlefield) -> tuple[list[Unit], list[int], list[list[object]]]:
    """Living units by SPD; a tie between the players is led by a coin (random) or by alternation.

    Units of one player inside a tie keep their army order (R9).
    """
    order: list[Unit] = []
    spds: list[int] = []
    # Player a's units first, each side in army order: at one SPD they stay in that order (a stable sort).
    for u in bf.living["a"]:
        place(order, spds, u)
    for u in bf.living["b"]:
        place(order, spds, u)
    ties: list[list[object]] = []
    n = len(order)
    i = 0
    while i < n:  # from the fastest, as the coins are drawn
        s = spds[i]
        j = i + 1
        while j < n and spds[j] == s:
            j += 1
        # Only an SPD both players field makes a tie between them (a's units of the group come first, then b's);
        # any other group stays as sorted.
        if order[i].side == "a" and order[j - 1].side == "b":
            lead = tie_leader(bf)
            ties.append([s, lead])
            interleave(order, i, j, lead)
        i = j
    return order, spds, ties


def place(order: list[Unit], spds: list[int], u: Unit) -> None:
    """Insert `u` after every unit at least as fast (a handful of units: an insertion sort, no key calls)."""
    s = u.spd_now
    i = len(spds)
    while i > 0 and spds[i - 1] < s:
        i -= 1
    order.insert(i, u)
    spds.insert(i, s)


def interleave(order: list[Unit], i: int, j: int, lead: str) -> None:
    """R9: the units of a tie between the players (`order[i:j]`, a's then b's) alternate, `lead`'s first."""
    k = i + 1
    while order[k].side == "a":
        k += 1
    first, second = (order[i:k], order[k:j]) if lead == "a" else (order[k:j], order[i:k])
    n1, n2 = len(first), len(second)
    merged: list[Unit] = []
    for m in range(n1 if n1 > n2 else n2):
        if m < n1:
            merged.append(first[m])
        if m < n2:
            merged.append(second[m])
    order[i:j] = merged


def build(bf: Battlefield, phase: str) -> None:
    """An attack order as R9 builds one, logged with what it is for: the battle-start abilities,
    round 1's start phase (R7) or a round's actions."""
    bf.order, bf.order_spd, ties = ranked(bf)
    bf.order_view = None
    if bf.record is not None:  # the logged order is the one observations show (made once, never changed)
        view = bf.order_view = order_view(bf.order, bf.order_spd)
        bf.record(("order", bf.round, phase, view, ties))


def order_view(units: list[Unit], spds: list[int]) -> tuple[tuple[str, int], ...]:
    """The attack order as observations and the log show it: (unit id, SPD used) pairs, in one pass."""
    return tuple([(units[i].uid, spds[i]) for i in range(len(units))])


def insert(bf: Battlefield, u: Unit) -> tuple[int, bool, list[object] | None]:
    """R15: place a new unit in the attack order by its SPD; its slot, whether it acts this round, and the
    tie it had with enemy units ([SPD, leading player]) or None.

    Among the units at its SPD it comes after its own side's (army cards first, then earlier summons);
    if living enemy units at that SPD would follow it there, the tie between the players is settled as R9
    settles one (the `tie_break` coin or alternation): led by its side, it goes before them, else after
    them. A fallen unit keeps its place in the order, but a fallen enemy unit calls for no tie."""
    s = u.spd_now
    spds = bf.order_spd
    units = bf.order
    n = len(spds)
    i = 0
    while i < n and spds[i] > s:
        i += 1
    j = i
    low = i  # just after the last unit of its own side at this SPD
    while j < n and spds[j] == s:
        if units[j].side == u.side:
            low = j + 1
        j += 1
    slot = j
    tie: list[object] | None = None
    for k in range(low, j):
        if units[k].alive:  # units[k] is an enemy: own units at this SPD all stand before `low`
            lead = tie_leader(bf)
            tie = [s, lead]
            if lead == u.side:
                slot = low
            break
    units.insert(slot, u)
    spds.insert(slot, s)
    bf.order_view = None
    if bf.stage == ACT:
        if slot <= bf.idx:
            bf.idx += 1
            return slot, False, tie
        return slot, True, tie
    return slot, bf.stage == START or bf.stage == FLEX, tie
