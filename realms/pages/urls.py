from django.urls import path

from realms.pages import views

urlpatterns = [
    path("cards/", views.gallery, name="realms-gallery"),
    path("cards/<slug:slug>/", views.card, name="realms-card"),
    path("rules/", views.rules, name="realms-rules"),
    path("armies/build/", views.army_builder, name="army-builder"),
    path("armies/build/panel/", views.army_builder_panel, name="army-builder-panel"),
]
