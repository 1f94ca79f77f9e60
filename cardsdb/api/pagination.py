"""Page-number pagination whose page size is bounded, with clear errors past the bounds."""

from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.pagination import PageNumberPagination

MAX_PAGE_SIZE = 200


class BoundedPageNumberPagination(PageNumberPagination):
    page_size_query_param = "page_size"
    max_page_size = MAX_PAGE_SIZE

    def paginate_queryset(self, queryset, request, view=None):
        # DRF reads an empty `page=` as page 1; it names no page.
        if request.query_params.get(self.page_query_param) == "":
            raise NotFound("Invalid page: give a page number from 1.")
        return super().paginate_queryset(queryset, request, view)

    def get_page_size(self, request):
        raw = request.query_params.get(self.page_size_query_param)
        if raw is None:
            return self.page_size
        if not (raw.isascii() and raw.isdigit()):
            raise ValidationError({"page_size": ["A whole number is required."]})
        size = int(raw)
        if size < 1 or size > self.max_page_size:
            raise ValidationError(
                {"page_size": [f"Must be between 1 and {self.max_page_size}."]}
            )
        return size

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
        paginated["required"] = ["count", "next", "previous", "results"]
        return paginated


WARNING_SCHEMA = {
    "type": "object",
    "properties": {
        "message": {"type": "string", "example": "Unknown key 'colour'"},
        "position": {"type": "integer", "minimum": 0, "description": "0-based offset in `q` of the ignored term."},
    },
    "required": ["message", "position"],
}


class QueryPagination(BoundedPageNumberPagination):
    """The pages of a list that takes `q` (a search language): `warnings` names the terms of `q` that were
    ignored (an unknown key or value), empty when none were or no `q` was given."""

    def get_paginated_response(self, data):
        response = super().get_paginated_response(data)
        warnings = getattr(self.request, "query_warnings", [])
        response.data = {**{k: v for k, v in response.data.items() if k != "results"},
                         "warnings": warnings, "results": response.data["results"]}
        return response

    def get_paginated_response_schema(self, schema):
        paginated = super().get_paginated_response_schema(schema)
        results = paginated["properties"].pop("results")
        paginated["properties"]["warnings"] = {
            "type": "array", "items": WARNING_SCHEMA,
            "description": "The terms of `q` that were ignored (unknown keys or values); empty when none were.",
        }
        paginated["properties"]["results"] = results
        paginated["required"] = ["count", "next", "previous", "warnings", "results"]
        return paginated
