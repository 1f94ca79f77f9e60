"""A hook of the browser tests that must see the session's own fixtures (tests/pages/ holds the rest)."""

import pytest
from django.db import connections


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(fixturedef, request):
    """For the browser tests (tests/pages/): close this thread's database connections when Playwright starts
    and again before it stops. While it runs, its loop gives the thread a context of its own, where Django's
    connections are another set: a connection of either set left open would stay so, unused, and hold the
    test database when it is dropped at the end."""
    if fixturedef.argname != "playwright":
        return (yield)
    connections.close_all()
    started = yield
    fixturedef.addfinalizer(connections.close_all)  # runs before Playwright's own teardown stops it
    return started
