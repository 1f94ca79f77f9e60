"""Every card already in the database gets its first version ("+", "Initial version"); on a fresh database
there is none yet, and the official load records the first versions of the cards it creates."""

from django.db import migrations

from cardsdb.card_history import initial_versions

forward, backward = initial_versions("legends", ["Spirit", "Protector", "DefenseCard", "SummoningCard"])


class Migration(migrations.Migration):
    dependencies = [("legends", "0004_card_history")]

    operations = [migrations.RunPython(forward, backward)]
