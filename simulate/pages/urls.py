from django.urls import include, path

urlpatterns = [
    path("matches/", include("simulate.pages.match_urls")),
    path("studies/", include("simulate.pages.study_urls")),
    path("play/", include("simulate.pages.seated_urls")),
]
