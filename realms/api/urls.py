from django.urls import path

from cardsdb.api.routers import AppRouter
from realms.api import views

router = AppRouter("realms")
router.register("races", views.RaceViewSet)
router.register("characters", views.CharacterViewSet)
router.register("armies", views.ArmyViewSet, basename="army")
router.register("releases", views.RealmsReleaseViewSet, basename="realms-release")

urlpatterns = [
    path("characters/<slug:slug>/card.png", views.CARD_FACE, name="character-card-face"),
    path("armies/sheet.pdf", views.ArmyCodeSheetView.as_view(), name="army-code-sheet"),
    path("armies/<int:pk>/sheet.pdf", views.SavedArmySheetView.as_view(), name="army-sheet"),
    path("formations/validate/", views.FormationValidateView.as_view(), name="formation-validate"),
    *router.urls,
]
