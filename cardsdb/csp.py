"""The Content-Security-Policy header: the site's strict policy (CONTENT_SECURITY_POLICY in the settings) on
every answer, loosened only for pages that other projects wrote.

Those are the admin (Django's templates put <style> blocks and style attributes in its pages, as do the
thumbnails of our ModelAdmins) and the HTML under /api/: Swagger UI, ReDoc and DRF's browsable API, whose
scripts and templates write styles inline (React, styled-components), draw icons as data: images and, for
ReDoc, start a web worker from a blob: URL. They still run scripts of this site only: none of them needs an
inline script or eval (Swagger UI's start-up script is served as a file: SpectacularSwaggerSplitView).
"""

from csp.constants import SELF, UNSAFE_INLINE
from csp.middleware import CSPMiddleware as BaseCSPMiddleware
from csp.middleware import PolicyParts

THIRD_PARTY_PAGES = {
    "style-src": [UNSAFE_INLINE],
    "img-src": ["data:"],
    "worker-src": [SELF, "blob:"],
}


def third_party_page(request, response) -> bool:
    """Whether the answer is an HTML page of the admin, of the API's documentation or of the browsable API."""
    if request.path_info.startswith("/admin/"):
        return True
    html = response.get("Content-Type", "").startswith("text/html")
    return html and request.path_info.startswith("/api/")


class CSPMiddleware(BaseCSPMiddleware):
    """django-csp's middleware, with THIRD_PARTY_PAGES added to the policy of the pages it names."""

    def get_policy_parts(self, request, response, report_only: bool = False) -> PolicyParts:
        parts = super().get_policy_parts(request, response, report_only)
        if not report_only and parts.update is None and third_party_page(request, response):
            parts.update = THIRD_PARTY_PAGES
        return parts
