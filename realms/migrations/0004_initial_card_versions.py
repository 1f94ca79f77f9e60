"""Every card already in the database gets its first version ("+", "Initial version"); on a fresh database
there is none yet, and the official load records the first versions of the cards it creates."""

from django.db import migrations

from cardsdb.card_history import initial_versions

forward, backward = initial_versions("realms", ["Character"])


class Migration(migrations.Migration):
    dependencies = [("realms", "0003_card_history")]

    operations = [migrations.RunPython(forward, backward)]
