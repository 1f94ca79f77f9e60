"""Settings for the card database service, read from the environment.

DATABASE_URL   database (default: SQLite file db.sqlite3 in the project folder)
SECRET_KEY     required unless DEBUG is on
DEBUG          1/true/yes to enable (default off)
ALLOWED_HOSTS  comma-separated host names (default: localhost names when DEBUG is on)
CONN_MAX_AGE   seconds a database connection is kept (default 60, 0 when DEBUG is on)
CACHE_URL / REDIS_URL  Redis for the cache and throttle counts (default: a database table)
NUM_PROXIES    trusted proxies in front of the service (default 0: X-Forwarded-For ignored)
THROTTLE_*     request rates (see REST_FRAMEWORK below and the README)
THROTTLE_DESIGNER_STUDIES  studies an hour of a designer (staff, or the "designers" group; default 200/hour)
CELERY_BROKER_URL  broker for batch simulation (default: none, tasks run in-process)
CELERY_VISIBILITY_TIMEOUT  seconds before Redis hands an unacknowledged chunk to another worker (default 300)
"""

import os
from pathlib import Path
from typing import Any

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool = False) -> bool:
    """Read a boolean switch from the environment."""
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: list[str]) -> list[str]:
    """Read a comma-separated list from the environment."""
    value = os.environ.get(name, "")
    items = [item.strip() for item in value.split(",") if item.strip()]
    return items or default


DEBUG = env_bool("DEBUG")

SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off.")
    SECRET_KEY = "dev-only-insecure-key-do-not-use-in-production-0123456789abcdef"

ALLOWED_HOSTS = env_list(
    "ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "testserver"] if DEBUG else []
)

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "simple_history",
    "cardsdb",
    "realms",
    "legends",
    "simulate",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Content-Security-Policy on every answer, static files and refusals included (policy below).
    "cardsdb.csp.CSPMiddleware",
    # Static files (admin, Swagger UI, ReDoc) from STATIC_ROOT, compressed, with DEBUG off.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    # Pages count against the API's rates (anon/user, and a view's throttle_scope on POST) before anything
    # else looks at the request. The API's views are throttled by DRF, with the same classes.
    "cardsdb.pages.throttles.PageThrottleMiddleware",
    # Before anything reads a body: method, length, charset and files checked against the view.
    "cardsdb.request_checks.RequestChecksMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # A card's versions name who made the change (the signed-in account, the API's token user included).
    "simple_history.middleware.HistoryRequestMiddleware",
    # request.htmx: a page view answers a fragment to htmx, the whole page otherwise.
    "django_htmx.middleware.HtmxMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # A page whose object is missing answers the site's 404 page, DEBUG or not (Django's would list the URLs).
    "cardsdb.pages.not_found.PageNotFoundMiddleware",
]

# The pages load scripts, styles, images and fonts from this site only, fetch from it only and run no inline
# script or style (sizes and colours computed by the server are applied by cardsdb/site.js), so that text a
# visitor slipped into a page cannot run. The admin and the HTML under /api/ (Swagger UI, ReDoc, DRF's
# browsable API) are others' pages and need a looser policy: cardsdb/csp.py.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'none'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "manifest-src": ["'self'"],
        "form-action": ["'self'"],
        "base-uri": ["'none'"],
        "frame-ancestors": ["'none'"],
    }
}

# A form posted without its CSRF token (or cookie) answers the site's 403 page, or the API's error shape.
CSRF_FAILURE_VIEW = "cardsdb.api.errors.csrf_failure_view"

# Files served at the site's root by WhiteNoise: /favicon.ico.
WHITENOISE_ROOT = BASE_DIR / "cardsdb" / "root"

ROOT_URLCONF = "cardsdb.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

WSGI_APPLICATION = "cardsdb.wsgi.application"

# Connections are kept CONN_MAX_AGE seconds and checked before reuse (CONN_HEALTH_CHECKS), so
# each server thread holds at most one: `make serve` (gunicorn, WEB_CONCURRENCY workers of
# GUNICORN_THREADS threads) opens at most workers x threads of them. runserver (`make run`,
# DEBUG on) starts a thread per request, so there a connection is closed after each request.
DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("CONN_MAX_AGE", 0 if DEBUG else 60)),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # A database that does not answer fails a request (and the health check) in seconds, not minutes.
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault(
        "connect_timeout", int(os.environ.get("DB_CONNECT_TIMEOUT", 5))
    )
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # IMMEDIATE transactions take the write lock up front, so concurrent writers wait
    # (up to `timeout` seconds) instead of failing on a lock upgrade.
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"]["OPTIONS"] = {"transaction_mode": "IMMEDIATE", "timeout": 20}
    # A file, not memory, so that tests with several threads see one database.
    # One file per test process, so that simultaneous runs never share it.
    DATABASES["default"]["TEST"] = {"NAME": str(BASE_DIR / f"test_db_{os.getpid()}.sqlite3")}

# The pages sign in with Django's own views (/accounts/login/); the API keeps its tokens.
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", BASE_DIR / "staticfiles"))
# `manage.py collectstatic` (part of `make serve`) writes hashed, compressed copies there.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
# Templates name the hashed copies only; source maps (for browser tools) are not compressed.
WHITENOISE_KEEP_ONLY_HASHED_FILES = True
WHITENOISE_SKIP_COMPRESS_EXTENSIONS = (
    *("jpg", "jpeg", "png", "gif", "webp", "ico", "woff", "woff2"),
    *("zip", "gz", "tgz", "bz2", "xz", "br", "map"),
)
MEDIA_URL = "/media/"
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT", BASE_DIR / "media"))

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Card art uploads: bounded so that a single upload cannot exhaust memory or disk.
CARD_IMAGE_MAX_BYTES = int(os.environ.get("CARD_IMAGE_MAX_BYTES", 5 * 1024 * 1024))
CARD_IMAGE_MAX_PIXELS = int(os.environ.get("CARD_IMAGE_MAX_PIXELS", 4096 * 4096))
CARD_THUMBNAIL_SIZE = (256, 256)

# Request bodies other than card art (JSON, forms): at most 1 MiB; larger ones answer 413.
DATA_UPLOAD_MAX_MEMORY_SIZE = int(os.environ.get("DATA_UPLOAD_MAX_MEMORY_SIZE", 1024 * 1024))

# The cache holds the throttle counts, so it is shared by every server process: Redis when
# CACHE_URL (or REDIS_URL) is set, a database table otherwise (`manage.py createcachetable`,
# part of `make migrate`, so of `make run` and `make serve`). Never per-process memory, which
# would multiply every limit by the number of processes.
CACHE_URL = os.environ.get("CACHE_URL") or os.environ.get("REDIS_URL", "")
if CACHE_URL:
    CACHES: dict[str, dict[str, Any]] = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": CACHE_URL,
            "KEY_PREFIX": "cardsdb",
        }
    }
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.db.DatabaseCache",
            "LOCATION": "cardsdb_cache",
            "OPTIONS": {"MAX_ENTRIES": 20000},
        }
    }

REST_FRAMEWORK: dict[str, Any] = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # Token first: an anonymous write then answers 401 with a WWW-Authenticate header.
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["cardsdb.api.permissions.IsStaffOrReadOnly"],
    "DEFAULT_PAGINATION_CLASS": "cardsdb.api.pagination.BoundedPageNumberPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_FILTER_BACKENDS": [
        "django_filters.rest_framework.DjangoFilterBackend",
        "rest_framework.filters.SearchFilter",
        "rest_framework.filters.OrderingFilter",
    ],
    # Counted atomically (cardsdb/api/throttling.py), for the API and, through the same classes, for the
    # pages (cardsdb.pages.throttles.PageThrottleMiddleware). `anon` per address; `user` per account and
    # per address; the scope of a view (`throttle_scope`) per address, and per account when signed in.
    "DEFAULT_THROTTLE_CLASSES": [
        "cardsdb.api.throttling.AnonThrottle",
        "cardsdb.api.throttling.UserThrottle",
        "cardsdb.api.throttling.ScopedThrottle",
    ],
    # The address is REMOTE_ADDR, or with NUM_PROXIES trusted proxies in front, the address the
    # farthest of them saw in X-Forwarded-For; a client cannot choose it by sending that header itself.
    "NUM_PROXIES": int(os.environ.get("NUM_PROXIES", 0)),
    "DEFAULT_THROTTLE_RATES": {
        "anon": os.environ.get("THROTTLE_ANON", "600/minute"),
        "user": os.environ.get("THROTTLE_USER", "3000/minute"),
        # Scopes (a view's throttle_scope; a page's applies to its POST), on top of anon/user. Every way
        # to sign in or up (token endpoint, /accounts/login/, sign-up, the admin's login) is `auth`:
        "auth": os.environ.get("THROTTLE_AUTH", "10/minute"),
        # Playing one match: tens of milliseconds of CPU each.
        "simulate": os.environ.get("THROTTLE_SIMULATE", "60/minute"),
        # Queueing a batch: up to 10,000 matches each.
        "batches": os.environ.get("THROTTLE_BATCHES", "10/hour"),
        # The same for designers (staff, or the "designers" group): their studies are the point of the lab.
        "designer_batches": os.environ.get("THROTTLE_DESIGNER_STUDIES", "200/hour"),
        # Drawing an Army Sheet: a PDF of about 0.8 s of CPU when not cached (bench/army_sheet.py).
        "sheets": os.environ.get("THROTTLE_SHEETS", "10/minute"),
    },
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "cardsdb.api.errors.exception_handler",
    # JSON bodies only (bounded in size and depth, text checked); card art takes multipart itself.
    "DEFAULT_PARSER_CLASSES": ["cardsdb.api.parsers.JSONParser"],
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Card Database API",
    "DESCRIPTION": "Catalogue, army building and match simulation for Echo Realms and Akin Legends.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # Named, so that another `format` field elsewhere cannot clash with the export's.
    "ENUM_NAME_OVERRIDES": {"PlayerEnum": "realms.choices.Player", "ArmyExportFormatEnum": "realms.choices.ArmyExportFormat"},
    # Every error an operation can answer (the Error component), anonymous access where it is allowed.
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums", "cardsdb.api.schema.postprocess"],
}

CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "")
# Without a broker, tasks run in the calling process so the service works standalone.
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND", "")
# Batch chunks are acknowledged after they are stored: a worker killed mid-chunk leaves its message
# unacknowledged, and a worker hands it out again once it has been out `visibility_timeout` seconds (a
# chunk plays in seconds; one redelivered while still playing is stored once all the same). Workers look
# for such messages every 10 s; Kombu would scan Redis only every 10th look, so every look scans.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": int(os.environ.get("CELERY_VISIBILITY_TIMEOUT", "300")),
    "unacked_restore_interval": 10,
    "unacked_restore_throttle": 1,
}
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
# One chunk at a time per worker process, so that chunks spread over every worker that runs.
CELERY_WORKER_PREFETCH_MULTIPLIER = 1

if not DEBUG:
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    # Load balancers probe the health check over plain HTTP.
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", 60 * 60 * 24 * 365))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}
