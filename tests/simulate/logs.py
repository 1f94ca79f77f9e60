"""Reading a match's log through the API, and checking its events against the documented log."""

from __future__ import annotations

import functools
from typing import Any

import jsonschema

from simulate.api.schema import event_schemas


def served_log(client: Any, url: str) -> list[dict[str, Any]]:
    """Every event of a match's log, page after page, as the API serves it."""
    events: list[dict[str, Any]] = []
    page_url: str | None = url + "?page_size=200"
    while page_url:
        page = client.get(page_url).json()
        events += page["results"]
        page_url = page["next"]
    return events


@functools.cache
def _validators() -> dict[str, list[jsonschema.Draft7Validator]]:
    by_type: dict[str, list[jsonschema.Draft7Validator]] = {}
    for schema in event_schemas():
        by_type.setdefault(schema["properties"]["type"]["enum"][0], []).append(jsonschema.Draft7Validator(schema))
    return by_type


def documented(event: dict[str, Any]) -> bool:
    """Whether the event fits the OpenAPI log items: a oneOf of closed objects, so exactly one of them (only those
    of the event's own type can) accepts it."""
    return sum(v.is_valid(event) for v in _validators().get(event["type"], [])) == 1
