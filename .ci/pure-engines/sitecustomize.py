"""Loaded first by every Python process started with this folder on PYTHONPATH: the engine packages (realms,
legends, simulate) are then imported from their .py sources under the project root, never from the C
extensions that `make install` compiles next to them. CI runs the engine tests so, and bench/batch_workers.py
--pure runs its processes so, without a second install."""

import importlib.machinery as _machinery
import sys as _sys
from pathlib import Path as _Path

_ROOT = str(_Path(__file__).resolve().parents[2])


class _PureEngines:
    """A finder placed before the others: a submodule of the three packages from its source file."""

    @classmethod
    def find_spec(cls, name, path=None, target=None):  # noqa: ARG003 - the finder protocol's signature
        if not path or name.split(".")[0] not in ("realms", "legends", "simulate"):
            return None
        for folder in path:
            if folder.startswith(_ROOT):
                finder = _machinery.FileFinder(folder, (_machinery.SourceFileLoader, _machinery.SOURCE_SUFFIXES))
                spec = finder.find_spec(name)
                if spec is not None:
                    return spec
        return None


_sys.meta_path.insert(0, _PureEngines)
