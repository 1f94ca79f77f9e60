"""Signing in, out and up with Django's own auth views, rated as the API's token view is (scope `auth`)."""

from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import UserCreationForm
from django.core.exceptions import ValidationError
from django.db import transaction
from django.shortcuts import redirect, render
from django.urls import reverse

from cardsdb.pages.throttles import throttle_scope
from cardsdb.usernames import LOOKS_LIKE_ANOTHER, read_by_another, username_refusal


class SignUpForm(UserCreationForm):
    """Django's sign-up form, refusing names that mix scripts or read as an existing one (cardsdb.usernames)."""

    def clean_username(self):
        username = super().clean_username()  # None when the name is taken (the form says so)
        refusal = username and username_refusal(username)
        if refusal:
            raise ValidationError(refusal, code="confusable")
        return username

    def save(self, commit: bool = True):
        """The new account, or None (the form then says why) when an account signed up meanwhile reads alike:
        its forms are stored with the account, and checked again in the same transaction."""
        with transaction.atomic():
            user = super().save(commit=True)
            if read_by_another(user):
                transaction.set_rollback(True)
                self.add_error("username", ValidationError(LOOKS_LIKE_ANOTHER, code="confusable"))
                return None
        return user


class LoginView(auth_views.LoginView):
    """Django's sign-in page; each attempt counts against the `auth` rate, so guessing passwords here is no
    faster than at /api/auth/token/."""

    throttle_scope = "auth"


@throttle_scope("auth")
def signup(request):
    """A new account (a unique name that reads as no other, a password the validators accept), then signed in."""
    if request.user.is_authenticated:
        return redirect("home")
    form = SignUpForm(request.POST or None)
    if request.method == "POST":
        user = form.save() if form.is_valid() else None
        if user is not None:
            login(request, user)
            return redirect(reverse("home"))
    return render(request, "registration/signup.html", {"form": form}, status=400 if form.errors else 200)
