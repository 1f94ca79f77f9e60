"""Pages that open again without a connection: a service worker per page family, served from that family's own
path (a worker's scope is the path it comes from, so the static files' address would not do).

The worker (cardsdb/templates/cardsdb/offline_worker.js) asks the network first and keeps each answer; offline,
the copy kept answers. A page asks for it with cardsdb/static/cardsdb/offline.js, naming the worker's address in
the script tag's `data-worker`. The table pages use it: a game at the table goes on where the connection does not.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

# The answers a worker keeps, the oldest put first out: a game's page is one, the files it loads a dozen more.
KEPT = 60


def offline_worker(cache: str) -> Callable[[HttpRequest], HttpResponse]:
    """The view of one page family's worker, keeping its copies in the browser cache named `cache`."""

    @require_safe
    def worker(request: HttpRequest) -> HttpResponse:
        response = render(request, "cardsdb/offline_worker.js", {"cache": cache, "kept": KEPT},
                          content_type="text/javascript; charset=utf-8")
        response["Cache-Control"] = "no-cache"  # a new version of the worker is picked up at the next visit
        return response

    return worker
