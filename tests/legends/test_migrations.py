"""Data migration 0002: protectors saved under the old spec are brought under the amended rulings."""

import importlib

import pytest
from django.apps import apps

from legends.models import Protector

migration = importlib.import_module("legends.migrations.0002_protector_effects_l9_l13")


def test_old_specs_are_upgraded_and_current_ones_left_alone():
    assert migration.upgrade_effect({"kind": "extra_marker", "when": "allocation", "count": 2}) == {
        "kind": "pierce_defense", "when": "showdown_defenses", "count": 2, "element": "any"}
    assert migration.upgrade_effect({"kind": "reveal_facedown", "when": "before_second_turns", "count": 1}) == {
        "kind": "reveal_facedown", "when": "before_second_turns"}
    assert migration.upgrade_effect({"kind": "redraw_size", "when": "redraw", "count": 5}) is None
    assert migration.upgrade_effect({"kind": "reveal_facedown", "when": "before_second_turns"}) is None


@pytest.mark.django_db
def test_the_migration_rewrites_old_rows_and_their_text(catalogue):
    siege = Protector.objects.get(slug="siege-master")
    spy = Protector.objects.get(slug="spy")
    Protector.objects.filter(pk=siege.pk).update(effect={"kind": "extra_marker", "when": "allocation", "count": 1})
    Protector.objects.filter(pk=spy.pk).update(effect={"kind": "reveal_facedown", "when": "before_second_turns",
                                                       "count": 1})
    migration.forwards(apps, None)
    siege.refresh_from_db()
    spy.refresh_from_db()
    assert siege.effect == {"kind": "pierce_defense", "when": "showdown_defenses", "count": 1, "element": "any"}
    assert siege.rules_text == ("In each showdown, the first opposing defense card that would cancel a strength "
                                "point of the team's attacks cancels nothing.")
    assert spy.effect == {"kind": "reveal_facedown", "when": "before_second_turns"}
    siege.full_clean()
    spy.full_clean()
