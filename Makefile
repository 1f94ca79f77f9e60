# Two commands for a new machine: `make run` serves the API, `make test` runs the tests.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
# The engines are compiled at install (setup.py), every module of them: a change to their source reinstalls, so
# the tests always run against what the source says.
ENGINE_SOURCES := $(sort $(wildcard realms/engine/*.py realms/engine/*/*.py legends/engine/*.py legends/engine/*/*.py simulate/engine/*.py))
STAMP  := $(VENV)/.installed-$(shell cat requirements.lock pyproject.toml setup.py $(ENGINE_SOURCES) | cksum | cut -d' ' -f1)
ENGINE_MODULES := $(words $(ENGINE_SOURCES))
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

# A line before each long step: the first install takes a few minutes, most of them gcc compiling the engines,
# which setup.py reports as it goes (its lines that start with "mypyc:", shown with pip's steps; pip's whole
# output is kept in .venv/install.log, and its end shown when it fails).
$(STAMP): SHELL := /bin/bash
$(STAMP): requirements.lock pyproject.toml setup.py $(ENGINE_SOURCES)
	@test -x $(PY) || { echo "== make install: a virtual environment in $(VENV)/ (the first install takes a few minutes)"; \
		$(PYTHON) -m venv $(VENV); }
	@echo "== make install: pip, then the $(shell grep -c '==' requirements.lock) pinned packages of requirements.lock"
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.lock
	@echo "== make install: the project, its $(ENGINE_MODULES) engine modules compiled with mypyc" \
		"(a few minutes, the first time and after a change to an engine; CARDSDB_PURE_PYTHON=1 skips it)"
	@set -o pipefail; $(PY) -m pip install -v -c requirements.lock -e ".[dev]" 2>&1 | tee $(VENV)/install.log \
		| awk '/^ *[A-Z][^:]*: started$$/ || (build && /^ *mypyc: /) { sub(/^ */, "   "); print; fflush() } \
		       /Building editable for/ { build = 1 }' \
		|| { echo "make install: pip failed; the end of $(VENV)/install.log:"; tail -n 40 $(VENV)/install.log; exit 1; }
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

# At a terminal, asks for name, email and password. Without one (a container, CI), takes them from
# DJANGO_SUPERUSER_USERNAME, DJANGO_SUPERUSER_PASSWORD and DJANGO_SUPERUSER_EMAIL (may be empty) with --noinput.
superuser: $(STAMP)
	@if [ -t 0 ]; then \
		echo "DEBUG=$${DEBUG:-1} $(PY) manage.py createsuperuser"; \
		DEBUG=$${DEBUG:-1} $(PY) manage.py createsuperuser; \
	elif [ -z "$$DJANGO_SUPERUSER_USERNAME" ] || [ -z "$$DJANGO_SUPERUSER_PASSWORD" ]; then \
		echo "make superuser: no terminal to ask on; set DJANGO_SUPERUSER_USERNAME and DJANGO_SUPERUSER_PASSWORD" \
			"(and DJANGO_SUPERUSER_EMAIL)" >&2; \
		exit 1; \
	else \
		echo "DEBUG=$${DEBUG:-1} $(PY) manage.py createsuperuser --noinput  # DJANGO_SUPERUSER_* from the environment"; \
		DEBUG=$${DEBUG:-1} DJANGO_SUPERUSER_EMAIL="$${DJANGO_SUPERUSER_EMAIL-}" $(PY) manage.py createsuperuser --noinput; \
	fi

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
	rm -f ./*__mypyc*.so
