"""Every saved setup's teams can be read back: the model now checks them whenever a setup is saved.

The API and the admin always checked a setup's teams whole; a row written another way whose teams the
setup parser refuses made its owner's list fail. Such a setup gets empty teams (a draft, as a new setup
is), and each one is reported (setup, owner, the parser's reasons and the teams as they were stored), so
that nothing changes unseen. Going back changes nothing.
"""

import json
import sys

from django.db import migrations

from legends.engine.setup import SetupFormatError, parse_teams


def repair_setup_teams(apps, schema_editor):
    setup_model = apps.get_model("legends", "TeamSetup")
    for setup in setup_model.objects.using(schema_editor.connection.alias).select_related("owner").order_by("pk"):
        try:
            parse_teams(setup.teams)
        except SetupFormatError as exc:
            reasons = "; ".join(f"{path}: {reason}" for path, reason in exc.errors)
            sys.stdout.write(f"\n  Setup {setup.pk} ({setup.name!r} of {setup.owner.username}) could not be read ({reasons}); "
                             f"its teams are now empty. They were: {json.dumps(setup.teams)}")
            setup.teams = []
            setup.save(update_fields=["teams"])


class Migration(migrations.Migration):
    dependencies = [("legends", "0002_protector_effects_l9_l13")]

    operations = [migrations.RunPython(repair_setup_teams, migrations.RunPython.noop)]
