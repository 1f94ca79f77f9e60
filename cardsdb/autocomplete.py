"""Card name autocomplete for both games: prefix matches first, then word starts, then close misspellings.

At most two queries whatever the catalogue: the prefix matches (by the name index), then, when fewer than
`limit` were found, a bounded set of candidates sharing a few letters with the text, ranked here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher

from django.db.models import Q
from django.urls import reverse

from cardsdb.models import Card

MAX_QUERY_LENGTH = 50
LIMIT = 20
MAX_CANDIDATES = 1000
MAX_GRAMS = 12
FUZZY_RATIO = 0.75

# The card kind of each game's cards (the multi-table child of Card) -> the URL name of its detail.
DETAIL_URLS = {
    "character": "character-detail",
    "spirit": "legends-spirit-detail",
    "protector": "legends-protector-detail",
    "defensecard": "legends-defense-detail",
    "summoningcard": "legends-summoning-card-detail",
}

WORD_RE = re.compile(r"\w+")


@dataclass(frozen=True, slots=True)
class Suggestion:
    slug: str
    name: str
    game: str
    path: str  # the card's detail in its game's API


def _normal(text: str) -> str:
    return " ".join(text.casefold().split())


def _grams(text: str) -> list[str]:
    """A few letter groups of the text (trigrams, bigrams for short texts) to preselect candidates."""
    compact = text.replace(" ", "")
    size = 3 if len(compact) >= 3 else len(compact)
    grams = list(dict.fromkeys(compact[i : i + size] for i in range(len(compact) - size + 1)))
    if len(grams) > MAX_GRAMS:  # evenly spread over the text
        step = len(grams) / MAX_GRAMS
        grams = [grams[int(i * step)] for i in range(MAX_GRAMS)]
    return grams


def fuzzy_score(text: str, name: str) -> float:
    """How well `name` matches the normalised `text` outside a prefix match: 0 for not at all.

    2 and above: every word of the text starts a word of the name ("archmage" in "Merlin, Archmage of
    Runes"); 1 to 2: the text is inside the name; below 1: the closest spelling of a word (or the start)
    of the name, from FUZZY_RATIO.
    """
    name_n = _normal(name)
    words = WORD_RE.findall(name_n)
    text_words = WORD_RE.findall(text)
    if text_words and all(any(word.startswith(t) for word in words) for t in text_words):
        return 2.0 + len(text) / max(len(name_n), 1)
    if text in name_n:
        return 1.0 + len(text) / max(len(name_n), 1)
    if len(text) < 3:
        return 0.0
    best = 0.0
    for candidate in (name_n[: len(text)], *words, *(word[: len(text)] for word in words)):
        matcher = SequenceMatcher(None, text, candidate, autojunk=False)
        if matcher.real_quick_ratio() >= FUZZY_RATIO and matcher.quick_ratio() >= FUZZY_RATIO:
            best = max(best, matcher.ratio())
    return best if best >= FUZZY_RATIO else 0.0


def _path(row: dict) -> str:
    for kind, url_name in DETAIL_URLS.items():
        if row[kind] is not None:
            return reverse(url_name, kwargs={"slug": row["slug"]})
    return reverse("card-detail", kwargs={"slug": row["slug"]})


def suggest(text: str, game: str | None = None, limit: int = LIMIT) -> list[Suggestion]:
    """Up to `limit` cards whose name matches `text`: prefix matches by name, then the fuzzy ones best first."""
    text = _normal(text)
    cards = Card.objects.all() if game is None else Card.objects.filter(game=game)
    columns = ("pk", "slug", "name", "game", *DETAIL_URLS)
    prefix = list(cards.filter(name__istartswith=text).order_by("name", "pk").values(*columns)[:limit])
    rows = prefix
    if len(prefix) < limit:
        preselect = Q()
        for gram in _grams(text):
            preselect |= Q(name__icontains=gram)
        found = [row["pk"] for row in prefix]
        candidates = cards.filter(preselect).exclude(pk__in=found).order_by("name", "pk").values(*columns)
        scored = [(fuzzy_score(text, row["name"]), row) for row in candidates[:MAX_CANDIDATES]]
        scored = [item for item in scored if item[0] > 0]
        scored.sort(key=lambda item: (-item[0], item[1]["name"], item[1]["pk"]))
        rows = prefix + [row for _, row in scored[: limit - len(prefix)]]
    return [Suggestion(row["slug"], row["name"], row["game"], _path(row)) for row in rows]
