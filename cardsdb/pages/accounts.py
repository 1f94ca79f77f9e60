"""Signing in, out and up with Django's own auth views, rated as the API's token view is (scope `auth`)."""

from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import UserCreationForm
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.urls import reverse

from cardsdb.pages.throttles import refused_page
from cardsdb.usernames import username_refusal


class SignUpForm(UserCreationForm):
    """Django's sign-up form, refusing names that mix scripts or read as an existing one (cardsdb.usernames)."""

    def clean_username(self):
        username = super().clean_username()  # None when the name is taken (the form says so)
        refusal = username and username_refusal(username)
        if refusal:
            raise ValidationError(refusal, code="confusable")
        return username


class LoginView(auth_views.LoginView):
    """Django's sign-in page; each attempt counts against the `auth` rate, so guessing passwords here is no
    faster than at /api/auth/token/."""

    def post(self, request, *args, **kwargs):
        return refused_page(request, "auth") or super().post(request, *args, **kwargs)


def signup(request):
    """A new account (a unique name that reads as no other, a password the validators accept), then signed in."""
    if request.user.is_authenticated:
        return redirect("home")
    form = SignUpForm(request.POST or None)
    if request.method == "POST":
        refused = refused_page(request, "auth")
        if refused:
            return refused
        if form.is_valid():
            login(request, form.save())
            return redirect(reverse("home"))
    return render(request, "registration/signup.html", {"form": form}, status=400 if form.errors else 200)
