"""Every saved army's slots can be read back: the model now checks them whenever an army is saved.

A partial update (PATCH) could store a slot without its card or its line, after which the army, its
owner's list and every match using it failed. Such armies are repaired: every well-formed slot is kept in
its order (a slot's unknown keys left out), and each slot that cannot be read is reported (army, owner,
position, the slot as it was stored), as are slots that were not a list at all. Going back changes nothing.
"""

import json
import sys

from django.db import migrations

LINES = ("vanguard", "rearguard")
MAX_SLUG = 140


def readable(slot) -> bool:
    return (isinstance(slot, dict) and isinstance(slot.get("card"), str) and 0 < len(slot["card"]) <= MAX_SLUG
            and slot.get("line") in LINES)


def repair_army_slots(apps, schema_editor):
    army_model = apps.get_model("realms", "Army")
    for army in army_model.objects.using(schema_editor.connection.alias).select_related("owner").order_by("pk"):
        slots = army.slots
        where = f"Army {army.pk} ({army.name!r} of {army.owner.username})"
        if not isinstance(slots, list):
            sys.stdout.write(f"\n  {where}: its slots were not a list, now empty; they were {json.dumps(slots)}")
            army.slots = []
            army.save(update_fields=["slots"])
            continue
        kept = [{"card": slot["card"], "line": slot["line"]} for slot in slots if readable(slot)]
        if kept == slots:
            continue
        for index, slot in enumerate(slots):
            if not readable(slot):
                sys.stdout.write(f"\n  {where}: slot {index} could not be read and was left out: {json.dumps(slot)}")
            elif set(slot) - {"card", "line"}:
                extra = {key: value for key, value in slot.items() if key not in ("card", "line")}
                sys.stdout.write(f"\n  {where}: slot {index} kept, without its unknown keys {json.dumps(extra)}")
        army.slots = kept
        army.save(update_fields=["slots"])


class Migration(migrations.Migration):
    dependencies = [("realms", "0001_initial")]

    operations = [migrations.RunPython(repair_army_slots, migrations.RunPython.noop)]
