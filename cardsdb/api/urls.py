from cardsdb.api import views
from cardsdb.api.routers import RootRouter

router = RootRouter(
    app_roots={"realms": "realms-api-root", "legends": "legends-api-root", "simulate": "simulate-api-root"},
)
router.register("rarities", views.RarityViewSet)
router.register("factions", views.FactionViewSet)
router.register("sets", views.CardSetViewSet)
router.register("cards", views.CardViewSet)
router.register("collections", views.CollectionViewSet, basename="collection")

urlpatterns = router.urls
