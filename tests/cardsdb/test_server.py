"""The server of `make serve` (cardsdb/server.py) as clients meet it: slow clients hold no thread, so others are
answered while they trickle; requests too slow, too long or unreadable are refused in the error shape under
/api/ and as a short page elsewhere. A real gunicorn with the service's worker, on a port of its own."""

import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from tests.cardsdb.test_production import PRODUCTION_ENV, ROOT

HEADER_TIMEOUT = 2  # seconds, as the server is started here (SERVER_HEADER_TIMEOUT)
BODY_TIMEOUT = 2
THREADS = 2  # Django's threads: fewer than the slow clients below


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """gunicorn as `make serve` starts it (one worker process of THREADS threads), on a migrated database."""
    tmp: Path = tmp_path_factory.mktemp("server")
    port = free_port()
    keep = {k: v for k, v in os.environ.items()
            if not k.startswith(("THROTTLE_", "DJANGO_")) and k not in ("DATABASE_URL", "CACHE_URL", "REDIS_URL")}
    env = {**keep, **PRODUCTION_ENV, "ALLOWED_HOSTS": "127.0.0.1", "SECURE_SSL_REDIRECT": "0",
           "DATABASE_URL": f"sqlite:///{tmp / 'db.sqlite3'}", "DJANGO_SETTINGS_MODULE": "cardsdb.settings",
           "SERVER_HEADER_TIMEOUT": str(HEADER_TIMEOUT), "SERVER_BODY_TIMEOUT": str(BODY_TIMEOUT),
           "STATIC_ROOT": str(tmp / "static")}
    for step in (["migrate", "-v0"], ["collectstatic", "--no-input", "-v0"]):  # pages name hashed static files
        done = subprocess.run([sys.executable, "manage.py", *step], cwd=ROOT, env=env, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, done.stderr
    gunicorn = Path(sys.executable).with_name("gunicorn")
    process = subprocess.Popen(
        [str(gunicorn), "cardsdb.server:front()", "--worker-class", "cardsdb.server.Worker",
         "--bind", f"127.0.0.1:{port}", "--workers", "1", "--threads", str(THREADS), "--no-control-socket"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=open(tmp / "gunicorn.log", "w"),  # noqa: SIM115
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(600):  # until it answers (or gives up)
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=5) as answer:
                if answer.status == 200:
                    break
        except OSError:
            if process.poll() is not None:
                pytest.fail((tmp / "gunicorn.log").read_text())
            time.sleep(0.1)
    yield ("127.0.0.1", port)
    process.terminate()
    process.wait(timeout=30)


def exchange(server, data: bytes, *, then: bytes = b"") -> bytes:
    """Send `data` (and `then`), read until the server closes the connection: the whole answer."""
    with socket.create_connection(server, timeout=60) as conn:
        conn.sendall(data)
        if then:
            conn.sendall(then)
        chunks = []
        while chunk := conn.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def parse(answer: bytes) -> tuple[int, dict[str, str], bytes]:
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.lower().split(": ", 1) for line in lines[1:])
    return int(lines[0].split(" ")[1]), headers, body


def test_other_clients_are_answered_while_slow_clients_hold_more_sockets_than_threads(server):
    stop = threading.Event()
    slow = []
    for _ in range(8 * THREADS):
        conn = socket.create_connection(server, timeout=60)
        conn.sendall(b"POST /api/auth/token/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n")
        slow.append(conn)  # a body that never comes, or only a byte at a time

    def trickle():
        while not stop.wait(0.3):
            for conn in slow:
                with contextlib.suppress(OSError):
                    conn.sendall(b"x")

    feeder = threading.Thread(target=trickle)
    feeder.start()
    try:
        statuses = []
        for _ in range(5):
            with urllib.request.urlopen(f"http://{server[0]}:{server[1]}/healthz", timeout=30) as answer:
                statuses.append(answer.status)
        assert statuses == [200] * 5
    finally:
        stop.set()
        feeder.join()
        for conn in slow:
            conn.close()


def test_headers_that_do_not_arrive_in_time_are_refused_and_the_connection_closed(server):
    status, headers, body = parse(exchange(server, b"GET /api/cards/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"))
    assert status == 408 and headers["connection"] == "close"
    assert json.loads(body) == {"message": f"The request's headers did not arrive within {HEADER_TIMEOUT} seconds.",
                                "code": "request_timeout"}


def test_a_body_that_does_not_arrive_in_time_is_refused(server):
    start = b"POST /api/auth/token/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    status, _, body = parse(exchange(server, start + b"Content-Length: 100\r\n\r\n", then=b'{"user'))
    assert status == 408
    assert json.loads(body)["message"] == f"The request body did not arrive within {BODY_TIMEOUT} seconds."


def test_a_body_past_the_servers_bound_is_refused_before_it_is_sent(server):
    head = b"POST /api/auth/token/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 99999999999\r\n\r\n"
    status, _, body = parse(exchange(server, head))
    assert status == 413 and json.loads(body)["code"] == "too_large"


def test_a_request_line_too_long_is_414_in_the_error_shape_under_the_api_and_a_page_elsewhere(server):
    long_query = b"q=" + b"a" * 9000
    status, headers, body = parse(exchange(server, b"GET /api/cards/?" + long_query + b" HTTP/1.1\r\nHost: x\r\n\r\n"))
    assert status == 414 and headers["content-type"] == "application/json"
    assert json.loads(body)["code"] == "uri_too_long"
    status, headers, body = parse(exchange(server, b"GET /search/?" + long_query + b" HTTP/1.1\r\nHost: x\r\n\r\n"))
    assert status == 414 and headers["content-type"].startswith("text/html")
    assert b"<h1>Request-URI Too Long</h1>" in body and b'href="/"' in body


def test_headers_too_large_are_431(server):
    headers = b"".join(b"X-Filler-%d: %s\r\n" % (i, b"b" * 1000) for i in range(20))
    status, _, body = parse(exchange(server, b"GET /api/cards/ HTTP/1.1\r\nHost: x\r\n" + headers + b"\r\n"))
    assert status == 431 and json.loads(body)["code"] == "headers_too_large"


def test_a_request_http_cannot_read_is_400_in_the_error_shape(server):
    status, headers, body = parse(exchange(server, b"GET /api/cards/ HTTP/1.1\r\nHost x\r\n\r\n"))
    assert status == 400 and headers["content-type"] == "application/json"
    assert json.loads(body) == {"message": "The request could not be read as HTTP/1.1.", "code": "bad_request"}


def test_requests_read_whole_are_answered_by_the_service(server):
    body = b'{"username": "nobody", "password": "wrong"}'
    request = (b"POST /api/auth/token/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
               b"Connection: close\r\nContent-Length: %d\r\n\r\n" % len(body))
    status, headers, answer = parse(exchange(server, request, then=body))
    assert status == 400 and headers["content-type"] == "application/json"
    assert json.loads(answer)["code"] == "invalid"


def test_pages_that_set_cookies_are_answered(server):
    status, headers, body = parse(exchange(server, b"GET /accounts/login/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                                   b"Connection: close\r\n\r\n"))
    assert status == 200 and headers["set-cookie"].startswith("csrftoken=")
    assert b'name="csrfmiddlewaretoken"' in body
