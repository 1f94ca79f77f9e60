"""The shared spec checker of the engine core: every problem noted with its path, one error raised for all."""

from __future__ import annotations

from types import MappingProxyType

import pytest

from simulate.engine.checking import Checker
from simulate.engine.errors import SpecError


def test_a_checker_notes_every_problem_with_its_path_and_reads_on() -> None:
    check = Checker()
    data = {"name": "", "kind": "x", "amount": 9, "share": "half", "flag": 1, "extra": 0, "other": 1}
    assert check.text(data, "name", "spec") == ""
    assert check.choice(data, "kind", ("a", "b"), "spec") == ""
    assert check.integer(data, "amount", "spec", 0, 5) == 9
    assert check.number(data, "share", "spec", 0, 1) == 0.0
    assert check.boolean(data, "flag", "spec") is False
    assert check.integer(data, "missing", "spec", 0, 5) == 0
    check.unknown_keys(data, {"name", "kind", "amount", "share", "flag", "missing"}, "spec",
                       refused={"other": "is not a parameter of this kind"})
    assert check.errors == [
        ("spec.name", "must be a non-empty string"),
        ("spec.kind", "must be one of a, b (got 'x')"),
        ("spec.amount", "must be between 0 and 5"),
        ("spec.share", "must be a number"),
        ("spec.flag", "must be true or false"),
        ("spec.missing", "is required"),
        ("spec.extra", "is not a known field"),
        ("spec.other", "is not a parameter of this kind"),
    ]


def test_a_checker_raises_once_listing_every_problem() -> None:
    check = Checker()
    check.raise_if_failed(SpecError)  # nothing noted: nothing raised
    assert check.obj([], "spec") is None
    check.fail("spec.effects[0]", "is wrong")
    with pytest.raises(SpecError) as caught:
        check.raise_if_failed(SpecError)
    assert caught.value.errors == [("spec", "must be an object"), ("spec.effects[0]", "is wrong")]
    assert str(caught.value) == "spec: must be an object; spec.effects[0]: is wrong"


def test_marks_tell_whether_one_part_of_the_input_failed() -> None:
    check = Checker()
    check.fail("a", "first")
    mark = check.mark()
    assert not check.failed_since(mark)
    check.extend([("b", "nested"), ("c", "nested too")])
    assert check.failed_since(mark)
    assert check.errors == [("a", "first"), ("b", "nested"), ("c", "nested too")]


def test_mappings_are_read_where_objects_must_be_dicts() -> None:
    check = Checker()
    view = MappingProxyType({"slug": "x"})
    assert check.mapping(view, "card") is view
    assert check.obj(view, "card") is None
    assert check.mapping("x", "card", "must be an object {kind, element}") is None
    assert check.errors == [("card", "must be an object"), ("card", "must be an object {kind, element}")]
