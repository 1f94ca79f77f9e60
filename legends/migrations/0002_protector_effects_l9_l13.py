"""Protector effects under the amended rulings: the L9 cap is absolute, the Spy looks at one card (L13).

Rows saved with the old spec are brought up to date: an `extra_marker` effect (which lifted the cap)
becomes the new Siege Master effect, `pierce_defense` of any element with the same count; a
`reveal_facedown` effect loses its `count`. The printed text is composed again from the new spec.
"""

from typing import Any

from django.db import migrations

from legends.engine.protectors import SpecError, describe_protector_effect, parse_protector_effect


def upgrade_effect(effect: Any) -> dict | None:
    """The effect under the amended rulings, or None when it needs no change."""
    if not isinstance(effect, dict):
        return None
    if effect.get("kind") == "extra_marker":
        count = effect.get("count")
        count = count if isinstance(count, int) and not isinstance(count, bool) and 1 <= count <= 2 else 1
        return {"kind": "pierce_defense", "when": "showdown_defenses", "count": count, "element": "any"}
    if effect.get("kind") == "reveal_facedown" and "count" in effect:
        return {k: v for k, v in effect.items() if k != "count"}
    return None


def forwards(apps, schema_editor) -> None:
    Protector = apps.get_model("legends", "Protector")
    Element = apps.get_model("legends", "Element")
    names = dict(Element.objects.values_list("slug", "name"))
    for protector in Protector.objects.all():
        effect = upgrade_effect(protector.effect)
        if effect is None:
            continue
        protector.effect = effect
        try:
            protector.rules_text = describe_protector_effect(parse_protector_effect(effect), names)
        except SpecError:
            pass
        protector.save(update_fields=["effect", "rules_text"])


class Migration(migrations.Migration):

    dependencies = [
        ("legends", "0001_initial"),
    ]

    operations = [
        migrations.RunPython(forwards, migrations.RunPython.noop),
    ]
