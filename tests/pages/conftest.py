"""Browser tests of the pages: Debian's headless Chromium driven by Playwright against Django's live server.

pytest-playwright gives each test a fresh browser context (`page`) and, when a test fails, saves a
screenshot of every page it had open under `.test-results/browser/` (see `addopts` in pyproject.toml).
The pages are served by pytest-django's `live_server` (a real HTTP server in a thread of the test process,
with the static files) on the test database, loaded with the official sets as `make run` loads them.
"""

import os
import re
import threading
from pathlib import Path
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.core.management import call_command
from playwright.sync_api import expect

from simulate import background

# Playwright's sync API runs an event loop in the test's thread; the ORM calls that set up each test (the
# catalogue, users) are plain synchronous code, so Django's guard against use inside a loop is lifted for
# this process. The server thread answering the browser has no loop and is unaffected. The tests that start
# the service in a child process (its deploy checks) leave this variable out of the child's environment.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))



@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """Debian's chromium, not a browser downloaded by Playwright. `.ci/run` installs it (and sets
    CARDSDB_BROWSER_TESTS=1, so that a missing browser fails there rather than skipping)."""
    if not CHROMIUM.exists():
        reason = f"{CHROMIUM} is missing: install Debian's chromium (apt-get install chromium) for the browser tests"
        if os.environ.get("CARDSDB_BROWSER_TESTS") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    return {**browser_type_launch_args, "executable_path": str(CHROMIUM)}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args, live_server):
    """Every page is opened relative to the live server, at a laptop's size unless a test says otherwise."""
    return {**browser_context_args, "base_url": live_server.url, "viewport": {"width": 1280, "height": 900}}


@pytest.fixture
def site(live_server, transactional_db):
    """The live server's address, with every official set loaded (each test starts from that catalogue)."""
    call_command("load_official", verbosity=0)
    yield live_server.url
    # The browser is closed by now, but the server may still be answering its last requests (a card face
    # loaded lazily, say). The database is emptied next: on PostgreSQL a query that holds one table while
    # TRUNCATE holds another is a deadlock, so the emptying waits until every answer is done.
    for thread in threading.enumerate():
        if thread.name.endswith("(process_request_thread)"):
            thread.join(timeout=WAIT_MS / 1000)


# How long an action or an `expect` waits for the page to get there (not a limit on how fast it must be):
# long enough for a loaded machine, where the server, the browser and the tests share two cores.
WAIT_MS = 20_000
expect.set_options(timeout=WAIT_MS)


@pytest.fixture
def new_context(browser, live_server):
    """Further browser contexts (another phone, a fresh visitor), each closed when its test ends, passed or failed:
    a page left open would go on polling the server after its test."""
    made = []

    def make(**options: Any) -> Any:
        context = browser.new_context(base_url=live_server.url, **options)
        made.append(context)
        return context

    yield make
    for context in made:
        context.close()


def cached(page, cache: str) -> None:
    """Wait until the page's service worker runs it and keeps a copy of it and of every script and style it loads."""
    page.wait_for_function("""async (cache) => {
        const kept = await caches.open(cache);
        const files = [...document.querySelectorAll("script[src], link[rel=stylesheet]")].map((n) => n.src || n.href);
        const found = await Promise.all([window.location.pathname, ...files].map((url) => kept.match(url)));
        return Boolean(navigator.serviceWorker.controller) && found.every(Boolean);
    }""", arg=cache)


def cut_off(context) -> list[str]:
    """The context without a connection: every request refused (its address noted), and the browser offline."""
    refused: list[str] = []

    def no_network(route):
        refused.append(route.request.url)
        route.abort("internetdisconnected")

    context.route("**/*", no_network)
    context.set_offline(True)
    return refused


@pytest.fixture
def page(page):
    """pytest-playwright's page, failing its test on any script error the page raises."""
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.set_default_timeout(WAIT_MS)
    yield page
    assert not errors, f"the page raised script errors: {errors}"


def sign_in(page, username: str, password: str) -> None:
    """Sign in through the sign-in page, as a person would."""
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_text(re.compile(f"Signed in as {re.escape(username)}")).wait_for()


# axe-core's WCAG 2.0 and 2.1 rules of levels A and AA: labels, alt text, names, landmarks, contrast.
WCAG_AA = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]},
           "resultTypes": ["violations"]}


def axe_violations(page) -> list[str]:
    """The page's WCAG A/AA violations found by axe-core, each as `rule (impact): elements`."""
    results = Axe().run(page, options=WCAG_AA)
    return [f"{v['id']} ({v['impact']}): {', '.join(str(n['target']) for n in v['nodes'])}"
            for v in results.response["violations"]]


class GatedRunner(background.LocalRunner):
    """The background thread, holding every job until the test opens the gate: a study's page is then seen
    while it is still queued, whatever the speed of the machine."""

    def __init__(self):
        super().__init__()
        self.gate = threading.Event()

    def submit(self, job):
        def held():
            self.gate.wait()
            job()
        super().submit(held)


@pytest.fixture
def runner(monkeypatch):
    """Studies held in the background until the test opens the gate (or ends)."""
    gated = GatedRunner()
    monkeypatch.setattr(background, "local_runner", gated)
    monkeypatch.setattr(background, "_resumed_at", None)
    yield gated
    gated.gate.set()
    assert gated.wait_idle(60), "the background thread did not finish"


@pytest.fixture
def handed_over(monkeypatch) -> list[Any]:
    """The batches handed to the background, not played by it (a test plays them, or reads what was stored)."""
    queued: list[Any] = []
    monkeypatch.setattr(background, "queue_batch", queued.append)
    return queued
