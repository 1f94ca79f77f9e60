"""The service as it faces the public: throttles that hold, a shared cache, the health check, the
production settings (connections, static files, deploy checks)."""

import json
import os
import re
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import pytest
from django.db import OperationalError
from rest_framework.throttling import AnonRateThrottle, ScopedRateThrottle

from tests.conftest import assert_error_shape

ROOT = Path(__file__).resolve().parents[2]
PRODUCTION_ENV = {
    "DEBUG": "0",
    "SECRET_KEY": "a-long-random-production-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz",
    "ALLOWED_HOSTS": "cards.example.com",
}


def run_python(code: str, **env: str) -> subprocess.CompletedProcess:
    """Run `code` in a fresh interpreter with the service's own settings and only the given variables."""
    # DJANGO_ALLOW_ASYNC_UNSAFE: lifted by the browser tests for the test process only (tests/pages/conftest.py).
    unset = {"SECRET_KEY", "DEBUG", "ALLOWED_HOSTS", "SECURE_SSL_REDIRECT", "CACHE_URL", "REDIS_URL",
             "NUM_PROXIES", "CONN_MAX_AGE", "STATIC_ROOT", "DATABASE_URL", "DJANGO_ALLOW_ASYNC_UNSAFE"}
    base = {k: v for k, v in os.environ.items() if k not in unset and not k.startswith("THROTTLE_")}
    base["DJANGO_SETTINGS_MODULE"] = "cardsdb.settings"
    base.update(env)
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, env=base, capture_output=True, text=True,
        timeout=180,
    )


def settings_value(expression: str, **env: str):
    result = run_python(f"import json, cardsdb.settings as s; print(json.dumps({expression}))", **env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


# Throttles -------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_forged_forwarded_for_does_not_reset_the_anonymous_count(anon_client, monkeypatch):
    monkeypatch.setattr(AnonRateThrottle, "rate", "3/minute", raising=False)
    for n in range(3):
        response = anon_client.get("/api/rarities/", HTTP_X_FORWARDED_FOR=f"203.0.113.{n}")
        assert response.status_code == 200
    forged = anon_client.get("/api/rarities/", HTTP_X_FORWARDED_FOR="198.51.100.99")
    assert_error_shape(forged, 429, "throttled")
    assert_error_shape(anon_client.get("/api/rarities/"), 429, "throttled")


@pytest.mark.django_db
def test_behind_a_trusted_proxy_the_address_it_saw_is_counted(anon_client, settings, monkeypatch):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    monkeypatch.setattr(AnonRateThrottle, "rate", "3/minute", raising=False)
    # The proxy appends the address it saw; what the client sent before it does not count.
    for n in range(3):
        forwarded = f"10.{n}.0.1, 198.51.100.7"
        assert anon_client.get("/api/rarities/", HTTP_X_FORWARDED_FOR=forwarded).status_code == 200
    over = anon_client.get("/api/rarities/", HTTP_X_FORWARDED_FOR="10.9.9.9, 198.51.100.7")
    assert_error_shape(over, 429, "throttled")
    other = anon_client.get("/api/rarities/", HTTP_X_FORWARDED_FOR="198.51.100.8")
    assert other.status_code == 200


@pytest.mark.django_db
def test_the_token_endpoint_answers_429_after_its_limit(anon_client, user):
    allowed, _ = ScopedRateThrottle().parse_rate(ScopedRateThrottle.THROTTLE_RATES["auth"])
    for _ in range(allowed):
        guess = anon_client.post("/api/auth/token/", {"username": "alice", "password": "guess"})
        assert guess.status_code == 400, guess.content
    guess = anon_client.post("/api/auth/token/", {"username": "alice", "password": "guess"})
    body = assert_error_shape(guess, 429, "throttled")
    assert body["retry_after"] > 0
    # Even the right password waits now; the rest of the API keeps its own, larger count.
    right = anon_client.post("/api/auth/token/", {"username": "alice", "password": "alice-password-1"})
    assert right.status_code == 429
    assert anon_client.get("/api/rarities/").status_code == 200


@pytest.mark.django_db
def test_the_token_endpoint_still_hands_out_tokens(anon_client, user):
    response = anon_client.post("/api/auth/token/", {"username": "alice", "password": "alice-password-1"})
    assert response.status_code == 200 and response.json()["token"]


def test_the_documented_rates_and_proxy_count():
    rates = settings_value('s.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]', DEBUG="1")
    assert rates == {
        "anon": "600/minute",
        "user": "3000/minute",
        "auth": "10/minute",
        "simulate": "60/minute",
        "batches": "10/hour",
        "designer_batches": "200/hour",
        "sheets": "10/minute",
    }

    def per_second(rate: str) -> float:
        count, duration = ScopedRateThrottle().parse_rate(rate)
        return count / duration

    for scope in ("simulate", "batches", "sheets"):
        assert per_second(rates[scope]) < per_second(rates["anon"])
    assert settings_value('s.REST_FRAMEWORK["NUM_PROXIES"]', DEBUG="1") == 0
    assert settings_value('s.REST_FRAMEWORK["NUM_PROXIES"]', DEBUG="1", NUM_PROXIES="2") == 2
    assert settings_value(
        's.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["simulate"]', DEBUG="1", THROTTLE_SIMULATE="5/second"
    ) == "5/second"


# The shared cache ------------------------------------------------------------------------------

COUNT_IN_A_PROCESS = """
    import sys
    import django
    django.setup()
    from django.core.cache import caches
    from django.test import RequestFactory
    from rest_framework.request import Request
    from rest_framework.throttling import AnonRateThrottle

    class ThreeAMinute(AnonRateThrottle):
        rate = "3/minute"

    address, forged = sys.argv[1:3]
    request = Request(RequestFactory().get("/", REMOTE_ADDR=address, HTTP_X_FORWARDED_FOR=forged))
    print(type(caches["default"]).__name__, [ThreeAMinute().allow_request(request, None) for _ in range(2)])
"""


def count_in_two_processes(**env: str) -> list[str]:
    """Two separate server-like processes, each asking the throttle twice for one client."""
    address = f"client-{uuid.uuid4().hex}"
    outputs = []
    for forged in ("203.0.113.1", "203.0.113.2"):
        result = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(COUNT_IN_A_PROCESS), address, forged],
            cwd=ROOT, capture_output=True, text=True, timeout=120,
            env={**{k: v for k, v in os.environ.items() if k not in {"CACHE_URL", "REDIS_URL"}},
                 "DJANGO_SETTINGS_MODULE": "cardsdb.settings", "DEBUG": "1", **env},
        )
        assert result.returncode == 0, result.stderr
        outputs.append(result.stdout.strip())
    return outputs


def test_server_processes_share_the_throttle_count_through_the_database_cache(tmp_path):
    database = f"sqlite:///{tmp_path / 'shared.sqlite3'}"
    made = subprocess.run(
        [sys.executable, "manage.py", "createcachetable"], cwd=ROOT, capture_output=True, text=True, timeout=120,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "cardsdb.settings", "DEBUG": "1", "DATABASE_URL": database},
    )
    assert made.returncode == 0, made.stderr
    first, second = count_in_two_processes(DATABASE_URL=database)
    assert first == "DatabaseCache [True, True]"
    assert second == "DatabaseCache [True, False]"


def redis_url() -> str | None:
    url = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/15"
    try:
        import redis

        redis.Redis.from_url(url, socket_connect_timeout=1).ping()
    except Exception:
        return None
    return url


def test_server_processes_share_the_throttle_count_through_redis(tmp_path):
    url = redis_url()
    if url is None:
        pytest.skip("Redis does not answer")
    first, second = count_in_two_processes(CACHE_URL=url, DATABASE_URL=f"sqlite:///{tmp_path / 'x.sqlite3'}")
    assert first == "RedisCache [True, True]"
    assert second == "RedisCache [True, False]"


def test_the_cache_is_never_per_process_memory():
    backend = 's.CACHES["default"]["BACKEND"]'
    assert settings_value(backend, DEBUG="1") == "django.core.cache.backends.db.DatabaseCache"
    assert settings_value(backend, **PRODUCTION_ENV) == "django.core.cache.backends.db.DatabaseCache"
    redis_backend = "django.core.cache.backends.redis.RedisCache"
    assert settings_value(backend, DEBUG="1", REDIS_URL="redis://127.0.0.1:6379/1") == redis_backend
    assert settings_value('s.CACHES["default"]["LOCATION"]', DEBUG="1", CACHE_URL="redis://r:6379/2") == "redis://r:6379/2"


# The health check ------------------------------------------------------------------------------


@pytest.mark.django_db
def test_healthz_answers_200_when_database_and_cache_answer(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "cache": "ok"}
    assert "no-cache" in response["Cache-Control"]


@pytest.mark.django_db
def test_healthz_answers_head_as_get_without_a_body(client):
    response = client.head("/healthz")
    assert response.status_code == 200
    assert response.content == b""
    assert response["Content-Type"] == "application/json"
    assert "no-cache" in response["Cache-Control"]


class DownDatabase:
    def cursor(self):
        raise OperationalError("connection refused")


class DownCache:
    def set(self, *args, **kwargs):
        raise ConnectionError("connection refused")


@pytest.mark.django_db
def test_healthz_answers_503_when_the_database_is_down(client, monkeypatch):
    monkeypatch.setattr("cardsdb.health.connection", DownDatabase())
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["database"] == "error" and response.json()["status"] == "unavailable"
    assert client.head("/healthz").status_code == 503


@pytest.mark.django_db
def test_healthz_answers_503_when_the_cache_is_down(client, monkeypatch):
    monkeypatch.setattr("cardsdb.health.cache", DownCache())
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json() == {"status": "unavailable", "database": "ok", "cache": "error"}


@pytest.mark.django_db
def test_healthz_is_reachable_over_plain_http_when_everything_else_redirects(client, settings):
    settings.SECURE_SSL_REDIRECT = True
    settings.SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
    assert client.get("/api/").status_code == 301
    assert client.get("/healthz").status_code == 200


# Production settings ---------------------------------------------------------------------------


def test_database_connections_are_kept_and_checked_only_where_threads_are_bounded():
    conn = 's.DATABASES["default"]["CONN_MAX_AGE"], s.DATABASES["default"]["CONN_HEALTH_CHECKS"]'
    postgres = {"DATABASE_URL": "postgres://postgres@127.0.0.1:5432/test"}
    assert settings_value(f"[{conn}]", **PRODUCTION_ENV, **postgres) == [60, True]
    # runserver (make run) starts a thread per request: a kept connection would outlive it.
    assert settings_value(f"[{conn}]", DEBUG="1", **postgres) == [0, True]
    assert settings_value(f"[{conn}]", **PRODUCTION_ENV, **postgres, CONN_MAX_AGE="5") == [5, True]
    options = settings_value('s.DATABASES["default"]["OPTIONS"]', **PRODUCTION_ENV, **postgres)
    assert options["connect_timeout"] == 5


def test_deploy_checks_pass_with_debug_off_redis_and_a_proxy():
    result = run_python(
        "from django.core.management import execute_from_command_line;"
        "execute_from_command_line(['manage.py', 'check', '--deploy', '--fail-level', 'WARNING'])",
        **PRODUCTION_ENV, CACHE_URL="redis://127.0.0.1:6379/0", NUM_PROXIES="1",
    )
    assert result.returncode == 0, result.stderr + result.stdout
    assert "no issues" in result.stdout


def test_admin_swagger_ui_and_the_pages_are_served_with_debug_off(tmp_path):
    static_root = tmp_path / "static"
    env = {**PRODUCTION_ENV, "ALLOWED_HOSTS": "testserver", "SECURE_SSL_REDIRECT": "0",
           "STATIC_ROOT": str(static_root), "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}"}
    collected = run_python(
        "from django.core.management import execute_from_command_line as run;"
        "run(['manage.py', 'collectstatic', '--no-input', '-v0']); run(['manage.py', 'createcachetable'])",
        **env,
    )
    assert collected.returncode == 0, collected.stderr
    fetched = run_python(
        """
        import json, re
        import django
        django.setup()
        from django.test import Client
        client = Client()
        out = {}
        for page in ("/api/docs/", "/admin/login/", "/", "/accounts/login/", "/realms/table/", "/legends/table/"):
            html = client.get(page).content.decode()
            assets = re.findall(r'(?:src|href)="(/static/[^"]+)"', html)
            out[page] = [(a, client.get(a, HTTP_ACCEPT_ENCODING="gzip").status_code) for a in assets]
        # The table pages' service workers, served by the site itself (their scope is their path).
        for worker in ("/realms/table/offline.js", "/legends/table/offline.js"):
            out[worker] = [(worker, client.get(worker).status_code)]
        print(json.dumps(out))
        """,
        **env,
    )
    assert fetched.returncode == 0, fetched.stderr
    pages = json.loads(fetched.stdout)
    swagger = dict(pages["/api/docs/"])
    assert any(re.search(r"swagger-ui-bundle\.[0-9a-f]{12}\.js$", asset) for asset in swagger), swagger
    assert pages["/admin/login/"]
    site = dict(pages["/"])
    assert any(re.search(r"cardsdb/site\.[0-9a-f]{12}\.css$", asset) for asset in site), site
    assert any(re.search(r"cardsdb/vendor/htmx-2\.0\.11\.min\.[0-9a-f]{12}\.js$", asset) for asset in site), site
    for table in ("/realms/table/", "/legends/table/"):
        assert any(re.search(r"cardsdb/offline\.[0-9a-f]{12}\.js$", asset) for asset, _ in pages[table]), pages[table]
    for page, assets in pages.items():
        assert all(status == 200 for _, status in assets), (page, assets)
