"""The pages of every API list: page numbers and sizes in ASCII digits, the page size bounded, and the
`warnings` of the request's query (cardsdb.api.filters.query_warnings): the parameters it ignored, unknown
or given empty, and the terms of `q` it ignored."""

from rest_framework.exceptions import ValidationError
from rest_framework.pagination import PageNumberPagination

from cardsdb.api.filters import is_blank, query_warnings

MAX_PAGE_SIZE = 200

WARNING_SCHEMA = {
    "type": "object",
    "properties": {
        "message": {"type": "string", "example": "Unknown parameter `colour`: ignored."},
        "parameter": {"type": "string", "example": "colour", "description": "The query parameter it is about."},
        "position": {"type": "integer", "minimum": 0,
                     "description": "A term of `q` only: the 0-based offset in `q` of the ignored term."},
    },
    "required": ["message", "parameter"],
}
WARNINGS_SCHEMA = {
    "type": "array", "items": WARNING_SCHEMA,
    "description": "What the request asked for that was ignored: unknown parameters, parameters given empty and "
                   "terms of `q` (unknown keys or values); empty when nothing was.",
}


def ascii_number(raw: str) -> int | None:
    """The number that ASCII digits write, or None (`last`, `1.5`, the full-width `１`)."""
    return int(raw) if raw.isascii() and raw.isdigit() else None


class BoundedPageNumberPagination(PageNumberPagination):
    page_size_query_param = "page_size"
    max_page_size = MAX_PAGE_SIZE

    def paginate_queryset(self, queryset, request, view=None):
        self.warnings = query_warnings(request, view)
        return super().paginate_queryset(queryset, request, view)

    def get_page_number(self, request, paginator):
        # A page is a number in ASCII digits: DRF would take `last`, Django the full-width `１`.
        raw = request.query_params.get(self.page_query_param, "")
        if is_blank(raw):
            return 1
        number = ascii_number(raw)
        if number is None or number < 1:
            raise ValidationError({self.page_query_param: ["A page number from 1 is required."]})
        return number

    def get_page_size(self, request):
        raw = request.query_params.get(self.page_size_query_param, "")
        if is_blank(raw):
            return self.page_size
        size = ascii_number(raw)
        if size is None:
            raise ValidationError({self.page_size_query_param: ["A whole number is required."]})
        if size < 1 or size > self.max_page_size:
            raise ValidationError(
                {self.page_size_query_param: [f"Must be between 1 and {self.max_page_size}."]}
            )
        return size

    def get_paginated_response(self, data):
        response = super().get_paginated_response(data)
        warnings = [*getattr(self, "warnings", []), *getattr(self.request, "query_warnings", [])]
        response.data = {**{k: v for k, v in response.data.items() if k != "results"},
                         "warnings": warnings, "results": response.data["results"]}
        return response

    def get_schema_operation_parameters(self, view):
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_query_param:
                parameter["schema"] = {"type": "integer", "minimum": 1}
                parameter["description"] = "A page number from 1; past the last page answers 404."
            elif parameter["name"] == self.page_size_query_param:
                parameter["schema"] = {"type": "integer", "minimum": 1, "maximum": self.max_page_size}
                parameter["description"] = f"Results per page, 1 to {self.max_page_size} (default {self.page_size})."
        return parameters

    def get_paginated_response_schema(self, schema):
        paginated = super().get_paginated_response_schema(schema)
        paginated["properties"]["count"]["minimum"] = 0
        results = paginated["properties"].pop("results")
        paginated["properties"]["warnings"] = WARNINGS_SCHEMA
        paginated["properties"]["results"] = results
        paginated["required"] = ["count", "next", "previous", "warnings", "results"]
        return paginated
