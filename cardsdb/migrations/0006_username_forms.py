"""The forms each account's name reads as (cardsdb.usernames), stored as unique digests, so that a new name is
looked up rather than compared with every name, and sign-ups at once that read alike cannot both succeed.

Existing accounts get their forms in the order they were made: where two existing names read alike, the older
one holds the form (both accounts are kept as they are). Going back drops the table.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def record_existing_forms(apps, schema_editor):
    from cardsdb.usernames import digests

    alias = schema_editor.connection.alias
    user_model = apps.get_model(settings.AUTH_USER_MODEL)
    form_model = apps.get_model("cardsdb", "UsernameForm")
    for user in user_model.objects.using(alias).order_by("pk").only("pk", "username").iterator(chunk_size=2000):
        form_model.objects.using(alias).bulk_create(
            [form_model(digest=digest, user_id=user.pk) for digest in digests(user.username)], ignore_conflicts=True)


class Migration(migrations.Migration):

    dependencies = [
        ('cardsdb', '0005_collection_bounds'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='UsernameForm',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('digest', models.CharField(max_length=64, unique=True)),
                ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='username_forms', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'ordering': ['user_id', 'digest'],
            },
        ),
        migrations.RunPython(record_existing_forms, migrations.RunPython.noop),
    ]
