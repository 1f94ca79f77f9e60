"""A turn (rulings L7, L8, L13): the actions a player may take, playing a card, redrawing, and the Spy's
look before a face-down turn."""

from __future__ import annotations

from itertools import combinations, repeat

from legends.engine.cards import SummoningCard
from legends.engine.showdown import Play
from legends.engine.table import Action, Seat, Table
from legends.engine.vocabulary import ATTACK, DUEL, DUEL_DRAW, FACE_UP_PASSES, REDRAW, REDRAW_SIZE
from simulate.engine.errors import IllegalAction


def turn_actions(table: Table, seat: Seat) -> list[Action]:
    """L8: each distinct card of the hand as an attack with either element or as its effect; then every redraw."""
    legal: list[Action] = []
    seen: set[str] = set()
    for card in seat.hand:
        if card.slug not in seen:
            seen.add(card.slug)
            legal.extend(card.actions)
    legal.extend(redraw_actions(seat.hand, table.redraw_limits[seat.team]))
    return legal


def redraw_actions(hand: list[SummoningCard], limit: int) -> list[Action]:
    """Every redraw: `size` 3 (up to a redraw_size protector's `limit`), discarding that many cards (the whole
    hand if fewer), any distinct choice of them (slugs in order)."""
    slugs = sorted([card.slug for card in hand])
    distinct = len(set(slugs)) == len(slugs)
    out: list[Action] = []
    for size in range(REDRAW_SIZE, limit + 1):
        choices = combinations(slugs, min(size, len(slugs)))
        # zip makes the (REDRAW, discards, size) tuples in C, much faster than a loop making them one by one
        out.extend(zip(repeat(REDRAW), choices if distinct else dict.fromkeys(choices), repeat(size)))
    return out


def take(seat: Seat, slug: str) -> SummoningCard:
    """Take the card `slug` out of the seat's hand."""
    hand = seat.hand
    for i, card in enumerate(hand):
        if card.slug == slug:
            return hand.pop(i)
    raise IllegalAction(slug, [c.slug for c in hand], f"{seat.pid} holds no {slug!r}.")


def play_card(table: Table, seat: Seat, action: Action) -> None:
    """L8: play a card as an attack or as its effect, face up on the first pass (L7); a duel player then
    draws one."""
    card = take(seat, action[1])
    passes_done, _ = divmod(table.turn, len(table.order))
    face_up = passes_done < FACE_UP_PASSES
    orientation: str = action[0]
    element: str = action[2] if orientation == ATTACK else card.element
    play = Play(table.turn, seat.index, seat.pid, seat.team, face_up, orientation, card, element)
    table.plays.append(play)
    record = table.record
    if record is not None:
        if face_up:
            record(("turn", table.round, play.seq, passes_done + 1, seat.pid, seat.team, seat.counter, "up",
                    orientation, card.slug, element, play.kind, table.public))
        else:
            record(("turn", table.round, play.seq, passes_done + 1, seat.pid, seat.team, seat.counter, "down",
                    orientation, None, None, None, table.public))
            record(("facedown", table.round, play.seq, seat.pid, card.slug, element, play.kind, (seat.pid,)))
    if table.mode == DUEL:  # the two-player variant draws after every card played (L8); the card just played
        table.draw_cards(seat, DUEL_DRAW, "play")  # lies on the table until the round ends, so it cannot come back


def redraw(table: Table, seat: Seat, action: Action) -> None:
    """L8: discard the chosen cards and draw `size` new ones, the turn skipped; the cards are drawn before the
    discards reach the discard pile, and piles holding fewer than `size` give what they hold (logged)."""
    _, discards, size = action
    # "Discards three cards to draw three new ones": the discards are held aside while the player draws, so a
    # refill during the redraw shuffles in only what the discard pile held before (L8 as amended).
    thrown = [take(seat, slug) for slug in discards]
    if table.record is not None:  # what it draws and falls short, counted on the piles before the discards land
        draw_pile, discard_pile = len(table.draw), len(table.discard)
        drawn = min(size, draw_pile + discard_pile)
        table.record(("redraw", table.round, table.turn, table.turn // len(table.order) + 1, seat.pid, seat.team,
                      seat.counter, discards, size, drawn, size - drawn, draw_pile, discard_pile,
                      len(seat.hand) + drawn, table.public))
    table.draw_cards(seat, size, REDRAW)
    table.discard.extend(thrown)  # only now, face up: the redraw could not draw them back


def spy_look(table: Table) -> None:
    """L13: before a face-down turn, a Spy team that has not looked this round sees the latest face-down card
    an opponent played (one card a round), logged for the Spy team and the card's owner."""
    if table.turn < len(table.order) * FACE_UP_PASSES:  # nothing is face down yet
        return
    team = table.turn_seat().team
    if table.spy_used[team]:
        return
    effect = table.effects[team]
    play = effect.handler.look(effect, table.plays, team)
    if play is None:
        return
    table.spy_used[team] = True
    table.known[team].add(play.seq)
    if table.record is not None:
        seen = tuple([s.pid for s in table.seats if s.team == team or s.pid == play.pid])
        table.record(("spy", table.round, team, table.protectors[team].slug, play.pid, play.seq, play.card.slug,
                      play.orientation, play.element, play.kind, seen))
