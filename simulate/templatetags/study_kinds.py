"""Template filters of the study pages."""

from django import template

from simulate.study_kinds import kind_label as label_of

register = template.Library()


@register.filter
def kind_label(kind: str) -> str:
    """A kind of study as the pages name it (`{{ batch.kind|kind_label }}`)."""
    return label_of(kind)
