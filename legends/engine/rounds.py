"""The round (rulings L7, L9-L12): its start, the showdown as the match runs it (reveal, heals, attacks,
allocations, destruction), its end; and `advance`, which runs these automatic steps until a decision is
pending or the match is over."""

from __future__ import annotations

from legends.engine import heals, turns
from legends.engine.showdown import (
    BoostRecord,
    CancelRecord,
    Placement,
    allocation_options,
    attack_points,
    destroy_step,
    intact,
    marker_cap,
    place,
)
from legends.engine.table import (
    ALLOCATE_STAGE,
    ALLOCATIONS,
    ATTACKS,
    OVER,
    PLAY_STAGE,
    TURNS,
    Table,
)


def advance(table: Table) -> None:
    """Run the automatic steps until a decision is pending (a turn, a heal, an allocation) or the match ends."""
    while table.stage != OVER:
        if table.heal_queue and heals.next_heal(table):
            return
        step = table.step
        if step == TURNS:
            if table.turn < len(table.order) * table.passes:
                table.stage = PLAY_STAGE
                table.legal = None
                turns.spy_look(table)
                return
            reveal(table)
        elif step == ATTACKS:
            resolve_attacks(table)
        elif next_allocation(table):
            return
        else:
            end_showdown(table)
            if table.stage != OVER:
                end_round(table)
            if table.stage != OVER:
                start_round(table)


def start_round(table: Table) -> None:
    """L7: the counter order, the protectors' round-start heals, then the turns."""
    table.round += 1
    seats = table.seats
    table.order = [s.index for s in sorted(seats, key=lambda s: s.counter)]
    table.turn = 0
    table.plays = []
    table.known = [set(), set()]
    table.spy_used = [False, False]
    table.revealed = False
    table.stage = PLAY_STAGE
    table.step = TURNS
    table.legal = None
    if table.record is not None:
        table.record(("round_start", table.round, tuple([seats[i].pid for i in table.order]),
                      {s.pid: s.counter for s in seats}, table.public))
    heals.queue_round_start_heals(table)


def reveal(table: Table) -> None:
    """L9 step 0: every face-down card turns up; then the healing cards (step 1)."""
    table.revealed = True
    record = table.record
    if record is not None:
        record(("showdown_start", table.round, table.public))
        for p in table.plays:
            if not p.face_up:
                record(("reveal", table.round, p.seq, p.pid, p.team, p.orientation, p.card.slug, p.element, p.kind,
                        table.public))
    heals.queue_healing_cards(table)
    table.step = ATTACKS


def resolve_attacks(table: Table) -> None:
    """Steps 2 and 3 (boosts, defenses), logged; then the allocations, the team of counter 1 first."""
    boosts, totals, cancels, left = attack_points(table.plays, table.effects, table.elements)
    if table.record is not None:
        log_attacks(table, boosts, totals, cancels)
    table.points = left
    first = table.seats[table.order[0]].team
    table.alloc_queue = [first, 1 - first]
    table.step = ALLOCATIONS


def log_attacks(
    table: Table, boosts: list[BoostRecord], totals: list[dict[str, int]], cancels: list[CancelRecord]
) -> None:
    """The records of steps 2 and 3: each boost, each team's strength, each pierce and cancellation."""
    record = table.record
    if record is None:
        return
    for b in boosts:
        p = b.play
        source = p.card.slug if p is not None else table.protectors[b.team].slug
        record(("boost", table.round, b.team, b.via, source, p.pid if p is not None else None,
                p.seq if p is not None else None, b.element, b.amount, tuple(b.attacks), table.public))
    for team in (0, 1):
        record(("strength", table.round, team, marker_cap(table.plays, team), dict(totals[team]), table.public))
    log_cancels(table, cancels)


def log_cancels(table: Table, cancels: list[CancelRecord]) -> None:
    """The records of step 3: each pierced defense card, each cancellation."""
    record = table.record
    if record is None:
        return
    round_number = table.round
    public = table.public
    for c in cancels:
        p = c.play
        if c.pierced and p is not None:
            attacker = 1 - c.team
            record(("pierce", round_number, attacker, table.protectors[attacker].slug, c.element, p.pid, p.seq,
                    public))
        source = p.card.slug if p is not None else table.protectors[c.team].slug
        record(("cancel", round_number, c.team, c.via, source, p.pid if p is not None else None,
                p.seq if p is not None else None, c.element, c.cancelled, c.pierced, c.left, public))


def next_allocation(table: Table) -> bool:
    """L9 step 4 for each team in turn: True when the team has a choice (its decider decides now); without one
    the markers are placed at once. False once both teams have allocated."""
    while table.alloc_queue:
        team = table.alloc_queue[0]
        cap = marker_cap(table.plays, team)  # the only cap (L9): nothing raises it
        options = allocation_options(table.points[team], cap, table.defenses[1 - team])
        table.alloc_cap = cap
        if len(options) > 1:
            table.stage = ALLOCATE_STAGE
            table.alloc_options = options
            table.legal = None
            return True
        table.alloc_queue.pop(0)
        place_markers(table, team, options[0], "auto")
    table.stage = PLAY_STAGE
    table.alloc_options = []
    return False


def place_markers(table: Table, team: int, placements: tuple[Placement, ...], chosen_by: str) -> None:
    """Put the team's markers on the opposing defenses, logged."""
    place(placements, table.defenses[1 - team])
    if table.record is not None:
        table.record(("allocation", table.round, team, table.decider(team).pid if chosen_by == "agent" else None,
                      dict(table.points[team]), marker_cap(table.plays, team), table.alloc_cap, placements,
                      len(placements), chosen_by, table.public))


def end_showdown(table: Table) -> None:
    """L9 step 5 and L12: destruction, then victory, a draw, or the end of the round."""
    record = table.record
    for team in (0, 1):
        for d in destroy_step(table.defenses[team]):
            if record is not None:
                record(("destroyed", table.round, team, d.slug, d.elements, 1 - team, table.public))
    left = [len(intact(table.defenses[team])) for team in (0, 1)]
    if record is not None:
        record(("showdown_end", table.round, (left[0], left[1]), table.public))
    if not left[0] and not left[1]:
        finish(table, None, "mutual_destruction")
    elif not left[0] or not left[1]:
        finish(table, 0 if left[0] else 1, "defenses_destroyed")


def end_round(table: Table) -> None:
    """L11: played cards to the discard pile, counters handed on, round-end protector draws; L12's round cap."""
    discard_plays(table)
    hand_on_counters(table)
    round_end_draws(table)
    if table.round >= table.max_rounds:
        finish(table, None, "max_rounds")


def discard_plays(table: Table) -> None:
    """L11: the round's cards go to the discard pile, and are kept as the last round's plays."""
    for p in table.plays:
        table.discard.append(p.card)
    if table.record is not None:
        table.record(("round_end", table.round, tuple([p.card.slug for p in table.plays]), len(table.discard),
                      table.public))
    table.last_plays = table.plays
    table.plays = []


def hand_on_counters(table: Table) -> None:
    """L11: counter card 1 goes to the holder of 2, ..., card N to the holder of 1."""
    record = table.record
    seats = table.seats
    count = len(seats)
    before = {s.pid: s.counter for s in seats} if record is not None else None
    for s in seats:
        s.counter = s.counter - 1 if s.counter > 1 else count
    if record is not None:
        record(("counters", table.round, before, {s.pid: s.counter for s in seats}, table.public))


def round_end_draws(table: Table) -> None:
    """After the counters are handed on, a protector drawing at round end draws for each of its players, in
    counter order."""
    seats = table.seats
    for team, effect in enumerate(table.effects):
        if not effect.handler.draws_at_round_end:
            continue
        for seat in sorted((s for s in seats if s.team == team), key=lambda s: s.counter):
            table.draw_cards(seat, effect.handler.round_end_draw(effect, len(seat.hand)), "protector",
                             table.protectors[team].slug)


def finish(table: Table, winner: int | None, reason: str) -> None:
    """The match is over: `winner` (None: a draw) and why, logged."""
    table.stage = OVER
    table.winner = winner
    table.reason = reason
    table.legal = []
    if table.record is not None:
        table.record(("match_end", winner, reason, table.round, table.public))
