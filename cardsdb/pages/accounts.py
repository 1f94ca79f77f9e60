"""Signing in, out and up with Django's own auth views, rated as the API's token view is (scope `auth`)."""

from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import UserCreationForm
from django.shortcuts import redirect, render
from django.urls import reverse

from cardsdb.pages.throttles import refused_page


class LoginView(auth_views.LoginView):
    """Django's sign-in page; each attempt counts against the `auth` rate, so guessing passwords here is no
    faster than at /api/auth/token/."""

    def post(self, request, *args, **kwargs):
        return refused_page(request, "auth") or super().post(request, *args, **kwargs)


def signup(request):
    """A new account (Django's form: a unique name, a password the validators accept), then signed in."""
    if request.user.is_authenticated:
        return redirect("home")
    form = UserCreationForm(request.POST or None)
    if request.method == "POST":
        refused = refused_page(request, "auth")
        if refused:
            return refused
        if form.is_valid():
            login(request, form.save())
            return redirect(reverse("home"))
    return render(request, "registration/signup.html", {"form": form}, status=400 if form.errors else 200)
