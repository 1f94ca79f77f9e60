"""The cache table: `manage.py migrate` alone leaves a database the service can answer from.

Without CACHE_URL the cache (throttle counts among others) is a database table, which Django creates with
`manage.py createcachetable`, not through a model. This migration does what that command does, for every
database cache in the settings, so a deployment that runs `migrate` needs nothing more. It changes nothing
where the table is already there (made by `createcachetable`, which `make migrate` still runs) or where the
cache is Redis; going back leaves the table, which holds nothing that must survive.
"""

import io

from django.core.management import call_command
from django.db import migrations


def create_cache_tables(apps, schema_editor):
    call_command("createcachetable", database=schema_editor.connection.alias, verbosity=0, stdout=io.StringIO())


class Migration(migrations.Migration):
    dependencies = [("cardsdb", "0003_card_codes")]

    operations = [migrations.RunPython(create_cache_tables, migrations.RunPython.noop)]
