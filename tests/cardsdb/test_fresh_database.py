"""A deployment runs `manage.py migrate` and nothing else: the service must then answer."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

ASK = """
    import json
    import django
    django.setup()
    from django.test import Client
    client = Client()
    paths = ("/api/cards/", "/api/realms/characters/?atk__gte=3", "/api/legends/spirits/", "/healthz", "/")
    print(json.dumps({path: client.get(path).status_code for path in paths}))
"""


def run(*args: str, database: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in {"CACHE_URL", "REDIS_URL", "DJANGO_ALLOW_ASYNC_UNSAFE"}}
    env.update(DJANGO_SETTINGS_MODULE="cardsdb.settings", DEBUG="1", DATABASE_URL=database)
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def test_a_fresh_database_after_migrate_alone_answers_the_api_with_the_database_cache(tmp_path):
    database = f"sqlite:///{tmp_path / 'fresh.sqlite3'}"
    migrated = run("manage.py", "migrate", "--no-input", database=database)
    assert migrated.returncode == 0, migrated.stderr

    asked = run("-c", textwrap.dedent(ASK), database=database)
    assert asked.returncode == 0, asked.stderr
    assert json.loads(asked.stdout) == {
        "/api/cards/": 200, "/api/realms/characters/?atk__gte=3": 200, "/api/legends/spirits/": 200,
        "/healthz": 200, "/": 200,
    }
    assert "cardsdb_cache" not in asked.stderr


def test_createcachetable_after_migrate_still_finds_its_table(tmp_path):
    database = f"sqlite:///{tmp_path / 'fresh.sqlite3'}"
    assert run("manage.py", "migrate", "--no-input", "-v0", database=database).returncode == 0
    made = run("manage.py", "createcachetable", database=database)
    assert made.returncode == 0, made.stderr
    assert "already exists" in made.stdout
