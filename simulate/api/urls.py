from django.urls import path

from cardsdb.api.routers import AppRouter
from simulate.api import views

router = AppRouter("simulate")
router.register("matches", views.MatchViewSet, basename="match")

urlpatterns = [
    path("realms/matches/", views.RealmsMatchCreateView.as_view(), name="realms-match-create"),
    path("legends/matches/", views.LegendsMatchCreateView.as_view(), name="legends-match-create"),
    *router.urls,
]
