"""The service's rates, counted so that they hold under parallel requests.

DRF's own throttles read a client's list of request times from the cache, add one and write it back: two
requests read the same list and one of the two is lost, so parallel clients get far past any bound. Here
each request is one atomic step on a counter:

- Redis (CACHE_URL): a script that increments the counter and starts its expiry when it has none;
- the database cache table: one `INSERT ... ON CONFLICT DO UPDATE ... RETURNING` (PostgreSQL, SQLite);
- any other cache (the per-process memory the tests use): under a process-wide lock.

A bound of N per period is a window that opens with a client's first request and lasts the period: the
first N requests of the window pass, the others answer 429 until it closes (at most N per window, so at
most 2N in any span of one period). Every request counts, refused ones too.

Who is counted: an anonymous client per address; a signed-in one per account and per address, each
against the same rate, so that accounts made for free at one address do not multiply its bounds. The
address is DRF's (REMOTE_ADDR, or with NUM_PROXIES the address the farthest trusted proxy saw).

A designer (cardsdb.api.permissions.is_designer) is counted against `designer_<scope>` instead of a view's
scope when that rate is set: studies are their work, not a stranger's load.
"""

from __future__ import annotations

import math
import random
import threading
import time
from datetime import UTC, datetime, timedelta
from typing import cast

from django.conf import settings
from django.core.cache import caches
from django.core.cache.backends.db import DatabaseCache
from django.core.cache.backends.redis import RedisCache
from django.db import connections, router
from rest_framework.throttling import AnonRateThrottle, ScopedRateThrottle, UserRateThrottle

from cardsdb.api.permissions import is_designer

KEY_PREFIX = "throttle"
DESIGNER_PREFIX = "designer_"  # a scope's rate for designers: designer_<scope>
PRUNE_ONE_IN = 500  # the database cache: expired counters are deleted at one request in this many

# INCR, then an expiry for a counter that has none (a new one): one atomic step on the Redis server.
_REDIS_HIT = """
local count = redis.call('INCR', KEYS[1])
local left = redis.call('PTTL', KEYS[1])
if left < 0 then
    redis.call('PEXPIRE', KEYS[1], ARGV[1])
    left = tonumber(ARGV[1])
end
return {count, left}
"""

_redis_scripts: dict[str, object] = {}
_local_lock = threading.Lock()


def hit(key: str, period: int) -> tuple[int, float]:
    """Count one request under `key` in its window of `period` seconds: (requests counted in the window,
    seconds until it closes)."""
    store = caches["default"]
    if isinstance(store, RedisCache):
        return _redis_hit(store, key, period)
    if isinstance(store, DatabaseCache):
        return _database_hit(store, key, period)
    return _local_hit(store, key, period)


def _redis_hit(store: RedisCache, key: str, period: int) -> tuple[int, float]:
    location = settings.CACHES["default"]["LOCATION"]
    script = _redis_scripts.get(location)
    if script is None:
        import redis

        # The first server is the one Django's cache writes to; redis-py's pool is safe across threads and
        # makes itself anew in a forked process.
        client = redis.Redis.from_url(location.split(",")[0] if isinstance(location, str) else location[0])
        script = _redis_scripts[location] = client.register_script(_REDIS_HIT)
    count, left_ms = script(keys=[store.make_and_validate_key(key)], args=[period * 1000])  # type: ignore[operator]
    return int(count), int(left_ms) / 1000


def _database_hit(store: DatabaseCache, key: str, period: int) -> tuple[int, float]:
    db = router.db_for_write(store.cache_model_class)
    connection = connections[db]
    table = connection.ops.quote_name(settings.CACHES["default"]["LOCATION"])
    now = datetime.now(UTC)
    adapt = connection.ops.adapt_datetimefield_value
    live = f"{table}.expires > %s"
    # One statement: a new counter, a counter whose window has closed started again, or one more. The
    # counter's row is locked for the statement, so parallel requests are counted one after the other.
    sql = (
        f"INSERT INTO {table} (cache_key, value, expires) VALUES (%s, '1', %s) "
        f"ON CONFLICT (cache_key) DO UPDATE SET "
        f"value = CASE WHEN {live} THEN CAST(CAST({table}.value AS INTEGER) + 1 AS TEXT) ELSE '1' END, "
        f"expires = CASE WHEN {live} THEN {table}.expires ELSE EXCLUDED.expires END "
        f"RETURNING value, expires"
    )
    params = [store.make_and_validate_key(key), adapt(now + timedelta(seconds=period)), adapt(now), adapt(now)]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        value, expires = cursor.fetchone()
        if random.randrange(PRUNE_ONE_IN) == 0:
            # Counters of clients gone quiet: Django's cache culls only when it writes entries of its own.
            cursor.execute(f"DELETE FROM {table} WHERE cache_key LIKE %s AND expires < %s",
                           [store.make_key(f"{KEY_PREFIX}:") + "%", adapt(now)])
    if isinstance(expires, str):  # SQLite answers text, stored in UTC
        expires = datetime.fromisoformat(expires)
    if expires.tzinfo is None:
        expires = expires.replace(tzinfo=UTC)
    return int(value), (expires - now).total_seconds()


def _local_hit(store, key: str, period: int) -> tuple[int, float]:
    """Per-process memory (the tests' cache): atomic within the process, which is all that cache is shared by."""
    now = time.time()
    with _local_lock:
        count, ends = store.get(key) or (0, 0.0)
        if ends <= now:
            count, ends = 0, now + period
        count += 1
        store.set(key, (count, ends), timeout=max(1, math.ceil(ends - now)))
    return count, ends - now


class _Counted:
    """What the three throttles share: one counter per identity, each against the throttle's rate."""

    scope: str | None
    num_requests: int
    duration: int
    waits: list[float]

    def counted(self, idents: list[str]) -> bool:
        """Count the request once for each of `idents`; whether every count is within the rate."""
        self.waits = []
        for ident in idents:
            count, left = hit(f"{KEY_PREFIX}:{self.scope}:{ident[:120]}", self.duration)
            if count > self.num_requests:
                self.waits.append(left)
        return not self.waits

    def wait(self) -> float | None:
        return max(max(self.waits), 1.0) if getattr(self, "waits", None) else None

    def idents(self, request) -> list[str]:
        """The address, and the account when signed in."""
        address = [f"address:{self.get_ident(request)}"]  # type: ignore[attr-defined]
        user = getattr(request, "user", None)
        return [f"user:{user.pk}", *address] if user is not None and user.is_authenticated else address


def signed_in(request) -> bool:
    user = getattr(request, "user", None)
    return bool(user is not None and user.is_authenticated)


class AnonThrottle(_Counted, AnonRateThrottle):
    """`anon`: every request of an anonymous client, per address."""

    def allow_request(self, request, view) -> bool:
        if self.rate is None or signed_in(request):
            return True
        return self.counted(self.idents(request))


class UserThrottle(_Counted, UserRateThrottle):
    """`user`: every request of a signed-in client, per account and per address."""

    def allow_request(self, request, view) -> bool:
        if self.rate is None or not signed_in(request):
            return True
        return self.counted(self.idents(request))


class ScopedThrottle(_Counted, ScopedRateThrottle):
    """The rate of the view's `throttle_scope` (auth, simulate, batches), on top of anon/user: per address,
    and per account as well when signed in; a designer's `designer_<scope>` where one is set. A view without
    a scope is not counted here."""

    def allow_request(self, request, view) -> bool:
        self.scope = getattr(view, self.scope_attr, None)
        if not self.scope:
            return True
        own = DESIGNER_PREFIX + self.scope
        if own in self.THROTTLE_RATES and is_designer(getattr(request, "user", None)):
            self.scope = own
        self.rate = self.get_rate()
        if self.rate is None:
            return True
        # A rate that is set parses to numbers.
        self.num_requests, self.duration = cast(tuple[int, int], self.parse_rate(self.rate))
        return self.counted(self.idents(request))
