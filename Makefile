# Two commands for a new machine: `make run` serves the API, `make test` runs the tests.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
# The engines are compiled at install (setup.py): a change to their source reinstalls, so the tests always
# run against what the source says.
ENGINE_SOURCES := $(sort $(wildcard realms/engine/*.py realms/engine/*/*.py legends/engine/*.py legends/engine/*/*.py simulate/engine/*.py))
STAMP  := $(VENV)/.installed-$(shell cat requirements.lock pyproject.toml setup.py $(ENGINE_SOURCES) | cksum | cut -d' ' -f1)
HOST   ?= 127.0.0.1:8000
STATIC_MANIFEST := $(or $(STATIC_ROOT),staticfiles)/staticfiles.json

.PHONY: run serve serve-check test install migrate load lint superuser lock bench clean

run: migrate load
	DEBUG=$${DEBUG:-1} $(PY) manage.py runserver $(HOST)

# The service as it faces the public: DEBUG off, the deploy checks (SECRET_KEY, ALLOWED_HOSTS),
# migrations and the official sets, static files collected for WhiteNoise, then gunicorn:
# WEB_CONCURRENCY processes (default 5, for 2 cores), each reading requests in an event loop (uvicorn,
# cardsdb/server.py: header and body deadlines, so slow clients hold no thread) and running Django on
# GUNICORN_THREADS threads (default 4), so at most 5 x 4 = 20 database connections, far below PostgreSQL's 100.
serve: export DEBUG := 0
serve: serve-check migrate load $(STATIC_MANIFEST)
	exec $(VENV)/bin/gunicorn 'cardsdb.server:front()' --worker-class cardsdb.server.Worker --bind $(HOST) \
		--workers $${WEB_CONCURRENCY:-5} --threads $${GUNICORN_THREADS:-4} \
		--timeout $${GUNICORN_TIMEOUT:-60} --graceful-timeout 30 \
		--max-requests 5000 --max-requests-jitter 500 --access-logfile $${GUNICORN_ACCESS_LOG:--} --no-control-socket

serve-check: export DEBUG := 0
serve-check: $(STAMP)
	@test -n "$$SECRET_KEY" || { echo "make serve: set SECRET_KEY (a long random string)" >&2; exit 1; }
	@test -n "$$ALLOWED_HOSTS" || { echo "make serve: set ALLOWED_HOSTS (comma-separated host names)" >&2; exit 1; }
	$(PY) manage.py check --deploy --fail-level WARNING

# Static files for WhiteNoise (admin, browsable API, Swagger UI, ReDoc), hashed and compressed:
# collected again when the installed packages or the apps' own static files change (~15 s).
$(STATIC_MANIFEST): $(STAMP) $(shell find cardsdb realms legends simulate -path '*/static/*' -type f 2>/dev/null)
	DEBUG=0 $(PY) manage.py collectstatic --no-input --clear --verbosity 0

test: $(STAMP)
	$(PY) -m pytest $(ARGS)

install: $(STAMP)

$(STAMP): requirements.lock pyproject.toml setup.py $(ENGINE_SOURCES)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -c requirements.lock -e ".[dev]"
	rm -f $(VENV)/.installed-* && touch $@

migrate: $(STAMP)
	DEBUG=$${DEBUG:-1} $(PY) manage.py migrate --no-input
	DEBUG=$${DEBUG:-1} $(PY) manage.py createcachetable

# Every official set at once, in one transaction: rows that are missing are created, existing rows (staff
# edits, uploaded art) are never overwritten, so loading again leaves the database unchanged. A new release
# is brought in on purpose: `manage.py update_official` (a dry run) then `update_official --apply`.
load: $(STAMP)
	DEBUG=$${DEBUG:-1} $(PY) manage.py load_official

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

superuser: $(STAMP)
	DEBUG=$${DEBUG:-1} $(PY) manage.py createsuperuser

# Re-pin every dependency at the newest versions the ranges in pyproject.toml allow.
lock:
	rm -rf .lock-venv && $(PYTHON) -m venv .lock-venv
	.lock-venv/bin/pip install --quiet -e ".[dev]"
	.lock-venv/bin/pip freeze --exclude-editable | grep -v '^-e' > requirements.lock
	rm -rf .lock-venv

bench: $(STAMP)
	@for b in bench/*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

clean:
	rm -rf $(VENV) db.sqlite3 test_db*.sqlite3 media .test-media build
	find realms legends simulate -name '*.so' -delete
