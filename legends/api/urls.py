from cardsdb.api.routers import AppRouter

router = AppRouter("legends")

urlpatterns = router.urls
