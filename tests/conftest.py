"""Shared fixtures: the official catalogue, users of each kind and their API clients."""

from pathlib import Path

import pytest
from django.core.cache import cache
from django.core.management import call_command
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

FIXTURES_DIR = Path(__file__).resolve().parent.parent / "fixtures"


def official_fixture_files() -> list[str]:
    return sorted(str(path) for path in FIXTURES_DIR.glob("*.json"))



@pytest.fixture(autouse=True)
def _fresh_throttle_cache():
    # Throttle counters live in the cache; each test starts with a clean slate.
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def catalogue(db):
    """Every official set, loaded the way `make run` loads it."""
    call_command("load_official", verbosity=0)


@pytest.fixture
def user(django_user_model):
    return django_user_model.objects.create_user("alice", password="alice-password-1")


@pytest.fixture
def other_user(django_user_model):
    return django_user_model.objects.create_user("bob", password="bob-password-1")


@pytest.fixture
def staff(django_user_model):
    return django_user_model.objects.create_user("stella", password="stella-password-1", is_staff=True)


def token_client(user) -> APIClient:
    client = APIClient()
    token, _ = Token.objects.get_or_create(user=user)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


@pytest.fixture
def anon_client():
    return APIClient()


@pytest.fixture
def user_client(user):
    return token_client(user)


@pytest.fixture
def other_client(other_user):
    return token_client(other_user)


@pytest.fixture
def staff_client(staff):
    return token_client(staff)


def assert_error_shape(response, status: int, code: str | None = None) -> dict:
    """Check the common error shape and return the body."""
    assert response.status_code == status, response.content
    body = response.json()
    assert isinstance(body.get("message"), str) and body["message"], body
    assert isinstance(body.get("code"), str) and body["code"], body
    if code is not None:
        assert body["code"] == code, body
    return body
