from rest_framework.routers import DefaultRouter

from cardsdb.api import views

router = DefaultRouter()
router.register("rarities", views.RarityViewSet)
router.register("factions", views.FactionViewSet)
router.register("sets", views.CardSetViewSet)
router.register("cards", views.CardViewSet)
router.register("collections", views.CollectionViewSet, basename="collection")

urlpatterns = router.urls
