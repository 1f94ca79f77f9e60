"""The API's rates for the pages, through the API's own throttle classes and counters
(cardsdb/api/throttling.py), so a page and an API request draw on one budget.

- Every page request counts against `anon` (per address) or `user` (per account and per address):
  PageThrottleMiddleware, for every view that is not one of DRF's (those are throttled by DRF itself)
  and not the health check.
- A view that costs more declares its scope (`@throttle_scope("simulate")`, or `throttle_scope` on a view
  class), counted by the middleware on its POSTs.
"""

import functools
import math
from typing import cast

from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

# Views no rate applies to: load balancers probe the health check.
EXEMPT_URL_NAMES = frozenset({"healthz"})


class _Scoped:
    """What a DRF throttle reads of its view: the scope."""

    def __init__(self, scope: str | None):
        self.throttle_scope = scope


def wait_seconds(request, scope: str | None = None) -> int | None:
    """None when `request` is within the service's rates (anon/user) and those of `scope`, as the API applies
    them to a view of that scope (each throttle counts it); else the seconds to wait."""
    view = cast(APIView, _Scoped(scope))  # a throttle reads only the scope of its view
    # DRF imports the classes the setting names (the stubs type the setting as the names).
    throttles = [cls() for cls in cast(list[type[BaseThrottle]], api_settings.DEFAULT_THROTTLE_CLASSES)]
    waits = [throttle.wait() or 1 for throttle in throttles if not throttle.allow_request(request, view)]
    return max(1, math.ceil(max(waits))) if waits else None


def too_many(request, wait: int):
    """The 429 answer (with Retry-After): the site's page, or the common shape under /api/."""
    from cardsdb.api.errors import error_body, for_pages, page_error

    message = f"Too many requests; try again in {wait} second{'s' if wait != 1 else ''}."
    if for_pages(request):
        response = page_error(request, 429, message)
    else:
        from django.http import JsonResponse

        response = JsonResponse(error_body(message, "throttled", retry_after=wait), status=429)
    response["Retry-After"] = str(wait)
    return response


def throttle_scope(scope: str):
    """Decorator: the view's POSTs count against `scope`'s rate as well (PageThrottleMiddleware), as a DRF view's
    `throttle_scope` does. A class-based view may set `throttle_scope` on its class instead."""

    def scoped(view):
        @functools.wraps(view)
        def throttled(request, *args, **kwargs):
            return view(request, *args, **kwargs)

        throttled.throttle_scope = scope  # type: ignore[attr-defined]
        return throttled

    return scoped


def scope_of(view_func) -> str | None:
    """The `throttle_scope` a view declares, on itself or on its class."""
    return getattr(view_func, "throttle_scope", None) or getattr(getattr(view_func, "view_class", None),
                                                                 "throttle_scope", None)


def _is_drf_view(view_func) -> bool:
    view_class = getattr(view_func, "cls", None)
    return isinstance(view_class, type) and issubclass(view_class, APIView)


class PageThrottleMiddleware:
    """Every page request against anon/user, a form post against its view's `throttle_scope` too."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_view(self, request, view_func, view_args, view_kwargs):
        if _is_drf_view(view_func):
            return None
        match = request.resolver_match
        if match is not None and match.url_name in EXEMPT_URL_NAMES:
            return None
        scope = scope_of(view_func) if request.method == "POST" else None
        wait = wait_seconds(request, scope)
        return None if wait is None else too_many(request, wait)
