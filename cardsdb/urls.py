"""Top-level URLs: the API under /api/, its schema and docs, the admin, the health check and the pages."""

from typing import cast

from django.conf import settings
from django.conf.urls.static import static
from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerSplitView
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle

from cardsdb.api.errors import api_not_found_view
from cardsdb.health import healthz
from cardsdb.pages.throttles import throttle_scope

handler400 = "cardsdb.api.errors.bad_request_view"
handler403 = "cardsdb.api.errors.permission_denied_view"
handler404 = "cardsdb.api.errors.not_found_view"
handler500 = "cardsdb.api.errors.server_error_view"


class ThrottledObtainAuthToken(ObtainAuthToken):
    """DRF's token view (which has no throttles of its own), with the service's rates and scope `auth`, the
    one every way to sign in shares, against password guessing."""

    # DRF imports the classes the setting names (the stubs type the setting as the names).
    throttle_classes = cast(list[type[BaseThrottle]], api_settings.DEFAULT_THROTTLE_CLASSES)
    throttle_scope = "auth"


urlpatterns = [
    # The admin's sign-in form: its posts count against `auth`, as every other way to sign in.
    path("admin/login/", throttle_scope("auth")(admin.site.login)),
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
    path("api/auth/token/", ThrottledObtainAuthToken.as_view(), name="api-token"),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # Swagger UI's start-up script as a file of its own (?script), not inline: the site's CSP runs no inline script.
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="swagger-ui"),
    # ReDoc without the web fonts its template fetches from a third party (which the CSP refuses).
    path("api/redoc/", SpectacularRedocView.as_view(url_name="schema", template_name="cardsdb/redoc.html"),
         name="redoc"),
    path("api/realms/", include("realms.api.urls")),
    path("api/legends/", include("legends.api.urls")),
    path("api/simulate/", include("simulate.api.urls")),
    path("api/", include("cardsdb.api.urls")),
    # Last: any other /api/ URL answers 404 in the common error shape, DEBUG or not (handler404 is
    # not used with DEBUG on).
    re_path(r"^api/", api_not_found_view),
    # Pages for people: server-rendered, linked from the home page.
    path("realms/", include("realms.pages.urls")),
    path("legends/", include("legends.pages.urls")),
    path("", include("simulate.pages.urls")),
    path("", include("cardsdb.pages.urls")),
] + static(settings.MEDIA_URL, document_root=settings.MEDIA_ROOT)
