from django.urls import path

from cardsdb.pages.offline import offline_worker
from realms.pages import table, views

urlpatterns = [
    path("cards/", views.gallery, name="realms-gallery"),
    path("cards/<slug:slug>/", views.card, name="realms-card"),
    path("rules/", views.rules, name="realms-rules"),
    path("table/", table.table_new, name="realms-table"),
    path("table/offline.js", offline_worker("realms-table-v1"), name="realms-table-worker"),
    path("table/<uuid:game_id>/", table.table_game, name="realms-table-game"),
    path("armies/build/", views.army_builder, name="army-builder"),
    path("armies/build/panel/", views.army_builder_panel, name="army-builder-panel"),
]
