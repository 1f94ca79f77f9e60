from django.urls import path

from simulate.pages import seated

urlpatterns = [
    path("<uuid:game_id>/", seated.table_page, name="seated-table-page"),
    path("<uuid:game_id>/<str:secret>/", seated.seat_page, name="seated-seat-page"),
    path("<uuid:game_id>/<str:secret>/rematch/", seated.rematch, name="seated-game-rematch"),
]
