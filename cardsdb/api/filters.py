"""Filter backends of every API list: DRF's search and ordering, with their parameters checked."""

from rest_framework import exceptions, filters
from rest_framework.settings import api_settings

from cardsdb.api.parsers import text_problem

MAX_SEARCH_LENGTH = 200


class SearchFilter(filters.SearchFilter):
    """`search=<text>`: at most 200 characters, no NUL (which PostgreSQL refuses); otherwise 400 naming it."""

    def get_search_terms(self, request):
        value = request.query_params.get(self.search_param, "")
        problem = text_problem(value)
        if problem is None and len(value) > MAX_SEARCH_LENGTH:
            problem = f"Ensure this value has at most {MAX_SEARCH_LENGTH} characters (it has {len(value)})."
        if problem:
            raise exceptions.ValidationError({self.search_param: [problem]})
        return super().get_search_terms(request)

    def get_schema_operation_parameters(self, view):
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            parameter["schema"]["maxLength"] = MAX_SEARCH_LENGTH
        return parameters


def checked_filter_backends(backends=None) -> list[type]:
    """The backends (default: REST_FRAMEWORK["DEFAULT_FILTER_BACKENDS"]), DRF's search swapped for ours."""
    backends = api_settings.DEFAULT_FILTER_BACKENDS if backends is None else backends
    return [SearchFilter if backend is filters.SearchFilter else backend for backend in backends]


class CheckedFiltersMixin:
    """For every viewset of the API: the query parameters are checked before any query runs (each given at
    most once: none takes a list; without NUL, which PostgreSQL refuses; `search` as SearchFilter says; the
    filters as their FilterSet says)."""

    filter_backends = checked_filter_backends()

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        errors = query_parameter_errors(request.query_params)
        if errors:
            raise exceptions.ValidationError(errors)


def query_parameter_errors(params) -> dict[str, list[str]]:
    """What is refused of any query string before a query runs, by parameter: one given twice, or a name or
    value that is not text a database stores (NUL, a lone surrogate). The API's lists and the pages alike."""
    errors = {}
    for name, values in params.lists():
        if len(values) > 1:
            errors[name] = ["Give this parameter once."]
        elif problem := text_problem(values[0]) or text_problem(name):
            errors[name] = [problem]
    return dict(sorted(errors.items()))
