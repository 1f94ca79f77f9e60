"""The query parameters of every API list: DRF's search and ordering with their parameters checked, what is
refused of any query string before a query runs, and what a list ignores with a warning.

One rule for every list: a parameter the list does not read, or one given empty (or blank), is ignored and
named in the answer's `warnings` (cardsdb.api.pagination); a value given that cannot be read answers 400
naming its parameter. A list reads its filters, `search` and `ordering` (its filter backends), `page` and
`page_size`, `format`, and whatever else its schema documents for it (extend_schema(parameters=...)).
"""

from typing import TYPE_CHECKING, cast

from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.plumbing import get_class
from drf_spectacular.utils import OpenApiParameter
from rest_framework import exceptions, filters
from rest_framework.settings import api_settings

from cardsdb.api.parsers import text_problem

MAX_SEARCH_LENGTH = 200

if TYPE_CHECKING:  # what CheckedFiltersMixin is mixed into, for the type checker
    # Imported here only: rest_framework.generics loads the pagination class, which imports this module.
    from rest_framework.generics import GenericAPIView as _GenericAPIView
else:
    _GenericAPIView = object


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


def checked_filter_backends(backends=None) -> list[type[filters.BaseFilterBackend]]:
    """The backends (default: REST_FRAMEWORK["DEFAULT_FILTER_BACKENDS"]), DRF's search swapped for ours."""
    # DRF imports the classes the setting names (the stubs type the setting as the names).
    default = cast(list[type[filters.BaseFilterBackend]], api_settings.DEFAULT_FILTER_BACKENDS)
    backends = default if backends is None else backends
    return [SearchFilter if backend is filters.SearchFilter else backend for backend in backends]


class CheckedFiltersMixin(_GenericAPIView):
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


def is_blank(value: str) -> bool:
    """A parameter given empty, or only spaces: read as not given."""
    return not value.strip()


def query_warnings(request, view) -> list[dict[str, str]]:
    """The parameters of the request that `view` ignores, each named: unknown ones, and those given empty."""
    known = known_parameters(view) if view is not None else set()
    warnings = []
    for name, value in request.query_params.items():
        if name not in known:
            warnings.append({"message": f"Unknown parameter `{name}`: ignored.", "parameter": name})
        elif is_blank(value):
            warnings.append({"message": f"`{name}` is empty: ignored.", "parameter": name})
    return warnings


def known_parameters(view) -> set[str]:
    """The query parameters `view` reads for this request: its filter backends' (a FilterSet's filters,
    `search`, `ordering`), its paginator's, `format` and those its schema documents."""
    names: set[str] = set()
    for backend_class in getattr(view, "filter_backends", ()):
        backend = backend_class()
        if isinstance(backend, DjangoFilterBackend):
            filterset_class = backend.get_filterset_class(view, view.get_queryset())
            names.update(filterset_class.base_filters if filterset_class is not None else ())
        else:
            names.update(parameter["name"] for parameter in backend.get_schema_operation_parameters(view))
    paginator = getattr(view, "paginator", None)
    if paginator is not None:
        names.update(parameter["name"] for parameter in paginator.get_schema_operation_parameters(view))
    if api_settings.URL_FORMAT_OVERRIDE:
        names.add(api_settings.URL_FORMAT_OVERRIDE)
    return names | documented_parameters(view)


def documented_parameters(view) -> set[str]:
    """The query parameters that the view's schema adds for this request's action (`extend_schema(parameters=
    [...])` on the action or the view, or its AutoSchema's get_override_parameters)."""
    request = view.request
    handler = getattr(view, getattr(view, "action", None) or request.method.lower(), None)
    # A schema of its own, as drf-spectacular's generator makes one for the operation: the view's is shared.
    schema = get_class(getattr(handler, "kwargs", {}).get("schema") or view.schema)()
    schema.view, schema.method, schema.path = view, request.method, request.path
    names = set()
    for parameter in schema.get_override_parameters():
        if isinstance(parameter, OpenApiParameter):
            if parameter.location == OpenApiParameter.QUERY and not parameter.response and not parameter.exclude:
                names.add(parameter.name)
        else:  # a serializer (class or instance) whose fields are the parameters
            fields = (parameter() if isinstance(parameter, type) else parameter).fields
            names.update(name for name, field in fields.items() if not field.read_only)
    return names
