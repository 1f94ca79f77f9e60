"""docs/legends-engine.md states every ruling it applies, every event type with its fields, and the options."""

from __future__ import annotations

import re

import pytest

from legends.engine.events import EVENT_FIELDS
from legends.engine.options import DEFAULTS

from .helpers import ROOT

DOC = (ROOT / "docs" / "legends-engine.md").read_text()


@pytest.mark.parametrize("kind", sorted(EVENT_FIELDS))
def test_every_event_type_is_documented_with_exactly_its_fields(kind):
    match = re.search(rf"^\| `{kind}` \| (.*?) \|", DOC, flags=re.MULTILINE)
    assert match, f"no row for {kind}"
    documented = re.findall(r"`([a-z_]+)`", match.group(1))
    assert documented == list(EVENT_FIELDS[kind])


@pytest.mark.parametrize("ruling", [f"L{i}" for i in range(5, 14)] + ["G1", "G2"])
def test_every_ruling_is_stated(ruling):
    assert re.search(rf"^- \*\*{ruling}[.*]", DOC, flags=re.MULTILINE) or f"**{ruling}.**" in DOC


@pytest.mark.parametrize("option", sorted(DEFAULTS))
def test_every_option_is_documented_with_its_default(option):
    row = re.search(rf"^\| `{option}` \|(.*)$", DOC, flags=re.MULTILINE)
    assert row and f"{DEFAULTS[option]:,}" in row.group(1)
