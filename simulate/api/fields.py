"""JSON-typed request fields of the simulate API: `"5"` is not a number, `1` not a string, `"true"` not a
boolean (cardsdb.api.fields types text)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from cardsdb.api.serializers import MAX_ID
from simulate.services import SEED_LIMIT


class WholeNumberField(serializers.IntegerField):
    """A JSON integer (3, or 3.0): never a string, a boolean or a fraction."""

    def to_internal_value(self, data):
        if isinstance(data, float) and data.is_integer() and abs(data) <= 2**64:
            data = int(data)
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


class TrueFalseField(serializers.BooleanField):
    """A JSON boolean: never `"true"`, `1` or `"yes"`."""

    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("invalid")
        return data


class NumberField(serializers.FloatField):
    """A JSON number (0.05, or 1): never a string or a boolean."""

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, (int, float)):
            self.fail("invalid")
        return super().to_internal_value(data)


class OneOfField(serializers.ChoiceField):
    """One of a few JSON strings or integers, given as such (`"1"` is not 1)."""

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, (str, int)) or data not in self.choices:
            self.fail("invalid_choice", input=data)
        return data

    def to_representation(self, value):
        return value


def one_of(values: Iterable[Any], **kwargs) -> OneOfField:
    """A field taking one of `values`, its enum documented inline (inside `anyOf`, so that the schema's
    enum hook does not make a shared component of it, named after the field and colliding with others)."""
    values = list(values)
    kinds = {type(value) for value in values}
    schema: dict[str, Any] = {"anyOf": [{"type": "integer" if kinds == {int} else "string", "enum": values}]}
    if kwargs.get("allow_null"):
        schema["nullable"] = True
    field_class = extend_schema_field(schema)(type("OneOf", (OneOfField,), {}))
    return field_class(choices=[(value, str(value)) for value in values], **kwargs)


def seed_field(**kwargs) -> WholeNumberField:
    return WholeNumberField(min_value=0, max_value=SEED_LIMIT, **kwargs)


def id_field(**kwargs) -> WholeNumberField:
    """A row id: 1 to 2^63 - 1."""
    return WholeNumberField(min_value=1, max_value=MAX_ID, **kwargs)
