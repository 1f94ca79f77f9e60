"""How the pages word what the rules say. The rules engines know cards by slug and name one in a message as
the quoted slug ('iron-guardian'); a page shows the card's name there (Iron Guardian). A slug the catalogue
does not have stays as it was quoted, so that the message still says which text was not a card."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from cardsdb.models import Card

QUOTED_SLUG = re.compile(r"'([\w-]+)'")


def card_names(slugs: Iterable[str]) -> dict[str, str]:
    """The names of the cards of both games with these slugs (one query)."""
    wanted = set(slugs)
    return dict(Card.objects.filter(slug__in=wanted).values_list("slug", "name")) if wanted else {}


def with_card_names(message: str, names: Mapping[str, str]) -> str:
    """`message` with every quoted slug of a card in `names` replaced by the card's name."""
    return QUOTED_SLUG.sub(lambda found: names.get(found.group(1), found.group(0)), message)


def named_violations(violations: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Rule violations as a page shows them: each message naming its cards by name (the rest unchanged)."""
    names = card_names(slug for violation in violations for slug in QUOTED_SLUG.findall(str(violation["message"])))
    return [{**violation, "message": with_card_names(str(violation["message"]), names)} for violation in violations]
