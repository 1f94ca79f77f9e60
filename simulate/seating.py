"""Games with people at some seats: opened from a match request, played one decision at a time through each
person's secret seat link, the agents' turns taken in between, and stored as an ordinary match once over.

A game is its inputs, its seed and the moves taken so far (`simulate.engine.seated`): every read replays it from
the seed, so what a seat sees is what the rules made of the moves, and nothing a client sends changes a game
except a legal move of its own seat. Every write locks the game's row and names the version it was chosen at:
of two moves sent at once, one is applied and the other answered 409.

The agents decide in the request when none of them looks ahead (a whole match of `greedy` costs milliseconds);
a look-ahead agent (`search`, `ismcts`...) decides in the background (a Celery task with a broker, the service's
own thread without), and a game whose agent turn was lost with its worker is handed to the background again
when it is next read.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any, Protocol, cast

from django.db import transaction
from django.utils import timezone

from cardsdb.errors import DomainError
from simulate import batches, services
from simulate.engine.agents import agent_names, looks_ahead
from simulate.engine.errors import IllegalAction, InputError
from simulate.engine.games import TABLE, TableAdjustable, get_game
from simulate.engine.runner import MatchResult
from simulate.engine.seated import PERSON, Diverged, Resumed, as_json, check_move, resume, visible_events
from simulate.models import SeatedGame
from simulate.pinning import Interned, Thawing

MAX_OPEN_GAMES = 10  # games not over per client (its account, and its address), as batches count theirs
IDLE_HOURS = 24  # a game with no move for this long is ended when next read (or by the cleanup)
STALE_THINKING_SECONDS = 60  # an agent's turn not taken for this long was lost with its worker: handed out again
MAX_EVENTS = 500  # events in one answer; the cursor pages through the rest
# Changes by hand in one table game: every read replays them all, so they are bounded as a match's actions are.
MAX_TABLE_CHANGES = 2000

class GameSeating(Protocol):
    """A game's part in seated play: its players and each legal action in words."""

    game: str
    takes_table_changes: bool  # a table game of it may change what stands on the table (`GameState.table_change`)

    def players(self, setup: Any) -> list[str]: ...

    def label(self, observation: Any, action: Sequence[Any]) -> str: ...

    def undoable(self, events: Sequence[Mapping[str, Any]], player: str) -> bool:
        """Whether a move that led to `events` (as its player sees them) may be taken back."""

    def detail(self, observation: Any, action: Sequence[Any]) -> str:
        """What the action does, in the card's words (an ability's text), or ""."""

    def rematch_player(self, player: str) -> str:
        """The player's seat once the sides are swapped."""

    def agents_of(self, seats: Mapping[str, str]) -> Any:
        """The seats as the game's match request gives agents (what `GameMatches.swapped` swaps)."""


GAME_SEATINGS: dict[str, GameSeating] = {}


def register_game_seating(seating_: GameSeating) -> None:
    """Make a game playable with people at some seats (each game app does, when it is ready)."""
    GAME_SEATINGS[seating_.game] = seating_


def seating(game: str) -> GameSeating:
    return GAME_SEATINGS[game]


class SeatConflict(DomainError):
    """A move or undo that is not this seat's to make now, or chosen at a version the game has moved on from."""

    status = 409
    code = "conflict"

    def __init__(self, message: str, legal: list[Any] | None = None) -> None:
        super().__init__(message)
        self.legal = legal

    def details(self) -> dict[str, Any]:
        return {"legal": self.legal} if self.legal is not None else {}


class IllegalMove(DomainError):
    """A move that is not among the legal actions (answered 400 with them)."""

    status = 400
    code = "illegal_action"

    def __init__(self, message: str, legal: list[Any]) -> None:
        super().__init__(message)
        self.legal = legal

    def details(self) -> dict[str, Any]:
        return {"legal": self.legal}


class IllegalChange(DomainError):
    """A change at the table that is not well formed or not possible now (answered 400 saying why)."""

    status = 400
    code = "illegal_change"


class TooManyGames(DomainError):
    status = 429
    code = "too_many_games"


class UnknownSeat(DomainError):
    status = 404
    code = "not_found"


# ------------------------------------------------------------------------------------------------ opening


def open_game(*, game: str, inputs: dict[str, Any], seats: Any, seed: int | None, user, client: str,
              table: bool = False) -> tuple[SeatedGame, dict[str, str]]:
    """Store a new game of `inputs` (a match request's armies or setup and options) with `seats` (each player a
    person or an agent name) and play its agents up to the first person's decision; the game, and each person's
    seat secret (shown once: only its hash is kept). A `table` game is played with physical cards by people at
    every seat, who may change what stands on the table between decisions."""
    prepared = services.prepare_match(game=game, inputs=inputs, agents=None, user=user)
    players = seating(game).players(prepared.setup)
    chosen = checked_seats(game, players, seats)
    if table:
        checked_table(game, chosen)
    interned = Interned()
    frozen = {"setup": services.game_studies(game).freeze_setup(prepared.setup, interned), "values": interned.values}
    return stored_game(game=game, inputs=inputs, setup=prepared.stored_setup, frozen=frozen, options=prepared.options,
                       seed=services.new_seed() if seed is None else seed, seats=chosen, user=user, client=client,
                       table=table)


def checked_table(game: str, seats: Mapping[str, str]) -> None:
    """A table game: of a game that takes table changes, with people at every seat (an agent has no table)."""
    if not seating(game).takes_table_changes:
        raise InputError("This game has no table games.", [("table", "not_offered")])
    agents = [player for player, name in seats.items() if name != PERSON]
    if agents:
        raise InputError("At a table every seat is a person's.", [(f"seats.{player}", "A table game seats people only.")
                                                                  for player in agents])


def stored_game(*, game: str, inputs: dict[str, Any], setup: dict[str, Any], frozen: dict[str, Any],
                options: dict[str, Any], seed: int, seats: dict[str, str], user, client: str,
                table: bool = False) -> tuple[SeatedGame, dict[str, str]]:
    """Store a game (within its client's bound of open games) and play its agents up to the first person's
    decision; the game and each person's seat secret."""
    secrets_ = {player: secrets.token_urlsafe(24) for player, name in seats.items() if name == PERSON}
    row = SeatedGame(game=game, owner=services.account_of(user), client=client, inputs=inputs, setup=setup,
                     frozen=frozen, options=options, seed=seed, seats=seats, table=table,
                     tokens={player: digest(secret) for player, secret in secrets_.items()},
                     last_move_at=timezone.now())
    with transaction.atomic():
        keys = batches.client_keys(client)
        batches.hold_clients(keys)
        if any(open_games_of(key) >= MAX_OPEN_GAMES for key in keys):
            raise TooManyGames(f"You have {MAX_OPEN_GAMES} games not over; finish or leave one first "
                               f"(a game idle for {IDLE_HOURS} hours ends).")
        row.save()
        take_agent_turns(row)
    return row, secrets_


def has_person(agents: Any) -> bool:
    """Whether agents as a match request gives them (a name for every seat, a list, or a mapping) seat a person."""
    if isinstance(agents, str):
        return agents == PERSON
    names = agents.values() if isinstance(agents, Mapping) else agents if isinstance(agents, list) else []
    return PERSON in names


def checked_seats(game: str, players: Sequence[str], seats: Any) -> dict[str, str]:
    """Each player's seat: PERSON or a known agent name, every player given, at least one person. `seats` maps
    players to them, or gives them as a match request gives agents (one for every seat, or a list in seat
    order)."""
    seats = by_player(players, seats)
    known = agent_names(game)
    errors = [(f"seats.{player}", "Give each player a seat: \"person\" or an agent name.")
              for player in players if player not in seats]
    errors += [(f"seats.{player}", f"Unknown player; this setup seats {', '.join(players)}.")
               for player in seats if player not in players]
    errors += [(f"seats.{player}", f"\"person\" or one of {', '.join(known)}.")
               for player, name in seats.items() if player in players and name != PERSON and name not in known]
    if not errors and PERSON not in seats.values():
        errors.append(("seats", "At least one seat is a person's (to watch agents alone, play a match)."))
    if errors:
        raise InputError(errors[0][1] if len(errors) == 1 else "Some seats are not right.", errors)
    return {player: str(seats[player]) for player in players}


def by_player(players: Sequence[str], seats: Any) -> Mapping[str, Any]:
    """Seats given as a match request gives agents, by player."""
    if isinstance(seats, str):
        return dict.fromkeys(players, seats)
    if isinstance(seats, list):
        if len(seats) != len(players):
            raise InputError(f"Give {len(players)} seats, one per player ({', '.join(players)}).",
                             [("seats", "count")])
        return dict(zip(players, seats, strict=True))
    return seats


def open_games_of(key: str) -> int:
    """The games not over that a key of `batches.client_keys` counts."""
    mine = SeatedGame.objects.exclude(status__in=(SeatedGame.Status.FINISHED, SeatedGame.Status.ENDED))
    return mine.filter(batches.rows_of(key)).count()


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def rematch(row: SeatedGame, secret: str, *, user, client: str) -> tuple[SeatedGame, dict[str, str], str]:
    """A finished game played again with the sides swapped (the same armies or teams, each seat's person or agent
    on the other side) and a new seed; the new game, its seat secrets, and the asking seat's player in it."""
    player = seat_of(row, secret)
    if row.status not in (SeatedGame.Status.FINISHED, SeatedGame.Status.ENDED):
        raise SeatConflict("A rematch follows a game that is over.")
    game_seating = seating(row.game)
    setup = services.game_studies(row.game).thaw_setup(row.frozen["setup"], Thawing(row.frozen["values"]))
    prepared = services.PreparedMatch(setup, game_seating.agents_of(row.seats), row.options, row.setup)
    swapped = services.game_matches(row.game).swapped(prepared)
    players = game_seating.players(swapped.setup)
    table = Interned()
    frozen = {"setup": services.game_studies(row.game).freeze_setup(swapped.setup, table), "values": table.values}
    return (*stored_game(game=row.game, inputs={"rematch_of": str(row.id)}, setup=swapped.stored_setup,
                         frozen=frozen, options=row.options, seed=services.new_seed(),
                         seats=checked_seats(row.game, players, swapped.agents), user=user, client=client,
                         table=row.table),
            game_seating.rematch_player(player))


# ------------------------------------------------------------------------------------------------ reading


def seat_of(row: SeatedGame, secret: str) -> str:
    """The player whose seat link holds `secret`; 404 for any other secret (every seat's hash is compared)."""
    found = None
    given = digest(secret)
    for player, kept in row.tokens.items():
        if hmac.compare_digest(kept, given):
            found = player
    if found is None:
        raise UnknownSeat("No seat of this game has this link.")
    return found


def replayed(row: SeatedGame, *, agents: bool = False, moves: int | None = None) -> Resumed:
    """The game replayed from its seed through its moves (its first `moves` of them), the agents asked again or
    not (`seated.resume`)."""
    thawed = Thawing(row.frozen["values"])
    setup = services.game_studies(row.game).thaw_setup(row.frozen["setup"], thawed)
    taken = row.moves if moves is None else row.moves[:moves]
    return resume(row.game, setup=setup, options=row.options, seed=row.seed, seats=row.seats,
                  moves=[(player, action) for player, action in taken], agents=agents)


def seat_view(row: SeatedGame, player: str, since: int = 0) -> dict[str, Any]:
    """What `player`'s seat shows now: its observation, the legal actions in words when it decides, and the events
    it may see from `since` on (at most MAX_EVENTS; `cursor` is where the next answer starts)."""
    end_if_idle(row)
    resumed = replayed(row)
    state = resumed.state
    events = seen_by(resumed, player)
    since = max(0, min(since, len(events)))
    shown = events[since:since + MAX_EVENTS]
    # Each event's play-by-play, rendered with the events before it (names learned earlier), only when new.
    texts = services.event_texts(row.game, [dict(e) for e in events[:since + len(shown)]])[since:] if shown else []
    deciding = row.status == SeatedGame.Status.PLAYING and resumed.waiting == player
    observation: Any = state.observation(player)
    game_seating = seating(row.game)
    legal = [{"index": index, "action": as_json(action), "label": game_seating.label(observation, action),
              "detail": game_seating.detail(observation, action)}
             for index, action in enumerate(state.legal_actions())] if deciding else []
    return {
        "id": str(row.id), "game": row.game, "seat": player, "status": row.status, "turn": row.turn or None,
        "your_turn": deciding, "version": row.version, "moves": len(row.moves), "seats": row.seats, "table": row.table,
        "observation": observation.to_dict(), "legal": legal,
        "events": shown, "texts": texts, "cursor": since + len(shown), "more_events": since + len(shown) < len(events),
        "can_undo": can_undo(row, resumed, player),
        "result": result_of(resumed) if resumed.over else None,
        "match": str(row.match_id) if row.match_id else None,
    }


def seen_by(resumed: Resumed, player: str) -> list[Mapping[str, Any]]:
    """The events of the replayed match that `player` could see."""
    log = resumed.state.event_log()
    return visible_events(log.to_list(), player) if log is not None else []


def result_of(resumed: Resumed) -> dict[str, Any]:
    outcome = resumed.state.outcome()
    return {"winner": outcome.winner, "reason": outcome.reason, "rounds": outcome.rounds}


def can_undo(row: SeatedGame, resumed: Resumed, player: str) -> bool:
    """Whether `player`'s last move may be taken back: it is the game's last move, and what it led to showed the
    player nothing new (the game's rules say, `GameSeating.undoable`). At a table, where nothing is hidden and
    the people sit together, any seat takes back the game's last move, whoever made it."""
    if row.status not in (SeatedGame.Status.PLAYING,) or not row.moves:
        return False
    if row.table:
        return True
    if row.moves[-1][0] != player:
        return False
    before = replayed(row, moves=len(row.moves) - 1)
    after = seen_by(resumed, player)[len(seen_by(before, player)):]
    return seating(row.game).undoable(after, player)


# ------------------------------------------------------------------------------------------------ moving


def locked(game_id) -> SeatedGame:
    """The game's row, locked until the transaction ends; 404 for no such game (answered as for a wrong secret)."""
    row = SeatedGame.objects.select_for_update().filter(pk=game_id).first()
    if row is None:
        raise UnknownSeat("No seat of this game has this link.")
    return row


def move(game_id, secret: str, action: Any, version: int | None, index: int | None = None) -> SeatedGame:
    """Apply `action` (JSON), or the legal action at `index`, for the seat of `secret`: 409 when it is not that
    seat's turn or the game moved on from `version`, 400 when it is not legal (the legal ones named); then the
    agents' turns that follow."""
    with transaction.atomic():
        row = locked(game_id)
        player = seat_of(row, secret)
        end_if_idle(row)
        checked_version(row, version)
        resumed = replayed(row)
        if row.status != SeatedGame.Status.PLAYING or resumed.waiting != player:
            legal = [] if resumed.over else [as_json(a) for a in resumed.state.legal_actions()]
            raise SeatConflict("It is not this seat's turn." if not resumed.over and row.status not in
                               (SeatedGame.Status.FINISHED, SeatedGame.Status.ENDED) else "This game is over.",
                               legal if resumed.waiting == player else None)
        if index is not None:
            legal = [as_json(a) for a in resumed.state.legal_actions()]
            if index >= len(legal):
                raise IllegalMove(f"There is no legal action {index}; there are {len(legal)}.", legal)
            action = legal[index]
        try:
            chosen = check_move(resumed, player, action)
        except IllegalAction as refused:
            raise IllegalMove(f"{as_json(action)!r} is not a legal action now; the legal ones are listed.",
                              refused.legal) from None
        row.moves = [*row.moves, [player, as_json(chosen)]]
        moved(row)
        take_agent_turns(row)
    return row


def table_change(game_id, secret: str, change: Any, version: int | None) -> SeatedGame:
    """A change made at the table by any seat of a table game while a decision is pending (HP by hand, an
    effect put on or taken off): 409 when the game is not at a table or is over, or moved on from `version`
    (given); 400 saying why when the change is not possible now."""
    with transaction.atomic():
        row = locked(game_id)
        seat_of(row, secret)
        end_if_idle(row)
        checked_version(row, version)
        if not row.table:
            raise SeatConflict("Only a table game takes changes made at the table.")
        if sum(1 for mover, _ in row.moves if mover == TABLE) >= MAX_TABLE_CHANGES:
            raise SeatConflict(f"This game has had {MAX_TABLE_CHANGES} changes by hand, as many as a game takes: "
                               "finish it, or start another.")
        resumed = replayed(row)
        if row.status != SeatedGame.Status.PLAYING or resumed.over:
            raise SeatConflict("This game is over.")
        try:
            cast(TableAdjustable, resumed.state).table_change(as_json(change))
        except IllegalAction as refused:
            raise IllegalChange(str(refused)) from None
        row.moves = [*row.moves, [TABLE, as_json(change)]]
        moved(row)
        take_agent_turns(row)
    return row


def undo(game_id, secret: str, version: int | None) -> SeatedGame:
    """Take back the seat's last move, when it is the game's last and showed the seat nothing new (409 else)."""
    with transaction.atomic():
        row = locked(game_id)
        player = seat_of(row, secret)
        checked_version(row, version)
        if not can_undo(row, replayed(row), player):
            raise SeatConflict("This seat has no move to take back: another seat has decided since, or the move "
                               "showed cards that cannot be unseen.")
        row.moves = row.moves[:-1]
        moved(row)
        waiting = replayed(row).waiting
        row.turn = waiting or ""
        row.save(update_fields=["turn"])
    return row


def checked_version(row: SeatedGame, version: int | None) -> None:
    if version is not None and version != row.version:
        raise SeatConflict(f"The game has moved on (version {row.version}, not {version}): read it again.")


def moved(row: SeatedGame) -> None:
    row.version += 1
    row.last_move_at = timezone.now()
    row.save(update_fields=["moves", "version", "last_move_at", "updated_at"])


# ----------------------------------------------------------------------------------------- agents and ends


def agents_look_ahead(row: SeatedGame) -> bool:
    return any(looks_ahead(name, row.game) for name in row.seats.values() if name != PERSON)


def take_agent_turns(row: SeatedGame) -> None:
    """Inside the row's transaction: the agents decide now when none looks ahead; else the game waits for the
    background (`background.queue_agent_turns`, once the transaction is committed)."""
    if agents_look_ahead(row):
        row.status, row.turn = SeatedGame.Status.THINKING, ""
        row.save(update_fields=["status", "turn", "updated_at"])
        return
    settle(row, replayed(row, agents=True))


def settle(row: SeatedGame, resumed: Resumed) -> None:
    """Store the agents' moves of `resumed`, and whose turn it is, or the match it became."""
    if len(resumed.moves) != len(row.moves):
        row.moves = [[player, action] for player, action in resumed.moves]
        row.version += 1
    row.turn = resumed.waiting or ""
    row.status = SeatedGame.Status.FINISHED if resumed.over else SeatedGame.Status.PLAYING
    if resumed.over and row.match_id is None:
        row.match = stored_match(row, resumed)
    row.save(update_fields=["moves", "version", "turn", "status", "match", "updated_at"])


def stored_match(row: SeatedGame, resumed: Resumed):
    """The finished game as an ordinary match: its moves in its inputs, so that its seed replays it."""
    outcome = resumed.state.outcome()
    rules_name = row.game
    result = MatchResult(game=rules_name, seed=row.seed, winner=outcome.winner, reason=outcome.reason,
                         rounds=outcome.rounds, actions=resumed.applied, survivors=outcome.survivors,
                         log=resumed.state.event_log(), schema_version=get_game(rules_name).schema_version,
                         options=row.options, agents=dict(row.seats))
    match = services.match_row(result, inputs={**row.inputs, "seats": row.seats, "moves": row.moves},
                               setup=row.setup, owner=row.owner)
    match.save()
    return match


def play_agent_turns(game_id) -> bool:
    """The background's part: the agents' turns of a game waiting for them, stored unless a move or undo came in
    between (then it is played again from there); False when there was nothing to do."""
    row = SeatedGame.objects.filter(pk=game_id, status=SeatedGame.Status.THINKING).first()
    if row is None:
        return False
    try:
        resumed = replayed(row, agents=True)
    except Diverged:
        return False
    with transaction.atomic():
        current = locked(game_id)
        if current.version != row.version or current.status != SeatedGame.Status.THINKING:
            return False
        settle(current, resumed)
    return True


def lost_turn(row: SeatedGame) -> bool:
    """Whether the agents' turn of a game was lost with its worker (deciding for STALE_THINKING_SECONDS): if so it
    is marked handed out again now, and the caller hands it to the background."""
    if row.status != SeatedGame.Status.THINKING or \
            row.updated_at >= timezone.now() - timedelta(seconds=STALE_THINKING_SECONDS):
        return False
    return SeatedGame.objects.filter(pk=row.pk, version=row.version, updated_at=row.updated_at).update(
        updated_at=timezone.now()) == 1


def end_if_idle(row: SeatedGame) -> None:
    """A game not over whose last change is IDLE_HOURS old is ended (it counts no more against its client)."""
    if row.status in (SeatedGame.Status.PLAYING, SeatedGame.Status.THINKING) and \
            row.last_move_at < timezone.now() - timedelta(hours=IDLE_HOURS):
        row.status, row.turn = SeatedGame.Status.ENDED, ""
        SeatedGame.objects.filter(pk=row.pk).update(status=row.status, turn="")


def end_idle_games() -> int:
    """End every game idle past IDLE_HOURS; how many (the cleanup's part)."""
    return SeatedGame.objects.filter(status__in=(SeatedGame.Status.PLAYING, SeatedGame.Status.THINKING),
                                     last_move_at__lt=timezone.now() - timedelta(hours=IDLE_HOURS)).update(
        status=SeatedGame.Status.ENDED, turn="")
