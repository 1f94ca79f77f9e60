from django.urls import path

from cardsdb.api.routers import AppRouter
from legends.api import views

router = AppRouter("legends")
router.register("elements", views.ElementViewSet, basename="legends-element")
router.register("spirits", views.SpiritViewSet, basename="legends-spirit")
router.register("protectors", views.ProtectorViewSet, basename="legends-protector")
router.register("defenses", views.DefenseCardViewSet, basename="legends-defense")
router.register("summoning-cards", views.SummoningCardViewSet, basename="legends-summoning-card")
router.register("setups", views.TeamSetupViewSet, basename="legends-setup")
router.register("releases", views.LegendsReleaseViewSet, basename="legends-release")

card_faces = [
    path(f"{prefix}/<slug:slug>/card.png", views.card_face_view(viewset), name=f"{basename}-card-face")
    for prefix, viewset, basename in router.registry
    if issubclass(viewset, views.LegendsCardViewSet)
]

urlpatterns = [*card_faces, *router.urls]
