from cardsdb.api.routers import AppRouter

router = AppRouter("realms")

urlpatterns = router.urls
