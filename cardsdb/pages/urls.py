from django.contrib.auth import views as auth_views
from django.urls import path

from cardsdb.pages import accounts, views

urlpatterns = [
    path("", views.home, name="home"),
    path("search/", views.search, name="search"),
    path("accounts/login/", accounts.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/signup/", accounts.signup, name="signup"),
]
