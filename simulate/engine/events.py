"""The append-only event log: typed, JSON-serialisable events with a schema version.

An event is a flat dict whose `type` names its kind; each game publishes the fields of every
kind (`EVENT_FIELDS`) and its `SCHEMA_VERSION`. Events are only ever appended.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

Event = dict[str, Any]


class EventLog:
    """An append-only sequence of events; `append` is the only way in."""

    __slots__ = ("_events", "append")

    def __init__(self) -> None:
        """An empty log."""
        self._events: list[Event] = []
        self.append: Callable[[Event], None] = self._events.append

    def __len__(self) -> int:
        """How many events were logged."""
        return len(self._events)

    def __iter__(self) -> Iterator[Event]:
        """The events, oldest first."""
        return iter(self._events)

    def __getitem__(self, index: int) -> Event:
        """One event by position."""
        return self._events[index]

    def to_list(self) -> list[Event]:
        """A copy of the events as a plain list (for storage or JSON)."""
        return list(self._events)

    def of_type(self, *types: str) -> list[Event]:
        """The events of the given types, in order."""
        return [e for e in self._events if e["type"] in types]


def dumps(events: Iterable[Event]) -> str:
    """The log as compact, deterministic JSON (same events, same bytes)."""
    return json.dumps(list(events), separators=(",", ":"), ensure_ascii=False)


def loads(text: str) -> list[Event]:
    """Events back from `dumps` output."""
    data = json.loads(text)
    if not isinstance(data, list):
        raise ValueError("An event log is a JSON list.")
    return data


def compress(events: Iterable[Event]) -> bytes:
    """The log as zlib-compressed compact JSON, for storing many matches (a few KB each)."""
    return zlib.compress(dumps(events).encode(), 6)


def decompress(blob: bytes) -> list[Event]:
    """Events back from `compress` output."""
    return loads(zlib.decompress(blob).decode())


def schema_problems(events: Iterable[Event], fields: Mapping[str, tuple[str, ...]]) -> list[str]:
    """Every event whose type is unknown or whose keys differ from its documented fields."""
    problems: list[str] = []
    for index, event in enumerate(events):
        kind = event.get("type")
        expected = fields.get(kind)  # type: ignore[arg-type]
        if expected is None:
            problems.append(f"#{index}: unknown event type {kind!r}")
            continue
        keys = set(event) - {"type"}
        if keys != set(expected):
            missing = sorted(set(expected) - keys)
            extra = sorted(keys - set(expected))
            problems.append(f"#{index} {kind}: missing {missing}, unexpected {extra}")
    return problems


def render_lines(events: Iterable[Event], handlers: Mapping[str, Callable[[Event, Any], list[str]]],
                 names: Any) -> str:
    """A game's play-by-play: each event through its type's handler (unknown types shown by name)."""
    out: list[str] = []
    for event in events:
        handler = handlers.get(event.get("type", ""))
        out.extend(handler(event, names) if handler else [f"  ({event.get('type')})"])
    return "\n".join(out)
