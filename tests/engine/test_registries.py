"""Every effect kind, selector and trigger lives in one place: its registry (realms/engine/effects/,
selectors.py, trigger_kinds.py). No engine module outside effects/ branches on an effect kind's name, and
the reference (docs/abilities.md) lists exactly what the registries declare."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from realms.engine import selectors, spec, text, trigger_kinds
from realms.engine.effects import EFFECT_KINDS, KINDS
from realms.engine.effects.base import EffectKind
from realms.engine.events import EVENT_FIELDS

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "realms" / "engine"
DOC = (ROOT / "docs" / "abilities.md").read_text()
KIND_NAMES = set(EFFECT_KINDS) | {"lasting", "ongoing", "modifier", "removal"}


def _names_a_kind(node: ast.AST) -> bool:
    """A string constant naming an effect kind, or a collection of them."""
    if isinstance(node, ast.Constant):
        return node.value in KIND_NAMES
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return bool(node.elts) and all(isinstance(e, ast.Constant) and e.value in KIND_NAMES for e in node.elts)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("frozenset", "set"):
        return bool(node.args) and _names_a_kind(node.args[0])
    return False


def _reads_a_kind(node: ast.AST) -> bool:
    """An expression reading an effect's kind: `x.kind`, `x["kind"]`, a name with "kind" in it."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Attribute) and sub.attr == "kind":
            return True
        if isinstance(sub, ast.Subscript) and isinstance(sub.slice, ast.Constant) and sub.slice.value == "kind":
            return True
        if isinstance(sub, ast.Name) and "kind" in sub.id.lower():
            return True
    return False


def kind_branches(source: str) -> list[int]:
    """Lines that compare an effect's kind with a kind's name, or hold a collection of kind names."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            if any(_names_a_kind(x) for x in operands) and any(_reads_a_kind(x) for x in operands):
                lines.append(node.lineno)
        elif isinstance(node, ast.Tuple | ast.List | ast.Set) and _names_a_kind(node) and len(node.elts) > 1:
            lines.append(node.lineno)
    return sorted(set(lines))


def test_no_engine_module_outside_effects_branches_on_an_effect_kind():
    found = []
    for path in sorted(ENGINE.rglob("*.py")):
        if "effects" in path.relative_to(ENGINE).parts:
            continue
        found += [f"{path.relative_to(ROOT)}:{line}" for line in kind_branches(path.read_text())]
    assert found == [], "ask the kind (a property or hook of its module in realms/engine/effects/)"


def test_the_search_sees_a_kind_branch():
    source = (
        'if effect.kind in ("buff", "debuff") and effect.stat == "spd": pass\n'
        'x = a.amount if a.kind != "silence" else None\n'
        'GIVE = frozenset({"shield", "buff"})\n'
        'e = {"type": "damage", "via": "ongoing"}\n'
        'if e["type"] == "move": pass\n'
    )
    assert kind_branches(source) == [1, 2, 3]


def test_every_kind_module_declares_one_kind_and_the_registry_finds_it():
    modules = {p.stem for p in (ENGINE / "effects").glob("*.py")}
    for name, kind in KINDS.items():
        assert isinstance(kind, EffectKind) and kind.name == name
        assert name in modules, f"the kind {name!r} has no module of its own"


def test_each_selector_and_trigger_is_declared_once():
    assert len(selectors.NAMES) == len(selectors.SELECTORS)
    assert len(trigger_kinds.NAMES) == len(trigger_kinds.TRIGGERS)
    assert len({t.code for t in trigger_kinds.TRIGGERS}) == len(trigger_kinds.TRIGGERS)
    assert spec.SELECTORS == selectors.NAMES and spec.TRIGGERS == trigger_kinds.NAMES
    assert set(spec.ENEMY_PICKS) == {s.name for s in selectors.SELECTORS if s.enemy_pick}


def test_no_other_module_keeps_a_table_of_selectors_or_triggers():
    """A table naming several selectors or triggers outside their registries is a second place for them."""
    names = set(selectors.NAMES) | set(trigger_kinds.NAMES)
    # Words of their own too: the chosen unit and the acting one, event types, the order's phases.
    names -= {"target", "self", "battle_start", *EVENT_FIELDS}
    found = []
    for path in sorted(ENGINE.rglob("*.py")):
        if path.name in ("selectors.py", "trigger_kinds.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Dict | ast.Tuple | ast.List | ast.Set):
                elts = node.keys if isinstance(node, ast.Dict) else node.elts
                named = [e for e in elts if isinstance(e, ast.Constant) and e.value in names]
                if len(named) > 1:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert found == []


# --- the reference lists what the registries declare ------------------------------------------------------


def section(title: str) -> str:
    """The text of a docs/abilities.md section, to the next heading of its level or above."""
    level = title.split(" ")[0]
    start = DOC.index(title + "\n")
    rest = DOC[start + len(title):]
    ends = [m.start() for m in re.finditer(rf"^#{{1,{len(level)}}} ", rest, re.M)]
    return rest[: ends[0]] if ends else rest


def first_cells(table: str) -> list[str]:
    """The first cell of every row of the markdown tables in `table` (header and rule left out)."""
    rows = [line for line in table.splitlines() if line.startswith("|")]
    cells = [row.split("|")[1].strip() for row in rows]
    return [c for c in cells if c not in ("kind", "trigger", "selector", "words", "key") and not c.startswith("---")]


def test_the_reference_lists_every_effect_kind_and_no_other():
    listed = {name for cell in first_cells(section("## Effects")) for name in re.findall(r"`(\w+)`", cell)}
    assert listed == set(EFFECT_KINDS)


def test_the_reference_lists_every_lasting_kind_as_taking_persists():
    paragraph = section("## Effects").split("Every lasting effect (")[1].split(")")[0]
    assert set(re.findall(r"`(\w+)`", paragraph)) == {n for n, k in KINDS.items() if k.lasting}


def test_the_reference_lists_every_selector_and_no_other():
    listed = {name for cell in first_cells(section("## Selectors (`target` of an effect)"))
              for name in re.findall(r"`(\w+)`", cell)}
    assert listed == set(selectors.NAMES)


def test_the_reference_lists_every_trigger_with_its_words():
    fires = section("## Faction ability").split("Triggers:")[1].split("Conditions:")[0]
    assert [re.sub(r"`", "", c) for c in first_cells(fires)] == list(trigger_kinds.NAMES)
    words = first_cells(section("### When a faction ability fires"))
    assert [re.sub(r"`", "", c) for c in words] == list(trigger_kinds.NAMES)
    for trigger in trigger_kinds.TRIGGERS:
        row = next(line for line in section("### When a faction ability fires").splitlines()
                   if line.startswith(f"| `{trigger.name}` |"))
        assert f'"{text._capital(trigger.words)}"' in row, trigger.name
