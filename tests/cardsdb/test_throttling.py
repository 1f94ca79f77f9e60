"""Throttling: 429 in the common error shape past a rate; counts that hold under parallel requests (the
database cache and Redis); pages and every way to sign in drawing on the API's budgets; bounds per address
as well as per account."""

import os
import urllib.parse
import urllib.request
from collections import Counter

import pytest
from django.core.management import call_command
from django.urls import reverse
from rest_framework.throttling import AnonRateThrottle, ScopedRateThrottle, UserRateThrottle

from simulate import batches
from simulate.models import Batch
from tests.conftest import assert_error_shape, fire_in_waves

pytestmark = pytest.mark.django_db


def test_anonymous_clients_are_throttled(anon_client, monkeypatch):
    # The configured rate is generous; a low one makes the limit reachable in a test.
    monkeypatch.setattr(AnonRateThrottle, "rate", "3/minute", raising=False)
    for _ in range(3):
        assert anon_client.get("/api/rarities/").status_code == 200
    body = assert_error_shape(anon_client.get("/api/rarities/"), 429, "throttled")
    assert body["retry_after"] > 0


def test_default_rates_are_configured():
    from django.conf import settings

    rates = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    assert rates["anon"] and rates["user"]


# Parallel requests against a live server ------------------------------------------------------------------

# A database of its own for each test process (Redis databases 12 to 15), since clearing the cache empties it.
_WORKER = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or 0)
REDIS_URL = os.environ.get("CARDSDB_TEST_THROTTLE_REDIS", f"redis://127.0.0.1:6379/{12 + _WORKER % 4}")


def redis_answers() -> bool:
    try:
        import redis

        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1).ping()
    except Exception:
        return False
    return True


@pytest.fixture(params=["database", "redis"])
def shared_cache(request, settings):
    """The service's shared caches (the suite's own is per-process memory)."""
    if request.param == "redis":
        if not redis_answers():
            pytest.skip("Redis does not answer")
        settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                                       "LOCATION": REDIS_URL, "KEY_PREFIX": "cardsdb-test"}}
    else:
        settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.db.DatabaseCache",
                                       "LOCATION": "cardsdb_cache"}}
        # The suite's settings name no database cache, so its migration made no table.
        call_command("createcachetable", verbosity=0)
    from django.core.cache import cache

    cache.clear()
    yield request.param
    cache.clear()


def fire(requests: list[urllib.request.Request]) -> Counter:
    """The requests sent in parallel waves; how many answered each status."""
    return Counter(status for status, _ in fire_in_waves(requests))


@pytest.mark.django_db(transaction=True)
def test_parallel_requests_never_pass_the_bound(shared_cache, live_server, monkeypatch):
    monkeypatch.setattr(AnonRateThrottle, "THROTTLE_RATES", {"anon": "10/minute"})
    statuses = fire([urllib.request.Request(f"{live_server.url}/api/rarities/") for _ in range(40)])
    assert statuses == {200: 10, 429: 30}, statuses


@pytest.mark.django_db(transaction=True)
def test_parallel_password_guesses_never_pass_the_auth_bound(shared_cache, live_server, user):
    allowed, _ = ScopedRateThrottle().parse_rate(ScopedRateThrottle.THROTTLE_RATES["auth"])
    guess = urllib.parse.urlencode({"username": "alice", "password": "guess"}).encode()
    statuses = fire([urllib.request.Request(f"{live_server.url}/api/auth/token/", data=guess)
                     for _ in range(3 * allowed)])
    assert statuses == {400: allowed, 429: 2 * allowed}, statuses


def test_counts_are_shared_and_expire_with_their_window(shared_cache):
    from cardsdb.api.throttling import hit

    assert [hit("throttle:test:a", 60)[0] for _ in range(3)] == [1, 2, 3]
    count, left = hit("throttle:test:b", 60)
    assert count == 1 and 0 < left <= 60
    assert hit("throttle:test:c", 1)[0] == 1


# Pages -------------------------------------------------------------------------------------------------------


def test_pages_count_against_the_anonymous_rate_with_the_api(client, monkeypatch):
    monkeypatch.setattr(AnonRateThrottle, "THROTTLE_RATES", {"anon": "3/minute"})
    assert client.get("/api/rarities/").status_code == 200
    assert client.get(reverse("search"), {"q": "fire"}).status_code == 200
    assert client.get(reverse("home")).status_code == 200
    refused = client.get(reverse("search"), {"q": "fire"})
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert "Too many requests" in refused.content.decode()
    assert_error_shape(client.get("/api/rarities/"), 429, "throttled")
    # Load balancers' probe is never throttled.
    assert client.get("/healthz").status_code == 200


def test_pages_count_per_account_for_signed_in_users(client, user, monkeypatch):
    monkeypatch.setattr(UserRateThrottle, "THROTTLE_RATES", {"user": "2/minute"})
    client.force_login(user)
    for _ in range(2):
        assert client.get(reverse("home")).status_code == 200
    assert client.get(reverse("home")).status_code == 429


# Every way to sign in shares `auth` -------------------------------------------------------------------------


@pytest.fixture
def auth_of_three(monkeypatch):
    monkeypatch.setitem(ScopedRateThrottle.THROTTLE_RATES, "auth", "3/minute")


def test_the_admin_login_is_rated_as_the_token_view(client, staff, auth_of_three):
    for _ in range(3):
        answer = client.post("/admin/login/", {"username": "stella", "password": "guess"})
        assert answer.status_code == 200  # the form again, with its error
    refused = client.post("/admin/login/", {"username": "stella", "password": "stella-password-1"})
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    # Reading the form is not an attempt.
    assert client.get("/admin/login/").status_code == 200


def test_token_pages_admin_and_sign_up_share_one_auth_count(client, anon_client, user, auth_of_three):
    assert anon_client.post("/api/auth/token/", {"username": "alice", "password": "guess"}).status_code == 400
    assert client.post(reverse("login"), {"username": "alice", "password": "guess"}).status_code == 200
    assert client.post("/admin/login/", {"username": "alice", "password": "guess"}).status_code == 200
    assert client.post(reverse("signup"), {"username": "x"}).status_code == 429
    assert_error_shape(anon_client.post("/api/auth/token/", {"username": "alice", "password": "guess"}),
                       429, "throttled")


def test_the_browsable_api_signs_in_through_the_pages_login():
    from django.urls import NoReverseMatch

    with pytest.raises(NoReverseMatch):  # no login view of DRF's own: the pages' one, rated as `auth`
        reverse("rest_framework:login")


# Per address as well as per account -----------------------------------------------------------------------


def accounts(django_user_model, count: int):
    from tests.conftest import token_client

    return [token_client(django_user_model.objects.create_user(f"free{i}", password="free-password-1"))
            for i in range(count)]


def test_new_accounts_from_one_address_share_its_simulate_bound(django_user_model, monkeypatch):
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"simulate": "2/minute", "batches": "1/minute"})
    clients = accounts(django_user_model, 3)
    bad = {"armies": {}, "seed": 1}  # refused as input, after the throttles counted it
    for c in clients[:2]:
        assert c.post("/api/simulate/realms/matches/", bad, format="json").status_code == 400
    assert_error_shape(clients[2].post("/api/simulate/realms/matches/", bad, format="json"), 429, "throttled")
    clients[2].defaults["REMOTE_ADDR"] = "10.9.8.7"
    assert clients[2].post("/api/simulate/realms/matches/", bad, format="json").status_code == 400


def test_the_user_rate_holds_per_address_too(django_user_model, monkeypatch):
    monkeypatch.setattr(UserRateThrottle, "THROTTLE_RATES", {"user": "2/minute"})
    first, second = accounts(django_user_model, 2)
    assert [first.get("/api/rarities/").status_code for _ in range(2)] == [200, 200]
    assert_error_shape(second.get("/api/rarities/"), 429, "throttled")


def test_unfinished_studies_are_bounded_per_address_across_accounts(django_user_model):
    users = [django_user_model.objects.create_user(f"s{i}", password="free-password-1") for i in range(2)]
    for n in range(batches.MAX_UNFINISHED):
        Batch.objects.create(game="realms", kind="matchup", client=f"user:{users[n % 2].pk}@203.0.113.5",
                             owner=users[n % 2], inputs={}, count=2, per_pairing=2, seed=1, chunk_size=2, chunks=1)
    assert batches.unfinished_of("user:999@203.0.113.5") == batches.MAX_UNFINISHED
    assert batches.unfinished_of("address:203.0.113.5") == batches.MAX_UNFINISHED
    assert batches.unfinished_of(f"user:{users[0].pk}@198.51.100.1") == 3  # the account, from elsewhere
    assert batches.unfinished_of("address:198.51.100.1") == 0
