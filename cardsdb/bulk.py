"""Bulk data: one gzipped JSON file per game holding its whole catalogue, built once per catalogue version.

A game describes its file in its own `bulk` module (`realms.bulk.CATALOGUE`, `legends.bulk.CATALOGUE`): the
card lists and the rows needed to read them, each with the queryset and serializer of its API list, and
what else its answers depend on (the latest field study, for the `simulated` block).

The version of a game's catalogue is computed, not stored: a digest of, for each card model, the count,
the largest id and the latest `updated_at` (a card saved, added or deleted changes one of them), of every
row of the small tables (sets, rarities, factions, races, elements: an edit or a deletion there shows) and
of the extra parts. Computing it is a handful of aggregate queries; no signal or migration is needed.

The file of a version is written under `BULK_ROOT` (default MEDIA_ROOT/bulk) as `{game}-{version}.json.gz`
with its metadata beside it. A builder holds an exclusive lock on the game's lock file, so concurrent first
requests build it once: the others wait, then find it. It is written to a temporary file and renamed into
place, so no reader ever sees half a file. A catalogue that changed during the build is built again.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import fcntl
import gzip
import hashlib
import importlib
import json
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db.models import Count, Max, Model, QuerySet
from rest_framework.serializers import BaseSerializer

# Each game's catalogue, by dotted path (imported when first needed: cardsdb imports no game).
CATALOGUES = {"realms": "realms.bulk.CATALOGUE", "legends": "legends.bulk.CATALOGUE"}
FORMAT = 1  # bumped when the shape of the file changes, so older files are not served for new code
ATTEMPTS = 3
MEDIA_TYPE = "application/gzip"


@dataclasses.dataclass(frozen=True)
class Part:
    """One list of the file: its key, its rows and the serializer of the API list that shows them."""

    key: str
    rows: Callable[[], QuerySet]
    serializer: type[BaseSerializer]


@dataclasses.dataclass(frozen=True)
class Catalogue:
    """What the file of one game holds, and what else its answers depend on."""

    game: str
    cards: tuple[Part, ...]
    related: tuple[Part, ...]
    extra_version: Callable[[], Any] = lambda: None


@dataclasses.dataclass(frozen=True)
class BulkFile:
    """A built file: where it is and what a listing or a download says about it."""

    game: str
    version: str
    path: Path
    size: int
    sha256: str
    card_count: int
    updated_at: dt.datetime

    @property
    def etag(self) -> str:
        return f'"{self.version}"'

    @property
    def filename(self) -> str:
        return f"{self.game}.json.gz"


def catalogue(game: str) -> Catalogue:
    """The catalogue of a game (KeyError for a game with no bulk file)."""
    module, _, name = CATALOGUES[game].rpartition(".")
    return getattr(importlib.import_module(module), name)


def bulk_root() -> Path:
    return Path(getattr(settings, "BULK_ROOT", None) or Path(settings.MEDIA_ROOT) / "bulk")


def catalogue_version(game: str) -> str:
    """A digest that changes whenever a card or a related row of the game is saved, added or deleted."""
    described = catalogue(game)
    parts: dict[str, Any] = {"format": FORMAT, "game": game, "extra": described.extra_version()}
    for part in described.cards:
        parts[part.key] = part.rows().order_by().aggregate(
            count=Count("pk"), last_id=Max("pk"), last_change=Max("updated_at")
        )
    for part in described.related:
        model: type[Model] = part.rows().model
        fields = [field.attname for field in model._meta.concrete_fields]
        parts[part.key] = list(part.rows().order_by("pk").values_list(*fields))
    text = json.dumps(parts, cls=DjangoJSONEncoder, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def catalogue_document(game: str) -> dict[str, Any]:
    """The file's content: every card of the game as its API lists show them, and the rows to read them.
    URLs are paths (the file is the same whatever host serves it)."""
    described = catalogue(game)
    context: dict[str, Any] = {}  # shared, as one API answer shares it (the field study is read once)
    document: dict[str, Any] = {"format": FORMAT, "game": game}
    for section, parts in (("cards", described.cards), ("related", described.related)):
        document[section] = {
            part.key: part.serializer(part.rows(), many=True, context=context).data for part in parts
        }
    document["card_count"] = sum(len(rows) for rows in document["cards"].values())
    return document


def bulk_file(game: str) -> BulkFile:
    """The file of the game's current catalogue, built if it is not there yet (at most once per version)."""
    for _ in range(ATTEMPTS):
        version = catalogue_version(game)
        found = _stored(game, version)
        if found is not None:
            return found
        with _build_lock(game):
            found = _stored(game, version)  # another request built it while this one waited
            if found is not None:
                return found
            document = catalogue_document(game)
            if catalogue_version(game) != version:
                continue  # edited during the build: the document may mix two versions
            built = _store(game, version, document)
            _prune(game, keep=version)
            return built
    raise RuntimeError(f"The {game} catalogue kept changing during {ATTEMPTS} builds of its bulk file.")


def open_bulk_file(game: str) -> tuple[BulkFile, IO[bytes]]:
    """The current file and an open handle on it, for the caller to close; a file pruned between finding
    and opening it is found again (a handle already open stays readable after the file is replaced)."""
    for _ in range(ATTEMPTS):
        found = bulk_file(game)
        try:
            return found, found.path.open("rb")
        except FileNotFoundError:
            continue
    raise RuntimeError(f"The {game} bulk file kept being replaced while it was opened.")


def _paths(game: str, version: str) -> tuple[Path, Path]:
    base = bulk_root() / f"{game}-{version}"
    return base.with_suffix(".json.gz"), base.with_suffix(".meta.json")


def _stored(game: str, version: str) -> BulkFile | None:
    data, meta = _paths(game, version)
    try:
        facts = json.loads(meta.read_text())
    except FileNotFoundError:
        return None
    if not data.exists():  # the metadata is renamed into place first: the data follows or was pruned
        return None
    return BulkFile(
        game=game, version=version, path=data, size=facts["size"], sha256=facts["sha256"],
        card_count=facts["card_count"], updated_at=dt.datetime.fromisoformat(facts["updated_at"]),
    )


def _store(game: str, version: str, document: dict[str, Any]) -> BulkFile:
    data, meta = _paths(game, version)
    # mtime=0: the same document always compresses to the same bytes (and sha256).
    payload = gzip.compress(json.dumps(document, cls=DjangoJSONEncoder).encode(), mtime=0)
    # Whole seconds: Last-Modified and If-Modified-Since have no finer unit.
    built_at = dt.datetime.now(dt.UTC).replace(microsecond=0)
    facts = {
        "size": len(payload), "sha256": hashlib.sha256(payload).hexdigest(),
        "card_count": document["card_count"], "updated_at": built_at.isoformat(),
    }
    _write_atomically(meta, json.dumps(facts).encode())
    _write_atomically(data, payload)
    return _stored(game, version)  # type: ignore[return-value]


def _write_atomically(path: Path, content: bytes) -> None:
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(content)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


@contextlib.contextmanager
def _build_lock(game: str) -> Iterator[None]:
    root = bulk_root()
    root.mkdir(parents=True, exist_ok=True)
    with (root / f"{game}.lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _prune(game: str, *, keep: str) -> None:
    """Delete the game's files of other versions (a reader holding one open still reads it to the end)."""
    for path in bulk_root().glob(f"{game}-*"):
        if not path.name.startswith(f"{game}-{keep}."):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
