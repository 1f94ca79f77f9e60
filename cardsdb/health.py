"""The health check: is the database answering, is the shared cache (throttle counts) answering."""

import logging
import uuid

from django.core.cache import cache, caches
from django.core.cache.backends.db import DatabaseCache
from django.db import connection
from django.http import JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

logger = logging.getLogger(__name__)


def _database_ok() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            return cursor.fetchone() == (1,)
    except Exception:
        logger.exception("Health check: the database does not answer")
        return False


def _cache_ok() -> bool:
    key = f"healthz:{uuid.uuid4().hex}"
    try:
        cache.set(key, 1, timeout=5)
        ok = cache.get(key) == 1
        cache.delete(key)
        return ok
    except Exception:
        logger.exception("Health check: the cache does not answer")
        return False


@never_cache
@require_safe
def healthz(request):
    """200 with {"status": "ok", ...} when the database and the cache answer, 503 otherwise; HEAD answers
    the same status without the body (load balancers probe with either)."""
    database = _database_ok()
    # The database cache lives in the database: when that is down, asking it again tells nothing new.
    cache_status = False if not database and isinstance(caches["default"], DatabaseCache) else _cache_ok()
    ok = database and cache_status
    body = {
        "status": "ok" if ok else "unavailable",
        "database": "ok" if database else "error",
        "cache": "ok" if cache_status else "error",
    }
    return JsonResponse(body, status=200 if ok else 503)
