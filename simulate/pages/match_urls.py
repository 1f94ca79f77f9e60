from django.urls import path

from cardsdb.pages.placeholder import placeholder

urlpatterns = [
    path("new/", placeholder("Match"), name="match-new"),
    path("<uuid:match_id>/", placeholder("Replay"), name="match-replay"),
]
