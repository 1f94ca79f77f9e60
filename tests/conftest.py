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


def fire_in_waves(requests: list, at_once: int = 8) -> list[tuple[int, bytes]]:
    """Send `urllib.request.Request`s in waves of `at_once`, each request of a wave on a thread of its own and the
    wave released at once (parallel enough to race; a wave stays within the test server's queue of pending
    connections, which refuses a larger burst before anything counts it); each answer's status and body."""
    import threading
    import urllib.error
    import urllib.request

    answers: list[tuple[int, bytes]] = []
    lock = threading.Lock()

    def send(request, start) -> None:
        start.wait()
        try:
            with urllib.request.urlopen(request, timeout=120) as answer:
                status, body = answer.status, answer.read()
        except urllib.error.HTTPError as exc:
            status, body = exc.code, exc.read()
        with lock:
            answers.append((status, body))

    for first in range(0, len(requests), at_once):
        wave = requests[first:first + at_once]
        start = threading.Barrier(len(wave))
        threads = [threading.Thread(target=send, args=(request, start)) for request in wave]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    return answers
