"""No function of the project is above cyclomatic complexity 15 (radon's measure) unless a reason is
written for it here: a function past that point is one that picks code by kind or does several steps
without naming them, and is where a change turns into a hunt.

A reason is removed when its function comes back under the bound (the test says so), so the list
only ever holds what is still true.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from radon.complexity import cc_visit
from radon.visitors import Class, Function

ROOT = Path(__file__).resolve().parents[1]
BOUND = 15
SOURCES = ("cardsdb", "realms", "legends", "simulate", "bench", "tests", "conftest.py", "setup.py", "manage.py")

# "path::Qualified.name": why it stays above the bound.
KNOWN_COMPLEX: dict[str, str] = {
    "bench/engine_ratios.py::bare_match": "the floor the engines' speed is measured against: one loop with no "
    "calls in it, so that splitting it would add the very cost it is there to leave out",
}


def python_files() -> list[Path]:
    """Every Python file of the project but migrations (generated, and never edited by hand)."""
    files: list[Path] = []
    for source in SOURCES:
        path = ROOT / source
        files.extend([path] if path.is_file() else sorted(path.rglob("*.py")))
    return [path for path in files if "migrations" not in path.parts]


def functions_of(blocks: list[Function | Class], owner: str = "") -> list[tuple[str, int]]:
    """Each function and method, and the functions nested in them, with its complexity (`Class.method`,
    `function.inner`). radon lists a class's methods among the blocks already, so classes are passed over."""
    found: list[tuple[str, int]] = []
    for block in blocks:
        if isinstance(block, Function):
            name = f"{owner}{block.fullname}"
            found.append((name, block.complexity))
            found += functions_of(block.closures, f"{name}.")
    return found


def measured() -> dict[str, int]:
    """The complexity of every function above the bound, by `path::name`."""
    above: dict[str, int] = {}
    for path in python_files():
        for name, complexity in functions_of(cc_visit(path.read_text(encoding="utf-8"))):
            if complexity > BOUND:
                above[f"{path.relative_to(ROOT).as_posix()}::{name}"] = complexity
    return above


@pytest.fixture(scope="module")
def above_bound() -> dict[str, int]:
    return measured()


def test_no_function_is_above_the_bound_without_a_written_reason(above_bound):
    unexplained = {name: cc for name, cc in above_bound.items() if name not in KNOWN_COMPLEX}
    assert not unexplained, (
        f"Functions above cyclomatic complexity {BOUND}: split them into named steps, or write why in "
        f"KNOWN_COMPLEX: {unexplained}")


def test_every_written_reason_is_still_needed(above_bound):
    stale = sorted(set(KNOWN_COMPLEX) - set(above_bound))
    assert not stale, f"These are at or under complexity {BOUND} now: remove their reasons: {stale}"
