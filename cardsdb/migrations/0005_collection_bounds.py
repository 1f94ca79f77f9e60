"""Collections hold at most 1,000,000 copies of a card, and a card a collection holds cannot be deleted.

The bound becomes a CHECK constraint of the database. Concurrent additions could take an entry past it
before (each checked the count before any of them added): such an entry is brought back to the bound
before the constraint is made, and each one is reported (collection, owner, card, copies held before), so
that nothing changes unseen. Going back removes the constraint and leaves the quantities as they are.
"""

import sys

import django.core.validators
import django.db.models.deletion
from django.db import migrations, models

MAX_QUANTITY = 1_000_000


def bring_entries_within_the_bound(apps, schema_editor):
    entry_model = apps.get_model("cardsdb", "CollectionEntry")
    over = (entry_model.objects.using(schema_editor.connection.alias).filter(quantity__gt=MAX_QUANTITY)
            .select_related("collection__owner", "card").order_by("pk"))
    for entry in over:
        sys.stdout.write(
            f"\n  Collection {entry.collection_id} ({entry.collection.name!r} of {entry.collection.owner.username}) held "
            f"{entry.quantity:,} copies of {entry.card.slug!r}; it now holds {MAX_QUANTITY:,}, the most a "
            "collection holds."
        )
        entry.quantity = MAX_QUANTITY
        entry.save(update_fields=["quantity"])


class Migration(migrations.Migration):

    dependencies = [
        ('cardsdb', '0004_cache_table'),
    ]

    operations = [
        migrations.AlterField(
            model_name='collectionentry',
            name='card',
            field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='collection_entries', to='cardsdb.card'),
        ),
        migrations.AlterField(
            model_name='collectionentry',
            name='quantity',
            field=models.PositiveIntegerField(default=0, help_text='0 to 1,000,000.', validators=[django.core.validators.MinValueValidator(0), django.core.validators.MaxValueValidator(1000000)]),
        ),
        migrations.RunPython(bring_entries_within_the_bound, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name='collectionentry',
            constraint=models.CheckConstraint(condition=models.Q(('quantity__lte', 1000000)), name='quantity_at_most_max'),
        ),
    ]
