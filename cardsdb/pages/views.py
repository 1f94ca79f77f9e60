"""The home page and the search box's answer: card names of both games, each linked to its page."""

from django.shortcuts import render
from django.urls import reverse

from cardsdb import autocomplete
from cardsdb.api.serializers import AutocompleteQuerySerializer
from cardsdb.choices import Game

CARD_PAGES = {Game.REALMS: "realms-card", Game.LEGENDS: "legends-card"}


def home(request):
    return render(request, "cardsdb/home.html", {"nav": "home"})


def search(request):
    """Up to 20 names matching `q` (prefix first, then close spellings), with links to each game's gallery;
    `q` is checked as the API's autocomplete checks it."""
    q = request.GET.get("q", "").strip()
    results, problems = [], []
    if q:
        query = AutocompleteQuerySerializer(data={"q": q})
        if query.is_valid():
            results = [{"name": s.name, "game": Game(s.game).label, "url": reverse(CARD_PAGES[Game(s.game)], args=[s.slug])}
                       for s in autocomplete.suggest(query.validated_data["q"])]
        else:
            problems = [str(message) for message in query.errors["q"]]
    shown = q if not problems else ""  # a refused text is not echoed into the links
    return render(request, "cardsdb/search.html", {"q": shown, "results": results, "problems": problems},
                  status=400 if problems else 200)
