"""The append-only event log: typed, JSON-serialisable events with a schema version.

An event is a flat dict whose `type` names its kind; each game publishes the fields of every
kind (`EVENT_FIELDS`) and its `SCHEMA_VERSION`. Events are only ever appended.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, overload

Event = dict[str, Any]


class EventLog:
    """An append-only sequence of events; `append` and `record` are the only ways in.

    An engine records most events as compact records: one tuple `(type, value, ...)` holding the values of the
    type's documented fields in their order (the game's `EVENT_FIELDS`). Building that tuple is a fraction of
    the cost of a dict of 7 to 15 keys, and the log of a match that nobody reads is never turned into dicts.
    A record's value may be a tuple where the documented field is a list (a decision's legal actions, by
    reference to the tuple the state already holds): the dict turns every tuple into a list, as JSON would.
    Whatever is recorded must never change afterwards (tuples, strings, numbers, or values the engine replaces
    rather than mutates). Reading (`[i]`, iteration, `to_list`) gives the documented dicts, each built once.
    """

    __slots__ = ("_items", "_fields", "append", "record")

    def __init__(self, fields: Mapping[str, tuple[str, ...]] | None = None) -> None:
        """An empty log; `fields` names the fields of each record type (needed only when records are made)."""
        self._items: list[Any] = []
        self._fields: Mapping[str, tuple[str, ...]] = fields or {}
        self.append: Callable[[Event], None] = self._items.append
        self.record: Callable[[tuple[Any, ...]], None] = self._items.append

    def __len__(self) -> int:
        """How many events were logged."""
        return len(self._items)

    def __iter__(self) -> Iterator[Event]:
        """The events, oldest first."""
        return iter(self.to_list())

    @overload
    def __getitem__(self, index: int) -> Event: ...
    @overload
    def __getitem__(self, index: slice) -> list[Event]: ...

    def __getitem__(self, index: int | slice) -> Event | list[Event]:
        """One event by position, or a list of them by slice."""
        if isinstance(index, slice):
            return [self._event(i) for i in range(*index.indices(len(self._items)))]
        return self._event(index)

    def _event(self, index: int) -> Event:
        """The event at `index` as its dict (a record is turned into one, which then takes its place)."""
        item = self._items[index]
        if type(item) is tuple:
            item = self._items[index] = as_event(item, self._fields[item[0]])
        return item  # type: ignore[no-any-return]

    def to_list(self) -> list[Event]:
        """A copy of the events as a plain list of dicts (for storage or JSON)."""
        return [self._event(i) for i in range(len(self._items))]

    def of_type(self, *types: str) -> list[Event]:
        """The events of the given types, in order."""
        return [e for e in self.to_list() if e["type"] in types]


def as_event(record: tuple[Any, ...], fields: tuple[str, ...]) -> Event:
    """The documented dict of a record `(type, value, ...)`: its type, then each field with its value, every
    tuple within turned into a list."""
    event: Event = {"type": record[0]}
    for name, value in zip(fields, record[1:], strict=True):
        event[name] = plain(value)
    return event


def plain(value: Any) -> Any:
    """`value` with every tuple in it (at any depth of tuples and lists) turned into a list."""
    kind = type(value)
    if kind is tuple or kind is list:
        return [plain(v) for v in value]
    return value


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
