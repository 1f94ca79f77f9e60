from django.urls import path

from cardsdb.pages.offline import offline_worker
from legends.pages import table, views

urlpatterns = [
    path("cards/", views.gallery, name="legends-gallery"),
    path("cards/<slug:slug>/", views.card_page, name="legends-card"),
    path("setups/build/", views.setup_builder, name="setup-builder"),
    path("setups/build/check/", views.setup_check, name="setup-builder-check"),
    path("table/", table.table_page, name="legends-table"),
    path("table/offline.js", offline_worker("legends-table-v1"), name="legends-table-worker"),
]
