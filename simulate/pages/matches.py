"""The match page (play one match of either game) and the replay page (a stored match, its result and a
step-by-step viewer of its event log)."""

from __future__ import annotations

from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_safe

from cardsdb.api.errors import page_error
from cardsdb.pages.throttles import throttle_scope
from simulate import seating, selectors, services
from simulate.api.views import play_requested_match
from simulate.engine.errors import InputError
from simulate.pages.games import UnknownGamePages, default_game, game_pages, game_titles
from simulate.pages.match_forms import bound_form, form_sections, linked_values
from simulate.pages.seated import opened_from_form

# The viewer embeds at most this many events (a match at the default caps logs a few thousand); the API's
# log endpoint pages through the rest.
REPLAY_EVENTS = 10_000
RECENT_MATCHES = 10


def chosen_game(request) -> str:
    return (request.POST if request.method == "POST" else request.GET).get("game", default_game())


@throttle_scope("simulate")
@require_http_methods(["GET", "POST"])
def match_new(request):
    """The form of one game's match (filled in as a link gives it); a valid post plays it (within the API's
    rates) and opens its replay."""
    game = chosen_game(request)
    try:
        pages = game_pages(game)
    except UnknownGamePages:
        return page_error(request, 400, f"There is no game of that name; choose one of {', '.join(game_titles())}.")
    form = None
    status = 200
    if request.method == "POST":
        form = bound_form(game, request.POST, request.user)
        # A person at a seat: the form opens a game to play on a board instead of playing a match.
        seats = form.body.pop("agents") if seating.has_person(form.body.get("agents")) else None
        if seats is not None and form.is_valid():
            opened = opened_from_form(request, game, form, seats)
            if opened is not None:
                return opened
        elif form.is_valid():
            try:
                match = play_requested_match(game=game, body=form.body, data=form.request, user=request.user)
            except (InputError, services.IllegalMatchSetup) as exc:
                form.refused(exc)
            else:
                return redirect("match-replay", match_id=match.id)
        status = 400
    values = form.values if form else linked_values(game, request.GET)
    context = {
        "nav": "match", "game": game, "game_name": pages.title, "games": game_titles(), "values": values,
        "game_form": pages.match_form_template, "saved_name": pages.saved_name, "winner_noun": pages.winner_noun,
        **form_sections(game, values, form.errors if form else {}, form.violations if form else {}),
        "recent": selectors.match_list(user=request.user).filter(game=game)[:RECENT_MATCHES],
        **pages.match_choices(request.user),
    }
    return render(request, "simulate/pages/match_new.html", context, status=status)


@require_safe
def match_replay(request, match_id):
    """A stored match the visitor may read (as the API's match detail shows them), its result, a link to
    share, and its log for the viewer."""
    match = selectors.match_visible(user=request.user).filter(pk=match_id).first()
    if match is None:  # said alike whether the match does not exist or is another account's
        raise Http404("There is no match at this address, or it is private: a match played while signed in is "
                      "seen only by its account.")
    result = services.game_matches(match.game).match_result(match, context={"request": request}).data
    events = match.events
    shown = events[:REPLAY_EVENTS]
    replay = {"game": match.game, "events": shown, "texts": services.event_texts(match.game, shown), "total": len(events)}
    pages = game_pages(match.game)
    context = {
        "nav": "match", "match": match, "result": result, "game_name": pages.title,
        "winner": pages.winner_label(match.winner, events),
        "board_script": pages.replay_board_script, "seat_views": pages.replay_seat_views,
        "share_url": request.build_absolute_uri(reverse("match-replay", args=[match.id])),
        "replay": replay, "shown": len(shown), "total": len(events), "cut": len(shown) < len(events),
    }
    return render(request, "simulate/pages/match_replay.html", context)
