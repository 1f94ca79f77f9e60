"""docs/legends-catalogue.md states every code with its ruling, every effect kind and hook, every protector."""

import json
import re
from pathlib import Path

import pytest

from legends.engine.protectors import HOOKS, KINDS
from legends.engine.setup import CODES

DOC = (Path(__file__).resolve().parents[2] / "docs" / "legends-catalogue.md").read_text()
FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "legends_official.json"


def table_row(first_cell: str) -> str:
    match = re.search(rf"^\| `{re.escape(first_cell)}` \|(.*)$", DOC, flags=re.MULTILINE)
    assert match, f"no table row for {first_cell}"
    return match.group(1)


@pytest.mark.parametrize("code", sorted(CODES))
def test_every_violation_code_is_documented_with_its_ruling(code):
    assert table_row(code).strip().startswith(f"{CODES[code]} |")


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_effect_kind_is_documented_with_its_hook(kind):
    assert f"`{KINDS[kind].when}`" in table_row(kind)


@pytest.mark.parametrize("hook", HOOKS)
def test_every_hook_is_documented(hook):
    table_row(hook)


@pytest.mark.parametrize(
    "slug",
    ["spy", "spring-warden", "flame-herald", "gale-rider", "tide-keeper", "stone-sentinel", "archivist",
     "wanderer", "siege-master"],
)
def test_every_official_protector_is_described(slug):
    assert len(table_row(slug)) > 60
    rows = json.loads(FIXTURE.read_text())
    printed = next(r["fields"]["rules_text"] for r in rows if r["model"] == "cardsdb.card" and r["fields"]["slug"] == slug)
    assert f"| {printed} |" in table_row(slug)  # the words the card prints, as stored
