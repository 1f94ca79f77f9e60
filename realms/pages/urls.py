from django.urls import path

from cardsdb.pages.placeholder import placeholder

urlpatterns = [
    path("cards/", placeholder("Echo Realms cards"), name="realms-gallery"),
    path("cards/<slug:slug>/", placeholder("Card"), name="realms-card"),
    path("armies/build/", placeholder("Army builder"), name="army-builder"),
]
