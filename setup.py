"""The package build: setuptools reads pyproject.toml; this file adds the compiled engines.

The pure-Python rules engines are compiled with mypyc (from mypy) when the build can: the same typed
source, a C extension beside each module, which Python imports in its place. Without a compiler, or
with CARDSDB_PURE_PYTHON=1, the build installs the source alone and everything runs as plain Python.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
# The engines (pure Python: the standard library and the engines only). Every module of theirs is compiled, read
# off the tree, so a new module (a new effect kind, say) is compiled with no edit here; the `make install` line
# counts them from the same list (Makefile, ENGINE_MODULES), and tests/engine/test_compiled_modules.py fails if an
# installed build leaves one interpreted.
ENGINES = ("simulate/engine", "realms/engine", "legends/engine")
# mypyc writes one C file per module (multi_file), which gcc compiles in parallel, a job per core: a fraction of
# the time of one 20 MB file compiled serially, and less memory.
COMPILE_JOBS = max(1, int(os.environ.get("CARDSDB_COMPILE_JOBS", "0")) or os.cpu_count() or 1)


def compiled_modules() -> list[str]:
    """Every engine module, as paths from the root, sorted: mypyc reads the imports itself (mypy's graph of the
    whole group), so the order given to it changes nothing but the hashed name of the shared library."""
    return sorted({path.relative_to(ROOT).as_posix() for engine in ENGINES for path in (ROOT / engine).rglob("*.py")})


COMPILED = compiled_modules()


def progress(message: str) -> None:
    """One line of the build's progress, at once (`make install` shows the lines that start with "mypyc:")."""
    print(f"mypyc: {message}", file=sys.stderr, flush=True)


def compiled_engines() -> list:  # type: ignore[type-arg]
    """The mypyc extensions, or none when the build cannot make them (the source then runs as is)."""
    if os.environ.get("CARDSDB_PURE_PYTHON") == "1":
        return []
    try:
        from mypyc.build import mypycify

        started = time.monotonic()
        # The engines' own strict check, not the project's mypy settings: their Django plugins are not installed
        # where the package is built (a plugin that cannot be imported stops mypy, and so the build).
        options = ["--config-file=", "--strict"]
        extensions = mypycify([*options, *(str(ROOT / p) for p in COMPILED)], opt_level="3", multi_file=True)
        progress(f"{len(COMPILED)} engine modules type-checked and translated to C in {time.monotonic() - started:.0f} s")
        return extensions
    except Exception as exc:  # noqa: BLE001 - any failure leaves the pure-Python engines in place
        progress(f"the engines stay pure Python ({type(exc).__name__}: {exc})")
        return []


def compile_in_parallel(compiler: Any, jobs: int) -> None:
    """Make `compiler` (distutils' CCompiler) compile the sources of one extension `jobs` at a time: it compiles
    them one after the other, and mypyc's C files are many and independent until they are linked."""
    serial = compiler.compile

    def compile_sources(sources: list[str], *args: Any, **kwargs: Any) -> list[str]:
        with ThreadPoolExecutor(jobs) as pool:  # each thread waits on its gcc process
            done = list(pool.map(lambda source: serial([source], *args, **kwargs), sources))
        return [obj for objects in done for obj in objects]

    compiler.compile = compile_sources


class BuildExtensions(build_ext):
    """setuptools' build_ext, compiling the engines' C files in parallel and saying when the long compilation
    starts and, every 30 s, that it still runs.

    mypyc puts the C of every module in one shared library (`<hash>__mypyc`), one C file per module: gcc's part
    of the build. Each module's own small extension, which imports its part, takes a fraction of a second.
    """

    def build_extension(self, ext: Extension) -> None:
        if not ext.name.endswith("__mypyc"):
            super().build_extension(ext)
            return
        compile_in_parallel(self.compiler, COMPILE_JOBS)
        progress(f"gcc compiles the C of all {len(self.extensions) - 1} modules ({len(ext.sources)} files, "
                 f"{COMPILE_JOBS} at a time): the long step")
        started = time.monotonic()
        done = threading.Event()

        def still_compiling() -> None:
            while not done.wait(30):
                progress(f"still compiling, {time.monotonic() - started:.0f} s")

        threading.Thread(target=still_compiling, daemon=True).start()
        try:
            super().build_extension(ext)
        finally:
            done.set()
        progress(f"C compiled in {time.monotonic() - started:.0f} s; then each module's small extension")


if __name__ == "__main__":  # as setuptools runs it (pip, build_ext); tests import it for `compiled_modules`
    setup(ext_modules=compiled_engines(), cmdclass={"build_ext": BuildExtensions})
