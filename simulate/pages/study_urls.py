from django.urls import path

from cardsdb.pages.placeholder import placeholder

urlpatterns = [
    path("new/", placeholder("Studies"), name="study-new"),
    path("<uuid:batch_id>/", placeholder("Study"), name="study-detail"),
]
