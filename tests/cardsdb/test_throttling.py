"""Throttling answers 429 in the common error shape once a client exceeds its rate."""

import pytest
from rest_framework.throttling import AnonRateThrottle

from tests.conftest import assert_error_shape

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
