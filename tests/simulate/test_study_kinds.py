"""Kinds of study are modules of one registry: each declares what the doors and the runner ask of it, and
the runner, the API, the pages and the command line name none."""

import re
from pathlib import Path

import pytest
from django.template.loader import get_template

from simulate import services
from simulate.engine.errors import InputError
from simulate.study_kinds import KINDS, REGISTERED, study_kind
from simulate.study_kinds.base import StudyKind

SIMULATE = Path(services.__file__).resolve().parent
KIND_NAMES = re.compile("[\"'](" + "|".join(REGISTERED) + ")[\"']")
# Where no kind may be named: the batch runner, the API, the pages (their templates too) and the command.
DOORS = ["studies.py", "batches.py", "tasks.py", "background.py", "services.py", "selectors.py", "api",
         "pages", "management", "templates/simulate/pages"]


def test_every_registered_kind_is_its_modules_kind_with_a_partial_of_its_own():
    assert list(KINDS) == list(REGISTERED)
    for name, kind in KINDS.items():
        assert isinstance(kind, StudyKind) and kind.name == name and study_kind(name) is kind
        assert kind.label and kind.description
        assert kind.template == f"simulate/studies/{name}.html" and get_template(kind.template)


def test_every_kind_name_fits_the_column_a_study_keeps_it_in():
    from simulate.models import Batch

    longest = Batch._meta.get_field("kind").max_length
    assert all(len(name) <= longest for name in REGISTERED), [name for name in REGISTERED if len(name) > longest]


def test_a_kind_reads_no_key_every_study_has():
    common = {"kind", "count", "seed", "swap_sides", "agents", "options"}
    assert not [(name, kind.keys & common) for name, kind in KINDS.items() if kind.keys & common]


def test_an_unknown_kind_is_refused_at_kind():
    with pytest.raises(InputError) as refused:
        study_kind("tournament")
    assert refused.value.errors == [("kind", "unknown")]


def test_the_runner_the_api_the_pages_and_the_command_name_no_kind():
    files = [path for door in DOORS for path in ([SIMULATE / door] if (SIMULATE / door).is_file()
                                                 else sorted((SIMULATE / door).rglob("*.*")))
             if path.suffix in (".py", ".html")]
    # A template's class names (`class="field"`) are not kinds.
    named = {str(path.relative_to(SIMULATE)): KIND_NAMES.findall(re.sub(r'class="[^"]*"', "", path.read_text()))
             for path in files}
    assert files and not {path: names for path, names in named.items() if names}
