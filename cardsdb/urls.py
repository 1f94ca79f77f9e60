"""Top-level URLs: the API under /api/, its schema and docs, and the admin."""

from django.conf import settings
from django.conf.urls.static import static
from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView
from rest_framework.authtoken.views import obtain_auth_token

handler400 = "cardsdb.api.errors.bad_request_view"
handler403 = "cardsdb.api.errors.permission_denied_view"
handler404 = "cardsdb.api.errors.not_found_view"
handler500 = "cardsdb.api.errors.server_error_view"

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/auth/token/", obtain_auth_token, name="api-token"),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="swagger-ui"),
    path("api/redoc/", SpectacularRedocView.as_view(url_name="schema"), name="redoc"),
    path("api/realms/", include("realms.api.urls")),
    path("api/legends/", include("legends.api.urls")),
    path("api/simulate/", include("simulate.api.urls")),
    path("api/", include("cardsdb.api.urls")),
] + static(settings.MEDIA_URL, document_root=settings.MEDIA_ROOT)
