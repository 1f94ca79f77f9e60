"""Settings for the test suite: the service's settings with test-only secrets."""

import os

os.environ.setdefault("SECRET_KEY", "test-only-secret-key-not-for-production-0123456789")
os.environ.setdefault("SECURE_SSL_REDIRECT", "0")

from cardsdb.settings import *  # noqa: E402,F403
from cardsdb.settings import BASE_DIR  # noqa: E402

MEDIA_ROOT = BASE_DIR / ".test-media"
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
