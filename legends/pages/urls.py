from django.urls import path

from cardsdb.pages.placeholder import placeholder

urlpatterns = [
    path("cards/", placeholder("Akin Legends cards"), name="legends-gallery"),
    path("cards/<slug:slug>/", placeholder("Card"), name="legends-card"),
    path("setups/build/", placeholder("Setup builder"), name="setup-builder"),
]
