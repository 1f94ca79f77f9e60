"""The board of a game with people at some seats: one seat's page (its secret link), and the table page of a game
with several people (each seat's link to send, or every seat at one device in turn: the hot seat). The pages
are a shell: the board reads the seat's view from the API (`simulate.api.seating`) and draws it with the replay
viewer's boards, from the events the seat could see."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST, require_safe

from cardsdb.api.errors import page_error
from cardsdb.pages.throttles import throttle_scope
from simulate import background, seating
from simulate.api.views import client_ident
from simulate.engine.errors import InputError
from simulate.models import SeatedGame
from simulate.pages.games import game_pages
from simulate.pages.match_forms import NON_FIELD, MatchForm
from simulate.services import IllegalMatchSetup

POLL_SECONDS = 1  # how often a board asks whether the game moved (polling: see docs/simulate.md)


def seated_game(game_id) -> SeatedGame:
    row = SeatedGame.objects.filter(pk=game_id).first()
    if row is None:
        raise Http404("There is no game at this address.")
    return row


def board_context(row: SeatedGame, seats: list[dict[str, str]], *, hot_seat: bool) -> dict:
    pages = game_pages(row.game)
    return {"nav": "match", "game": row.game, "game_name": pages.title, "board_script": pages.replay_board_script,
            "hot_seat": hot_seat,
            "board": {"game": row.game, "id": str(row.id), "seats": seats, "hot_seat": hot_seat,
                      "poll_ms": POLL_SECONDS * 1000, "api": reverse("seated-game-seat", args=[row.id, "SECRET"]),
                      "page": reverse("seated-seat-page", args=[row.id, "SECRET"]),
                      "replay": reverse("match-replay", args=["00000000-0000-0000-0000-000000000000"]),
                      "rematch": reverse("seated-game-rematch", args=[row.id, "SECRET"])}}


@require_safe
def seat_page(request, game_id, secret):
    """One seat's board, reached by its secret link (any other secret: 404)."""
    row = seated_game(game_id)
    try:
        player = seating.seat_of(row, secret)
    except seating.UnknownSeat:
        raise Http404("No seat of this game has this link.") from None
    return render(request, "simulate/pages/seat.html",
                  board_context(row, [{"player": player, "secret": secret}], hot_seat=False))


@require_safe
def table_page(request, game_id):
    """A game with several people: the seat links, kept in the address's fragment (never sent to the server),
    to send to each person or to play them all here in turn."""
    row = seated_game(game_id)
    people = [player for player, name in row.seats.items() if name == seating.PERSON]
    return render(request, "simulate/pages/seat.html",
                  board_context(row, [{"player": player, "secret": ""} for player in people], hot_seat=True))


@throttle_scope("simulate")
@require_POST
def rematch(request, game_id, secret):
    """The same game again with the sides swapped: to the asking seat's new board (the table page when several
    people play)."""
    row = seated_game(game_id)
    try:
        new, secrets, _ = seating.rematch(row, secret, user=request.user, client=client_ident(request))
    except seating.UnknownSeat:
        raise Http404("No seat of this game has this link.") from None
    except (seating.SeatConflict, seating.TooManyGames) as refused:
        return page_error(request, refused.status, str(refused))
    if new.status == SeatedGame.Status.THINKING:
        background.queue_agent_turns(new.pk)
    return to_board(new, secrets)


def opened_from_form(request, game: str, form: MatchForm, seats: Any):
    """The game a checked match form opens with people at some seats, and its board; None when it is refused
    (the reasons put by the form's fields)."""
    try:
        with transaction.atomic():
            row, secrets = seating.open_game(
                game=game, inputs={key: value for key, value in form.body.items() if key != "seed"}, seats=seats,
                seed=form.request.validated_data.get("seed"), user=request.user, client=client_ident(request))
    except (InputError, IllegalMatchSetup) as exc:
        form.refused(exc)
        return None
    except seating.TooManyGames as exc:
        form.add(NON_FIELD, str(exc))
        return None
    if row.status == SeatedGame.Status.THINKING:
        background.queue_agent_turns(row.pk)
    return to_board(row, secrets)


def to_board(row: SeatedGame, secrets: dict[str, str]):
    """The board of a new game: the one person's seat, or the table page with every seat's secret in the
    fragment."""
    if len(secrets) == 1:
        only = next(iter(secrets.values()))
        return redirect("seated-seat-page", game_id=row.id, secret=only)
    fragment = "&".join(f"{seat}={secret}" for seat, secret in secrets.items())
    return redirect(f"{reverse('seated-table-page', args=[row.id])}#{fragment}")
