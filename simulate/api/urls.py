from django.urls import path

from cardsdb.api.routers import AppRouter
from simulate import services
from simulate.api import seating, views

router = AppRouter("simulate")
router.register("matches", views.MatchViewSet, basename="match")
router.register("batches", views.BatchViewSet, basename="batch")

# Every game registered with the services plays under its own name.
urlpatterns = [
    *(path(f"{game}/matches/", views.MatchCreateView.as_view(game=game), name=f"{game}-match-create")
      for game in services.GAME_MATCHES),
    *(path(f"{game}/batches/", views.BatchCreateView.as_view(game=game), name=f"{game}-batch-create")
      for game in services.GAME_MATCHES),
    *(path(f"{game}/games/", seating.SeatedGameCreateView.as_view(game=game), name=f"{game}-seated-game-create")
      for game in services.GAME_MATCHES),
    path("games/<uuid:pk>/seats/<str:secret>/", seating.SeatView.as_view(), name="seated-game-seat"),
    path("games/<uuid:pk>/seats/<str:secret>/actions/", seating.SeatMoveView.as_view(), name="seated-game-move"),
    path("games/<uuid:pk>/seats/<str:secret>/undo/", seating.SeatUndoView.as_view(), name="seated-game-undo"),
    path("games/<uuid:pk>/seats/<str:secret>/table-changes/", seating.SeatTableChangeView.as_view(),
         name="seated-game-table-change"),
    # Before the router's, whose `batches/<id>/` would take `compare` for an id.
    path("batches/compare/", views.BatchCompareView.as_view(), name="batch-compare"),
    *router.urls,
]
