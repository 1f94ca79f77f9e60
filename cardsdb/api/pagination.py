"""Page-number pagination whose page size is bounded, with clear errors past the bounds."""

from rest_framework.exceptions import ValidationError
from rest_framework.pagination import PageNumberPagination

MAX_PAGE_SIZE = 200


class BoundedPageNumberPagination(PageNumberPagination):
    page_size_query_param = "page_size"
    max_page_size = MAX_PAGE_SIZE

    def get_page_size(self, request):
        raw = request.query_params.get(self.page_size_query_param)
        if raw is None or raw == "":
            return self.page_size
        try:
            size = int(raw)
        except ValueError:
            raise ValidationError({"page_size": ["A whole number is required."]}) from None
        if size < 1 or size > self.max_page_size:
            raise ValidationError(
                {"page_size": [f"Must be between 1 and {self.max_page_size}."]}
            )
        return size
