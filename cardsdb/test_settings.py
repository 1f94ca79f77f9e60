"""Settings for the test suite: the service's settings with test-only secrets."""

import os

os.environ.setdefault("SECRET_KEY", "test-only-secret-key-not-for-production-0123456789")
os.environ.setdefault("SECURE_SSL_REDIRECT", "0")

from cardsdb.settings import *  # noqa: E402,F403
from cardsdb.settings import BASE_DIR  # noqa: E402

MEDIA_ROOT = BASE_DIR / ".test-media"
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# Each test process keeps its own cache (the suite clears it around every test, database or
# not); the service's shared caches are tested in tests/cardsdb/test_production.py.
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
# Templates name static files without a collectstatic run first.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

# The browser tests' live server answers each request on a thread of its own: a connection kept past its
# request would outlive that thread and hold the test database open when it is dropped at the end.
DATABASES["default"]["CONN_MAX_AGE"] = 0  # noqa: F405

# A test database is thrown away at the end: commits need not wait for the disk (what a commit makes
# visible to other connections is unchanged).
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":  # noqa: F405
    DATABASES["default"]["OPTIONS"]["init_command"] = "PRAGMA synchronous=OFF"  # noqa: F405
elif DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":  # noqa: F405
    DATABASES["default"]["OPTIONS"]["options"] = "-c synchronous_commit=off"  # noqa: F405
