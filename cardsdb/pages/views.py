"""The home page and the search box's answer: card names of both games, each linked to its page."""

from django.shortcuts import render
from django.urls import reverse

from cardsdb import autocomplete
from cardsdb.choices import Game

CARD_PAGES = {Game.REALMS: "realms-card", Game.LEGENDS: "legends-card"}


def home(request):
    return render(request, "cardsdb/home.html", {"nav": "home"})


def search(request):
    """Up to 20 names matching `q` (prefix first, then close spellings), with links to each game's gallery."""
    q = request.GET.get("q", "").strip()[: autocomplete.MAX_QUERY_LENGTH]
    found = autocomplete.suggest(q) if q else []
    results = [{"name": s.name, "game": Game(s.game).label, "url": reverse(CARD_PAGES[Game(s.game)], args=[s.slug])}
               for s in found]
    return render(request, "cardsdb/search.html", {"q": q, "results": results})
