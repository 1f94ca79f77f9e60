"""The string fields of every input serializer: a JSON string only, never a number or a boolean.

DRF's CharField reads `0` as "0" and `true` as "True", its SlugRelatedField looks `0` up as the slug "0" and
its ChoiceField compares `1` with the choice "1": a client that sent a number by mistake would get its value
stored as text. Every input serializer takes its strings through the fields here: the explicit ones, and
those ModelSerializer makes from model fields (`MODEL_FIELD_MAPPING`, `TextChoiceField`, used by
cardsdb.api.serializers.ValidatedModelSerializer). A value of another type answers 400 "Not a valid string."
under its dotted path, at any depth (a list's items, a nested object's keys).
"""

from typing import TYPE_CHECKING

from rest_framework import serializers

NOT_A_STRING = "Not a valid string."

if TYPE_CHECKING:  # what StringOnly is mixed into, for the type checker
    _Field = serializers.Field
else:
    _Field = object


def refuse_non_string(value) -> None:
    """Raise the field error of a value that is not a JSON string."""
    if not isinstance(value, str):
        raise serializers.ValidationError(NOT_A_STRING, code="invalid")


class StringOnly(_Field):
    """A field of DRF's CharField family (or any field reading text) that takes JSON strings only."""

    def to_internal_value(self, data):
        refuse_non_string(data)
        return super().to_internal_value(data)


class TextField(StringOnly, serializers.CharField):
    """A JSON string: never a number or a boolean."""


class SlugTextField(StringOnly, serializers.SlugField):
    """A slug, given as a JSON string."""


class URLTextField(StringOnly, serializers.URLField):
    """A URL, given as a JSON string."""


class EmailTextField(StringOnly, serializers.EmailField):
    """An e-mail address, given as a JSON string."""


class IPAddressTextField(StringOnly, serializers.IPAddressField):
    """An IP address, given as a JSON string."""


class SlugTextRelatedField(StringOnly, serializers.SlugRelatedField):
    """A row named by a slug (or code), given as a JSON string: `0` is not looked up as "0"."""


class TextChoiceField(serializers.ChoiceField):
    """One of a closed list of strings, given as a JSON string (`1` is not the choice "1")."""

    def to_internal_value(self, data):
        if all(isinstance(choice, str) for choice in self.choices):
            refuse_non_string(data)
        return super().to_internal_value(data)


# DRF's field of each model field, its CharField family swapped for the string-only fields above.
STRING_ONLY = {
    serializers.CharField: TextField,
    serializers.SlugField: SlugTextField,
    serializers.URLField: URLTextField,
    serializers.EmailField: EmailTextField,
    serializers.IPAddressField: IPAddressTextField,
}
MODEL_FIELD_MAPPING = {
    model_field: STRING_ONLY.get(field, field)
    for model_field, field in serializers.ModelSerializer.serializer_field_mapping.items()
}
