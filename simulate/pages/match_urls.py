from django.urls import path

from simulate.pages import matches

urlpatterns = [
    path("new/", matches.match_new, name="match-new"),
    path("<uuid:match_id>/", matches.match_replay, name="match-replay"),
]
