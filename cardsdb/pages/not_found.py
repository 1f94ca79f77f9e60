"""A page whose object is missing (a view raised Http404) answers the site's 404 page, DEBUG or not.

With DEBUG on, Django would answer its technical 404 page instead: the project's URL patterns and the
exception's text, shown to whoever opens a link to a study that is not theirs (`make run` is DEBUG). The API
answers its own 404s (DRF), and an address that no URL matches still gets Django's page with DEBUG on.
"""

import re

from django.http import Http404

from cardsdb.api.errors import NOT_FOUND_MESSAGE, for_pages, page_error

# get_object_or_404's message names a model ("No Character matches the given query."), not what a person
# was looking for; such a page says what any unknown address says.
MODEL_MESSAGE = re.compile(r"No .+ matches the given query\.")


def not_found_message(exc: Http404) -> str:
    """What the 404 page says: the view's own words, or the site's for an unknown address."""
    message = str(exc)
    return NOT_FOUND_MESSAGE if not message or MODEL_MESSAGE.fullmatch(message) else message


class PageNotFoundMiddleware:
    """Http404 raised by a page's view answers the site's 404 page with the view's message."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if isinstance(exception, Http404) and for_pages(request):
            return page_error(request, 404, not_found_message(exception))
        return None
