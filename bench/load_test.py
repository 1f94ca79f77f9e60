"""Load test of the service as `make serve` runs it, with locust, on loopback only.

    .venv/bin/python bench/load_test.py            # 32 clients, 20 s per scenario
    .venv/bin/python bench/load_test.py --smoke    # 8 clients, 10 s in all (CI)

It creates a fresh PostgreSQL database next to DATABASE_URL's (default
postgres://postgres@127.0.0.1:5432/test), starts `make serve` on a free 127.0.0.1 port with
DEBUG off (migrations, the official sets, static files, gunicorn), raises the throttle rates
through THROTTLE_* (the load comes from one address), and runs one scenario after another,
each from the same number of concurrent clients, none waiting between requests:

  healthz      GET /healthz, the trivial endpoint every figure is compared with
  cards        GET /api/cards/ with filters, search and ordering
  characters   GET /api/realms/characters/?q=... (the query language)
  validate     POST /api/realms/armies/validate/ with legal starter-set armies
  collections  POST /api/collections/{id}/add/ from many clients, four to each account and
               three cards per collection, so that adds race on the same rows; afterwards
               each collection must hold exactly what the successful adds added
  matches      POST /api/simulate/realms/matches/, greedy against greedy

Then two attacks (--attacks, or a short slow-client run in --smoke):

  slow clients  80 sockets that send a request a byte every 5 s (half of them its headers, half a
                body announced by Content-Length) while 8 other clients ask for /healthz and
                /api/rarities/; prints those clients' answers, median and p99, and how many of the
                slow sockets the server had closed by the end
  throttles     `make serve` started again on the same database with the documented rates and
                NUM_PROXIES=1 (each attack from an address of its own in X-Forwarded-For): 2,000
                anonymous requests from 50 parallel clients against `anon`, 40 parallel password
                guesses at /api/auth/token/ and 40 at the admin login against `auth`, 700 search
                pages against `anon`; prints the requests let through against each bound

Each scenario stops after --seconds or --max-requests, whichever comes first. It prints
requests per second, p50 and p99 (ms), the ratios to /healthz, the errors (any unexpected
answer, plus tracebacks in the server's log), lost updates, and the most database connections
the server held at once (never more than WEB_CONCURRENCY x GUNICORN_THREADS). It exits 1 on any
error, lost update or connection over that bound; the database is dropped at the end.
"""

from __future__ import annotations

from gevent import monkey

monkey.patch_all()

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import random  # noqa: E402
import secrets  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import urllib.error  # noqa: E402
import urllib.request  # noqa: E402
from collections import Counter  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402
from urllib.parse import urlsplit, urlunsplit  # noqa: E402

import gevent  # noqa: E402
import psycopg  # noqa: E402
from locust import FastHttpUser, constant, task  # noqa: E402
from locust.env import Environment  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from realms.engine.cards import cards_from_fixture  # noqa: E402
from realms.engine.formation import random_army  # noqa: E402

DEFAULT_DATABASE = "postgres://postgres@127.0.0.1:5432/test"
WORKERS, THREADS = 5, 4  # what `make serve` starts unless WEB_CONCURRENCY / GUNICORN_THREADS say otherwise
ACCOUNTS = 8  # collections scenario: clients share these accounts, so adds race on the same rows
UNLIMITED = "1000000/minute"
# The documented rates (README, Throttling): the throttle attacks run against these.
DOCUMENTED_RATES = {"anon": "600/minute", "user": "3000/minute", "auth": "10/minute", "simulate": "60/minute",
                    "batches": "10/hour"}
# The proxy in front of the service says the client spoke HTTPS (SECURE_SSL_REDIRECT is on).
HEADERS = {"X-Forwarded-Proto": "https"}

CARD_QUERIES = [
    "/api/cards/?game=realms&rarity=common&ordering=name",
    "/api/cards/?game=legends&ordering=-rarity__order&page_size=100",
    "/api/cards/?search=fire&page_size=20",
    "/api/cards/?name=guard&has_image=false",
    "/api/cards/?rarity=legendary&ordering=card_set__release_date",
]
CHARACTER_QUERIES = [
    "class:mage atk>=9 -rarity:common",
    "(spd>6 or hp>=20) -c:tank",
    "pos:vanguard def>=5",
    "rarity>=rare",
    "c:support or c:archer",
]


# --- the server -------------------------------------------------------------------------------


def database_url(base: str, name: str) -> str:
    """`base` with its database name replaced by `name`."""
    parts = urlsplit(base)
    return urlunsplit((parts.scheme, parts.netloc, "/" + name, parts.query, parts.fragment))


def libpq(url: str) -> str:
    return url.replace("postgres://", "postgresql://", 1)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Server:
    base_url: str
    env: dict[str, str]
    process: subprocess.Popen[bytes]
    log_path: Path
    access_log: Path

    def log_tail(self, lines: int = 40) -> str:
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])

    def tracebacks(self) -> int:
        return self.log_path.read_text(errors="replace").count("Traceback (most recent call last)")

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=40)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)


def start_server(db_url: str, workdir: Path, cache_url: str | None, startup_timeout: float,
                 rates: dict[str, str] | None = None, num_proxies: int = 0, tag: str = "") -> Server:
    """`make serve` on a free port; the throttle rates raised to UNLIMITED unless `rates` says otherwise."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in {"CACHE_URL", "REDIS_URL", "DEBUG", "NUM_PROXIES"}}
    env.update(
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="127.0.0.1",
        DATABASE_URL=db_url,
        GUNICORN_ACCESS_LOG=str(workdir / f"access{tag}.log"),
    )
    env = {k: v for k, v in env.items() if not k.startswith("THROTTLE_")}
    if rates is None:
        # One address sends all the load: the rates are raised, the throttles still run.
        rates = dict.fromkeys(("anon", "user", "auth", "simulate", "batches"), UNLIMITED)
    env.update({f"THROTTLE_{scope.upper()}": rate for scope, rate in rates.items()})
    if num_proxies:
        env["NUM_PROXIES"] = str(num_proxies)
    if cache_url:
        env["CACHE_URL"] = cache_url
    log_path = workdir / f"serve{tag}.log"
    process = subprocess.Popen(
        ["make", "--no-print-directory", "serve", f"HOST=127.0.0.1:{port}"],
        cwd=ROOT, env=env, stdout=log_path.open("wb"), stderr=subprocess.STDOUT, start_new_session=True,
    )
    server = Server(f"http://127.0.0.1:{port}", env, process, log_path, workdir / f"access{tag}.log")
    deadline = time.monotonic() + startup_timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"make serve exited with {process.returncode}:\n{server.log_tail()}")
        try:
            with urllib.request.urlopen(server.base_url + "/healthz", timeout=2) as answer:
                if answer.status == 200:
                    return server
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.5)
    server.stop()
    raise RuntimeError(f"make serve did not answer /healthz in {startup_timeout:.0f} s:\n{server.log_tail()}")


def http(server: Server, method: str, path: str, body: dict[str, Any] | None = None, token: str | None = None) -> Any:
    """One request from the set-up (outside the measured scenarios); the decoded JSON answer."""
    headers = {**HEADERS, "Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Token {token}"
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(server.base_url + path, data=data, headers=headers, method=method)
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


def create_accounts(server: Server, count: int) -> list[dict[str, Any]]:
    """`count` users (made with the ORM), their tokens (the token endpoint) and one collection each (the API)."""
    password = secrets.token_urlsafe(16)
    code = (
        "from django.contrib.auth import get_user_model\n"
        "User = get_user_model()\n"
        f"for i in range({count}):\n"
        f"    User.objects.create_user(f'load{{i}}', password={password!r})\n"
    )
    subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", code], cwd=ROOT, env=server.env, check=True,
        capture_output=True, timeout=120,
    )
    accounts = []
    for i in range(count):
        token = http(server, "POST", "/api/auth/token/", {"username": f"load{i}", "password": password})["token"]
        collection = http(server, "POST", "/api/collections/", {"name": f"Load {i}"}, token=token)["id"]
        accounts.append({"token": token, "collection": collection})
    return accounts


def legal_armies(count: int) -> list[list[dict[str, str]]]:
    """`count` legal armies of the starter set, drawn with a fixed seed."""
    cards = cards_from_fixture(json.loads((ROOT / "fixtures" / "realms_starter.json").read_text()))
    rng = random.Random(7)
    return [[{"card": c.slug, "line": line} for c, line in random_army(cards, rng)] for _ in range(count)]


# --- the scenarios ----------------------------------------------------------------------------


@dataclass
class Shared:
    """What the scenarios read (set up once) and what the collections scenario tallies."""

    armies: list[list[dict[str, str]]] = field(default_factory=list)
    accounts: list[dict[str, Any]] = field(default_factory=list)
    cards: list[str] = field(default_factory=list)
    added: Counter[int] = field(default_factory=Counter)
    clients: int = 0


SHARED = Shared()


def expect(response: Any, status: int, check: Callable[[Any], bool] | None = None) -> bool:
    """Mark a locust response failed unless it has `status` (and passes `check` on its JSON)."""
    if response.status_code != status:
        response.failure(f"HTTP {response.status_code}: {response.text[:200] if response.text else ''}")
        return False
    if check is not None:
        try:
            ok = check(response.json())
        except ValueError:
            ok = False
        if not ok:
            response.failure(f"unexpected answer: {response.text[:200]}")
            return False
    response.success()
    return True


class Client(FastHttpUser):
    abstract = True
    wait_time = constant(0)
    network_timeout = 60.0
    connection_timeout = 10.0


class Healthz(Client):
    @task
    def healthz(self) -> None:
        with self.client.get("/healthz", headers=HEADERS, name="healthz", catch_response=True) as r:
            expect(r, 200, lambda body: body["status"] == "ok")


class Cards(Client):
    @task
    def cards(self) -> None:
        url = random.choice(CARD_QUERIES)
        with self.client.get(url, headers=HEADERS, name="cards", catch_response=True) as r:
            expect(r, 200, lambda body: "results" in body)


class Characters(Client):
    @task
    def characters(self) -> None:
        query = random.choice(CHARACTER_QUERIES)
        url = "/api/realms/characters/?" + urllib.parse.urlencode({"q": query})
        with self.client.get(url, headers=HEADERS, name="characters", catch_response=True) as r:
            expect(r, 200, lambda body: "results" in body)


class Validate(Client):
    @task
    def validate(self) -> None:
        body = {"slots": random.choice(SHARED.armies)}
        with self.client.post("/api/realms/armies/validate/", json=body, headers=HEADERS, name="validate",
                              catch_response=True) as r:
            expect(r, 200, lambda answer: answer["valid"] is True)


class Collections(Client):
    def on_start(self) -> None:
        account = SHARED.accounts[SHARED.clients % len(SHARED.accounts)]
        SHARED.clients += 1
        self.collection = account["collection"]
        self.headers = {**HEADERS, "Authorization": f"Token {account['token']}"}

    @task
    def add(self) -> None:
        quantity = random.randint(1, 3)
        body = {"card": random.choice(SHARED.cards), "quantity": quantity}
        with self.client.post(f"/api/collections/{self.collection}/add/", json=body, headers=self.headers,
                              name="collections", catch_response=True) as r:
            if expect(r, 200, lambda answer: answer["quantity"] >= quantity):
                SHARED.added[self.collection] += quantity


class Matches(Client):
    @task
    def match(self) -> None:
        a, b = random.sample(SHARED.armies, 2)
        body = {"armies": {"a": {"slots": a}, "b": {"slots": b}}, "agents": {"a": "greedy", "b": "greedy"},
                "seed": random.randrange(2**31)}
        with self.client.post("/api/simulate/realms/matches/", json=body, headers=HEADERS, name="matches",
                              catch_response=True) as r:
            expect(r, 201, lambda answer: answer["winner"] in ("a", "b", None))


SCENARIOS: list[tuple[str, type[Client]]] = [
    ("healthz", Healthz),
    ("cards", Cards),
    ("characters", Characters),
    ("validate", Validate),
    ("collections", Collections),
    ("matches", Matches),
]


@dataclass
class Figures:
    name: str
    requests: int
    errors: int
    seconds: float
    p50: float
    p99: float
    error_kinds: dict[str, int]

    @property
    def rps(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0


def run_scenario(name: str, user_class: type[Client], server: Server, clients: int, seconds: float,
                 max_requests: int) -> Figures:
    env = Environment(user_classes=[user_class], host=server.base_url, stop_timeout=60.0)
    runner = env.create_local_runner()
    started = time.monotonic()
    runner.start(clients, spawn_rate=clients)
    while time.monotonic() - started < seconds and env.stats.total.num_requests < max_requests:
        gevent.sleep(0.05)
    runner.quit()  # every client finishes the request it is in, so none is left half counted
    elapsed = time.monotonic() - started
    entry = env.stats.total
    kinds = {f"{e.name}: {e.error}"[:160]: e.occurrences for e in env.stats.errors.values()}
    return Figures(name, entry.num_requests, entry.num_failures, elapsed,
                   entry.get_response_time_percentile(0.5) or 0.0, entry.get_response_time_percentile(0.99) or 0.0,
                   kinds)


class ConnectionSampler:
    """The most connections to the load database seen at once, sampled every 0.2 s."""

    def __init__(self, admin_url: str, database: str) -> None:
        self.connection = psycopg.connect(libpq(admin_url), autocommit=True)
        self.database = database
        self.peak = 0
        self.greenlet = gevent.spawn(self._run)

    def _run(self) -> None:
        while True:
            row = self.connection.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = %s", (self.database,)
            ).fetchone()
            assert row is not None  # a count is one row
            count = row[0]
            self.peak = max(self.peak, count)
            gevent.sleep(0.2)

    def stop(self) -> None:
        self.greenlet.kill()
        self.connection.close()


# --- the attacks ------------------------------------------------------------------------------

SLOW_PERIOD = 5.0  # a slow client sends one byte this often
OTHER_TIMEOUT = 10.0  # an answer later than this counts as none


@dataclass
class SlowFigures:
    sockets: int
    answered: int
    failed: int
    p50: float
    p99: float
    closed_by_server: int
    failures: Counter[str]


def slow_socket(port: int, kind: str, stop_at: float, closed: list[str]) -> None:
    """One slow client: its request line and first headers at once, then a byte every SLOW_PERIOD (more of its
    headers, or of a body announced by Content-Length) until `stop_at` or until the server closes on it."""
    try:
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    except OSError:
        closed.append(kind)
        return
    if kind == "headers":
        head = f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Forwarded-Proto: https\r\nX-Slow: ".encode()
    else:
        head = (f"POST /api/realms/armies/validate/ HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                "X-Forwarded-Proto: https\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n").encode()
    try:
        sock.sendall(head)
        while time.monotonic() < stop_at:
            gevent.sleep(min(SLOW_PERIOD, max(0.0, stop_at - time.monotonic())))
            sock.settimeout(0.01)
            try:
                sock.recv(4096)  # an answer (408) or the end of the stream: the server is done with it
                closed.append(kind)
                return
            except TimeoutError:
                pass
            sock.settimeout(10)
            if time.monotonic() < stop_at:
                sock.sendall(b"a" if kind == "headers" else b" ")
    except OSError:
        closed.append(kind)
    finally:
        sock.close()


def other_client(server: Server, stop_at: float, times: list[float], failures: Counter[str]) -> None:
    """A client asking for /healthz and /api/rarities/ in turn, each answer timed (a failure at its timeout)."""
    paths = ["/healthz", "/api/rarities/"]
    n = 0
    while time.monotonic() < stop_at:
        path = paths[n % 2]
        n += 1
        began = time.monotonic()
        try:
            request = urllib.request.Request(server.base_url + path, headers=HEADERS)
            with urllib.request.urlopen(request, timeout=OTHER_TIMEOUT) as answer:
                answer.read()
                ok = answer.status == 200
                if not ok:
                    failures[f"{path}: HTTP {answer.status}"] += 1
        except urllib.error.HTTPError as exc:
            ok = False
            failures[f"{path}: HTTP {exc.code}"] += 1
        except (urllib.error.URLError, OSError) as exc:
            ok = False
            failures[f"{path}: {type(getattr(exc, 'reason', exc)).__name__}"] += 1
        times.append((time.monotonic() - began) * 1000 if ok else OTHER_TIMEOUT * 1000)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def slow_clients_run(server: Server, sockets: int, seconds: float, others: int = 8) -> SlowFigures:
    """`sockets` slow clients (half slow headers, half slow bodies) open while `others` clients are timed."""
    port = int(server.base_url.rsplit(":", 1)[1])
    closed: list[str] = []
    stop_at = time.monotonic() + seconds + 1.0
    slow = [gevent.spawn(slow_socket, port, "headers" if i % 2 == 0 else "body", stop_at, closed)
            for i in range(sockets)]
    gevent.sleep(1.0)  # every slow client connected and started
    times: list[float] = []
    failures: Counter[str] = Counter()
    clients = [gevent.spawn(other_client, server, stop_at, times, failures) for _ in range(others)]
    gevent.joinall(clients + slow, timeout=seconds + OTHER_TIMEOUT + 15)
    gevent.killall(clients + slow)
    failed = sum(failures.values())
    return SlowFigures(sockets, len(times) - failed, failed, percentile(times, 0.5), percentile(times, 0.99),
                       len(closed), failures)


@dataclass
class Let:
    name: str
    sent: int
    through: int
    bound: int
    statuses: Counter[int]


def status_of(request: urllib.request.Request) -> int:
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            answer.read()
            return answer.status
    except urllib.error.HTTPError as exc:
        return exc.code
    except (urllib.error.URLError, OSError):
        return 0


def in_parallel(clients: int, requests: list[urllib.request.Request]) -> Counter[int]:
    """Every request sent, `clients` at a time; the statuses answered (0: no answer)."""
    from gevent.pool import Pool

    return Counter(Pool(clients).map(status_of, requests))


def admin_login_form(server: Server, address: str) -> tuple[str, str]:
    """The admin login page's CSRF cookie and form token, as a browser would get them."""
    request = urllib.request.Request(server.base_url + "/admin/login/",
                                     headers={**HEADERS, "X-Forwarded-For": address})
    with urllib.request.urlopen(request, timeout=30) as answer:
        cookies = answer.headers.get_all("Set-Cookie") or []
        page = answer.read().decode()
    cookie = next(c.split(";")[0] for c in cookies if c.startswith("csrftoken="))
    token = page.split('name="csrfmiddlewaretoken" value="', 1)[1].split('"', 1)[0]
    return cookie, token


def throttle_runs(server: Server, rates: dict[str, str]) -> list[Let]:
    """Requests fired in parallel, each attack from an address of its own (X-Forwarded-For, NUM_PROXIES=1); how
    many got through against the bound of its rate."""
    def bound(scope: str) -> int:
        return int(rates[scope].split("/")[0])

    run = secrets.token_hex(2)
    address = {name: f"2001:db8:{run}::{n + 1}" for n, name in enumerate(["anon", "token", "admin", "pages"])}
    results = []

    def headers(name: str, **more: str) -> dict[str, str]:
        return {**HEADERS, "X-Forwarded-For": address[name], **more}

    api = [urllib.request.Request(server.base_url + "/api/rarities/", headers=headers("anon")) for _ in range(2000)]
    statuses = in_parallel(50, api)
    results.append(Let("anonymous API reads (anon)", len(api), statuses[200], bound("anon"), statuses))

    guess = json.dumps({"username": "load0", "password": "not-the-password"}).encode()
    token = [urllib.request.Request(server.base_url + "/api/auth/token/", data=guess, method="POST",
                                    headers=headers("token", **{"Content-Type": "application/json"}))
             for _ in range(40)]
    statuses = in_parallel(20, token)
    results.append(Let("token password guesses (auth)", len(token), sum(c for s, c in statuses.items() if s != 429),
                       bound("auth"), statuses))

    cookie, csrf = admin_login_form(server, address["admin"])
    form = urllib.parse.urlencode({"username": "load0", "password": "not-the-password",
                                   "csrfmiddlewaretoken": csrf, "next": "/admin/"}).encode()
    admin = [urllib.request.Request(
        server.base_url + "/admin/login/", data=form, method="POST",
        headers=headers("admin", **{"Content-Type": "application/x-www-form-urlencoded", "Cookie": cookie,
                                    "Referer": server.base_url.replace("http://", "https://") + "/admin/login/"}))
        for _ in range(40)]
    statuses = in_parallel(20, admin)
    results.append(Let("admin login guesses (auth)", len(admin), sum(c for s, c in statuses.items() if s != 429),
                       bound("auth"), statuses))

    pages = [urllib.request.Request(server.base_url + "/search/?q=fire", headers=headers("pages"))
             for _ in range(700)]
    statuses = in_parallel(20, pages)
    results.append(Let("search pages (anon)", len(pages), statuses[200], bound("anon"), statuses))
    return results


# --- the run ----------------------------------------------------------------------------------


def parse_arguments() -> argparse.Namespace:
    """The command line, with --smoke's short run and --attacks-only's attacks filled in."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--smoke", action="store_true", help="8 clients, 10 s in all")
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=20.0, help="per scenario")
    parser.add_argument("--max-requests", type=int, default=50_000, help="per scenario")
    parser.add_argument("--database-url", default=os.environ.get("DATABASE_URL") or DEFAULT_DATABASE,
                        help="a PostgreSQL database to connect to; the load database is created beside it")
    parser.add_argument("--cache-url", default=None, help="Redis for the cache (default: the database cache)")
    parser.add_argument("--startup-timeout", type=float, default=900.0)
    parser.add_argument("--attacks", action="store_true",
                        help="after the scenarios, the slow-client run and the throttle runs")
    parser.add_argument("--attacks-only", action="store_true", help="the attacks without the scenarios")
    parser.add_argument("--slow-sockets", type=int, default=80)
    parser.add_argument("--slow-seconds", type=float, default=30.0)
    args = parser.parse_args()
    if args.smoke:
        args.clients, args.seconds, args.max_requests = 8, 10.0 / len(SCENARIOS), 5_000
        args.slow_sockets, args.slow_seconds = 20, 4.0
    args.attacks = args.attacks or args.attacks_only
    return args


@dataclass
class Run:
    """What one load test started and measured: main stops what it started, whatever happens."""

    server: Server | None = None
    sampler: ConnectionSampler | None = None
    workers: int = WORKERS
    threads: int = THREADS
    results: list[Figures] = field(default_factory=list)
    held: dict[int, int] = field(default_factory=dict)  # copies each collection holds at the end
    lost: int = 0
    tracebacks: int = 0
    slow: SlowFigures | None = None
    let: list[Let] = field(default_factory=list)

    def stop(self) -> None:
        """Stop the connection sampler and the server, if they run."""
        if self.sampler is not None and not self.sampler.greenlet.dead:
            self.sampler.stop()
        if self.server is not None:
            self.server.stop()


def main() -> int:
    """A fresh database and `make serve` on it, the scenarios and attacks, the figures; 1 on any failure."""
    args = parse_arguments()
    if not args.database_url.startswith(("postgres://", "postgresql://")):
        print(f"The load test needs PostgreSQL; DATABASE_URL is {args.database_url}", file=sys.stderr)
        return 2
    try:
        admin = psycopg.connect(libpq(args.database_url), autocommit=True, connect_timeout=5)
    except psycopg.Error as exc:
        print(f"SKIPPED: PostgreSQL does not answer at {args.database_url}: {exc}")
        return 0

    name = f"cardsdb_load_{os.getpid()}_{secrets.token_hex(3)}"
    admin.execute(f'CREATE DATABASE "{name}"')
    run = Run()
    try:
        measure(run, args, name)
    finally:
        run.stop()
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()
    return 1 if report(run) else 0


def measure(run: Run, args: argparse.Namespace, name: str) -> None:
    """Start the service on database `name`, run the scenarios, check the collections, then the attacks."""
    workdir = Path(tempfile.mkdtemp(prefix="cardsdb-load-"))
    print(f"== make serve on a fresh database {name} (migrations, official sets, static files)", flush=True)
    began = time.monotonic()
    run.server = start_server(database_url(args.database_url, name), workdir, args.cache_url, args.startup_timeout)
    run.workers = int(run.server.env.get("WEB_CONCURRENCY") or WORKERS)
    run.threads = int(run.server.env.get("GUNICORN_THREADS") or THREADS)
    print(f"   up in {time.monotonic() - began:.0f} s at {run.server.base_url}: {run.workers} workers x "
          f"{run.threads} threads, cache {'Redis' if args.cache_url else 'database'}", flush=True)

    SHARED.armies = legal_armies(8)
    SHARED.accounts = create_accounts(run.server, ACCOUNTS)
    cards = http(run.server, "GET", "/api/cards/?game=realms&ordering=name&page_size=3")["results"]
    SHARED.cards = [card["slug"] for card in cards]

    run.sampler = ConnectionSampler(args.database_url, name)
    run_scenarios(run, args)
    run.sampler.stop()
    run.held, run.lost = collections_held(run.server)
    run.tracebacks = run.server.tracebacks()

    if args.smoke or args.attacks:
        print(f"== slow clients: {args.slow_sockets} sockets sending a byte every {SLOW_PERIOD:g} s for "
              f"{args.slow_seconds:g} s, 8 other clients timed meanwhile", flush=True)
        run.slow = slow_clients_run(run.server, args.slow_sockets, args.slow_seconds)
        run.tracebacks = run.server.tracebacks()
    if args.attacks:
        run.server.stop()
        print("== throttles: make serve again with the documented rates, NUM_PROXIES=1", flush=True)
        run.server = start_server(database_url(args.database_url, name), workdir, args.cache_url,
                                  args.startup_timeout, rates=DOCUMENTED_RATES, num_proxies=1, tag="-rates")
        run.let = throttle_runs(run.server, DOCUMENTED_RATES)
        run.tracebacks += run.server.tracebacks()


def run_scenarios(run: Run, args: argparse.Namespace) -> None:
    """Each scenario (none with --attacks-only) from the same number of clients, one after another."""
    assert run.server is not None
    scenarios = [] if args.attacks_only else SCENARIOS
    print(f"== {len(scenarios)} scenarios, {args.clients} concurrent clients, "
          f"at most {args.seconds:g} s or {args.max_requests} requests each", flush=True)
    for scenario, user_class in scenarios:
        figures = run_scenario(scenario, user_class, run.server, args.clients, args.seconds, args.max_requests)
        run.results.append(figures)
        print(f"   {scenario:<12} {figures.requests:>6} requests, {figures.errors} errors", flush=True)


def collections_held(server: Server) -> tuple[dict[int, int], int]:
    """The copies each account's collection holds, and the lost updates: copies added by successful requests
    that the collections do not hold (or hold extra)."""
    held = {}
    for account in SHARED.accounts:
        body = http(server, "GET", f"/api/collections/{account['collection']}/", token=account["token"])
        held[account["collection"]] = sum(entry["quantity"] for entry in body["entries"])
    return held, sum(abs(SHARED.added[c] - held[c]) for c in held)


def report(run: Run) -> bool:
    """Print the figures of the run; whether it failed."""
    failed = report_scenarios(run)
    failed = report_slow_clients(run.slow) or failed
    failed = report_throttles(run.let) or failed
    print("== load test " + ("FAILED" if failed else "passed"))
    return failed


def report_scenarios(run: Run) -> bool:
    """The scenarios against /healthz, the collections, the database connections and the errors; whether any
    error, lost update or connection over the bound was seen."""
    assert run.sampler is not None
    results = run.results
    base = results[0] if results else Figures("healthz", 0, 0, 0.0, 0.0, 0.0, {})
    print()
    print(f"{'scenario':<12} {'requests':>8} {'req/s':>8} {'p50 ms':>7} {'p99 ms':>7} "
          f"{'req/s ÷ healthz':>15} {'p50 ÷ healthz':>13} {'errors':>6}")
    for f in results:
        print(f"{f.name:<12} {f.requests:>8} {f.rps:>8.1f} {f.p50:>7.0f} {f.p99:>7.0f} "
              f"{f.rps / base.rps if base.rps else 0:>15.2f} {f.p50 / base.p50 if base.p50 else 0:>13.1f} "
              f"{f.errors:>6}")
    errors = sum(f.errors for f in results)
    added = sum(SHARED.added.values())
    print()
    print(f"collections: {added} copies added by successful requests, {sum(run.held.values())} held afterwards, "
          f"{run.lost} lost updates")
    # Each worker process: its request threads, and its one background thread (simulate.background), which holds a
    # connection while it looks for studies to resume.
    bound = run.workers * (run.threads + 1)
    print(f"database connections: at most {run.sampler.peak} at once (bound: {run.workers} x ({run.threads} request "
          f"threads + 1 background) = {bound})")
    print(f"errors: {errors} unexpected answers, {run.tracebacks} tracebacks in the server log")
    for f in results:
        for kind, count in f.error_kinds.items():
            print(f"   {count} x {kind}")
    return bool(errors or run.tracebacks or run.lost or run.sampler.peak > bound)


def report_slow_clients(slow: SlowFigures | None) -> bool:
    """What the other clients saw while the slow sockets were open; whether any of them failed."""
    if slow is None:
        return False
    print(f"slow clients: {slow.sockets} open; the other clients had {slow.answered} answers and {slow.failed} "
          f"failures (none within {OTHER_TIMEOUT:g} s, or not 200), median {slow.p50:.0f} ms, "
          f"p99 {slow.p99:.0f} ms (a failure counted at {OTHER_TIMEOUT:g} s); "
          f"{slow.closed_by_server} slow sockets closed by the server")
    for kind, count in slow.failures.most_common():
        print(f"   {count} x {kind}")
    return bool(slow.failed)


def report_throttles(let: list[Let]) -> bool:
    """The requests each throttle let through against its bound; whether one let more through."""
    failed = False
    for entry in let:
        answered = ", ".join(f"{status or 'none'}: {count}" for status, count in sorted(entry.statuses.items()))
        print(f"throttles: {entry.name}: {entry.through} of {entry.sent} let through, bound {entry.bound} "
              f"({answered})")
        failed = failed or entry.through > entry.bound
    return failed


if __name__ == "__main__":
    sys.exit(main())
