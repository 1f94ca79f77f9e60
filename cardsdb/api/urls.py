from django.urls import path

from cardsdb.api import bulk, views
from cardsdb.api.routers import RootRouter

router = RootRouter(
    app_roots={"realms": "realms-api-root", "legends": "legends-api-root", "simulate": "simulate-api-root"},
)
router.register("rarities", views.RarityViewSet)
router.register("factions", views.FactionViewSet)
router.register("sets", views.CardSetViewSet)
router.register("cards", views.CardViewSet)
router.register("collections", views.CollectionViewSet, basename="collection")

urlpatterns = [
    path("bulk/", bulk.BulkFileListView.as_view(), name="bulk-list"),
    path("bulk/<slug:game>.json.gz", bulk.BulkFileView.as_view(), name="bulk-file"),
    *router.urls,
]
