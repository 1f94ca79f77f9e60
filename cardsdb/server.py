"""What stands in front of Django under `make serve`: gunicorn's processes, each reading requests in an event
loop (uvicorn, through its gunicorn worker), the service's WSGI application behind it on a fixed pool of
threads.

gunicorn's threaded worker hands a connection to one of its threads as soon as a byte arrives, and that
thread then blocks until the request is whole: 20 clients sending a byte every few seconds held all 20
threads, and nobody else was answered. Here a request is read by the event loop, where a slow client costs a
socket and a few kilobytes, never a thread:

- its line and headers within SERVER_HEADER_TIMEOUT seconds of its first byte (of the connection for the
  first request), else 408 and the connection is closed; at most SERVER_MAX_REQUEST_LINE bytes of request
  line (414) and SERVER_MAX_HEAD bytes of line and headers (431);
- its body within SERVER_BODY_TIMEOUT seconds of its headers (408), at most SERVER_MAX_BODY bytes (413, from
  Content-Length before a byte is read, or as soon as a chunked body passes it), kept in memory up to 1 MiB
  and in a temporary file past that;
- only then is it handed to one of the process's GUNICORN_THREADS threads, which runs Django as gunicorn's
  threads did (WSGI, one kept database connection per thread, so at most workers x threads connections),
  collects the whole answer and is free again; the event loop sends the answer at the client's pace.

The refusals above, and a request the HTTP parser cannot read (400), answer in the service's error shape
({"message", "code"}) when the request line names /api/ or /healthz, as a short page otherwise.
"""

from __future__ import annotations

import asyncio
import html
import json
import logging
import os
import sys
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from http import HTTPStatus
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn_worker import UvicornWorker

logger = logging.getLogger("cardsdb.server")

SPOOL_BYTES = 1024 * 1024  # a body past this waits in a temporary file


def _env(name: str, default: int) -> int:
    return int(os.environ.get(name) or default)


# The bounds on reading a request (README, Configuration). The body bound is above every body a view takes
# (card art: CARD_IMAGE_MAX_BYTES, 5 MiB, in a multipart form); each view still checks its own.
HEADER_TIMEOUT = _env("SERVER_HEADER_TIMEOUT", 10)
BODY_TIMEOUT = _env("SERVER_BODY_TIMEOUT", 30)
MAX_REQUEST_LINE = _env("SERVER_MAX_REQUEST_LINE", 8190)
MAX_HEAD = _env("SERVER_MAX_HEAD", 16 * 1024)
MAX_BODY = _env("SERVER_MAX_BODY", 7 * 1024 * 1024)


# ------------------------------------------------------------------------------------- refusals


def refusal_body(status: int, code: str, message: str, target: bytes | None) -> tuple[bytes, bytes]:
    """The content type and body of a refusal: the error shape for the API (or when the target cannot be read),
    a short page for a person's browser."""
    path = (target or b"").split(b"?", 1)[0]
    if b"://" in path:  # absolute form: http://host/path
        path = b"/" + path.split(b"://", 1)[1].partition(b"/")[2]
    if target is None or path.startswith((b"/api/", b"/healthz")) or path == b"/api":
        return b"application/json", json.dumps({"message": message, "code": code}).encode()
    phrase = HTTPStatus(status).phrase
    return b"text/html; charset=utf-8", (
        f"<!doctype html><html lang=\"en\"><title>{status} {phrase}</title>"
        f"<h1>{phrase}</h1><p role=\"alert\">{html.escape(message)}</p>"
        f"<p><a href=\"/\">Back to the home page</a></p></html>").encode()


def refusal_headers(content_type: bytes, body: bytes) -> list[tuple[bytes, bytes]]:
    """A refusal's headers: it closes the connection."""
    return [(b"content-type", content_type), (b"content-length", str(len(body)).encode()), (b"connection", b"close")]


def refusal(status: int, code: str, message: str, target: bytes | None) -> bytes:
    """A whole HTTP/1.1 refusal, as written straight to the socket while the request is still being read."""
    content_type, body = refusal_body(status, code, message, target)
    head = f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\n".encode()
    head += b"".join(name + b": " + value + b"\r\n" for name, value in refusal_headers(content_type, body))
    return head + b"\r\n" + body


# ------------------------------------------------------------------------------------- reading the head


class Protocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol (h11) with a deadline on each request's line and headers, a bound on the
    request line, and the service's own answers to what it refuses."""

    def connection_made(self, transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.head_timeout = HEADER_TIMEOUT
        self.max_line = MAX_REQUEST_LINE
        self.head = bytearray()  # the request being read, up to MAX_HEAD bytes, until its headers are complete
        self.head_size = 0
        self.reading_head = True
        self.head_timer: asyncio.TimerHandle | None = self.loop.call_later(self.head_timeout, self.head_too_slow)

    def connection_lost(self, exc: Exception | None) -> None:
        self.stop_head_timer()
        super().connection_lost(exc)

    def stop_head_timer(self) -> None:
        if self.head_timer is not None:
            self.head_timer.cancel()
            self.head_timer = None

    def target(self) -> bytes | None:
        """The request target as far as it has arrived (None when the request line is not readable)."""
        parts = bytes(self.head).split(b"\n", 1)[0].split(b" ")
        return parts[1] if len(parts) > 1 and parts[1] else None

    def refuse(self, status: int, code: str, message: str) -> None:
        self.stop_head_timer()
        self.reading_head = False
        if not self.transport.is_closing():
            self.transport.write(refusal(status, code, message, self.target()))
            self.transport.close()

    def head_too_slow(self) -> None:
        self.head_timer = None
        if self.reading_head:
            if self.head:
                self.refuse(408, "request_timeout", f"The request's headers did not arrive within "
                                                    f"{self.head_timeout} seconds.")
            else:  # a connection that never sent anything
                self.transport.close()

    def data_received(self, data: bytes) -> None:
        if self.reading_head:
            if self.head_timer is None:  # the first byte of the next request on a kept-alive connection
                self.head_timer = self.loop.call_later(self.head_timeout, self.head_too_slow)
            self.head_size += len(data)
            if len(self.head) <= MAX_HEAD:
                self.head += data[: MAX_HEAD + 1 - len(self.head)]
            line_end = self.head.find(b"\n")
            if line_end > self.max_line or (line_end < 0 and len(self.head) > self.max_line):
                self.refuse(414, "uri_too_long", f"The request line is longer than {self.max_line} bytes.")
                return
            # h11 bounds only a head that arrives in pieces: one sent whole is measured here.
            if len(self.head) > MAX_HEAD and b"\r\n\r\n" not in self.head and b"\n\n" not in self.head:
                self.refuse(431, "headers_too_large", f"The request's line and headers pass {MAX_HEAD} bytes.")
                return
        super().data_received(data)
        if self.reading_head and self.conn.their_state is not h11.IDLE and not self.transport.is_closing():
            # The headers are complete (the request is with the application) or refused.
            self.stop_head_timer()
            self.reading_head = False

    def send_400_response(self, msg: str) -> None:
        """A request h11 cannot read: headers past SERVER_MAX_HEAD (431), or anything malformed (400)."""
        if self.head_size > MAX_HEAD:
            self.refuse(431, "headers_too_large", f"The request's line and headers pass {MAX_HEAD} bytes.")
        else:
            self.refuse(400, "bad_request", "The request could not be read as HTTP/1.1.")

    def on_response_complete(self) -> None:
        # The next request on this connection: its head is timed from its first byte (until then uvicorn's
        # keep-alive timeout closes an idle connection).
        self.head, self.head_size, self.reading_head = bytearray(), 0, True
        super().on_response_complete()  # may start a pipelined request
        if self.conn.their_state is not h11.IDLE:
            self.reading_head = False


# ------------------------------------------------------------------------------------- the application


class Front:
    """An ASGI application that reads the whole request in the event loop, bounded in time and size, then
    runs the WSGI application on one of a fixed number of threads and sends the answer it collected."""

    def __init__(self, wsgi_app, threads: int = 4) -> None:
        self.wsgi_app = wsgi_app
        self.threads = threads
        self.executor: ThreadPoolExecutor | None = None
        self.lock = threading.Lock()

    def pool(self) -> ThreadPoolExecutor:
        with self.lock:  # made in the worker process, after the fork
            if self.executor is None:
                self.executor = ThreadPoolExecutor(self.threads, thread_name_prefix="cardsdb-request")
            return self.executor

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "lifespan":
            await self.lifespan(receive, send)
            return
        if scope["type"] != "http":  # no websockets here
            return
        target = scope.get("raw_path") or scope["path"].encode()
        body = await self.read_body(scope, receive, send, target)
        if body is None:
            return
        loop = asyncio.get_running_loop()
        status, headers, chunks = await loop.run_in_executor(self.pool(), self.run_wsgi, self.environ(scope, body))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        for n, chunk in enumerate(chunks):
            await send({"type": "http.response.body", "body": chunk, "more_body": n < len(chunks) - 1})
        if not chunks:
            await send({"type": "http.response.body", "body": b""})

    async def lifespan(self, receive, send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                if self.executor is not None:
                    self.executor.shutdown(wait=True)
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def refuse(self, send, status: int, code: str, message: str, target: bytes) -> None:
        content_type, body = refusal_body(status, code, message, target)
        await send({"type": "http.response.start", "status": status,
                    "headers": refusal_headers(content_type, body)})
        await send({"type": "http.response.body", "body": body})

    async def read_body(self, scope, receive, send, target: bytes):
        """The request's body in a file, or None once the request is refused (or its client gone)."""
        limit, timeout = MAX_BODY, BODY_TIMEOUT
        declared = next((value for name, value in scope["headers"] if name == b"content-length"), None)
        too_large = f"The request body is larger than {limit} bytes."
        if declared is not None and declared.isdigit() and int(declared) > limit:
            await self.refuse(send, 413, "too_large", too_large, target)
            return None
        body = tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES)  # noqa: SIM115 (closed after the app ran)
        size, more = 0, True
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while more:
            try:
                message = await asyncio.wait_for(receive(), timeout=max(0.0, deadline - loop.time()))
            except TimeoutError:
                body.close()
                await self.refuse(send, 408, "request_timeout",
                                  f"The request body did not arrive within {timeout} seconds.", target)
                return None
            if message["type"] == "http.disconnect":
                body.close()
                return None
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                body.close()
                await self.refuse(send, 413, "too_large", too_large, target)
                return None
            body.write(chunk)
            more = message.get("more_body", False)
        body.seek(0)
        return body

    def environ(self, scope, body) -> dict[str, Any]:
        """The WSGI environment of an ASGI request (PEP 3333: strings are bytes read as latin-1)."""
        server = scope.get("server") or ("localhost", 80)
        client = scope.get("client")
        environ: dict[str, Any] = {
            "REQUEST_METHOD": scope["method"],
            "SCRIPT_NAME": scope.get("root_path", "").encode().decode("latin-1"),
            "PATH_INFO": scope["path"].encode().decode("latin-1"),
            "QUERY_STRING": scope["query_string"].decode("latin-1"),
            "SERVER_NAME": str(server[0]),
            "SERVER_PORT": str(server[1] if server[1] is not None else 80),
            "SERVER_PROTOCOL": f"HTTP/{scope['http_version']}",
            "REMOTE_ADDR": client[0] if client else "",
            "wsgi.version": (1, 0),
            "wsgi.url_scheme": scope.get("scheme", "http"),
            "wsgi.input": body,
            "wsgi.errors": sys.stderr,
            "wsgi.multithread": True,
            "wsgi.multiprocess": True,
            "wsgi.run_once": False,
        }
        for name, value in scope["headers"]:
            key = name.decode("latin-1").upper().replace("-", "_")
            if key in ("CONTENT_TYPE", "CONTENT_LENGTH"):
                pass
            elif "_" in name.decode("latin-1").replace("-", ""):
                continue  # a header name with "_" would pass for another one ("X_Forwarded_For"): dropped
            else:
                key = f"HTTP_{key}"
            text = value.decode("latin-1")
            environ[key] = f"{environ[key]},{text}" if key in environ else text
        return environ

    def run_wsgi(self, environ: dict[str, Any]) -> tuple[int, list[tuple[bytes, bytes]], list[bytes]]:
        """Run the application on this thread and collect its whole answer, so the thread is free again
        however slowly the client reads."""
        answer: dict[str, Any] = {}

        def start_response(status: str, headers, exc_info=None):
            answer["status"] = int(status.split(" ", 1)[0])
            # Surrounding whitespace is not part of a field value (RFC 9110), and h11 refuses it: Django's
            # Set-Cookie values begin with a space.
            answer["headers"] = [(k.lower().encode("latin-1"), v.strip().encode("latin-1")) for k, v in headers]
            return lambda data: chunks.append(data)

        chunks: list[bytes] = []
        try:
            result = self.wsgi_app(environ, start_response)
            try:
                chunks.extend(chunk for chunk in result if chunk)
            finally:
                if hasattr(result, "close"):
                    result.close()
        except Exception:
            logger.exception("The application failed on %s %s", environ["REQUEST_METHOD"], environ["PATH_INFO"])
            body = json.dumps({"message": "Something went wrong on our side.", "code": "server_error"}).encode()
            return 500, [(b"content-type", b"application/json")], [body]
        finally:
            environ["wsgi.input"].close()
        return answer["status"], answer["headers"], chunks


def front() -> Front:
    """The service behind `make serve` (gunicorn's application: cardsdb.server:front())."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cardsdb.settings")
    from django.core.wsgi import get_wsgi_application

    return Front(get_wsgi_application())


class Worker(UvicornWorker):
    """gunicorn's worker process running uvicorn with the protocol above: HTTP/1.1 through h11 (which bounds
    the request head), the client's address as the socket gives it (proxies are NUM_PROXIES' business, in
    Django), no server header, and the application's threads as gunicorn's `--threads`."""

    CONFIG_KWARGS = {
        "loop": "asyncio",
        "http": Protocol,
        "proxy_headers": False,
        "server_header": False,
        "lifespan": "on",
        "h11_max_incomplete_event_size": MAX_HEAD,
    }

    def load_wsgi(self) -> None:
        super().load_wsgi()
        if isinstance(self.wsgi, Front):
            self.wsgi.threads = self.cfg.threads
