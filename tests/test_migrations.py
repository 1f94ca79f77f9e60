"""Every migration of the project can be reversed: on a database holding the official sets, the project's
apps go back to zero (each data migration's reverse running over real rows) and forward again.

One test, in the normal run (marked `slow`, so `-m "not slow"` leaves it out of a quick run): it rebuilds
the project's tables once, a few seconds on SQLite and PostgreSQL alike.
"""

import io
from typing import Any

import pytest
from django.apps import apps
from django.core.management import call_command
from django.db import connection
from django.db.migrations.loader import MigrationLoader

from cardsdb.models import Card, OfficialRecord
from legends.models import Protector
from realms.models import Character

PROJECT_APPS = ("cardsdb", "realms", "legends", "simulate")


def project_tables() -> set[str]:
    tables = set(connection.introspection.table_names())
    return {model._meta.db_table for app in PROJECT_APPS for model in apps.get_app_config(app).get_models()} & tables


def irreversible_operations() -> list[str]:
    loader = MigrationLoader(connection)
    found: list[Any] = []
    for (app, name), migration in sorted(loader.disk_migrations.items()):
        if app in PROJECT_APPS:
            found.extend(f"{app}.{name}: {operation.describe()}"
                         for operation in migration.operations if not operation.reversible)
    return found


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_every_migration_goes_back_to_zero_and_forward_again_with_the_official_sets_loaded():
    assert irreversible_operations() == []
    call_command("load_official", verbosity=0)
    official = OfficialRecord.objects.count()
    assert Character.objects.count() and Protector.objects.count() and official
    every_table = project_tables()

    # Back over the data migrations first, with their rows in place, then every app to zero (an app's zero
    # takes the apps built on it down too).
    call_command("migrate", "legends", "0001", verbosity=0)
    assert Protector.objects.count()
    for app in reversed(PROJECT_APPS):
        call_command("migrate", app, "zero", verbosity=0)
    assert project_tables() == set()

    call_command("migrate", verbosity=0)
    assert project_tables() == every_table
    call_command("load_official", verbosity=0)
    assert OfficialRecord.objects.count() == official and Card.objects.filter(game="legends").exists()
    out = io.StringIO()
    call_command("makemigrations", "--check", "--dry-run", stdout=out)  # the models match the migrations
    assert "No changes detected" in out.getvalue()
