"""The API's rates for the pages that cost CPU (a match, a study): the same DRF throttles, so a form posted
from a page counts against the same budget as a request to the API."""

import math

from rest_framework.settings import api_settings
from rest_framework.throttling import ScopedRateThrottle


class _Scoped:
    """What a DRF throttle reads of its view: the scope."""

    def __init__(self, scope: str):
        self.throttle_scope = scope


def wait_seconds(request, scope: str) -> int | None:
    """None when `request` is within the service's rates and those of `scope` (recording it, as the API
    does); otherwise the seconds to wait before trying again."""
    view = _Scoped(scope)
    throttles = [cls() for cls in api_settings.DEFAULT_THROTTLE_CLASSES] + [ScopedRateThrottle()]
    waits = [throttle.wait() or 1 for throttle in throttles if not throttle.allow_request(request, view)]
    return max(1, math.ceil(max(waits))) if waits else None


def refused_page(request, scope: str):
    """The 429 page (with Retry-After) when `request` is over its rates, else None (the request is counted)."""
    from cardsdb.api.errors import page_error

    wait = wait_seconds(request, scope)
    if wait is None:
        return None
    response = page_error(request, 429, f"Too many requests; try again in {wait} second{'s' if wait != 1 else ''}.")
    response["Retry-After"] = str(wait)
    return response
