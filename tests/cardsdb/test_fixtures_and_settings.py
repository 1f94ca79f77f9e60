"""The official sets load idempotently (`make load`); settings refuse unsafe production setups."""

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.core import serializers
from django.core.management import call_command

from cardsdb.models import CardSet, Faction, Rarity

ROOT = Path(__file__).resolve().parents[2]


def dump_all(exclude=None) -> str:
    """Every row of the catalogue apps (official records included), as JSON."""
    from django.apps import apps

    objects: list[Any] = []
    for app in ("cardsdb", "realms", "legends"):
        for model in apps.get_app_config(app).get_models():
            if model is not exclude:
                objects.extend(model._default_manager.order_by("pk"))
    return serializers.serialize("json", objects)


@pytest.mark.django_db
def test_loading_the_official_sets_twice_changes_nothing():
    call_command("load_official", verbosity=0)
    first = dump_all()
    call_command("load_official", verbosity=0)
    assert dump_all() == first
    assert Rarity.objects.count() == 4 and Faction.objects.count() == 8
    assert set(CardSet.objects.values_list("game", flat=True)) == {"realms", "legends"}


def run_python(code: str, **env: str) -> subprocess.CompletedProcess:
    # DJANGO_ALLOW_ASYNC_UNSAFE: lifted by the browser tests for the test process only (tests/pages/conftest.py).
    unset = {"SECRET_KEY", "DEBUG", "ALLOWED_HOSTS", "SECURE_SSL_REDIRECT", "DJANGO_ALLOW_ASYNC_UNSAFE"}
    base = {k: v for k, v in os.environ.items() if k not in unset}
    base.update(env)
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=base, capture_output=True, text=True, timeout=120
    )


def test_production_refuses_to_start_without_a_secret_key():
    result = run_python("import cardsdb.settings", DEBUG="0")
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_debug_mode_has_a_development_key():
    result = run_python("import cardsdb.settings as s; print(bool(s.SECRET_KEY))", DEBUG="1")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "True"


def test_deploy_checks_pass_with_production_settings():
    result = run_python(
        "import sys; from django.core.management import execute_from_command_line;"
        "execute_from_command_line(['manage.py', 'check', '--deploy', '--fail-level', 'WARNING'])",
        DJANGO_SETTINGS_MODULE="cardsdb.settings",
        DEBUG="0",
        SECRET_KEY="a-long-random-production-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz",
        ALLOWED_HOSTS="cards.example.com",
    )
    assert result.returncode == 0, result.stderr + result.stdout
    assert "no issues" in result.stdout


def test_database_url_selects_the_database():
    result = run_python(
        "import cardsdb.settings as s; print(s.DATABASES['default']['ENGINE'])",
        DEBUG="1",
        DATABASE_URL="postgres://postgres@127.0.0.1:5432/test",
    )
    assert result.stdout.strip() == "django.db.backends.postgresql", result.stderr
