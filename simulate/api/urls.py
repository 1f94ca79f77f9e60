from django.urls import path

from cardsdb.api.routers import AppRouter
from simulate.api import views

router = AppRouter("simulate")
router.register("matches", views.MatchViewSet, basename="match")
router.register("batches", views.BatchViewSet, basename="batch")

urlpatterns = [
    path("realms/matches/", views.RealmsMatchCreateView.as_view(), name="realms-match-create"),
    path("legends/matches/", views.LegendsMatchCreateView.as_view(), name="legends-match-create"),
    path("realms/batches/", views.RealmsBatchCreateView.as_view(), name="realms-batch-create"),
    path("legends/batches/", views.LegendsBatchCreateView.as_view(), name="legends-batch-create"),
    *router.urls,
]
